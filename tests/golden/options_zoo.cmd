options zoo

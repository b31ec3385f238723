options zoo nosuch

zoo --zoo data/zoo

zoo --zoo data/zoo b200

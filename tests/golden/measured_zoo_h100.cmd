zoo --zoo data/zoo h100

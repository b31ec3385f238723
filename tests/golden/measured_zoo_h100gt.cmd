zoo --zoo data/zoo h100-gt

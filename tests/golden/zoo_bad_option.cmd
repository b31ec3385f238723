zoo --zoo data/zoo --frobnicate

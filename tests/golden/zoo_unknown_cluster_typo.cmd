zoo --zoo data/zoo gb200-nvl7 --json

zoo gb200-nvl72

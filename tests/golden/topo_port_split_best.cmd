topo --model dlrm --servers 64 --degree 4 --port-split best

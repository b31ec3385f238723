topo --model dlrm --servers 64 --port-split widest

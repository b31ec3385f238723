topo --model dlrm --servers 64 --port-split best --ar-degree 2

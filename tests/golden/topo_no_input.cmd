topo --servers 8

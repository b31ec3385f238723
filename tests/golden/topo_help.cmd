topo --help

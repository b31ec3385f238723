topo --traffic tests/golden/inputs/topo_bad.csv --servers 8

topo --traffic tests/golden/inputs/topo_ar8.csv --servers 100000

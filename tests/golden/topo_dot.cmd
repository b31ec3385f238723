topo --traffic tests/golden/inputs/topo_ring_mp8.csv --servers 8 --degree 4 --ar-degree 2 --port-gbit 80 --dot "$T/t.dot" > /dev/null && cat "$T/t.dot"

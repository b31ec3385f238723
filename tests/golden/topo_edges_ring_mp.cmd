topo --traffic tests/golden/inputs/topo_ring_mp8.csv --servers 8 --degree 3 --ar-degree 2 --port-gbit 80 --edges "$T/e.txt" > /dev/null && cat "$T/e.txt"

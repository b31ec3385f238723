topo --traffic tests/golden/inputs/topo_ar8.csv --servers 8 --degree 2 --port-gbit 80 --edges "$T/e.txt" --dot "$T/g.dot" > /dev/null && cat "$T/e.txt" "$T/g.dot"

topo --traffic tests/golden/inputs/topo_ar8_d04.csv --servers 8 --degree 2 --routes "$T/r.txt" > /dev/null && cat "$T/r.txt"

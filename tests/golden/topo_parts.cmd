topo --traffic tests/golden/inputs/topo_ar16.csv --servers 16 --degree 2 --radix 4 --parts tests/golden/inputs/parts_nic1200.yml

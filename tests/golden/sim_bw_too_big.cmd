simulate tests/golden/inputs/small.yml --bw 1e308,1,1

simulate tests/golden/inputs/small.yml --bw 1e-7,1,1

simulate tests/golden/inputs/small.yml --bw 1000 --bw=500

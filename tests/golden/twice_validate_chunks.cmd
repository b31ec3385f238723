validate tests/golden/inputs/small.yml --chunks 4 --chunks 8

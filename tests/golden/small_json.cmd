optimize tests/golden/inputs/small.yml --json

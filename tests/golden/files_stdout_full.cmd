optimize tests/golden/inputs/small.yml >/dev/full

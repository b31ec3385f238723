optimize tests/golden/inputs/small.yml --bogus

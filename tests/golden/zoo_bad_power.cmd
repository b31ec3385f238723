zoo --zoo tests/golden/inputs/zoo_bad_power ok

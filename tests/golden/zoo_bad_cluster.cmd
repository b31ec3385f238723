zoo --zoo tests/golden/inputs/zoo_bad_cluster nvl

zoo tests/golden/inputs/zoo_bad_heads.yml

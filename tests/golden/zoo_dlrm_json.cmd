zoo tests/golden/inputs/zoo_dlrm_small.yml --json

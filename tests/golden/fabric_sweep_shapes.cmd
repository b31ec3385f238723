sweep tests/golden/inputs/sweep_fabric.yml --zoo data/zoo

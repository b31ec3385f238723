sweep tests/golden/inputs/sweep_grid.yml --threads 2

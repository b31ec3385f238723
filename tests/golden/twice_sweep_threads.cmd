sweep tests/golden/inputs/sweep_grid.yml --threads 2 --threads 3

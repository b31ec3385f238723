optimize tests/golden/inputs/scenario_cluster.yml --zoo data/zoo

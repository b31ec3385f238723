optimize tests/golden/inputs/scenario_tpu_pod.yml --zoo data/zoo

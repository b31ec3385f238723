optimize tests/golden/inputs/model_comm.yml

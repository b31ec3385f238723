optimize tests/golden/inputs/model_gpt3_tp8.yml

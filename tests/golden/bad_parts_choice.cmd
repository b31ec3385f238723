optimize --network tests/golden/inputs/bad_parts_choice.yml --workload data/gpt3/gpt3_175b_tp16.txt --communicator data/gpt3/comm_tp16_dp256.yml

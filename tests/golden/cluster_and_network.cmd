optimize --model megatron-22b --tp 8 --cluster dgx-a100 --npus 16 --network tests/golden/inputs/net_cluster.yml --cost-model data/validation/cost.yml

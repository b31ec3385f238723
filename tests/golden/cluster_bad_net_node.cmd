optimize --model megatron-22b --tp 8 --network tests/golden/inputs/bad_net_cluster_node.yml --cost-model data/validation/cost.yml --zoo data/zoo

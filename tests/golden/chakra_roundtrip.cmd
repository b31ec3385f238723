workload --model mixtral-8x7b --tp 2 --pp 4 --ep 2 --recompute full --device mi325x --compact --network data/astra-sim2/inputs/sw8_sw2.yml -o "$T/w" --chakra "$T/tr"

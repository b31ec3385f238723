workload --model bert-large --network data/astra-sim2/inputs/fc4_sw2.yml --tp 4 --pp 2 --compact -o "$T/w" --chakra tests/fixtures/net_2d.yml

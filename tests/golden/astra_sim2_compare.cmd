workload --model bert-large --tp 8 --compact --network data/astra-sim2/inputs/fc8.yml -o "$T/w" --chakra "$T/tr" --chunks 4

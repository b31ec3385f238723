optimize tests/golden/inputs/gpt3_links.yml --max-nodes 1

optimize tests/golden/inputs/gpt3_links.yml

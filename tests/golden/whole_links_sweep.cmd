sweep tests/golden/inputs/gpt3_links.yml

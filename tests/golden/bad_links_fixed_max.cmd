optimize tests/golden/inputs/gpt3_links.yml --constraint 'B1 = 900'

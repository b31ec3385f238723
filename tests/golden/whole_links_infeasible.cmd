optimize tests/golden/inputs/gpt3_links.yml --link-gbps 150,150,150,150 --max-links 0,0,0,0

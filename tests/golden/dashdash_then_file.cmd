optimize --json -- tests/golden/inputs/small.yml

optimize tests/golden/inputs/small.yml --export-astra ''

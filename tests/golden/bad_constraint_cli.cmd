optimize tests/golden/inputs/small.yml --constraint 'B1 >=* 3' --export-astra "$T/astra.yml"

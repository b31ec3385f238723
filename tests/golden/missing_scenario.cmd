optimize tests/golden/inputs/no_such_file.yml --export-astra "$T/astra.yml"

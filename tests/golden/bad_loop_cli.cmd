optimize tests/golden/inputs/small.yml --loop fwd-ig --export-astra "$T/astra.yml"

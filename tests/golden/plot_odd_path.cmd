optimize tests/golden/inputs/small.yml --plot "$T/it's a \"plot\" \$(touch x) |.svg"

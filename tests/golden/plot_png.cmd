optimize tests/golden/inputs/small.yml --plot "$T/fig.png"

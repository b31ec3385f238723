optimize tests/golden/inputs/small.yml --plot "$T/fig.pdf" >/dev/null

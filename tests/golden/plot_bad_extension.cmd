optimize tests/golden/inputs/small.yml --plot fig.jpg

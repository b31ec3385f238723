optimize tests/golden/inputs/small.yml --plot tests/golden/inputs/no-such-dir/fig.png

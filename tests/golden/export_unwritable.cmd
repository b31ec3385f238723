optimize tests/golden/inputs/small.yml --export-astra tests/golden/inputs/no-such-dir/astra.yml

optimize tests/golden/inputs/small.yml --export-astra /nonexistent-weft-dir/net.yml

zoo --parts --parts-file tests/golden/inputs/bad_parts_price.yml

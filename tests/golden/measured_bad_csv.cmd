zoo --zoo tests/fixtures/mzoo_bad bad

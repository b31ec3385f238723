zoo --zoo tests/fixtures/mzoo fix --json

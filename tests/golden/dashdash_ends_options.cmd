optimize -- --json

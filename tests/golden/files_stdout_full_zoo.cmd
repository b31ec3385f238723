zoo --json >/dev/full

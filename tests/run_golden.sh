#!/bin/sh
# run_golden.sh — golden CLI tests. Each tests/golden/NAME.cmd holds the weft
# arguments (one line, run from the repo root); NAME.out the exact stdout,
# NAME.rc the expected exit status (0 when absent). $WEFT_WRAP wraps the call
# (e.g. valgrind). Prints "golden: N passed, M failed".
BUILD=${1:-build}
WEFT="$PWD/$BUILD/weft"
pass=0; fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for cmd in tests/golden/*.cmd; do
  [ -e "$cmd" ] || continue
  name=${cmd%.cmd}
  want_rc=0; [ -f "$name.rc" ] && want_rc=$(cat "$name.rc")
  args=$(cat "$cmd")
  eval "$WEFT_WRAP \"$WEFT\" $args" >"$tmp/out" 2>"$tmp/err"; rc=$?
  ok=1
  [ "$rc" = "$want_rc" ] || { echo "FAIL $name: exit $rc, expected $want_rc"; ok=0; }
  if [ -f "$name.out" ] && ! cmp -s "$tmp/out" "$name.out"; then
    echo "FAIL $name: stdout differs"; diff "$name.out" "$tmp/out" | head -20; ok=0
  fi
  if [ -f "$name.err" ] && ! cmp -s "$tmp/err" "$name.err"; then
    echo "FAIL $name: stderr differs"; diff "$name.err" "$tmp/err" | head -20; ok=0
  fi
  if [ $ok = 1 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
done
echo "golden: $pass passed, $fail failed"
[ $fail -eq 0 ]

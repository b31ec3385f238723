#!/bin/sh
# run_golden.sh — golden CLI tests. Each tests/golden/NAME.cmd holds the weft
# arguments (one line, run from the repo root); NAME.out the exact stdout,
# NAME.err the exact stderr (each compared only when present), NAME.rc the
# expected exit status (0 when absent). $T is a fresh, empty scratch directory
# per test, usable in NAME.cmd (e.g. --export-astra "$T/net.yml"), written as
# the literal $T wherever it appears in stdout or stderr; a test that
# expects a non-zero status must leave $T empty (nothing written on failure).
# NAME.sed, when present, is a sed script applied to stdout before the
# comparison (to mask solver diagnostics such as the gap and iteration count
# that any solver change moves). NAME.check, when present, is a shell script
# run afterwards (repo root, $T set) that must exit 0. $WEFT_WRAP wraps the
# call (e.g. valgrind).
# Prints "golden: N passed, M failed".
BUILD=${1:-build}
WEFT="$PWD/$BUILD/weft"; export WEFT  # .check scripts may run it too
pass=0; fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
T="$tmp/t"; export T
for cmd in tests/golden/*.cmd; do
  [ -e "$cmd" ] || continue
  name=${cmd%.cmd}
  rm -rf "$T"; mkdir "$T"
  want_rc=0; [ -f "$name.rc" ] && want_rc=$(cat "$name.rc")
  args=$(cat "$cmd")
  eval "$WEFT_WRAP \"$WEFT\" $args" >"$tmp/out" 2>"$tmp/err"; rc=$?
  for f in out err; do  # the scratch directory's path reads "$T" in the expected text
    sed "s|$T|\$T|g" "$tmp/$f" >"$tmp/$f.T" && mv "$tmp/$f.T" "$tmp/$f"
  done
  [ -f "$name.sed" ] && { sed -f "$name.sed" "$tmp/out" >"$tmp/sed" && mv "$tmp/sed" "$tmp/out"; }
  ok=1
  [ "$rc" = "$want_rc" ] || { echo "FAIL $name: exit $rc, expected $want_rc"; ok=0; }
  if [ -f "$name.out" ] && ! cmp -s "$tmp/out" "$name.out"; then
    echo "FAIL $name: stdout differs"; diff "$name.out" "$tmp/out" | head -20; ok=0
  fi
  if [ -f "$name.err" ] && ! cmp -s "$tmp/err" "$name.err"; then
    echo "FAIL $name: stderr differs"; diff "$name.err" "$tmp/err" | head -20; ok=0
  fi
  if [ "$want_rc" != 0 ] && [ -n "$(ls -A "$T")" ]; then
    echo "FAIL $name: wrote $(ls -A "$T" | tr '\n' ' ')despite failing"; ok=0
  fi
  if [ -f "$name.check" ] && ! sh "$name.check" >"$tmp/chk" 2>&1; then
    echo "FAIL $name: $name.check failed"; head -20 "$tmp/chk"; ok=0
  fi
  if [ $ok = 1 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
done
echo "golden: $pass passed, $fail failed"
[ $fail -eq 0 ]

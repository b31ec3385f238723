#!/bin/sh
# run.sh — all tests: unit suites, then golden CLI tests; one closing tally.
BUILD=${1:-build}
out=$("$BUILD/test_unit" 2>&1); urc=$?
printf '%s\n' "$out"
gout=$(./tests/run_golden.sh "$BUILD" 2>&1); grc=$?
printf '%s\n' "$gout"
up=$(printf '%s\n' "$out" | sed -n 's/^unit: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p')
gp=$(printf '%s\n' "$gout" | sed -n 's/^golden: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p')
set -- $up $gp
p=$(( ${1:-0} + ${3:-0} )); f=$(( ${2:-1} + ${4:-1} ))
[ $urc -ne 0 ] && [ "${2:-0}" = 0 ] && f=$((f + 1))
[ $grc -ne 0 ] && [ "${4:-0}" = 0 ] && f=$((f + 1))
echo "total: $p passed, $f failed"
[ $f -eq 0 ]

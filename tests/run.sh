#!/bin/sh
# run.sh — all tests: unit suites, golden CLI tests, the examples against an
# installed copy (run_examples.sh); one closing tally.
BUILD=${1:-build}
out=$("$BUILD/test_unit" 2>&1); urc=$?
printf '%s\n' "$out"
gout=$(./tests/run_golden.sh "$BUILD" 2>&1); grc=$?
printf '%s\n' "$gout"
eout="examples: 0 passed, 0 failed"; erc=0
[ "${WEFT_EXAMPLES:-1}" = 0 ] || { eout=$(./tests/run_examples.sh "$BUILD" 2>&1); erc=$?; }
printf '%s\n' "$eout"
up=$(printf '%s\n' "$out" | sed -n 's/^unit: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p')
gp=$(printf '%s\n' "$gout" | sed -n 's/^golden: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p')
ep=$(printf '%s\n' "$eout" | sed -n 's/^examples: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p')
set -- $up $gp $ep
p=$(( ${1:-0} + ${3:-0} + ${5:-0} )); f=$(( ${2:-1} + ${4:-1} + ${6:-1} ))
[ $urc -ne 0 ] && [ "${2:-0}" = 0 ] && f=$((f + 1))
[ $grc -ne 0 ] && [ "${4:-0}" = 0 ] && f=$((f + 1))
[ $erc -ne 0 ] && [ "${6:-0}" = 0 ] && f=$((f + 1))
echo "total: $p passed, $f failed"
[ $f -eq 0 ]

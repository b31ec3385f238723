#!/bin/sh
# run.sh — all tests: unit suites, golden CLI tests, the examples against an
# installed copy (run_examples.sh), the architecture check (arch_check.py), the
# Python package; one closing tally.
BUILD=${1:-build}
out=$("$BUILD/test_unit" 2>&1); urc=$?
printf '%s\n' "$out"
gout=$(./tests/run_golden.sh "$BUILD" 2>&1); grc=$?
printf '%s\n' "$gout"
eout="examples: 0 passed, 0 failed"; erc=0
[ "${WEFT_EXAMPLES:-1}" = 0 ] || { eout=$(./tests/run_examples.sh "$BUILD" 2>&1); erc=$?; }
printf '%s\n' "$eout"
# The architecture: no two files depending on each other (tests/arch_check.py).
aout="arch: 0 passed, 0 failed"; arc=0
if command -v python3 >/dev/null 2>&1 && command -v nm >/dev/null 2>&1; then
  aout=$(python3 tests/arch_check.py "$BUILD" 2>&1); arc=$?
else
  echo "note: no python3 or nm: architecture check skipped"
fi
printf '%s\n' "$aout"
# The Python package (python/tests) against this build, with a python3 that
# has pytest (Debian's python3-pytest); not under the sanitizers (WEFT_PYTHON=0).
pout="python: 0 passed, 0 failed"; prc=0
if [ "${WEFT_PYTHON:-1}" != 0 ]; then
  py=""
  for c in python3 /usr/bin/python3; do
    command -v "$c" >/dev/null 2>&1 && "$c" -c 'import pytest' >/dev/null 2>&1 && { py=$c; break; }
  done
  if [ -n "$py" ]; then
    pout=$(WEFT_LIB="$PWD/$BUILD/libweft.so.0" WEFT_CLI="$PWD/$BUILD/weft" \
      "$py" -m pytest -q -p no:cacheprovider python/tests 2>&1); prc=$?
    [ $prc -eq 0 ] || printf '%s\n' "$pout" | grep -v '^python: ' | tail -40
  else
    echo "note: no python3 with pytest (python3-pytest): Python package tests skipped"
  fi
fi
pout=$(printf '%s\n' "$pout" | grep '^python: ')
printf '%s\n' "$pout"
up=$(printf '%s\n' "$out" | sed -n 's/^unit: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p')
gp=$(printf '%s\n' "$gout" | sed -n 's/^golden: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p')
ep=$(printf '%s\n' "$eout" | sed -n 's/^examples: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p')
ap=$(printf '%s\n' "$aout" | sed -n 's/^arch: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p')
pp=$(printf '%s\n' "$pout" | sed -n 's/^python: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p')
set -- $up $gp $ep $pp $ap
p=$(( ${1:-0} + ${3:-0} + ${5:-0} + ${7:-0} + ${9:-0} ))
f=$(( ${2:-1} + ${4:-1} + ${6:-1} + ${8:-1} + ${10:-1} ))
[ $urc -ne 0 ] && [ "${2:-0}" = 0 ] && f=$((f + 1))
[ $grc -ne 0 ] && [ "${4:-0}" = 0 ] && f=$((f + 1))
[ $erc -ne 0 ] && [ "${6:-0}" = 0 ] && f=$((f + 1))
[ $prc -ne 0 ] && [ "${8:-0}" = 0 ] && f=$((f + 1))
[ $arc -ne 0 ] && [ "${10:-0}" = 0 ] && f=$((f + 1))
echo "total: $p passed, $f failed"
[ $f -eq 0 ]

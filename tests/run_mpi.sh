#!/bin/sh
# run_mpi.sh — codesign and sweep across MPI ranks gives the same bytes as one process:
# the CSV (every point, enumeration order) and the report of a single-thread
# run, a 2-thread run and `mpirun -np 2` of the MPI build (make mpi) must be
# identical. Skipped, with a note, when mpirun or the MPI build is missing.
# Usage: tests/run_mpi.sh [BUILD]   (the MPI binary is BUILD/mpi/weft)
BUILD=${1:-build}
WEFT="$PWD/$BUILD/weft"
MPI_WEFT="$PWD/$BUILD/mpi/weft"
if ! command -v mpirun >/dev/null 2>&1; then
  echo "mpi: SKIPPED: mpirun not found (scripts/deps.sh --mpi installs Open MPI)"
  exit 0
fi
if [ ! -x "$MPI_WEFT" ]; then
  echo "mpi: SKIPPED: $BUILD/mpi/weft not built (make mpi)"
  exit 0
fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# Open MPI refuses root without these; oversubscribe: CI machines may have
# fewer cores than ranks x threads.
MPIRUN="mpirun --allow-run-as-root --oversubscribe -np 2"
# Containers often forbid the cross-process memory copy Open MPI tries first.
export OMPI_MCA_btl_vader_single_copy_mechanism=none
args="codesign --model gpt3-175b --npus 4096 --blocks Ring,FullyConnected,Ring,Switch
      --max-per-dim 16,64,64,64 --cost-model data/gpt3/cost_4d.yml
      --constraint sum=1000 --constraint B1>=B2>=B3>=B4 --tp 1,2,4,8,16,32 --pp 1,2,4,8
      --mb 1,2 --all-orders"
fail=0
"$WEFT" $args --threads 1 --csv "$tmp/t1.csv" >"$tmp/t1.out" 2>"$tmp/t1.err" || fail=1
"$WEFT" $args --threads 2 --csv "$tmp/t2.csv" >"$tmp/t2.out" 2>"$tmp/t2.err" || fail=1
$MPIRUN "$MPI_WEFT" $args --threads 1 --csv "$tmp/m2.csv" >"$tmp/m2.out" 2>"$tmp/m2.err" || fail=1
if [ $fail = 1 ]; then
  echo "mpi: FAIL: a run failed"; cat "$tmp"/*.err | head -20; exit 1
fi
rows=$(($(wc -l <"$tmp/t1.csv") - 1))
for f in t2 m2; do
  cmp -s "$tmp/t1.csv" "$tmp/$f.csv" || { echo "mpi: FAIL: $f.csv differs from 1 thread";
    diff "$tmp/t1.csv" "$tmp/$f.csv" | head -10; fail=1; }
  cmp -s "$tmp/t1.out" "$tmp/$f.out" || { echo "mpi: FAIL: $f report differs from 1 thread";
    diff "$tmp/t1.out" "$tmp/$f.out" | head -10; fail=1; }
done
[ $fail = 0 ] && echo "mpi: ok: 1 thread, 2 threads and 2 MPI ranks give the same $rows-row CSV and report"
# The same for a sweep: 2 ranks give the single-thread CSV byte for byte.
spec=tests/golden/inputs/sweep_big.yml
"$WEFT" sweep $spec --threads 1 --csv "$tmp/s1.csv" >/dev/null 2>"$tmp/s1.err" || fail=1
$MPIRUN "$MPI_WEFT" sweep $spec --threads 1 --csv "$tmp/s2.csv" >/dev/null 2>"$tmp/s2.err" || fail=1
if cmp -s "$tmp/s1.csv" "$tmp/s2.csv"; then
  echo "mpi: ok: sweep on 2 MPI ranks gives the same $(($(wc -l <"$tmp/s1.csv") - 1))-row CSV"
else
  echo "mpi: FAIL: sweep CSV on 2 ranks differs from 1 thread"; cat "$tmp"/s*.err | head; fail=1
fi
exit $fail

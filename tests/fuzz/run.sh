#!/bin/sh
# run.sh BUILD SECONDS [HARNESS...] — run each libFuzzer harness of BUILD
# (BUILD/fuzz_NAME, built by `make fuzz-build`) for SECONDS on its corpus:
# the seeds in tests/fuzz/corpus/NAME (read only) and what earlier runs found
# in BUILD/corpus/NAME. A crash, leak, sanitizer report, failed check or
# timeout fails the run; the input is kept as BUILD/crash/NAME-*. One summary
# line per harness: executions, executions/s, coverage (edges, features), corpus.
set -u
build=${1:?usage: run.sh BUILD SECONDS [HARNESS...]}
seconds=${2:?usage: run.sh BUILD SECONDS [HARNESS...]}
shift 2
here=$(cd "$(dirname "$0")" && pwd)
names="$*"
[ -n "$names" ] || names=$(cd "$here" && ls fuzz_*.c | sed 's/^fuzz_//; s/\.c$//')

# The dictionary of a harness: the parts of tests/fuzz/dict/ its format uses.
dicts() {
  case $1 in
    network|cost_model|communicator) echo yaml libra_words ;;
    scenario) echo yaml libra_words scenario_words constraints ;;
    solve) echo yaml libra_words scenario_words constraints workload ;;
    zoo_model|zoo_devices|zoo_clusters) echo yaml zoo_words ;;
    prices) echo yaml prices_words ;;
    *) echo "$1" ;;
  esac
}

mkdir -p "$build/crash" "$build/log" "$build/dict"
failed=""
printf '%-14s %10s %8s %6s %6s %6s  %s\n' harness execs exec/s cov ft corpus result
for n in $names; do
  bin="$build/fuzz_$n"
  [ -x "$bin" ] || { echo "run.sh: no harness $bin (make fuzz-build)" >&2; exit 2; }
  mkdir -p "$build/corpus/$n"
  dict="$build/dict/$n.dict"
  : >"$dict"
  for d in $(dicts "$n"); do
    [ -f "$here/dict/$d.dict" ] && cat "$here/dict/$d.dict" >>"$dict"
  done
  set -- -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
    -print_final_stats=1 -artifact_prefix="$build/crash/$n-"
  [ -s "$dict" ] && set -- "$@" -dict="$dict"
  log="$build/log/$n.log"
  tmpdir="$build/tmp/$n"  # the harness's scratch files, removed after it
  rm -rf "$tmpdir"; mkdir -p "$tmpdir"
  WEFT_FUZZ_TMPDIR="$tmpdir" "$bin" "$@" "$build/corpus/$n" "$here/corpus/$n" >"$log" 2>&1
  rc=$?
  rm -rf "$tmpdir"
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
  last=$(grep -E '^#[0-9]+.*cov: ' "$log" | tail -n 1)
  cov=$(echo "$last" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
  ft=$(echo "$last" | sed -n 's/.*ft: \([0-9]*\).*/\1/p')
  corp=$(echo "$last" | sed -n 's/.*corp: \([0-9]*\).*/\1/p')
  result=ok
  if [ $rc -ne 0 ]; then
    result="FAILED (exit $rc, log $log)"
    failed="$failed $n"
  fi
  printf '%-14s %10s %8s %6s %6s %6s  %s\n' "$n" "${execs:-?}" "${rate:-?}" "${cov:-?}" \
    "${ft:-?}" "${corp:-?}" "$result"
  if [ $rc -ne 0 ]; then
    grep -aE '^(fuzz:|==[0-9]+==ERROR|SUMMARY|.*runtime error|artifact_prefix|Test unit written)' "$log" |
      head -n 20 >&2
  fi
done
if [ -n "$failed" ]; then
  echo "fuzz: failed:$failed (reproduce: $build/fuzz_NAME $build/crash/NAME-...)" >&2
  exit 1
fi
echo "fuzz: every harness ran ${seconds}s without a failure"

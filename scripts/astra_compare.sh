#!/bin/sh
# astra_compare.sh — weft simulate --like astra-sim next to ASTRA-sim 1.0 itself
# (analytical backend) on every case of data/astra-sim/cases.txt: weft writes
# the case's ASTRA-sim inputs (--export-astra1), ASTRA-sim runs them, and one
# CSV row records both iteration times, the error and the times they took.
#
#   scripts/astra_compare.sh ASTRA_BIN [OUT.csv] [CASE_FILTER]
#
# ASTRA_BIN is an AnalyticalAstra binary built from the commits
# data/astra-sim/README.md names (this script does not build it). $LIBRA, when
# set, is the directory of LIBRA's public inputs (network/, workload/, ...);
# cases that need it are skipped without it. Run by hand from the repository
# root (not in CI: the large cases take ASTRA-sim minutes). The recorded rows
# (data/astra-sim/results.csv) are what tests/golden/astra_sim_compare checks
# weft against.
set -eu
bin=${1:?usage: scripts/astra_compare.sh ASTRA_BIN [OUT.csv] [CASE_FILTER]}
out=${2:-data/astra-sim/results.csv}
filter=${3:-}
weft=${WEFT:-build/weft}
[ -x "$bin" ] || { echo "astra_compare: $bin: not an executable" >&2; exit 2; }
[ -x "$weft" ] || { echo "astra_compare: $weft: build weft first (make)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rows="$tmp/rows"
: >"$rows"
tab=$(printf '\t')
grep -v '^#' data/astra-sim/cases.txt | while IFS="$tab" read -r name args; do
  [ -n "$name" ] || continue
  case "$name" in *"$filter"*) ;; *) continue ;; esac
  case "$args" in *'$LIBRA'*) [ -n "${LIBRA:-}" ] || { echo "skip $name (no \$LIBRA)"; continue; } ;; esac
  dir="$tmp/$name"
  json=$(eval "\"$weft\" simulate $args --like astra-sim --export-astra1 \"$dir\" --json")
  weft_ns=$(printf '%s' "$json" | python3 -c 'import json,sys; print("%.0f" % json.load(sys.stdin)["time_ns"])')
  weft_s=$(printf '%s' "$json" | python3 -c 'import json,sys; print("%.6f" % (json.load(sys.stdin)["wall_time_ns"] / 1e9))')
  mkdir -p "$dir/out"
  (cd "$dir" && /usr/bin/time -f '%e %U %S' -o time.txt "$bin" --network-configuration=network.json \
    --system-configuration=system.txt --workload-configuration=workload.txt --path=out/ \
    --run-name="$name" >log.txt 2>&1)
  read -r wall user sys <"$dir/time.txt"
  astra_ns=$(sed -n 's/^all passes finished at time: \([0-9]*\),.*/\1/p' "$dir/log.txt")
  [ -n "$astra_ns" ] || { echo "astra_compare: $name: ASTRA-sim printed no finish time" >&2; tail -5 "$dir/log.txt" >&2; exit 1; }
  row=$(python3 -c 'import sys; n,a,w,wall,u,s,ws=sys.argv[1:]; a=float(a); w=float(w)
print("%s,%.0f,%.0f,%+.4f,%s,%.2f,%s" % (n, a, w, 100*(w/a-1), wall, float(u)+float(s), ws))' \
    "$name" "$astra_ns" "$weft_ns" "$wall" "$user" "$sys" "$weft_s")
  echo "$row" | tee -a "$rows"
done
astra_commit=${ASTRA_COMMIT:-86fec9b30ae1157d5d3675ec7023b5f8eb5e3edd}
{
  echo "# ASTRA-sim 1.0 (astra-sim/astra-sim $astra_commit, analytical backend"
  echo "# astra-sim/astra-network-analytical d27635bc8c6b98446f32fbf0018557636b4c825f)"
  echo "# next to weft simulate --like astra-sim on data/astra-sim/cases.txt (scripts/astra_compare.sh)."
  echo "# astra_ns, weft_ns: iteration time in ns; err_pct: weft / ASTRA-sim - 1, in %;"
  echo "# astra_wall_s, astra_cpu_s: ASTRA-sim's wall and CPU (user + system) time; weft_wall_s:"
  echo "# weft's simulation wall time (its JSON wall_time_ns). Machine: $(uname -m), $(nproc) cores."
  echo "case,astra_ns,weft_ns,err_pct,astra_wall_s,astra_cpu_s,weft_wall_s"
  cat "$rows"
} >"$tmp/out.csv"
mv "$tmp/out.csv" "$out"
echo "wrote $out"

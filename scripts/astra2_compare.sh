#!/bin/sh
# astra2_compare.sh — weft simulate next to ASTRA-sim 2.0 itself (analytical,
# congestion unaware) on the Chakra traces weft writes, for every case of
# data/astra-sim2/cases.txt: `weft workload --chakra` writes the traces and
# ASTRA-sim's network, system and memory files, ASTRA-sim runs them, weft
# simulates the same traces (--workload DIR), and one CSV row records both
# iteration times, the error and the times they took.
#
#   scripts/astra2_compare.sh ASTRA2_BIN [OUT.csv] [CASE_FILTER]
#
# ASTRA2_BIN is an AstraSim_Analytical_Congestion_Unaware built from the
# commits data/astra-sim2/README.md names (this script does not build it).
# Run by hand from the repository root (not in CI).
set -eu
bin=${1:?usage: scripts/astra2_compare.sh ASTRA2_BIN [OUT.csv] [CASE_FILTER]}
out=${2:-data/astra-sim2/results.csv}
filter=${3:-}
weft=${WEFT:-build/weft}
in=data/astra-sim2/inputs
[ -x "$bin" ] || { echo "astra2_compare: $bin: not an executable" >&2; exit 2; }
[ -x "$weft" ] || { echo "astra2_compare: $weft: build weft first (make)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rows="$tmp/rows"
: >"$rows"
tab=$(printf '\t')
grep -v '^#' data/astra-sim2/cases.txt | while IFS="$tab" read -r name net chunks args; do
  [ -n "$name" ] || continue
  case "$name" in *"$filter"*) ;; *) continue ;; esac
  loop=no-overlap
  case "$name" in *_overlap*) loop=tp-dp-overlap ;; esac
  dir="$tmp/$name"
  mkdir -p "$dir"
  eval "\"$weft\" workload $args --network \"$in/$net\" -o \"$dir/w\" --chakra \"$dir/tr\" --chunks $chunks --loop $loop" >/dev/null
  json=$("$weft" simulate --network "$in/$net" --workload "$dir/tr" --cost-model data/astra-sim/inputs/cost.yml \
    --chunks "$chunks" --in-flight 1 --endpoint-delay-ns 1 --loop "$loop" --json)
  weft_ns=$(printf '%s' "$json" | python3 -c 'import json,sys; print("%.0f" % json.load(sys.stdin)["time_ns"])')
  weft_s=$(printf '%s' "$json" | python3 -c 'import json,sys; print("%.6f" % (json.load(sys.stdin)["wall_time_ns"] / 1e9))')
  (cd "$dir/tr" && /usr/bin/time -f '%e %U %S' -o ../time.txt "$bin" --workload-configuration=w \
    --system-configuration=system.json --remote-memory-configuration=memory.json \
    --network-configuration=network.yml --comm-group-configuration=w.comm_groups.json \
    >../log.txt 2>&1)
  read -r wall user sys <"$dir/time.txt"
  # the iteration ends when the last rank finishes: the largest "sys[i] finished, T cycles"
  astra_ns=$(sed -n 's/.*sys\[[0-9]*\] finished, \([0-9]*\) cycles.*/\1/p' "$dir/log.txt" | sort -n | tail -1)
  [ -n "$astra_ns" ] || { echo "astra2_compare: $name: ASTRA-sim printed no finish time" >&2; tail -5 "$dir/log.txt" >&2; exit 1; }
  row=$(python3 -c 'import sys; n,a,w,wall,u,s,ws=sys.argv[1:]; a=float(a); w=float(w)
print("%s,%.0f,%.0f,%+.4f,%s,%.2f,%s" % (n, a, w, 100*(w/a-1), wall, float(u)+float(s), ws))' \
    "$name" "$astra_ns" "$weft_ns" "$wall" "$user" "$sys" "$weft_s")
  echo "$row" | tee -a "$rows"
done
{
  echo "# ASTRA-sim 2.0 (astra-sim/astra-sim ${ASTRA2_COMMIT:-c459ab61193bdb5b663ab61d2e923314dae8a77f}, analytical"
  echo "# congestion-unaware backend) on the Chakra traces weft writes, next to weft simulate on"
  echo "# the same traces (data/astra-sim2/cases.txt, scripts/astra2_compare.sh)."
  echo "# astra_ns: the last rank's finish time; weft_ns: weft's iteration time, both in ns;"
  echo "# err_pct: weft / ASTRA-sim - 1, in %; astra_wall_s, astra_cpu_s: ASTRA-sim's wall and CPU"
  echo "# time; weft_wall_s: weft's simulation wall time. Machine: $(uname -m), $(nproc) cores."
  echo "case,astra_ns,weft_ns,err_pct,astra_wall_s,astra_cpu_s,weft_wall_s"
  cat "$rows"
} >"$tmp/out.csv"
mv "$tmp/out.csv" "$out"
echo "wrote $out"

#!/bin/sh
# run_examples.sh BUILD — the public API from outside: `make install` into a
# staging prefix, the examples/ compiled with `pkg-config --cflags --libs
# weft` against it (the shared library) and run, each output checked against
# an expectation of its own. Prints "examples: N passed, M failed".
BUILD=${1:-build}
pass=0; fail=0
stage="$PWD/$BUILD/stage"; tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL examples: $*"; }
rm -rf "$stage"
if ! make -s install BUILD="$BUILD" PREFIX="$stage" >"$tmp/install" 2>&1; then
  bad "make install PREFIX=$stage"; cat "$tmp/install"
  echo "examples: $pass passed, $fail failed"; exit 1
fi
export PKG_CONFIG_PATH="$stage/lib/pkgconfig" LD_LIBRARY_PATH="$stage/lib"
flags=$(pkg-config --cflags --libs weft) || { bad "pkg-config weft"; flags=""; }
for e in optimize simulate topology; do
  ${CC:-cc} -std=c11 -Wall -Wextra -Werror examples/$e.c $flags -o "$tmp/$e" 2>"$tmp/$e.cc" ||
    { bad "$e does not compile against the installed weft.h"; cat "$tmp/$e.cc"; }
done
ldd "$tmp/optimize" 2>/dev/null | grep -q "$stage/lib/libweft.so" || bad "optimize is not linked to the installed libweft.so"
G="data/gpt3/network_4d.yml data/gpt3/gpt3_175b_tp16.txt data/gpt3/comm_tp16_dp256.yml data/gpt3/cost_4d.yml"
# optimize: the design the installed CLI finds for the same problem
"$tmp/optimize" $G >"$tmp/o.out" 2>&1 || bad "optimize exits $?"
want=$("$stage/bin/weft" optimize --network data/gpt3/network_4d.yml \
  --workload data/gpt3/gpt3_175b_tp16.txt --communicator data/gpt3/comm_tp16_dp256.yml \
  --cost-model data/gpt3/cost_4d.yml --constraint 'sum = 1000' |
  awk '$1 ~ /^B[0-9]+$/ { printf "%s = %s GB/s\n", $1, $4 }')
got=$(grep '^B[0-9] = ' "$tmp/o.out")
[ -n "$want" ] && [ "$got" = "$want" ] && ok || { bad "optimize: got"; echo "$got"; echo "want:"; echo "$want"; }
# simulate at that design: no latency, so each collective takes at least its
# analytic time; 64 chunks' fill and drain stay within 5%
bw=$(echo "$got" | sed 's/^B[0-9] = \([0-9.]*\).*/\1/' | paste -sd, -)
"$tmp/simulate" $G "$bw" >"$tmp/s.out" 2>&1 || bad "simulate exits $?"
awk 'BEGIN { r = 1 } /^simulated/ { r = !($2 >= $5 * (1 - 1e-9) && $2 <= $5 * 1.05) } END { exit r }' "$tmp/s.out" &&
  ok || { bad "simulate:"; cat "$tmp/s.out"; }
# topology: one AllReduce over every server: TopoOpt's rings equal the switch
"$tmp/topology" >"$tmp/t.out" 2>&1 || bad "topology exits $?"
awk 'BEGIN { r = 1 } /^AllReduce/ { r = !($9 == $13 && $9 > 0) } END { exit r }' "$tmp/t.out" && ok || { bad "topology:"; cat "$tmp/t.out"; }
# Installed anywhere: the data is in $stage/share/weft, and the installed
# weft finds it from any directory (/ here), gives what the source tree's
# build/weft gives, and still finds it moved elsewhere with its prefix.
run_model() { # WEFT [DATA]: optimize a zoo model on a cluster preset, from /
  (cd / && "$1" optimize --model gpt3-175b --tp 8 --pp 8 --zero 1 --sp --recompute selective \
    --cluster dgx-a100 --npus 1024 --cost-model "$2/validation/cost.yml" --constraint 'sum = 1000' --json)
}
nowall() { python3 -c 'import json,sys; d=json.load(sys.stdin); d.pop("wall_time_ns",None); print(json.dumps(d,sort_keys=True))'; }
for d in zoo zoo/models parts cost validation; do
  [ -d "$stage/share/weft/$d" ] || bad "make install: no $stage/share/weft/$d"
done
ref=$(run_model "$PWD/$BUILD/weft" "$PWD/data" | nowall)
unset WEFT_ZOO WEFT_DATA
got=$(run_model "$stage/bin/weft" "$stage/share/weft" 2>"$tmp/inst.err" | nowall)
[ -n "$ref" ] && [ "$got" = "$ref" ] && ok || { bad "installed weft from /:"; cat "$tmp/inst.err"; }
mv "$stage" "$tmp/moved"
got=$("$tmp/moved/bin/weft" zoo --json 2>"$tmp/inst.err" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["models"]))')
[ "$got" = "$(ls data/zoo/models/*.yml | wc -l)" ] && ok || { bad "installed weft moved: got '$got' models"; cat "$tmp/inst.err"; }
# nothing to find (no prefix beside it, the built-in one gone, not run in a
# source tree): exit 2, saying where it looked and how to point weft at it
mkdir -p "$tmp/lone/bin" && cp "$tmp/moved/bin/weft" "$tmp/lone/bin/weft"
(cd / && "$tmp/lone/bin/weft" zoo >/dev/null 2>"$tmp/lone.err"); rc=$?
[ $rc -eq 2 ] && grep -q "WEFT_DATA" "$tmp/lone.err" && grep -q "$tmp/lone/share/weft/zoo" "$tmp/lone.err" &&
  grep -q "$stage/share/weft/zoo" "$tmp/lone.err" && ok || { bad "no data: exit $rc"; cat "$tmp/lone.err"; }
got=$(cd / && WEFT_DATA="$tmp/moved/share/weft" "$tmp/lone/bin/weft" zoo --json 2>&1 | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["models"]))')
[ "$got" = "$(ls data/zoo/models/*.yml | wc -l)" ] && ok || bad "WEFT_DATA: got '$got' models"
mv "$tmp/moved" "$stage"
make -s uninstall BUILD="$BUILD" PREFIX="$stage" >/dev/null 2>&1
left=$(find "$stage" -type f | head -5)
[ -z "$left" ] && ok || { bad "make uninstall left: $left"; }
echo "examples: $pass passed, $fail failed"
[ $fail -eq 0 ]

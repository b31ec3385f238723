#!/bin/sh
# loop_names golden's runs (loop_names.check compares them): the training
# loop and objective named as scenario files take them (any case, _ or -) in
# every command that takes --loop, in a scenario and in a sweep spec.
set -e
g=tests/golden/inputs
cs="codesign --model gpt3-175b --npus 4096 --network data/gpt3/network_4d.yml --cost-model data/gpt3/cost_4d.yml --constraint sum=1000 --tp 8,16 --pp 1 --mb 1 --zero 1 --threads 1"
"$WEFT" $cs --loop tp-dp-overlap --objective perf-per-cost --csv "$T/c1.csv" >"$T/c1.txt" 2>/dev/null
"$WEFT" $cs --loop tp_dp_overlap --objective PERF_PER_COST --csv "$T/c2.csv" >"$T/c2.txt" 2>/dev/null
"$WEFT" simulate $g/small.yml --loop tp-dp-overlap --json >"$T/s1.json"
"$WEFT" simulate $g/small.yml --loop TP_DP_OVERLAP --json >"$T/s2.json"
"$WEFT" validate $g/small.yml --loop tp-dp-overlap >"$T/v1.txt"
"$WEFT" validate $g/small.yml --loop Tp_Dp_Overlap >"$T/v2.txt"
"$WEFT" optimize $g/small.yml --loop tp-dp-overlap --objective perf-per-cost >"$T/o1.txt"
for f in net3.yml cost3.yml wl1.txt comm3.yml; do cp "$g/$f" "$T/"; done
printf 'network: net3.yml\ncost_model: cost3.yml\nworkload: wl1.txt\ncommunicator: comm3.yml\nconstraints: ["sum = 1000"]\nloop: tp_dp_overlap\nobjective: Perf_Per_Cost\n' >"$T/sc.yml"
"$WEFT" optimize "$T/sc.yml" >"$T/o2.txt"
printf 'network: net3.yml\ncost_model: cost3.yml\nworkload: wl1.txt\ncommunicator: comm3.yml\nconstraints: ["sum = 1000"]\nobjective: perf-per-cost\nloop: {sweep: [tp-dp-overlap, tp_dp_overlap, TP_DP_OVERLAP]}\n' >"$T/sw.yml"
"$WEFT" sweep "$T/sw.yml" --quiet >"$T/sw.csv"

simulate tests/golden/inputs/sim_two_jobs.yml --bw 100 --chunks 1 --latency-ns 500 --trace "$T/two.json"

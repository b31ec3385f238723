simulate tests/golden/inputs/sim_ring4_scenario.yml --chunks 1 --latency-ns 500

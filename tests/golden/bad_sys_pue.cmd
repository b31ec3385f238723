optimize --network tests/golden/inputs/ring2x2_net.yml --workload tests/golden/inputs/sys2x2_wl.txt --communicator tests/golden/inputs/sys2x2_comm.yml --cost-model tests/golden/inputs/bad_sys_pue.yml

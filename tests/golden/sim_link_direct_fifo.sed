# mask the wall time (machine-dependent); events (3 compute + 2 steps) and
# flows (2 steps x 4 NPUs x 3 peers) are derived by hand: kept
s/wall [0-9][0-9]*\.[0-9][0-9]* s$/wall # s/

#n
/^status:/s/,.*//p
/time_x_cost_ms_usd/p

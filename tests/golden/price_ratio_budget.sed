#n
/^status:/s/,.*//p
/^  B1 /p
/^  time_ms /p
/^  cost_usd /p

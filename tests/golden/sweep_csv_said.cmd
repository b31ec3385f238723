sweep tests/golden/inputs/sweep_big.yml --csv "$T/b.csv" 2>"$T/err.txt" && "$WEFT" sweep tests/golden/inputs/sweep_big.yml --csv "$T/q.csv" --quiet 2>"$T/quiet.txt"

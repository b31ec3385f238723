topo --model dlrm --servers 8192 --degree 64 --threads 1 --edges "$T/e.txt"

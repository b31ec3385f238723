topo-eval --model ncf --servers 16 --batch-per-gpu 128 --degrees 4 --reconf-us 10,1e300 --estimate

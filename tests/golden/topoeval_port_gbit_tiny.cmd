topo-eval --model ncf --servers 16 --batch-per-gpu 128 --degrees 4 --port-gbit 25,1e-300 --estimate

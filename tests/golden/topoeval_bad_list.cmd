topo-eval --model ncf --degrees 4,x

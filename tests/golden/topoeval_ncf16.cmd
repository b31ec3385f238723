topo-eval --model ncf --servers 16 --batch-per-gpu 128 --degrees 4 --port-gbit 25,100 --nic-gbit 25,100,400 --reconf-us 10,10000 --iterations 30 --estimate --csv "$T/ncf.csv"

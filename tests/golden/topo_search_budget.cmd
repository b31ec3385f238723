topo --model bert-large --servers 8 --search --iterations 40 --tp 4

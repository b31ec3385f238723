topo --model vgg16 --degree 4 --port-gbit 100 --edges /nonexistent-weft-dir/e.txt

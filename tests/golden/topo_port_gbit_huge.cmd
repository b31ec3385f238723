topo --model vgg16 --servers 8 --port-gbit 1e308

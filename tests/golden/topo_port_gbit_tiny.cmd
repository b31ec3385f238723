topo --model vgg16 --servers 16 --port-gbit 1e-300

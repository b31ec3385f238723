topo --model vgg16 --port-gbit 0x10

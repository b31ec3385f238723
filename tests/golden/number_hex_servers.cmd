topo --model vgg16 --servers 0x10

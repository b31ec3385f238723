topo --model vgg16 --degree 4 --degree 8

topo --model vgg16 --degree 4 --port-gbit 100 --edges /dev/null --dot /dev/stdout

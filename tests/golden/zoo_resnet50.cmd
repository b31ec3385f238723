zoo --zoo data/zoo resnet50

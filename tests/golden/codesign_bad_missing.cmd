codesign --model bert-large

codesign --model llama3-8b --num-gpus 16

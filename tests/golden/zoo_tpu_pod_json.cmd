zoo tpu-v5p-pod --json

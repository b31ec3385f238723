zoo --zoo data/zoo gpt4

zoo --zoo data/zoo gpt3-175b

zoo --zoo data/zoo --zoo data gpt3-175b

zoo --zoo '' gpt3-175b

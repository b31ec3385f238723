optimize data/gpt3_4096npu_4d.yml --export-astra "$T/x.svg" --plot "$T/x.svg"

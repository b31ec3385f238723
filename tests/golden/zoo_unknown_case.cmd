zoo --zoo data/zoo GB200-NVL72

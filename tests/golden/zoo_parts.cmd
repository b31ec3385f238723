zoo --parts

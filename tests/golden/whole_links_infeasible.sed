# mask the node count, keep the format
s/^whole links: tree closed, [0-9]* nodes;/whole links: tree closed, # nodes;/

# only the head: where each constraint came from, and what --constraint replaced
s/certified gap [^,]*, [0-9]* iterations/certified gap G, N iterations/
5,$d

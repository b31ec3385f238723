# mask the solver diagnostics (the gap left, the bound, iterations), keep the format
s/certified gap [0-9]\.[0-9]e[-+][0-9][0-9], [0-9][0-9]* iterations$/certified gap #, # iterations/
s/certified gap [0-9]\.[0-9]e[-+][0-9][0-9] (bound [0-9.e+]*);/certified gap # (bound #);/
s/proven within [0-9.e+-]* (relative)/proven within # (relative)/

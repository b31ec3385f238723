# mask the solver diagnostics, keep their format
s/certified gap [0-9]\.[0-9]e[-+][0-9][0-9], [0-9][0-9]* iterations$/certified gap #.#e-##, # iterations/
s/^whole links: tree closed, [0-9]* nodes, certified gap [0-9]\.[0-9]e[-+][0-9][0-9] (bound [0-9.e+]*);/whole links: tree closed, # nodes, certified gap #.#e-## (bound #);/

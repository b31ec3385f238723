# mask the solver diagnostics, keep their format
s/certified gap [0-9]\.[0-9]e[-+][0-9][0-9], [0-9][0-9]* iterations$/certified gap #.#e-##, # iterations/

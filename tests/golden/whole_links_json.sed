# mask the solver diagnostics (gap, bounds, iterations, nodes), keep the keys
s/"gap": [-0-9.e+]*/"gap": #/
s/"lower_bound": [-0-9.e+]*/"lower_bound": #/g
s/"iterations": [0-9]*/"iterations": #/
s/"nodes": [0-9]*/"nodes": #/

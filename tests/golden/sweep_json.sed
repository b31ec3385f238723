# the ok point's numbers are checked to 1e-9 by sweep_json.check (the last
# of %.12g digits show the solver's own error); keep the format
s/"\(time_ns\|cost_usd\|objective\|gap\)": [0-9][0-9.e+-]*/"\1": #/g
s/"bw_gbps": \[[0-9][^]]*\]/"bw_gbps": [#, #, #]/

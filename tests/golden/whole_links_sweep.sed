# mask the certified gap (a solver diagnostic)
s/,[0-9.e+-]*,$/,#,/

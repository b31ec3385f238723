# tics.awk — the ticks weft's gnuplot script puts on each axis: for every
# panel (counted by `reset`) and axis with a numeric range `set Xrange
# [lo:hi]` and ticks `set Xtics (LABEL VALUE, ...)` or `set Xtics STEP`
# (labelled by `set format X '%.Nf'` when given, else %g), one line "panel
# axis ticks labels": the ticks inside [lo, hi] and how many distinct
# labels they have. Computed here from the script's text, not by weft.
function flush(ax) {
  if (!(ax in lo) || !(ax in kind)) return
  n = 0; delete seen; d = 0
  if (kind[ax] == "step") {
    s = step[ax]
    for (k = int(lo[ax] / s) - 1; k * s <= hi[ax] * (1 + 1e-12); k++) {
      v = k * s
      if (v < lo[ax] * (1 - 1e-12)) continue
      lab = sprintf(fmt[ax] != "" ? fmt[ax] : "%g", v); n++
      if (!(lab in seen)) { seen[lab] = 1; d++ }
    }
  } else {
    m = split(list[ax], item, /, /)
    for (i = 1; i <= m; i++) {
      lab = item[i]; sub(/ [-0-9.e+]+$/, "", lab)
      v = item[i]; sub(/.* /, "", v); v += 0
      if (v < lo[ax] * (1 - 1e-12) || v > hi[ax] * (1 + 1e-12)) continue
      n++; if (!(lab in seen)) { seen[lab] = 1; d++ }
    }
  }
  print panel, ax, n, d
}
function panel_end() { for (a in lo) flush(a); delete lo; delete hi; delete kind; delete fmt }
/^reset$/ { panel_end(); panel++; next }
/^set [xy]range \[[-0-9.e+]+:[-0-9.e+]+\]$/ {
  ax = substr($2, 1, 1); r = $3; gsub(/[\[\]]/, "", r); split(r, b, ":"); lo[ax] = b[1] + 0; hi[ax] = b[2] + 0
}
/^set [xy]tics \(/ {
  ax = substr($2, 1, 1); t = $0; sub(/^set [xy]tics \(/, "", t); sub(/\).*$/, "", t)
  if (t ~ /^'/) { kind[ax] = "list"; list[ax] = t }  # numeric axes: 'label' value
}
/^set [xy]tics [0-9.e+-]+$/ { ax = substr($2, 1, 1); kind[ax] = "step"; step[ax] = $3 + 0 }
/^set format [xy] '/ { ax = $3; f = $0; sub(/^set format [xy] '/, "", f); sub(/'$/, "", f); fmt[ax] = f }
END { panel_end() }

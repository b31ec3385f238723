# svg_text.awk — the texts of a gnuplot SVG, one a line: "x<TAB>anchor<TAB>
# font size<TAB>text" (x the anchor's abscissa in px, anchor "end", "middle"
# or "start"; &gt; &lt; &amp; &quot; &apos; decoded), for goldens that check
# where gnuplot put a label (e.g. a key's titles inside the figure).
/translate\(/ {
  match($0, /translate\([-0-9.]+,/); x = substr($0, RSTART + 10, RLENGTH - 11)
  fs = 0; if (match($0, /font-size="[0-9.]+"/)) fs = substr($0, RSTART + 11, RLENGTH - 12)
  anchor = "start"
  if ($0 ~ /text-anchor="end"/) anchor = "end"; else if ($0 ~ /text-anchor="middle"/) anchor = "middle"
  pending = 1; next
}
pending && /<text>/ {
  t = $0; sub(/.*<text>/, "", t); sub(/<\/text>.*/, "", t)
  gsub(/&gt;/, ">", t); gsub(/&lt;/, "<", t); gsub(/&quot;/, "\"", t); gsub(/&apos;/, "'", t)
  gsub(/&amp;/, "\\&", t)
  printf "%s\t%s\t%s\t%s\n", x, anchor, fs, t
  pending = 0
}

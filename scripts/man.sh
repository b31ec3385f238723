#!/bin/sh
# man.sh WEFT OUTDIR — man pages from the help text: weft.1 from `weft
# --help`, weft-CMD.1 from `weft CMD --help` for every command it lists. The
# help is the one source; its text goes in as it is (preformatted).
set -eu
weft=$1 out=$2
mkdir -p "$out"
version=$("$weft" --version | sed 's/^weft //')
esc() { sed -e 's/\\/\\e/g' -e 's/^\./\\\&./' -e "s/^'/\\\\\\&'/"; }
page() { # name, one-line summary, help text on stdin
  {
    printf '.TH %s 1 "" "weft %s" "weft manual"\n' "$(echo "$1" | tr a-z A-Z)" "$version"
    printf '.SH NAME\n%s \\- %s\n.SH DESCRIPTION\n.nf\n' "$1" "$2"
    esc
    printf '.fi\n.SH SEE ALSO\nweft(1); the documentation in docs/ of the source tree.\n'
  } >"$out/$1.1"
}
"$weft" --help 2>&1 | page weft "design the network fabric of AI training clusters"
cmds=$("$weft" --help 2>&1 | sed -n 's/^  \([a-z][a-z-]*\)  .*/\1/p')
for c in $cmds; do
  summary=$("$weft" --help 2>&1 | awk -v c="$c" '
    $1 == c && /^  [a-z]/ { on = 1; sub(/^  [a-z-]+ +/, ""); s = $0; next }
    on && /^             / { sub(/^ +/, ""); s = s " " $0; next }
    { on = 0 } END { print s }')
  "$weft" "$c" --help 2>&1 | page "weft-$c" "${summary:-weft $c}"
done

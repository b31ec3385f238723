#!/bin/sh
# deps.sh — install the Debian packages weft builds and tests with, if missing.
# A no-op when everything is there; needs root or sudo otherwise.
set -e
need=""
for p in gcc make libyaml-dev valgrind; do
  dpkg -s "$p" >/dev/null 2>&1 || need="$need $p"
done
[ -z "$need" ] && exit 0
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 || { echo "weft: please install:$need (apt-get install$need)" >&2; exit 1; }
  SUDO="sudo"
fi
echo "weft: installing$need" >&2
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $need >/dev/null

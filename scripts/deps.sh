#!/bin/sh
# deps.sh — install the Debian packages weft builds and tests with, if missing.
set -e
need=""
for p in build-essential libyaml-dev valgrind; do
  dpkg -s "$p" >/dev/null 2>&1 || need="$need $p"
done
[ -z "$need" ] && exit 0
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $need

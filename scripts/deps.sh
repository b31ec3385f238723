#!/bin/sh
# deps.sh — install the Debian packages weft builds and tests with, if missing.
# A no-op when everything is there; needs root or sudo otherwise.
# --mpi adds Debian's Open MPI (for `make mpi`: mpicc, mpirun); --calculon the
# Python packages of scripts/calculon_runs.py.
set -e
# protobuf-c: Chakra execution traces (src/io/chakra.proto -> protoc-c; libprotobuf-c);
# protobuf-compiler: protoc --decode_raw checks the traces weft writes (tests).
pkgs="gcc make libyaml-dev valgrind protobuf-c-compiler libprotobuf-c-dev protobuf-compiler"
[ "${1:-}" = "--mpi" ] && pkgs="$pkgs openmpi-bin libopenmpi-dev"
# --calculon: what scripts/calculon_runs.py needs to run Calculon (by hand, not CI).
[ "${1:-}" = "--calculon" ] && pkgs="$pkgs python3-numpy python3-pandas python3-psutil python3-yaml"
need=""
for p in $pkgs; do
  dpkg -s "$p" >/dev/null 2>&1 || need="$need $p"
done
# make test builds examples/ against an installed copy through pkg-config.
command -v pkg-config >/dev/null 2>&1 || need="$need pkgconf"
# --plot draws through gnuplot (and the plot_* goldens need it); a PDF needs its
# pdfcairo terminal, which Debian's gnuplot-nox has (5.4: pngcairo, pdfcairo, ...).
gnuplot -e "exit status (strstrt(' '.GPVAL_TERMINALS.' ', ' pdfcairo ') > 0 ? 0 : 1)" \
  >/dev/null 2>&1 || need="$need gnuplot-nox"
# The match unit tests compare with networkx (tests/oracle/matching_oracle.py):
# any python3 that imports it will do, else Debian's.
python3 -c 'import networkx' >/dev/null 2>&1 || /usr/bin/python3 -c 'import networkx' >/dev/null 2>&1 ||
  need="$need python3-networkx"
# The Python package's tests (python/tests) run with pytest: Debian's.
python3 -c 'import pytest' >/dev/null 2>&1 || /usr/bin/python3 -c 'import pytest' >/dev/null 2>&1 ||
  need="$need python3-pytest"
# One of them installs the package into a bare venv (pip install ./python, the
# package's own build backend: no setuptools): Debian ships venv/ensurepip apart.
/usr/bin/python3 -c 'import ensurepip' >/dev/null 2>&1 || python3 -c 'import ensurepip' >/dev/null 2>&1 ||
  need="$need python3-venv"
[ -z "$need" ] && exit 0
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 || { echo "weft: please install:$need (apt-get install$need)" >&2; exit 1; }
  SUDO="sudo"
fi
echo "weft: installing$need" >&2
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $need >/dev/null

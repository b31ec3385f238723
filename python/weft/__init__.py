"""weft — network-fabric design for AI training clusters, from Python.

A thin layer over libweft.so (ctypes): each function takes the inputs the
CLI takes (file names, or dicts shaped as the YAML files) with keywords for
its options, and returns what `weft <command> --json` prints, as a dict.
Bad input raises WeftError (file, line, column, field, message).
See python/README.md."""
from ._core import VERSION as __version__, WeftError
from ._codesign import codesign
from ._optimize import optimize
from ._sim import simulate, validate
from ._topo import topo
from ._zoo import workload, zoo

__all__ = ["WeftError", "codesign", "optimize", "simulate", "topo", "validate", "workload", "zoo"]

"""weft — network-fabric design for AI training clusters, from Python.

A thin layer over libweft.so (ctypes): each function takes the inputs the
CLI takes (file names, or dicts shaped as the YAML files) with keywords for
its options, and returns what `weft <command> --json` prints, as a dict.
Bad input raises WeftError (file, line, column, field, message).
See python/README.md."""
from ._core import VERSION as __version__, WeftError
from ._optimize import optimize

# The other commands load on first use: `import weft` + optimize() stays fast.
_LAZY = {"codesign": "_codesign", "simulate": "_sim", "validate": "_sim", "topo": "_topo",
         "workload": "_zoo", "zoo": "_zoo"}
__all__ = ["WeftError", "codesign", "optimize", "simulate", "topo", "validate", "workload", "zoo"]


def __getattr__(name):
    mod = _LAZY.get(name)
    if mod is None:
        raise AttributeError("module 'weft' has no attribute %r" % name)
    from importlib import import_module
    value = getattr(import_module("." + mod, __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))

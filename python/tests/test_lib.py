# test_lib.py — finding libweft.so and checking it matches the package.
import os
import subprocess
import sys

import pytest

import weft
from weft import _lib
from helpers import CLI, ROOT


def test_version_is_the_cli_s():
    out = subprocess.run([CLI, "--version"], stdout=subprocess.PIPE).stdout.decode()
    assert out == "weft %s\n" % weft.__version__


def test_struct_sizes_are_checked():
    class Fake:  # a library whose structs are all one byte: every one is named
        _name = "libfake.so"

        def weft_sizeof(self, name):
            return 1

        def weft_version(self):
            return b"9.9"
    from weft import _libx  # the structs of the other commands, bound on first use
    for structs, name in ((_lib.MIRRORED, "WeftResult"), (_libx.MIRRORED, "WeftSimResult")):
        with pytest.raises(_lib.WeftLoadError) as e:
            _lib.check_abi(Fake(), structs)
        assert "%s: library 1 bytes" % name in str(e.value) and "9.9" in str(e.value)
        _lib.check_abi(weft._core.lib, structs)  # the real one matches


def test_weft_lib_names_the_library():
    env = dict(os.environ, WEFT_LIB="/nonexistent/libweft.so.0",
               PYTHONPATH=os.path.join(ROOT, "python"))
    p = subprocess.run([sys.executable, "-c", "import weft"], env=env, stderr=subprocess.PIPE)
    assert p.returncode != 0 and b"/nonexistent/libweft.so.0" in p.stderr
    lib = os.path.realpath(weft._core.lib._name)
    env["WEFT_LIB"] = lib
    p = subprocess.run([sys.executable, "-c", "import weft; print(weft._core.lib._name)"],
                       env=env, stdout=subprocess.PIPE)
    assert p.stdout.decode().strip() == lib

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


def test_package_version_is_the_library_s():
    text = open(os.path.join(ROOT, "python", "pyproject.toml")).read()
    assert 'version = "%s"' % weft.__version__ in text


@pytest.mark.parametrize("how", ["tree", "copy"])
def test_pip_install_offline(tmp_path, how):
    """python3 -m venv v && v/bin/pip install ./python, offline (--no-index)
    into a bare venv (no system site-packages: no setuptools, no wheel; the
    package's own build backend): from the source tree (the library and the
    zoo found beside python/), or from a copy of python/ elsewhere given
    them by $WEFT_LIB and $WEFT_ZOO. The installed package carries the
    library and the zoo and gives the answers of the source tree's, from
    anywhere."""
    import shutil
    import venv  # noqa: F401  (python3-venv)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("WEFT_", "PYTHON"))}
    p = subprocess.run([sys.executable, "-m", "venv", str(tmp_path / "v")],
                       stderr=subprocess.PIPE)
    if p.returncode or not (tmp_path / "v" / "bin" / "pip").exists():
        pytest.skip("no venv with pip: %s" % p.stderr.decode().strip()[-200:])
    src, env_build = os.path.join(ROOT, "python"), env
    if how == "copy":
        src = tmp_path / "src"
        shutil.copytree(os.path.join(ROOT, "python"), src,
                        ignore=shutil.ignore_patterns("__pycache__", "build", "tests"))
        env_build = dict(env, WEFT_LIB=os.path.realpath(weft._core.lib._name),
                         WEFT_ZOO=os.path.join(ROOT, "data", "zoo"))
    p = subprocess.run([str(tmp_path / "v" / "bin" / "pip"), "install", "-q", "--no-index",
                        str(src)], env=env_build, cwd=str(tmp_path),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert p.returncode == 0, p.stdout.decode()[-2000:]
    gpt3 = os.path.join(ROOT, "data", "gpt3_4096npu_4d.yml")
    code = ("import json, weft; print(json.dumps([weft.optimize(%r), weft.zoo('gpt3-175b')"
            "['params'], weft.__file__, weft.zoo('h100').get('measured', {}).get('gemm', {})"
            ".get('rows')]))" % gpt3)
    out = subprocess.run([str(tmp_path / "v" / "bin" / "python"), "-c", code], env=env,
                         cwd=str(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert out.returncode == 0, out.stderr.decode()
    import json
    opt, params, where, gemm_rows = json.loads(out.stdout)
    assert where.startswith(str(tmp_path / "v"))
    # the measured kernel tables travel with the zoo (the same H100 times)
    assert gemm_rows == weft.zoo("h100")["measured"]["gemm"]["rows"] > 0
    assert opt == json.loads(json.dumps(weft.optimize(gpt3)))
    assert params == weft.zoo("gpt3-175b")["params"]


def test_weft_data_names_the_data(tmp_path):
    """$WEFT_DATA: the zoo in it, before the source tree's (a copy holding one
    model and the clusters: weft.zoo() lists that model, as the CLI does)."""
    import json
    import shutil
    zoo = tmp_path / "data" / "zoo"
    (zoo / "models").mkdir(parents=True)
    shutil.copy(os.path.join(ROOT, "data", "zoo", "models", "gpt3-175b.yml"), zoo / "models")
    for f in ("devices.yml", "clusters.yml"):
        shutil.copy(os.path.join(ROOT, "data", "zoo", f), zoo)
    env = {k: v for k, v in os.environ.items() if not k.startswith("WEFT_")}
    env.update(WEFT_DATA=str(tmp_path / "data"), PYTHONPATH=os.path.join(ROOT, "python"),
               WEFT_LIB=os.path.realpath(weft._core.lib._name))
    code = "import json, weft; print(json.dumps([m['name'] for m in weft.zoo()['models']]))"
    p = subprocess.run([sys.executable, "-c", code], env=env, cwd=str(tmp_path),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert p.returncode == 0, p.stderr.decode()
    assert json.loads(p.stdout) == ["gpt3-175b"]
    p = subprocess.run([CLI, "zoo", "--json"], env=env, cwd=str(tmp_path), stdout=subprocess.PIPE)
    assert [m["name"] for m in json.loads(p.stdout)["models"]] == ["gpt3-175b"]

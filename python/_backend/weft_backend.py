# weft_backend.py — the package's PEP 517 build backend, in the tree
# (pyproject.toml: backend-path), so `pip install ./python` needs nothing
# from PyPI: no setuptools, no wheel, offline, with any python3 >= 3.8.
# It writes the wheel itself (PEP 427): weft/*.py, the built libweft.so.0
# ($WEFT_LIB, else ../build/libweft.so.0, built with make when missing and
# the source tree is there) and the model zoo, parts catalog and measured
# kernel tables beside it ($WEFT_ZOO, else ../data/zoo; the parts catalog is
# the zoo's ../parts, the tables its ../measured),
# so the installed package needs neither the source tree nor make install.
# Without a library it installs the package alone, which then finds
# libweft.so.0 through the system loader.
import base64
import hashlib
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import zipfile

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # python/
REPO = os.path.dirname(HERE)
NAME = "weft"


def _project():
    """name, version, summary and requires-python from pyproject.toml (the
    few keys this backend reads, by line: no TOML parser before 3.11)."""
    meta = {}
    section = None
    with open(os.path.join(HERE, "pyproject.toml"), encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            m = re.match(r"^\[(.+)\]$", line)
            if m:
                section = m.group(1)
                continue
            m = re.match(r'^([A-Za-z_-]+)\s*=\s*"(.*)"$', line)
            if section == "project" and m:
                meta[m.group(1)] = m.group(2)
    return meta


def _log(msg):
    sys.stderr.write("weft build: %s\n" % msg)


def _library():
    """The libweft.so.0 to bundle, or None."""
    lib = os.environ.get("WEFT_LIB")
    if lib:
        if not os.path.exists(lib):
            raise RuntimeError("WEFT_LIB=%s: no such file" % lib)
        return os.path.realpath(lib)
    lib = os.path.join(REPO, "build", "libweft.so.0")
    if not os.path.exists(lib) and os.path.exists(os.path.join(REPO, "Makefile")) \
            and shutil.which("make"):
        _log("%s not found: building it (make -C %s)" % (lib, REPO))
        p = subprocess.run(["make", "-C", REPO, "-s", "all"], stdout=sys.stderr,
                           stderr=sys.stderr)
        if p.returncode:
            _log("make failed (exit %d): the package will use the system's libweft.so.0"
                 % p.returncode)
    if os.path.exists(lib):
        return os.path.realpath(lib)
    _log("no libweft.so.0 (run make, or set WEFT_LIB): the package will use the system's")
    return None


def _files():
    """(path in the wheel, path on disk) of everything the wheel holds."""
    out = []
    pkg = os.path.join(HERE, NAME)
    for n in sorted(os.listdir(pkg)):
        if n.endswith(".py"):
            out.append((NAME + "/" + n, os.path.join(pkg, n)))
    lib = _library()
    if lib:
        out.append((NAME + "/libweft.so.0", lib))
    zoo = os.environ.get("WEFT_ZOO") or os.path.join(REPO, "data", "zoo")
    for sub, src in (("zoo", zoo), ("parts", os.path.join(zoo, "..", "parts")),
                     ("measured", os.path.join(zoo, "..", "measured"))):
        if not os.path.isdir(src):
            continue
        for root, dirs, files in os.walk(src):
            dirs.sort()
            for n in sorted(files):
                rel = os.path.relpath(os.path.join(root, n), src).replace(os.sep, "/")
                out.append(("%s/%s/%s" % (NAME, sub, rel), os.path.join(root, n)))
    return out, lib is not None


def _tag(native):
    """A wheel with the library is for this platform; py3 either way (ctypes)."""
    if not native:
        return "py3-none-any"
    plat = re.sub(r"[^A-Za-z0-9_]", "_", sysconfig.get_platform())
    return "py3-none-" + plat


def _metadata(meta):
    lines = ["Metadata-Version: 2.1", "Name: " + meta["name"], "Version: " + meta["version"],
             "Summary: " + meta.get("description", ""), "License: MIT"]
    if meta.get("requires-python"):
        lines.append("Requires-Python: " + meta["requires-python"])
    readme = os.path.join(HERE, "README.md")
    body = ""
    if os.path.exists(readme):
        lines.append("Description-Content-Type: text/markdown")
        with open(readme, encoding="utf-8") as f:
            body = f.read()
    return "\n".join(lines) + "\n\n" + body


def _digest(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def _dist_info(meta, tag):
    di = "%s-%s.dist-info" % (meta["name"], meta["version"])
    wheel = ("Wheel-Version: 1.0\nGenerator: weft_backend\nRoot-Is-Purelib: %s\nTag: %s\n"
             % ("true" if tag.endswith("-any") else "false", tag))
    return di, [(di + "/METADATA", _metadata(meta).encode()), (di + "/WHEEL", wheel.encode())]


def _write_wheel(directory, meta, files, tag):
    name = "%s-%s-%s.whl" % (meta["name"], meta["version"], tag)
    di, extra = _dist_info(meta, tag)
    record = []
    with zipfile.ZipFile(os.path.join(directory, name), "w", zipfile.ZIP_DEFLATED) as z:
        for arc, path in files:
            with open(path, "rb") as f:
                data = f.read()
            info = zipfile.ZipInfo(arc, date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = (0o755 if arc.endswith(".so.0") else 0o644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
            record.append("%s,%s,%d" % (arc, _digest(data), len(data)))
        for arc, data in extra:
            z.writestr(zipfile.ZipInfo(arc, date_time=(1980, 1, 1, 0, 0, 0)), data)
            record.append("%s,%s,%d" % (arc, _digest(data), len(data)))
        record.append(di + "/RECORD,,")
        z.writestr(zipfile.ZipInfo(di + "/RECORD", date_time=(1980, 1, 1, 0, 0, 0)),
                   "\n".join(record) + "\n")
    return name


# ------------------------------------------------------------------ PEP 517 hooks
def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    meta = _project()
    files, native = _files()
    return _write_wheel(wheel_directory, meta, files, _tag(native))


def build_sdist(sdist_directory, config_settings=None):
    """The package's sources (python/ without tests and caches)."""
    meta = _project()
    base = "%s-%s" % (meta["name"], meta["version"])
    name = base + ".tar.gz"
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz") as t:
        for rel in ("pyproject.toml", "README.md", "_backend/weft_backend.py"):
            t.add(os.path.join(HERE, rel), base + "/" + rel)
        for n in sorted(os.listdir(os.path.join(HERE, NAME))):
            if n.endswith(".py"):
                t.add(os.path.join(HERE, NAME, n), "%s/%s/%s" % (base, NAME, n))
        info = tarfile.TarInfo(base + "/PKG-INFO")
        data = _metadata(meta).encode()
        info.size = len(data)
        import io
        t.addfile(info, io.BytesIO(data))
    return name

# setup.py — only what pyproject.toml cannot say: the built libweft.so
# ($WEFT_LIB, else ../build/libweft.so.0) and the model zoo ($WEFT_ZOO, else
# ../data/zoo, with the parts catalog beside it) are
# copied into the package, so an installed weft needs neither the source tree
# nor `make install`. Without a built library the package is installed alone
# and finds libweft.so.0 through the system loader.
import os
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


class BuildPy(build_py):
    def run(self):
        super().run()
        dest = os.path.join(self.build_lib, "weft")
        lib = os.environ.get("WEFT_LIB") or os.path.join(REPO, "build", "libweft.so.0")
        if os.path.exists(lib):
            shutil.copyfile(os.path.realpath(lib), os.path.join(dest, "libweft.so.0"))
        else:
            print("weft: %s not found (run make): the package will use the system's "
                  "libweft.so.0" % lib)
        zoo = os.environ.get("WEFT_ZOO") or os.path.join(REPO, "data", "zoo")
        if os.path.isdir(zoo):
            shutil.rmtree(os.path.join(dest, "zoo"), ignore_errors=True)
            shutil.copytree(zoo, os.path.join(dest, "zoo"))
            parts = os.path.join(zoo, "..", "parts")  # the parts catalog, found beside the zoo
            if os.path.isdir(parts):
                shutil.rmtree(os.path.join(dest, "parts"), ignore_errors=True)
                shutil.copytree(parts, os.path.join(dest, "parts"))


setup(cmdclass={"build_py": BuildPy})

"""Bundles libcmetal.so into the package at install time: the library named
by $CMETAL_LIBRARY, else the repository's build/libcmetal.so (run `make`
first).  Without either the package installs alone and finds the library
at import time (see cmetal/_lib.py)."""
import os
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))


class BuildWithLibrary(build_py):
    def run(self):
        super().run()
        src = os.environ.get("CMETAL_LIBRARY") or os.path.join(HERE, "..", "build",
                                                               "libcmetal.so")
        if os.path.isfile(src):
            dst = os.path.join(self.build_lib, "cmetal", "libcmetal.so")
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copyfile(src, dst)
            print(f"cmetal: bundled {os.path.abspath(src)}")
        else:
            print("cmetal: no libcmetal.so to bundle (run `make` in the repository or set "
                  "CMETAL_LIBRARY); the package will look for it at import time")


setup(cmdclass={"build_py": BuildWithLibrary})

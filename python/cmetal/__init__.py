"""cmetal: C-for-Metal kernels from Python, on NumPy, CuPy and PyTorch arrays.

    import numpy as np, cmetal
    dev = cmetal.Device("auto")                 # "cpu", "cuda", "cuda:N"
    prog = dev.build(source, options=["-DN=8"])
    vadd = prog.kernel("vadd")                  # vadd.args: the signature
    vadd(a, b, c, groups=(n // 128,), group_size=(16,))

See python/README.md.  The package calls libcmetal.so through ctypes; where
it looks for the library is described in cmetal._lib.
"""
from ._core import (DEPENDENCIES, FORMATS, Arg, Buffer, Device, Event, GroupSpace, Kernel,
                    Program, Surface2D, Svm, ThreadSpace, surface_geometry)
from ._lib import ArgumentError, BuildError, CmetalError, candidates


def library_path() -> str:
    """The path of the libcmetal.so in use."""
    from ._lib import lib
    return lib().path


__all__ = ["Device", "Program", "Kernel", "Arg", "Buffer", "Surface2D", "Svm", "Event",
           "ThreadSpace", "GroupSpace", "CmetalError", "BuildError", "ArgumentError",
           "FORMATS", "DEPENDENCIES", "surface_geometry", "library_path", "candidates"]
__version__ = "0.1.0"

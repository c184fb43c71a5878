"""Shared fixtures: the device under test is $CMETAL_DEVICE (default cpu);
CUDA-only tests skip unless it is a CUDA device."""
import os

import numpy as np
import pytest

import cmetal

DEVICE = os.environ.get("CMETAL_DEVICE") or "cpu"


@pytest.fixture(scope="session")
def dev():
    d = cmetal.Device(DEVICE)
    yield d
    d.close()


@pytest.fixture(scope="session")
def cuda(dev):
    if dev.kind != "cuda":
        pytest.skip("needs a CUDA device (CMETAL_DEVICE=cuda)")
    return dev


VADD = r'''
#include <cm/cm.h>
extern "C" _GENX_MAIN_ void vadd(SurfaceIndex a [[type("buffer_t")]],
                                 SurfaceIndex b [[type("buffer_t")]],
                                 SurfaceIndex c [[type("buffer_t")]])
{
    unsigned off = cm_linear_global_id() * 8 * sizeof(float);
    vector<float, 8> x, y;
    read(a, off, x);
    read(b, off, y);
    write(c, off, x + y);
}
'''


@pytest.fixture(scope="session")
def vadd(dev):
    return dev.build(VADD).kernel("vadd")


def ramp(n, dtype=np.float32):
    return np.arange(n, dtype=dtype)

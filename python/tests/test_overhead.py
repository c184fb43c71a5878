"""A launch from Python costs at most 10 µs more than the same launch from C
(tests/launch_overhead.c, built here with cc against the library in use)."""
import os
import shutil
import statistics
import subprocess
import time

import numpy as np
import pytest

import cmetal
import conftest

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = r'''
#include <cm/cm.h>
extern "C" _GENX_MAIN_ void touch(SurfaceIndex b [[type("buffer_t")]], int v)
{
	vector<int, 8> x = v;
	write(b, 0, x);
}
'''


def c_time(tmp_path, env):
    lib = cmetal.library_path()
    include = os.path.join(HERE, "..", "..", "include")
    exe = str(tmp_path / "launch_overhead")
    subprocess.check_call(["cc", "-O2", "-std=c11", "-D_GNU_SOURCE", "-I", include,
                           os.path.join(HERE, "launch_overhead.c"), lib, "-Wl,-rpath," +
                           os.path.dirname(os.path.abspath(lib)), "-o", exe])
    out = subprocess.check_output([exe, conftest.DEVICE, "3000"], env=env, text=True)
    return float(out.split()[1])


def py_time(k, buf):
    times = []
    for b in range(31):
        t0 = time.perf_counter()
        for i in range(100):
            k(buf, i, threads=1)
        times.append((time.perf_counter() - t0) / 100 * 1e6)
    return statistics.median(times[1:])


def test_launch_overhead(tmp_path, monkeypatch):
    if not shutil.which("cc") or not os.path.exists(os.path.join(HERE, "..", "..", "include")):
        pytest.skip("needs cc and the repository's include/")
    # one worker thread on the CPU: the launch itself, not waking a pool
    env = dict(os.environ, CMETAL_CPU_THREADS="1")
    monkeypatch.setenv("CMETAL_CPU_THREADS", "1")
    dev = cmetal.Device(conftest.DEVICE)
    k = dev.build(SRC).kernel("touch")
    buf = dev.buffer(shape=16, dtype=np.int32)
    # the best of three tries each, C and Python alternating, against noise
    # from other processes; a host that slows down for a while (a busy VM:
    # 6 to 13 us on one idle 2-vCPU guest, 2026-11-28) gets up to three
    # such measurements, so a lasting regression still fails
    for attempt in range(3):
        c = py = float("inf")
        for _ in range(3):
            c = min(c, c_time(tmp_path, env))
            py = min(py, py_time(k, buf))
        if py - c <= 10.0:
            break
    print(f"launch: C {c:.2f} us, Python {py:.2f} us, overhead {py - c:.2f} us")
    assert (buf.numpy()[:8] == 99).all()
    assert py - c <= 10.0, f"Python adds {py - c:.1f} us per launch (C {c:.1f}, Python {py:.1f})"
    dev.close()

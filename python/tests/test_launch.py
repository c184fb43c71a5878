"""Launches with every kind of argument, results against NumPy, and the
errors for arguments that do not fit the kernel."""
import numpy as np
import pytest

import cmetal
from conftest import ramp

SCALARS = r'''
#include <cm/cm.h>
extern "C" _GENX_MAIN_ void scalars(SurfaceIndex out [[type("buffer_t")]], char a, uchar b,
    short c, ushort d, int e, uint f, long long g, half h, float i, double j)
{
    vector<double, 16> v = 0;
    v(0) = a; v(1) = b; v(2) = c; v(3) = d; v(4) = e; v(5) = f; v(6) = g;
    v(7) = h; v(8) = i; v(9) = j;
    write(out, 0, v);
}
extern "C" _GENX_MAIN_ void vec(SurfaceIndex out [[type("buffer_t")]], vector<int, 8> v,
                                matrix<float, 2, 4> m)
{
    vector<float, 16> r;
    r.select<8, 1>(0) = v;
    r.select<8, 1>(8) = m;
    write(out, 0, r);
}
extern "C" _GENX_MAIN_ void svm_scale(svmptr_t p, float s)
{
    vector<float, 8> x;
    unsigned off = cm_linear_global_id() * 32;
    cm_svm_block_read(p + off, x);
    cm_svm_block_write(p + off, x * s);
}
extern "C" _GENX_MAIN_ void ids(SurfaceIndex out [[type("buffer_t")]])
{
    vector<uint, 8> v;
    v(0) = cm_group_id(0); v(1) = cm_group_id(1); v(2) = cm_local_id(0);
    v(3) = cm_local_id(1); v(4) = get_thread_origin_x(); v(5) = get_thread_origin_y();
    v(6) = cm_linear_global_id(); v(7) = 1;
    write(out, cm_linear_global_id() * 32, v);
}
extern "C" _GENX_MAIN_ void twice2d(SurfaceIndex img [[type("image2d_t")]])
{
    matrix<float, 4, 8> m;
    int x = get_thread_origin_x() * 32, y = get_thread_origin_y() * 4;
    read(img, x, y, m);
    write(img, x, y, m * 2.0f);
}
extern "C" _GENX_MAIN_ void anysurf(SurfaceIndex s)
{
    matrix<int, 2, 4> m;
    read(s, 0, 0, m);
    write(s, 0, 0, m + 1);
}
'''


@pytest.fixture(scope="module")
def prog(dev):
    return dev.build(SCALARS)


def test_vadd_zero_copy(dev, vadd):
    n = 4096
    a, b, c = ramp(n), ramp(n) * 2, np.zeros(n, np.float32)
    vadd(a, b, c, groups=(n // 8 // 16,), group_size=(16,))
    np.testing.assert_array_equal(c, a + b)
    c[:] = 0
    vadd[n // 8](a, b, c)           # the same through a thread space
    np.testing.assert_array_equal(c, a + b)
    vadd[(n // 128,), (16,)](a, b, c)
    np.testing.assert_array_equal(c, a + b)


def test_vadd_buffers(dev, vadd):
    n = 1024
    a, b = dev.buffer(ramp(n)), dev.buffer(ramp(n) + 1)
    c = dev.buffer(shape=n, dtype=np.float32)
    vadd(a, b, c, threads=n // 8)
    np.testing.assert_array_equal(np.asarray(c), 2 * ramp(n) + 1)
    np.testing.assert_array_equal(c.numpy(copy=True), 2 * ramp(n) + 1)
    np.testing.assert_array_equal(c.read(), 2 * ramp(n) + 1)
    assert c.shape == (n,) and c.dtype == np.float32 and c.nbytes == 4 * n


def test_buffer_dlpack_roundtrip(dev, vadd):
    if dev.kind != "cpu":
        pytest.skip("NumPy imports host memory only")
    c = dev.buffer(ramp(16))
    v = np.from_dlpack(c)
    np.testing.assert_array_equal(v, ramp(16))
    vadd(dev.buffer(np.ones(16, np.float32)), dev.buffer(np.ones(16, np.float32)), c,
         threads=2)
    assert (v == 2).all()                # a view of the buffer itself on the CPU


class OnlyDLPack:
    """An array known only through DLPack (as from JAX)."""

    def __init__(self, a):
        self.a = a

    def __dlpack__(self, stream=None):
        return self.a.__dlpack__()

    def __dlpack_device__(self):
        return self.a.__dlpack_device__()


def test_dlpack_argument(dev, vadd):
    a, b, c = ramp(64), ramp(64), np.zeros(64, np.float32)
    vadd(OnlyDLPack(a), OnlyDLPack(b), OnlyDLPack(c), threads=8)
    np.testing.assert_array_equal(c, 2 * a)


def test_scalars(dev, prog):
    out = np.zeros(16, np.float64)
    k = prog.kernel("scalars")
    k(out, -5, 250, -30000, 60000, -2**31, 2**32 - 1, -2**40, 0.5, 1.25, 1e100, threads=1)
    np.testing.assert_array_equal(out[:10], [-5, 250, -30000, 60000, -2**31, 2**32 - 1,
                                             -2**40, 0.5, 1.25, 1e100])
    k(out, np.int8(1), np.uint8(2), 3, 4, 5, 6, 7, 8, np.float32(9), 10, threads=1)
    np.testing.assert_array_equal(out[:10], np.arange(1, 11))


def test_vector_and_matrix(dev, prog):
    out = np.zeros(16, np.float32)
    prog.kernel("vec")(out, list(range(8)), np.arange(8).reshape(2, 4) + 0.5, threads=1)
    np.testing.assert_array_equal(out, list(range(8)) + [x + 0.5 for x in range(8)])


def test_svm_arguments(dev, prog):
    k = prog.kernel("svm_scale")
    a = ramp(64)
    k(a, 2.0, threads=8)                 # an array's memory as svmptr_t
    np.testing.assert_array_equal(a, 2 * ramp(64))
    s = dev.svm(ramp(64))
    k(s, 3.0, threads=8)                 # a cmetal.Svm
    np.testing.assert_array_equal(s.read().view(np.float32), 3 * ramp(64))
    k(s.address, 2.0, threads=8)         # a raw address
    np.testing.assert_array_equal(s.read().view(np.float32), 6 * ramp(64))


def test_spaces(dev, prog):
    k = prog.kernel("ids")
    out = np.zeros((12, 8), np.uint32)
    k(out, groups=(3, 2), group_size=(2, 1))
    assert (out[:, 7] == 1).all()
    assert sorted(map(tuple, out[:, :4].tolist())) == sorted(
        (gx, gy, lx, 0) for gx in range(3) for gy in range(2) for lx in range(2))
    out[:] = 0
    k(out, threads=(4, 3))
    assert sorted(map(tuple, out[:, 4:6].tolist())) == sorted(
        (x, y) for x in range(4) for y in range(3))
    out[:] = 0
    k[4, 3](out)
    assert (out[:, 7] == 1).all()
    with pytest.raises(cmetal.CmetalError, match="too large for kernel 'ids'") as e:
        k(out, groups=1, group_size=(2048,))
    assert e.value.status == "CM_GROUP_TOO_LARGE"
    with pytest.raises(ValueError, match="needs threads="):
        k(out)


def test_surface2d_from_arrays(dev, prog):
    k = prog.kernel("twice2d")
    img = np.arange(8 * 16, dtype=np.float32).reshape(8, 16)
    want = img * 2
    k(img, threads=(2, 2))               # zero copy on the CPU
    np.testing.assert_array_equal(img, want)
    wide = np.arange(8 * 20, dtype=np.float32).reshape(8, 20)
    part = wide[:, :16]                  # rows 80 bytes apart: the pitch
    k(part, threads=(2, 2))
    np.testing.assert_array_equal(wide[:, :16], np.arange(160, dtype=np.float32)
                                  .reshape(8, 20)[:, :16] * 2)
    np.testing.assert_array_equal(wide[:, 16:], np.arange(160, dtype=np.float32)
                                  .reshape(8, 20)[:, 16:])
    s = dev.surface2d(np.ones((8, 16), np.float32))
    k(s, threads=(2, 2))
    assert s.format == "R32F" and (s.numpy() == 2).all()


def test_unattributed_surface(dev, prog):
    k = prog.kernel("anysurf")
    m = np.zeros((2, 4), np.int32)       # 2D array: a 2D surface
    k(m, threads=1)
    assert (m == 1).all()
    rgba = np.zeros((2, 1, 4), np.uint8)  # (h, w, 4) uint8: R8G8B8A8
    assert cmetal.surface_geometry(rgba.shape, rgba.strides, rgba.dtype)[:3] == (2, 1, 2)


def test_events_and_timing(dev, vadd):
    a = ramp(1024)
    ev = vadd(a, a, a.copy(), threads=128, timed=True)
    assert isinstance(ev, cmetal.Event) and ev.elapsed_ms > 0 and ev.elapsed == ev.elapsed_ms / 1e3
    ev.wait()
    t = vadd.time(a, a, a.copy(), threads=128, repeat=5)
    assert 0 < t < 1


# ---- errors ----

def test_wrong_count(vadd):
    a = ramp(8)
    with pytest.raises(cmetal.ArgumentError, match=r"kernel 'vadd' takes 3 arguments "
                                                   r"\(a, b, c\); got 2"):
        vadd(a, a, threads=1)


def test_wrong_scalar_type(prog):
    k = prog.kernel("svm_scale")
    with pytest.raises(cmetal.ArgumentError, match="argument 1 's' of kernel 'svm_scale' is "
                                                   "float; got str"):
        k(ramp(8), "2", threads=1)
    k = prog.kernel("scalars")
    out = np.zeros(16)
    with pytest.raises(TypeError, match="argument 5 'e' of kernel 'scalars' is int; "
                                        r"got float 1.5 \(expected an integer\)"):
        k(out, 1, 2, 3, 4, 1.5, 6, 7, 8, 9, 10, threads=1)
    with pytest.raises(cmetal.ArgumentError, match="argument 1 'a' .* is char; got 300, which "
                                                   "is out of the range of char"):
        k(out, 300, 2, 3, 4, 5, 6, 7, 8, 9, 10, threads=1)


def test_wrong_array_kind(dev, vadd, prog):
    a = ramp(8)
    with pytest.raises(cmetal.ArgumentError, match=r"argument 0 'a' of kernel 'vadd' is "
                       r'SurfaceIndex \[\[type\("buffer_t"\)\]\]; got a cmetal.Svm'):
        vadd(dev.svm(a), a, a, threads=1)
    with pytest.raises(cmetal.ArgumentError, match="got int 5"):
        vadd(5, a, a, threads=1)
    with pytest.raises(cmetal.ArgumentError, match="got a non-contiguous NumPy array"):
        vadd(ramp(16)[::2], a, a, threads=1)
    ro = ramp(8)
    ro.flags.writeable = False
    with pytest.raises(cmetal.ArgumentError, match="got a read-only NumPy array"):
        vadd(ro, a, a, threads=1)
    with pytest.raises(cmetal.ArgumentError, match="got an empty NumPy array"):
        vadd(np.zeros(0, np.float32), a, a, threads=1)
    with pytest.raises(cmetal.ArgumentError, match="is vector<int, 8>; got 3 elements"):
        prog.kernel("vec")(a, [1, 2, 3], np.zeros(8), threads=1)
    with pytest.raises(cmetal.ArgumentError, match="is unsigned long long; got str"):
        prog.kernel("svm_scale")("p", 1.0, threads=1)
    k = prog.kernel("twice2d")
    with pytest.raises(cmetal.ArgumentError, match="a 2D surface needs a 2D"):
        k(ramp(8), threads=1)
    other = cmetal.Device("cpu")
    with pytest.raises(cmetal.ArgumentError, match="a cmetal.Buffer of another device"):
        vadd(other.buffer(a), a, a, threads=1)
    other.close()


class FakeCudaArray:
    __cuda_array_interface__ = {"shape": (8,), "typestr": "<f4", "data": (0x1000, False),
                                "version": 3, "strides": None}


def test_cuda_array_on_cpu_device(dev, vadd):
    if dev.kind != "cpu":
        pytest.skip("CPU device only")
    a = ramp(8)
    with pytest.raises(cmetal.ArgumentError, match="got a FakeCudaArray .CUDA array. in GPU "
                                                   "memory; the kernel runs on cpu"):
        vadd(FakeCudaArray(), a, a, threads=1)


def test_rebinding_follows_arrays(vadd):
    """Arrays at new addresses (or reshaped) are bound again."""
    for n in (64, 128, 64):
        a, c = ramp(n), np.zeros(n, np.float32)
        vadd(a, a, c, threads=n // 8)
        np.testing.assert_array_equal(c, 2 * a)

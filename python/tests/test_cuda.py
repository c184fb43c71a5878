"""CUDA only (CMETAL_DEVICE=cuda): CuPy arrays and PyTorch tensors used in
place, 2D surfaces over GPU arrays, results handed to CuPy and PyTorch, and
NumPy arrays copied in and out."""
import numpy as np
import pytest

from conftest import VADD, ramp

SURF = r'''
#include <cm/cm.h>
extern "C" _GENX_MAIN_ void twice2d(SurfaceIndex img [[type("image2d_t")]])
{
    matrix<float, 4, 8> m;
    int x = get_thread_origin_x() * 32, y = get_thread_origin_y() * 4;
    read(img, x, y, m);
    write(img, x, y, m * 2.0f);
}
extern "C" _GENX_MAIN_ void svm_scale(svmptr_t p, float s)
{
    vector<float, 8> x;
    unsigned off = cm_linear_global_id() * 32;
    cm_svm_block_read(p + off, x);
    cm_svm_block_write(p + off, x * s);
}
'''


@pytest.fixture(scope="module")
def kernels(cuda):
    return cuda.build(VADD).kernel("vadd"), cuda.build(SURF)


def test_numpy_copied_in_and_out(cuda, kernels):
    vadd, prog = kernels
    a, c = ramp(1024), np.zeros(1024, np.float32)
    vadd(a, a, c, threads=128)
    np.testing.assert_array_equal(c, 2 * a)
    img = np.ones((8, 16), np.float32)
    prog.kernel("twice2d")(img, threads=(2, 2))
    assert (img == 2).all()
    prog.kernel("svm_scale")(a, 3.0, threads=128)
    np.testing.assert_array_equal(a, 3 * ramp(1024))


def test_buffer_to_numpy(cuda, kernels):
    vadd, _ = kernels
    a = cuda.buffer(ramp(256))
    c = cuda.buffer(shape=256, dtype=np.float32)
    vadd(a, a, c, threads=32)
    np.testing.assert_array_equal(np.asarray(c), 2 * ramp(256))
    with pytest.raises(ValueError, match="without a copy"):
        c.numpy(copy=False)


def test_cupy_in_place(cuda, kernels):
    cp = pytest.importorskip("cupy")
    vadd, prog = kernels
    a = cp.arange(4096, dtype=cp.float32)
    c = cp.zeros(4096, dtype=cp.float32)
    vadd(a, a, c, threads=512)                      # zero copy: c written in place
    assert bool((c == 2 * a).all())
    img = cp.ones((8, 20), dtype=cp.float32)[:, :16]  # a pitched 2D view
    prog.kernel("twice2d")(img, threads=(2, 2))
    assert bool((img == 2).all())
    prog.kernel("svm_scale")(c, 0.5, threads=512)   # svmptr_t from a CuPy array
    assert bool((c == a).all())
    buf = cuda.buffer(ramp(64))
    assert bool((cp.asarray(buf) == cp.arange(64, dtype=cp.float32)).all())
    assert bool((cp.from_dlpack(buf) == cp.arange(64, dtype=cp.float32)).all())


def test_torch_in_place(cuda, kernels):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch without CUDA")
    vadd, prog = kernels
    a = torch.arange(4096, dtype=torch.float32, device="cuda")
    c = torch.zeros(4096, dtype=torch.float32, device="cuda")
    vadd(a, a, c, threads=512)
    assert torch.equal(c, 2 * a)
    img = torch.ones((8, 16), dtype=torch.float32, device="cuda")
    prog.kernel("twice2d")(img, threads=(2, 2))
    assert bool((img == 2).all())
    buf = cuda.buffer(ramp(64))
    t = torch.from_dlpack(buf)
    assert t.is_cuda and torch.equal(t, torch.arange(64, dtype=torch.float32, device="cuda"))
    assert torch.equal(torch.as_tensor(buf, device="cuda"), t)

"""Builds, loading, signatures, generated code and build errors."""
import os
import shutil
import subprocess

import numpy as np
import pytest

import cmetal

SIG = r'''
#include <cm/cm.h>
extern "C" _GENX_MAIN_ void sig(SurfaceIndex buf [[type("buffer_t")]],
    SurfaceIndex img [[type("image2d_t")]], SurfaceIndex any, int n, float f,
    vector<short, 4> v, svmptr_t p, double d, uchar c) { }
extern "C" _GENX_MAIN_ void other(int x) { }
'''


def test_device_queries(dev):
    assert dev.kind in ("cpu", "cuda")
    assert dev.name.startswith(dev.kind)
    assert dev.compute_units >= 1 and dev.memory > 0
    # the CPU device allows 227 KB of SLM (RT_MAX_SLM, an H100's opt-in
    # maximum per CTA); a CUDA device reports its own, at least CM's 64 KB
    assert dev.max_slm == 232448 if dev.kind == "cpu" else dev.max_slm >= 65536
    assert dev.max_walker == 65535 and dev.threads >= 1
    if dev.kind == "cpu":
        assert dev.compute_capability is None and dev.max_group_threads == 1024
        assert dev.threads == dev.compute_units and dev.host_svm
    else:
        assert dev.compute_capability >= (8, 0) and dev.max_group_threads in (32, 256)
        assert dev.threads == 64 * dev.compute_units and not dev.host_svm


def test_unknown_device():
    with pytest.raises(cmetal.CmetalError, match="unknown device 'tpu': expected cpu, cuda") as e:
        cmetal.Device("tpu")
    assert e.value.status == "CM_DEVICE_NOT_FOUND"


def test_signature(dev):
    prog = dev.build(SIG)
    assert prog.kernel_names == ["sig", "other"]
    k = prog["sig"]
    assert [a.name for a in k.args] == ["buf", "img", "any", "n", "f", "v", "p", "d", "c"]
    assert [a.type for a in k.args] == [
        'SurfaceIndex [[type("buffer_t")]]', 'SurfaceIndex [[type("image2d_t")]]',
        "SurfaceIndex", "int", "float", "vector<short, 4>", "unsigned long long", "double",
        "uchar"]
    assert k.args[5].dtype == np.int16 and k.args[5].count == 4
    assert k.signature.startswith('sig(SurfaceIndex [[type("buffer_t")]] buf, ')


def test_options_and_defines(dev):
    src = '#include <cm/cm.h>\nextern "C" _GENX_MAIN_ void k(SurfaceIndex b) ' \
          '{ vector<int, 8> v = N; write(b, 0, v); }\n'
    out = np.zeros(8, np.int32)
    dev.build(src, options=["-DN=42", "-O2"]).kernel("k")(out, threads=1)
    assert (out == 42).all()
    dev.build(src, options="-DN=7").kernel("k")(out, threads=1)
    assert (out == 7).all()
    with pytest.raises(ValueError, match="each option is one word"):
        dev.build(src, options=["-I some dir"])


def test_build_error_message(dev):
    src = 'extern "C" _GENX_MAIN_ void f()\n{\n    int x = ;\n}\n'
    with pytest.raises(cmetal.BuildError) as e:
        dev.build(src)
    msg = str(e.value)
    assert msg.splitlines()[0] == "program.cm:3:13: error: expected an expression, found ';'"
    assert msg.splitlines()[1] == "    int x = ;"
    assert msg.splitlines()[2] == "            ^"
    assert e.value.status == "CM_BUILD_FAILED"


def test_unknown_option_is_build_error(dev):
    with pytest.raises(cmetal.BuildError, match="-fnope"):
        dev.build(SIG, options=["-fnope"])


def test_kernel_not_found(dev):
    with pytest.raises(cmetal.CmetalError, match="no kernel named 'sgi' in the program; "
                                                 "it has 'sig', 'other'"):
        dev.build(SIG).kernel("sgi")


def test_generated_code(dev):
    k = dev.build(SIG).kernel("other")
    assert ".entry other" in k.ptx and ".version" in k.ptx
    assert "cmk_k_other" in k.c and "cmk_program" in k.c
    assert "other" in k.program.code("ir")
    report = k.analysis
    assert "kernel other" in report and "occupancy" in report and "limiter" in report


def test_load_kernel_library(dev, tmp_path):
    root = os.path.join(os.path.dirname(__file__), "..", "..")
    cm = os.path.join(root, "build", "cmetal")
    if dev.kind != "cpu" or not os.path.exists(cm) or not shutil.which("cc"):
        pytest.skip("needs the CPU device, build/cmetal and cc")
    (tmp_path / "k.cm").write_text(SIG)
    subprocess.check_call([cm, "-c", "-t", "c", "-o", str(tmp_path / "k.so"),
                           str(tmp_path / "k.cm")])
    prog = dev.load(str(tmp_path / "k.so"))
    assert prog.kernel_names == ["sig", "other"]
    prog.kernel("other")(5, threads=1)
    with pytest.raises(cmetal.CmetalError, match="no source"):
        prog.c
    with pytest.raises(cmetal.CmetalError, match="cannot load kernel library"):
        dev.load(str(tmp_path / "missing.so"))


def test_close_releases_children():
    d = cmetal.Device("cpu")
    k = d.build(SIG).kernel("other")
    b = d.buffer(shape=4)
    d.close()
    with pytest.raises(cmetal.CmetalError, match="released"):
        k(1, threads=1)
    assert b.handle == 0

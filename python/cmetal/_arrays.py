"""What an array argument is, whatever library made it: a pointer, its
device, shape, byte strides and dtype.  Read from NumPy arrays (and
anything with ``__array_interface__``), ``__cuda_array_interface__`` (CuPy,
PyTorch, Numba) and DLPack (``__dlpack__``: JAX, PyTorch, CuPy, NumPy).
Also makes DLPack capsules for cmetal buffers (``Buffer.__dlpack__``).
"""
from __future__ import annotations

import ctypes
from ctypes import POINTER, c_int32, c_int64, c_uint8, c_uint16, c_uint64, c_void_p
from typing import Any, Optional, Tuple

import numpy as np


class ArrayView:
    """Memory an argument refers to.  ``cuda`` is the CUDA ordinal, or None
    for host memory; ``keep`` holds what keeps the memory alive (and a
    DLPack capsule's deleter runs when it is dropped)."""

    __slots__ = ("ptr", "shape", "strides", "dtype", "cuda", "readonly", "keep", "what")

    def __init__(self, ptr: int, shape: Tuple[int, ...], strides: Optional[Tuple[int, ...]],
                 dtype: np.dtype, cuda: Optional[int], readonly: bool, keep: Any, what: str):
        self.ptr = ptr
        self.shape = tuple(int(s) for s in shape)
        self.dtype = np.dtype(dtype)
        if strides is None:  # C order
            st, acc = [], self.dtype.itemsize
            for s in reversed(self.shape):
                st.append(acc)
                acc *= s
            strides = tuple(reversed(st))
        self.strides = tuple(int(s) for s in strides)
        self.cuda = cuda
        self.readonly = readonly
        self.keep = keep
        self.what = what

    @property
    def nbytes(self) -> int:
        n = self.dtype.itemsize
        for s in self.shape:
            n *= s
        return n

    def contiguous(self) -> bool:
        """C-contiguous (size-1 dimensions may have any stride)."""
        acc = self.dtype.itemsize
        for s, st in zip(reversed(self.shape), reversed(self.strides)):
            if s != 1 and st != acc:
                return False
            acc *= s
        return True


def from_numpy(a: np.ndarray) -> ArrayView:
    return ArrayView(a.ctypes.data, a.shape, a.strides, a.dtype, None,
                     not a.flags.writeable, a, "NumPy array")


def _from_interface(obj: Any, iface: dict, cuda: Optional[int], what: str) -> ArrayView:
    ptr, readonly = iface["data"]
    dtype = np.dtype(iface["typestr"])
    return ArrayView(int(ptr or 0), tuple(iface["shape"]), iface.get("strides"), dtype, cuda,
                     bool(readonly), obj, what)


def _cuda_device_of(ptr: int) -> Optional[int]:
    """The ordinal of the device a CUDA pointer lives on, through the driver;
    None when the driver cannot say."""
    cu = _cuda_driver()
    if cu is None or not ptr:
        return None
    ordinal = c_int32(-1)
    # CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9
    if cu.cuPointerGetAttribute(ctypes.byref(ordinal), 9, c_uint64(ptr)) != 0:
        return None
    return ordinal.value


_cu = None


def _cuda_driver():
    """libcuda.so.1 for the few calls the bindings make themselves (stream
    synchronisation, pointer queries); None without a driver."""
    global _cu
    if _cu is None:
        try:
            _cu = ctypes.CDLL("libcuda.so.1")
        except OSError:
            _cu = False
    return _cu or None


def sync_stream(stream: Optional[int]) -> None:
    """Waits for a producer's stream (CUDA array interface v3).  cmetal's
    launches run on a blocking stream, which already waits for the legacy
    default stream (1) and for None / 0."""
    if stream in (None, 0, 1):
        return
    cu = _cuda_driver()
    if cu is not None:
        cu.cuStreamSynchronize(c_void_p(stream))


def from_cuda_interface(obj: Any) -> ArrayView:
    iface = obj.__cuda_array_interface__
    sync_stream(iface.get("stream"))
    ptr = int(iface["data"][0] or 0)
    dev = _cuda_device_of(ptr)
    return _from_interface(obj, iface, 0 if dev is None else dev, type(obj).__name__ +
                           " (CUDA array)")


# ---- DLPack (dlpack.h, v0.x ABI that every producer supports) ----

kDLCPU, kDLCUDA, kDLCUDAHost, kDLCUDAManaged = 1, 2, 3, 13


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", c_int32), ("device_id", c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", c_uint8), ("bits", c_uint8), ("lanes", c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", c_void_p), ("device", DLDevice), ("ndim", c_int32),
                ("dtype", DLDataType), ("shape", POINTER(c_int64)),
                ("strides", POINTER(c_int64)), ("byte_offset", c_uint64)]


class DLManagedTensor(ctypes.Structure):
    pass


_Deleter = ctypes.CFUNCTYPE(None, POINTER(DLManagedTensor))
DLManagedTensor._fields_ = [("dl_tensor", DLTensor), ("manager_ctx", c_void_p),
                            ("deleter", _Deleter)]

_api = ctypes.pythonapi
_api.PyCapsule_IsValid.restype = ctypes.c_int
_api.PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_GetPointer.restype = c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_SetName.restype = ctypes.c_int
_api.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]
_CapsuleDestructor = ctypes.CFUNCTYPE(None, c_void_p)
# raw-pointer forms for the capsule destructor, which runs on an object
# whose reference count is already 0 (a py_object argument would revive it)
_raw_is_valid = ctypes.PYFUNCTYPE(ctypes.c_int, c_void_p, ctypes.c_char_p)(
    ("PyCapsule_IsValid", _api))
_raw_get_pointer = ctypes.PYFUNCTYPE(c_void_p, c_void_p, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", _api))
_api.PyCapsule_New.restype = ctypes.py_object
_api.PyCapsule_New.argtypes = [c_void_p, ctypes.c_char_p, _CapsuleDestructor]

_DL_CODES = {0: "i", 1: "u", 2: "f", 6: "b"}  # kDLInt, kDLUInt, kDLFloat, kDLBool


class _Consumed:
    """Owns a consumed DLManagedTensor: calls its deleter when dropped."""

    def __init__(self, mt: "ctypes._Pointer[DLManagedTensor]", src: Any):
        self.mt = mt
        self.src = src

    def __del__(self):
        mt = self.mt
        if mt and mt.contents.deleter:
            mt.contents.deleter(mt)


def from_dlpack(obj: Any) -> ArrayView:
    dev_type, dev_id = obj.__dlpack_device__()
    if dev_type in (kDLCUDA, kDLCUDAManaged):
        try:
            cap = obj.__dlpack__(stream=1)  # ready for the legacy default stream
        except TypeError:
            cap = obj.__dlpack__()
    else:
        cap = obj.__dlpack__()
    if not _api.PyCapsule_IsValid(cap, b"dltensor"):
        raise ValueError("__dlpack__ did not return a 'dltensor' capsule")
    mt = ctypes.cast(_api.PyCapsule_GetPointer(cap, b"dltensor"), POINTER(DLManagedTensor))
    _api.PyCapsule_SetName(cap, b"used_dltensor")  # the deleter is now ours to call
    owner = _Consumed(mt, obj)
    t = mt.contents.dl_tensor
    code = _DL_CODES.get(t.dtype.code)
    if code is None or t.dtype.lanes != 1:
        raise ValueError(f"DLPack dtype code {t.dtype.code} x{t.dtype.lanes} is not supported")
    dtype = np.dtype("?" if code == "b" else f"{code}{t.dtype.bits // 8}")
    shape = tuple(t.shape[i] for i in range(t.ndim))
    strides = (tuple(t.strides[i] * dtype.itemsize for i in range(t.ndim))
               if t.strides else None)
    cuda = t.device.device_id if t.device.device_type in (kDLCUDA, kDLCUDAManaged) else None
    ptr = (t.data or 0) + t.byte_offset
    return ArrayView(ptr, shape, strides, dtype, cuda, False, owner,
                     type(obj).__name__ + " (DLPack)")


def view_of(obj: Any) -> Optional[ArrayView]:
    """The ArrayView of any supported array, or None."""
    if isinstance(obj, np.ndarray):
        return from_numpy(obj)
    if hasattr(obj, "__cuda_array_interface__"):
        return from_cuda_interface(obj)
    if hasattr(obj, "__dlpack__") and hasattr(obj, "__dlpack_device__"):
        return from_dlpack(obj)
    iface = getattr(obj, "__array_interface__", None)
    if isinstance(iface, dict):
        return _from_interface(obj, iface, None, type(obj).__name__)
    return None


# ---- producing DLPack capsules ----

_live = {}  # address of a DLManagedTensor we made -> what it keeps alive


@_Deleter
def _delete(mt):
    _live.pop(ctypes.addressof(mt.contents), None)


@_CapsuleDestructor
def _capsule_gone(cap):
    # an unconsumed capsule still owns its tensor
    if _raw_is_valid(cap, b"dltensor"):
        _live.pop(_raw_get_pointer(cap, b"dltensor"), None)


def to_dlpack(owner: Any, ptr: int, shape: Tuple[int, ...], dtype: np.dtype,
              cuda: Optional[int]) -> Any:
    """A 'dltensor' capsule for C-contiguous memory that owner keeps alive."""
    dtype = np.dtype(dtype)
    codes = {"i": 0, "u": 1, "f": 2, "b": 6}
    if dtype.kind not in codes:
        raise TypeError(f"dtype {dtype} cannot be exported through DLPack")
    mt = DLManagedTensor()
    n = len(shape)
    shp = (c_int64 * max(n, 1))(*shape)
    t = mt.dl_tensor
    t.data = ptr
    t.device = DLDevice(kDLCUDA if cuda is not None else kDLCPU, cuda or 0)
    t.ndim = n
    t.dtype = DLDataType(codes[dtype.kind], dtype.itemsize * 8, 1)
    t.shape = shp
    t.strides = None  # C-contiguous
    t.byte_offset = 0
    mt.deleter = _delete
    addr = ctypes.addressof(mt)
    _live[addr] = (mt, shp, owner)
    return _api.PyCapsule_New(addr, b"dltensor", _capsule_gone)

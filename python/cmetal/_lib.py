"""Loading libcmetal.so and declaring the C API (include/cmetal.h) for ctypes.

The library is looked for, in order:

1. ``$CMETAL_LIBRARY``: the path of a libcmetal.so (an explicit choice wins);
2. the copy bundled into the package when it was installed (``pip install``
   copies the repository's build/libcmetal.so next to this file);
3. ``build/libcmetal.so`` of the repository checkout this package lives in
   (``python/cmetal`` -> ``../../build``), for running from a checkout.
"""
from __future__ import annotations

import ctypes
import os
from ctypes import (POINTER, byref, c_char_p, c_double, c_int, c_size_t, c_uint32,
                    c_uint64, c_void_p)
from typing import List, Optional

_HERE = os.path.dirname(os.path.abspath(__file__))

# cm_status values, in the order of CMETAL_STATUS_LIST.
STATUS_NAMES = [
    "CM_SUCCESS", "CM_INVALID_HANDLE", "CM_INVALID_VALUE", "CM_DEVICE_NOT_FOUND",
    "CM_OUT_OF_MEMORY", "CM_OUT_OF_RANGE", "CM_INVALID_FORMAT", "CM_INVALID_PROGRAM",
    "CM_BUILD_FAILED", "CM_COMPILER_UNAVAILABLE", "CM_KERNEL_NOT_FOUND",
    "CM_INVALID_ARG_INDEX", "CM_INVALID_ARG_SIZE", "CM_INVALID_ARG_KIND", "CM_ARGS_NOT_SET",
    "CM_INVALID_THREAD_SPACE", "CM_GROUP_TOO_LARGE", "CM_KERNEL_FAULT", "CM_UNSUPPORTED",
    "CM_IO_ERROR",
]
CM_BUILD_FAILED = STATUS_NAMES.index("CM_BUILD_FAILED")


class CmetalError(RuntimeError):
    """A call of the runtime failed; ``status`` is the cm_status name
    (``"CM_GROUP_TOO_LARGE"``) and the message is the runtime's sentence."""

    def __init__(self, message: str, status: str = "CM_INVALID_VALUE"):
        super().__init__(message)
        self.status = status


class BuildError(CmetalError):
    """CM source did not compile.  The message is the compiler's diagnostics:
    ``program.cm:LINE:COL: error: ...``, the source line and a caret."""

    def __init__(self, message: str):
        super().__init__(message, "CM_BUILD_FAILED")
        self.diagnostics = message


class ArgumentError(CmetalError, TypeError):
    """A kernel argument does not fit the kernel's signature (count, type,
    kind of array); raised before anything is launched."""

    def __init__(self, message: str):
        super().__init__(message, "CM_INVALID_VALUE")


def candidates() -> List[str]:
    """The places libcmetal.so is looked for, in order."""
    out = []
    env = os.environ.get("CMETAL_LIBRARY")
    if env:
        out.append(env)
    out.append(os.path.join(_HERE, "libcmetal.so"))
    out.append(os.path.normpath(os.path.join(_HERE, "..", "..", "build", "libcmetal.so")))
    return out


def _find() -> str:
    env = os.environ.get("CMETAL_LIBRARY")
    if env:
        if not os.path.isfile(env):
            raise ImportError(f"CMETAL_LIBRARY={env} is not a file")
        return env
    for path in candidates():
        if os.path.isfile(path):
            return path
    raise ImportError("libcmetal.so not found; looked in: " + ", ".join(candidates()) +
                      " (run `make` in the repository, or set CMETAL_LIBRARY)")


# name -> (restype, argtypes); every function returns a cm_status (c_int)
_H = c_void_p
_PROTOS = {
    "cmetal_last_error": (c_char_p, []),
    "cmetal_device_open": (c_int, [c_char_p, POINTER(_H)]),
    "cmetal_device_close": (c_int, [_H]),
    "cmetal_device_name": (c_int, [_H, POINTER(c_char_p)]),
    "cmetal_device_info": (c_int, [_H, c_int, POINTER(c_uint64)]),
    "cmetal_program_build": (c_int, [_H, c_char_p, c_char_p, POINTER(_H)]),
    "cmetal_program_load": (c_int, [_H, c_char_p, POINTER(_H)]),
    "cmetal_program_build_log": (c_int, [_H, POINTER(c_char_p)]),
    "cmetal_program_kernel_count": (c_int, [_H, POINTER(c_uint32)]),
    "cmetal_program_kernel_name": (c_int, [_H, c_uint32, POINTER(c_char_p)]),
    "cmetal_program_release": (c_int, [_H]),
    "cmetal_compile": (c_int, [c_char_p, c_char_p, c_char_p, POINTER(c_void_p),
                               POINTER(c_size_t), POINTER(c_void_p)]),
    "cmetal_kernel_create": (c_int, [_H, c_char_p, POINTER(_H)]),
    "cmetal_kernel_release": (c_int, [_H]),
    "cmetal_kernel_arg_count": (c_int, [_H, POINTER(c_uint32)]),
    "cmetal_kernel_arg_info": (c_int, [_H, c_uint32, POINTER(c_char_p), POINTER(c_int),
                                       POINTER(c_uint32)]),
    "cmetal_kernel_arg_type": (c_int, [_H, c_uint32, POINTER(c_int), POINTER(c_char_p)]),
    "cmetal_kernel_set_arg": (c_int, [_H, c_uint32, c_size_t, c_char_p]),
    "cmetal_kernel_set_arg_buffer": (c_int, [_H, c_uint32, _H]),
    "cmetal_kernel_set_arg_surface2d": (c_int, [_H, c_uint32, _H]),
    "cmetal_buffer_create": (c_int, [_H, c_size_t, POINTER(_H)]),
    "cmetal_buffer_create_host": (c_int, [_H, c_void_p, c_size_t, POINTER(_H)]),
    "cmetal_buffer_wrap": (c_int, [_H, c_uint64, c_size_t, POINTER(_H)]),
    "cmetal_buffer_address": (c_int, [_H, POINTER(c_uint64)]),
    "cmetal_buffer_write": (c_int, [_H, c_size_t, c_size_t, c_void_p]),
    "cmetal_buffer_read": (c_int, [_H, c_size_t, c_size_t, c_void_p]),
    "cmetal_buffer_map": (c_int, [_H, POINTER(c_void_p)]),
    "cmetal_buffer_unmap": (c_int, [_H]),
    "cmetal_buffer_release": (c_int, [_H]),
    "cmetal_surface2d_create": (c_int, [_H, c_uint32, c_uint32, c_int, POINTER(_H)]),
    "cmetal_surface2d_wrap": (c_int, [_H, c_uint64, c_uint32, c_uint32, c_uint32, c_int,
                                      POINTER(_H)]),
    "cmetal_surface2d_info": (c_int, [_H, POINTER(c_uint32), POINTER(c_uint32),
                                      POINTER(c_uint32), POINTER(c_uint32)]),
    "cmetal_surface2d_write": (c_int, [_H, c_void_p, c_size_t]),
    "cmetal_surface2d_read": (c_int, [_H, c_void_p, c_size_t]),
    "cmetal_surface2d_release": (c_int, [_H]),
    "cmetal_svm_alloc": (c_int, [_H, c_size_t, POINTER(_H)]),
    "cmetal_svm_address": (c_int, [_H, POINTER(c_uint64)]),
    "cmetal_svm_write": (c_int, [_H, c_size_t, c_size_t, c_void_p]),
    "cmetal_svm_read": (c_int, [_H, c_size_t, c_size_t, c_void_p]),
    "cmetal_svm_free": (c_int, [_H]),
    "cmetal_launch_walker": (c_int, [_H, c_uint32, c_uint32, c_int, POINTER(_H)]),
    "cmetal_launch_groups": (c_int, [_H, POINTER(c_uint32), POINTER(c_uint32), POINTER(_H)]),
    "cmetal_event_wait": (c_int, [_H]),
    "cmetal_event_elapsed_ms": (c_int, [_H, POINTER(c_double)]),
    "cmetal_event_release": (c_int, [_H]),
}


class _Lib:
    """The loaded library: one attribute per C function, plus ``path``."""

    def __init__(self, path: str):
        self.path = path
        self.dll = ctypes.CDLL(path)
        for name, (res, args) in _PROTOS.items():
            try:
                fn = getattr(self.dll, name)
            except AttributeError:
                raise ImportError(f"{path} has no {name}: it is older than this package "
                                  "(rebuild it with `make`)") from None
            fn.restype = res
            fn.argtypes = args
            setattr(self, name[len("cmetal_"):], fn)
        self.libc_free = ctypes.CDLL(None).free
        self.libc_free.argtypes = [c_void_p]
        self.libc_free.restype = None

    def error(self, status: int) -> CmetalError:
        """The exception for a failed call (cmetal_last_error's text)."""
        msg = (self.last_error() or b"").decode("utf-8", "replace")
        name = STATUS_NAMES[status] if 0 <= status < len(STATUS_NAMES) else str(status)
        if status == CM_BUILD_FAILED:
            return BuildError(_build_text(msg))
        return CmetalError(f"{name}: {msg}", name)


def _build_text(msg: str) -> str:
    """The compiler's diagnostics from a build failure's message."""
    head = "build failed:\n"
    return msg[len(head):] if msg.startswith(head) else msg


_lib: Optional[_Lib] = None


def lib() -> _Lib:
    """The library, loaded at the first use."""
    global _lib
    if _lib is None:
        _lib = _Lib(_find())
    return _lib


def check(status: int) -> None:
    """Raises the runtime's error for a non-zero cm_status."""
    if status:
        raise lib().error(status)


__all__ = ["CmetalError", "BuildError", "ArgumentError", "lib", "check", "candidates",
           "byref"]

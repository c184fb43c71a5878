"""Devices, programs, kernels, memory and launches over libcmetal's C API.

Every object holds its C handle and a reference to what it depends on (a
kernel its program, a program its device), so handles are released in the
order the C API needs.  Device.close() releases what is still alive first.
"""
from __future__ import annotations

import ctypes
import statistics
import struct
import weakref
from ctypes import byref, c_char_p, c_double, c_int, c_size_t, c_uint32, c_uint64, c_void_p
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from ._arrays import ArrayView, to_dlpack, view_of
from ._lib import ArgumentError, BuildError, CmetalError, check, lib

# ---- tables ----

# cmetal_elem_type -> (NumPy dtype, CM type name, struct code)
_ELEMS = {
    1: (np.int8, "char", "b"), 2: (np.uint8, "uchar", "B"),
    3: (np.int16, "short", "h"), 4: (np.uint16, "ushort", "H"),
    5: (np.int32, "int", "i"), 6: (np.uint32, "uint", "I"),
    7: (np.int64, "long long", "q"), 8: (np.uint64, "unsigned long long", "Q"),
    9: (np.float16, "half", "e"), 10: (np.float32, "float", "f"),
    11: (np.float64, "double", "d"),
}
_KINDS = {1: "scalar", 2: "vector", 3: "surface", 4: "sampler", 5: "svm"}

#: 2D surface formats (cmetal_format) and their bytes per pixel.
FORMATS: Dict[str, Tuple[int, int]] = {
    "A8": (1, 1), "R8G8B8A8": (2, 4), "A8R8G8B8": (3, 4), "R32F": (4, 4),
    "R32_UINT": (5, 4), "R32_SINT": (6, 4), "R16_UINT": (7, 2), "R8_UINT": (8, 1),
    "R32G32B32A32F": (9, 16),
}
_FORMAT_NAMES = {code: name for name, (code, _) in FORMATS.items()}

#: media-walker dependency patterns (cmetal_dependency).
DEPENDENCIES = {"none": 0, "wavefront": 1, "wavefront26": 2, "horizontal": 3, "vertical": 4}


def _text(b: Optional[bytes]) -> str:
    return b.decode("utf-8", "replace") if b else ""


# ---- devices ----

class Device:
    """A cmetal device: ``"cpu"``, ``"cuda"``, ``"cuda:N"`` or ``"auto"`` (the
    GPU when one works, else the CPU).  None means ``$CMETAL_DEVICE``, or
    ``"auto"`` when that is unset."""

    def __init__(self, name: Optional[str] = None):
        self._lib = lib()
        h = c_void_p()
        check(self._lib.device_open(name.encode() if name is not None else None, byref(h)))
        self._h = h
        self._children: "weakref.WeakSet[Any]" = weakref.WeakSet()
        self._wraps: Dict[tuple, Any] = {}  # borrowed-memory wrappers, by geometry
        s = c_char_p()
        check(self._lib.device_name(h, byref(s)))
        self.name: str = _text(s.value)
        """A short description: ``"cpu (8 threads)"``, ``"cuda:0 (NVIDIA H100, sm_90)"``."""
        # cmetal_device_info, CMETAL_DEVICE_KIND (1) .. CMETAL_DEVICE_HOST_SVM (11)
        info = [self._info(a) for a in range(1, 12)]
        self.kind: str = "cuda" if info[0] == 1 else "cpu"
        """``"cpu"`` or ``"cuda"``."""
        self.ordinal: int = info[1]
        """N of ``cuda:N`` (0 on the CPU)."""
        self.compute_units: int = info[2]
        """Worker threads on the CPU, SMs on a GPU."""
        self.memory: int = info[3]
        """Bytes of memory: the host's RAM, or the GPU's."""
        self.compute_capability: Optional[Tuple[int, int]] = (
            (info[4], info[5]) if self.kind == "cuda" else None)
        """(major, minor) of a CUDA device; None on the CPU."""
        self.max_group_threads: int = info[6]
        """The most CM threads in a group (1024 on the CPU; 256 or 32 on CUDA)."""
        self.max_slm: int = info[7]
        """The most bytes of SLM a group may use."""
        self.threads: int = info[8]
        """CM threads running at once: the CPU's OS threads, a GPU's SMs x 64 warps."""
        self.max_walker: int = info[9]
        """The largest walker width and height."""
        self.host_svm: bool = info[10] == 1
        """SVM addresses are host addresses the host may dereference (the CPU device)."""

    def _info(self, attr: int) -> int:
        v = c_uint64()
        check(self._lib.device_info(self._h, attr, byref(v)))
        return v.value

    def __repr__(self) -> str:
        return f"<cmetal.Device {self.name}>"

    @property
    def handle(self) -> int:
        """The cmetal_device pointer, for C code of your own."""
        self._alive()
        return self._h.value or 0

    def _alive(self) -> None:
        if not self._h:
            raise CmetalError("the device is closed", "CM_INVALID_HANDLE")

    # -- programs --

    def build(self, source: str, options: Union[Sequence[str], str, None] = None) -> "Program":
        """Compiles CM source.  options: the cmetal command line's options,
        as a list (``["-DN=8", "-O2"]``) or one string.  Raises BuildError
        with the compiler's diagnostics when the source does not compile."""
        self._alive()
        opts = _options(options)
        h = c_void_p()
        check(self._lib.program_build(self._h, source.encode(), opts.encode(), byref(h)))
        return Program(self, h, source, opts, None)

    def load(self, path: str) -> "Program":
        """Loads what the compiler wrote: a kernel library (.so, from
        ``cmetal -t c`` and ``cc -shared``) on the CPU, a .ptx on CUDA."""
        self._alive()
        h = c_void_p()
        check(self._lib.program_load(self._h, str(path).encode(), byref(h)))
        return Program(self, h, None, "", str(path))

    # -- memory --

    def buffer(self, init: Any = None, *, shape: Union[int, Tuple[int, ...], None] = None,
               dtype: Any = np.uint8) -> "Buffer":
        """A new buffer (1D surface) owned by the device: a copy of the array
        init, or zero-filled with the given shape and dtype."""
        self._alive()
        if init is not None:
            a = np.ascontiguousarray(init)
            b = Buffer._create(self, a.shape, a.dtype)
            b.write(a)
            return b
        if shape is None:
            raise ValueError("Device.buffer needs an array or a shape")
        return Buffer._create(self, _shape(shape), np.dtype(dtype))

    def surface2d(self, init: Any = None, *, shape: Optional[Tuple[int, ...]] = None,
                  dtype: Any = np.float32, format: Optional[str] = None) -> "Surface2D":
        """A new 2D surface: a copy of the 2D (or height x width x channels)
        array init, or zero-filled of shape (height, width[, channels]).  The
        format follows the dtype (float32: R32F, uint8: R8_UINT, uint8 x 4:
        R8G8B8A8, ...) unless given."""
        self._alive()
        if init is not None:
            a = np.ascontiguousarray(init)
            s = Surface2D._create(self, a.shape, a.dtype, format)
            s.write(a)
            return s
        if shape is None:
            raise ValueError("Device.surface2d needs an array or a shape")
        return Surface2D._create(self, tuple(shape), np.dtype(dtype), format)

    def svm(self, init: Any = None, *, shape: Union[int, Tuple[int, ...], None] = None,
            dtype: Any = np.uint8) -> "Svm":
        """A new SVM allocation (for svmptr_t arguments): a copy of init, or
        zero-filled of the given shape and dtype."""
        self._alive()
        if init is not None:
            a = np.ascontiguousarray(init)
            s = Svm._create(self, a.shape, a.dtype)
            s.write(a)
            return s
        if shape is None:
            raise ValueError("Device.svm needs an array or a shape")
        return Svm._create(self, _shape(shape), np.dtype(dtype))

    # borrowed wrappers of arrays, kept by geometry: a wrapper holds only an
    # address, so one made for an earlier array at the same address serves
    _WRAP_CACHE = 256

    def _wrapped(self, key: tuple, make: Callable[[], Any]) -> Any:
        w = self._wraps.get(key)
        if w is None:
            if len(self._wraps) >= self._WRAP_CACHE:
                self._wraps.clear()  # bound ones stay alive through their kernels
            w = self._wraps[key] = make()
        return w

    # -- lifetime --

    def close(self) -> None:
        """Releases every object of the device still alive, then the device."""
        if not self._h:
            return
        self._wraps.clear()
        order = {Kernel: 0, Program: 1}
        for obj in sorted(list(self._children), key=lambda o: order.get(type(o), 2)):
            obj._release()
        self._lib.device_close(self._h)
        self._h = c_void_p()

    def __enter__(self) -> "Device":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


def _options(options: Union[Sequence[str], str, None]) -> str:
    if options is None:
        return ""
    if isinstance(options, str):
        return options
    for o in options:
        if not isinstance(o, str) or not o or any(c.isspace() for c in o):
            raise ValueError(f"bad build option {o!r}: each option is one word "
                             "(give '-I' and the directory as two items)")
    return " ".join(options)


def _shape(shape: Union[int, Tuple[int, ...]]) -> Tuple[int, ...]:
    return (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(int(s) for s in shape)


class _Owned:
    """Something with a C handle that the device's close releases."""
    _release_fn = ""

    @classmethod
    def _of(cls, *args: Any) -> Any:
        """An object of cls over a handle the runtime made: _setup(*args)."""
        obj = cls.__new__(cls)
        obj._setup(*args)
        return obj

    def _register(self, device: Device, h: c_void_p) -> None:
        self.device = device
        self._h = h
        device._children.add(self)

    def _release(self) -> None:
        h = getattr(self, "_h", None)
        # once the device is closed, releasing would touch it: the object
        # is left (the collector may finalize a cycle's device first)
        if h and self.device._h:
            getattr(self.device._lib, self._release_fn)(h)
        self._h = c_void_p()

    def release(self) -> None:
        """Releases the C object now rather than when garbage-collected."""
        self._release()

    def __del__(self):
        try:
            self._release()
        except Exception:
            pass

    @property
    def handle(self) -> int:
        """The C handle, for C code of your own."""
        return self._h.value or 0


# ---- programs and kernels ----

class Program(_Owned):
    """A built or loaded program: ``kernel_names``, ``build_log`` (the
    warnings), and ``kernel(name)`` or ``program[name]``."""
    _release_fn = "program_release"

    def __init__(self, device: Device, h: c_void_p, source: Optional[str], options: str,
                 path: Optional[str]):
        self._register(device, h)
        self.source = source
        self.options = options
        self.path = path
        s = c_char_p()
        check(device._lib.program_build_log(h, byref(s)))
        self.build_log: str = _text(s.value)
        n = c_uint32()
        check(device._lib.program_kernel_count(h, byref(n)))
        names = []
        for i in range(n.value):
            check(device._lib.program_kernel_name(h, i, byref(s)))
            names.append(_text(s.value))
        self.kernel_names: List[str] = names
        self._code: Dict[str, str] = {}

    def kernel(self, name: str) -> "Kernel":
        """The kernel of that name (CmetalError CM_KERNEL_NOT_FOUND names
        the program's kernels when there is none)."""
        h = c_void_p()
        check(self.device._lib.kernel_create(self._h, name.encode(), byref(h)))
        return Kernel(self, h, name)

    __getitem__ = kernel

    def code(self, target: str) -> str:
        """The program compiled for a target: ``"ptx"`` (what a CUDA device
        runs), ``"c"`` (what the CPU device builds) or ``"ir"``."""
        if target in self._code:
            return self._code[target]
        if self.source is None:
            if target == "ptx" and self.path and self.path.endswith(".ptx"):
                with open(self.path) as f:
                    return f.read()
            raise CmetalError(f"the program was loaded from {self.path}; it has no source "
                              f"to compile for '{target}'", "CM_UNSUPPORTED")
        L = self.device._lib
        out, log, n = c_void_p(), c_void_p(), c_size_t()
        st = L.compile(self.source.encode(), self.options.encode(), target.encode(),
                       byref(out), byref(n), byref(log))
        try:
            if st:
                raise L.error(st)
            text = ctypes.string_at(out.value, n.value).decode("utf-8", "replace")
        finally:
            L.libc_free(out)
            L.libc_free(log)
        self._code[target] = text
        return text

    @property
    def ptx(self) -> str:
        """The PTX of the whole program (what the CUDA device loads)."""
        return self.code("ptx")

    @property
    def c(self) -> str:
        """The C of the whole program (what the CPU device compiles)."""
        return self.code("c")

    @property
    def analysis(self) -> str:
        """What ``cmetal --analyze`` prints for the program's PTX: per kernel
        its registers, shared and local memory, the occupancy table, the
        instruction mix, shuffles per source line and a throughput bound
        (docs/analyzer.md)."""
        return self.code("analyze")

    def __repr__(self) -> str:
        return f"<cmetal.Program kernels={self.kernel_names}>"


class Arg:
    """One parameter of a kernel, as the compiled kernel declares it."""
    __slots__ = ("index", "name", "kind", "size", "dtype", "count", "type_attr")

    def __init__(self, index: int, name: str, kind: str, size: int, dtype: Optional[np.dtype],
                 type_attr: str):
        self.index = index
        self.name = name
        self.kind = kind          # "scalar", "vector", "surface", "sampler", "svm"
        self.size = size          # bytes of the value
        self.dtype = dtype        # element type of scalars and vectors
        self.count = size // dtype.itemsize if dtype is not None else 1
        self.type_attr = type_attr  # [[type("...")]] of a surface, or ""

    @property
    def type(self) -> str:
        """The CM type: ``int``, ``vector<float, 8>``, ``SurfaceIndex
        [[type("buffer_t")]]``, ``svmptr_t``."""
        if self.kind == "surface":
            return f'SurfaceIndex [[type("{self.type_attr}")]]' if self.type_attr \
                else "SurfaceIndex"
        if self.kind == "sampler":
            return "SamplerIndex"
        if self.kind == "svm" or self.dtype is None:
            return "svmptr_t"
        name = next(t for d, t, _ in _ELEMS.values() if np.dtype(d) == self.dtype)
        if self.kind == "vector":
            return f"vector<{name}, {self.count}>"
        return name

    def __repr__(self) -> str:
        return f"{self.type} {self.name}"


class Event:
    """A finished launch: ``status`` and its time (``elapsed`` seconds,
    ``elapsed_ms``): kernel time from CUDA events on a GPU, the host clock
    around the run on the CPU."""

    def __init__(self, device: Device, h: c_void_p):
        L = device._lib
        ms = c_double()
        self.status = L.event_wait(h)
        check(L.event_elapsed_ms(h, byref(ms)))
        L.event_release(h)
        self.elapsed_ms: float = ms.value
        self.elapsed: float = ms.value / 1e3

    def wait(self) -> None:
        """Raises the launch's error, if it had one (launches are synchronous:
        an Event exists once its work is done)."""
        check(self.status)

    def __repr__(self) -> str:
        return f"<cmetal.Event {self.elapsed_ms:.3f} ms>"


class ThreadSpace:
    """A media-walker thread space of width x height threads; thread (x, y)
    sees get_thread_origin_x/y() = (x, y).  dependency: "none",
    "wavefront", "wavefront26", "horizontal" or "vertical"."""

    def __init__(self, width: int, height: int = 1, dependency: str = "none"):
        if dependency not in DEPENDENCIES:
            raise ValueError(f"unknown dependency {dependency!r}: expected one of "
                             + ", ".join(DEPENDENCIES))
        self.width, self.height = int(width), int(height)
        self.dep = DEPENDENCIES[dependency]

    def _launch(self, L: Any, k: c_void_p, ev: Any) -> int:
        return L.launch_walker(k, self.width, self.height, self.dep, ev)


class GroupSpace:
    """A thread-group space: ``groups`` groups (up to 3 dimensions) of
    ``size`` threads each (cm_group_id, cm_local_id, SLM, barriers)."""

    def __init__(self, groups: Union[int, Sequence[int]], size: Union[int, Sequence[int]]):
        g, t = _dims(groups, "groups"), _dims(size, "group size")
        self.groups = (c_uint32 * 3)(*g)
        self.size = (c_uint32 * 3)(*t)

    def _launch(self, L: Any, k: c_void_p, ev: Any) -> int:
        return L.launch_groups(k, self.groups, self.size, ev)


def _dims(v: Union[int, Sequence[int]], what: str) -> Tuple[int, int, int]:
    t = (int(v),) if isinstance(v, (int, np.integer)) else tuple(int(x) for x in v)
    if not 1 <= len(t) <= 3 or any(x < 0 or x > 0xFFFFFFFF for x in t):
        raise ValueError(f"bad {what} {v!r}: expected 1 to 3 sizes")
    return (t + (1, 1))[:3]  # type: ignore[return-value]


_Space = Union[ThreadSpace, GroupSpace]


def _space(threads: Any, groups: Any, group_size: Any, dependency: str) -> _Space:
    if threads is not None:
        if groups is not None or group_size is not None:
            raise ValueError("give either threads=(width, height) or groups= and group_size=")
        t = (threads,) if isinstance(threads, (int, np.integer)) else tuple(threads)
        if not 1 <= len(t) <= 2:
            raise ValueError(f"bad threads={threads!r}: expected width or (width, height)")
        return ThreadSpace(t[0], t[1] if len(t) == 2 else 1, dependency)
    if groups is None or group_size is None:
        raise ValueError("a launch needs threads=(width, height) (a thread space) or "
                         "groups=... and group_size=... (a thread-group space)")
    return GroupSpace(groups, group_size)


class Kernel(_Owned):
    """A kernel of a program.  ``args`` is its signature; call it with its
    arguments and a thread space or a group space:

        k(a, b, n, threads=(w, h))                 # media walker
        k(a, b, n, groups=(g,), group_size=(16,))  # thread groups
        k[w, h](a, b, n);  k[(g,), (16,)](a, b, n) # the same, indexed

    Surface arguments take cmetal.Buffer / Surface2D objects or arrays
    (NumPy on the CPU device zero-copy; CuPy, PyTorch, JAX on CUDA
    zero-copy); svmptr_t arguments take cmetal.Svm objects, arrays or
    addresses; scalars take Python numbers; vectors take sequences."""
    _release_fn = "kernel_release"

    def __init__(self, program: Program, h: c_void_p, name: str):
        self._register(program.device, h)
        self.program = program
        self.name = name
        L = self.device._lib
        n = c_uint32()
        check(L.kernel_arg_count(h, byref(n)))
        args = []
        for i in range(n.value):
            s, kind, size, elem, attr = c_char_p(), c_int(), c_uint32(), c_int(), c_char_p()
            check(L.kernel_arg_info(h, i, byref(s), byref(kind), byref(size)))
            check(L.kernel_arg_type(h, i, byref(elem), byref(attr)))
            dt = np.dtype(_ELEMS[elem.value][0]) if elem.value in _ELEMS else None
            args.append(Arg(i, _text(s.value), _KINDS.get(kind.value, "?"), size.value, dt,
                            _text(attr.value)))
        self.args: Tuple[Arg, ...] = tuple(args)
        self._setters = [self._setter(a) for a in args]
        self._last: List[Any] = [_UNSET] * len(args)   # what each argument was bound to
        self._last_shape: List[Any] = [None] * len(args)
        self._keep: List[Any] = [None] * len(args)     # wrappers bound in C

    @property
    def signature(self) -> str:
        """``vadd(SurfaceIndex [[type("buffer_t")]] a, ..., int n)``."""
        return f"{self.name}(" + ", ".join(repr(a) for a in self.args) + ")"

    def __repr__(self) -> str:
        return f"<cmetal.Kernel {self.signature}>"

    @property
    def ptx(self) -> str:
        """The PTX of the kernel's program (the kernel is its `.entry`)."""
        return self.program.ptx

    @property
    def c(self) -> str:
        """The C of the kernel's program (the kernel is `cmk_k_NAME`)."""
        return self.program.c

    @property
    def analysis(self) -> str:
        """The analyzer's report of the kernel's program (Program.analysis)."""
        return self.program.analysis

    # -- launching --

    def __call__(self, *args: Any, threads: Any = None, groups: Any = None,
                 group_size: Any = None, dependency: str = "none",
                 timed: bool = False) -> Optional[Event]:
        """Launches the kernel once and waits for it.  Returns an Event with
        the time when timed=True, else None."""
        return self._run(_space(threads, groups, group_size, dependency), args, timed)

    def __getitem__(self, space: Any) -> Callable[..., Optional[Event]]:
        """``k[w, h](...)``: a w x h thread space; ``k[groups, size](...)``
        with two tuples: a group space; or a ThreadSpace / GroupSpace."""
        if not isinstance(space, (ThreadSpace, GroupSpace)):
            t = space if isinstance(space, tuple) else (space,)
            if len(t) == 2 and all(isinstance(x, (tuple, list)) for x in t):
                space = GroupSpace(t[0], t[1])
            elif 1 <= len(t) <= 2 and all(isinstance(x, (int, np.integer)) for x in t):
                space = ThreadSpace(*t)
            else:
                raise ValueError(f"bad launch space {space!r}: k[width, height] for a thread "
                                 "space, k[(groups...), (threads...)] for a group space")
        return lambda *args, timed=False: self._run(space, args, timed)

    def time(self, *args: Any, repeat: int = 20, warmup: int = 2, threads: Any = None,
             groups: Any = None, group_size: Any = None, dependency: str = "none") -> float:
        """The median time in seconds of `repeat` launches (after `warmup`
        untimed ones), from the runtime's events."""
        space = _space(threads, groups, group_size, dependency)
        for _ in range(warmup):
            self._run(space, args, False)
        times = [self._run(space, args, True).elapsed for _ in range(max(1, repeat))]
        return statistics.median(times)

    def _run(self, space: _Space, args: Tuple[Any, ...], timed: bool) -> Optional[Event]:
        if not self._h:
            raise CmetalError(f"kernel '{self.name}' was released", "CM_INVALID_HANDLE")
        post = self._bind(args)
        L = self.device._lib
        ev = c_void_p()
        st = space._launch(L, self._h, byref(ev) if timed else None)
        err = L.error(st) if st else None
        if post:
            for fn in post:
                fn(st == 0)
        if err:
            if ev:
                L.event_release(ev)
            raise err
        return Event(self.device, ev) if timed else None

    def _bind(self, args: Tuple[Any, ...]) -> Optional[List[Callable[[bool], None]]]:
        """Sets every argument; returns what to do after the launch."""
        if len(args) != len(self.args):
            names = ", ".join(a.name for a in self.args)
            raise ArgumentError(f"kernel '{self.name}' takes {len(self.args)} argument"
                                f"{'' if len(self.args) == 1 else 's'} ({names}); "
                                f"got {len(args)}")
        post = None
        last, shapes = self._last, self._last_shape
        for i, a in enumerate(args):
            # the same object as last time, bound the same way: nothing to do
            if a is last[i] and (shapes[i] is None or getattr(a, "shape", None) == shapes[i]):
                continue
            r = self._setters[i](a)
            if r is not None:
                post = post or []
                post.append(r)
        return post

    def _remember(self, i: int, obj: Any, keep: Any, shape_check: bool) -> None:
        self._last[i] = obj
        self._last_shape[i] = getattr(obj, "shape", None) if shape_check else None
        self._keep[i] = keep

    def _fail(self, arg: Arg, got: str, hint: str = "") -> ArgumentError:
        return ArgumentError(f"argument {arg.index} '{arg.name}' of kernel '{self.name}' is "
                             f"{arg.type}; got {got}{hint}")

    def _setter(self, arg: Arg) -> Callable[[Any], Any]:
        if arg.kind == "surface":
            return lambda a: self._set_surface(arg, a)
        if arg.kind == "sampler":
            def sampler(a: Any) -> None:
                raise self._fail(arg, _what(a), " (samplers are not supported)")
            return sampler
        if arg.kind == "svm" or (arg.kind == "scalar" and arg.dtype is not None
                                 and arg.dtype.kind == "u" and arg.size == 8):
            return lambda a: self._set_address(arg, a)   # svmptr_t is a uint64
        if arg.kind == "vector":
            return lambda a: self._set_vector(arg, a)
        return self._scalar_setter(arg)

    def _set_value(self, arg: Arg, a: Any, data: bytes, cache: bool) -> None:
        check(self.device._lib.kernel_set_arg(self._h, arg.index, len(data), data))
        self._remember(arg.index, a if cache else _UNSET, None, False)

    def _scalar_setter(self, arg: Arg) -> Callable[[Any], None]:
        dt = arg.dtype
        if dt is None:
            raise CmetalError(f"argument {arg.index} '{arg.name}' of kernel '{self.name}' has "
                              "no element type", "CM_INVALID_PROGRAM")
        packer = struct.Struct("<" + next(c for d, _, c in _ELEMS.values()
                                          if np.dtype(d) == dt))
        is_float = dt.kind == "f"

        def set_scalar(a: Any) -> None:
            ok = isinstance(a, (int, np.integer)) or (
                is_float and isinstance(a, (float, np.floating)))
            if not ok:
                raise self._fail(arg, _what(a), " (expected an integer)" if not is_float and
                                 isinstance(a, (float, np.floating)) else "")
            try:
                data = packer.pack(a if is_float else int(a))
            except (struct.error, OverflowError):
                raise self._fail(arg, f"{a!r}", f", which is out of the range of {arg.type}") \
                    from None
            self._set_value(arg, a, data, type(a) in (int, float, bool))
        return set_scalar

    def _set_vector(self, arg: Arg, a: Any) -> None:
        try:
            v = np.asarray(a)
        except Exception:
            v = None
        if v is None or v.dtype.kind not in "biuf" or v.size != arg.count:
            got = _what(a) if v is None or v.dtype.kind not in "biuf" else \
                f"{v.size} element{'s' if v.size != 1 else ''}"
            raise self._fail(arg, got, f" (a sequence of {arg.count} numbers)")
        self._set_value(arg, a, v.astype(arg.dtype).tobytes(), False)

    def _set_address(self, arg: Arg, a: Any) -> Optional[Callable[[bool], None]]:
        """svmptr_t: an Svm, a Buffer, an address, or an array (its memory)."""
        dev = self.device
        post = None
        keep = a
        if isinstance(a, (int, np.integer)) and not isinstance(a, bool):
            addr = int(a)
        elif isinstance(a, (Svm, Buffer)):
            _same_device(self, arg, a)
            addr = a.address
        else:
            v = view_of(a)
            if v is None:
                raise self._fail(arg, _what(a), " (a cmetal.Svm, an array or an address)")
            _check_array(self, arg, v, need_contiguous=True)
            if v.cuda is None and dev.kind == "cuda":
                tmp = dev.svm(shape=v.nbytes)   # host memory: copied in and out
                tmp._write_view(v)
                addr, keep = tmp.address, None
                post = _copy_back(tmp, v)
            else:
                _check_place(self, arg, v)
                addr = v.ptr
        data = struct.pack("<Q" if arg.size == 8 else "<I", addr & (2 ** (8 * arg.size) - 1))
        check(dev._lib.kernel_set_arg(self._h, arg.index, len(data), data))
        if post is None:
            self._remember(arg.index, a, keep, True)
        else:
            self._remember(arg.index, _UNSET, None, False)
        return post

    def _set_surface(self, arg: Arg, a: Any) -> Optional[Callable[[bool], None]]:
        L, dev = self.device._lib, self.device
        if isinstance(a, Buffer):
            _same_device(self, arg, a)
            check(L.kernel_set_arg_buffer(self._h, arg.index, a._h))
            self._remember(arg.index, a, a, False)
            return None
        if isinstance(a, Surface2D):
            _same_device(self, arg, a)
            check(L.kernel_set_arg_surface2d(self._h, arg.index, a._h))
            self._remember(arg.index, a, a, False)
            return None
        if isinstance(a, Svm):
            raise self._fail(arg, "a cmetal.Svm", " (SVM goes to svmptr_t arguments)")
        v = view_of(a)
        if v is None:
            raise self._fail(arg, _what(a), " (a cmetal.Buffer, a cmetal.Surface2D or an "
                                            "array)")
        attr = arg.type_attr
        if attr.startswith("image") and not attr.startswith("image2d"):
            raise self._fail(arg, v.what, f" ({attr} surfaces are not supported)")
        as2d = attr.startswith("image2d") or (attr != "buffer_t" and len(v.shape) >= 2)
        _check_array(self, arg, v, need_contiguous=not as2d)
        if v.cuda is None and dev.kind == "cuda":
            return self._bind_host_copy(arg, v, as2d)
        _check_place(self, arg, v)
        if as2d:
            fmt, w, h, pitch = _surface_geometry(self, arg, v)
            s = dev._wrapped(("s", v.ptr, w, h, pitch, fmt),
                             lambda: Surface2D._wrap(dev, v.ptr, w, h, pitch, fmt))
            check(L.kernel_set_arg_surface2d(self._h, arg.index, s._h))
        else:
            s = dev._wrapped(("b", v.ptr, v.nbytes), lambda: Buffer._wrap(dev, v.ptr, v.nbytes))
            check(L.kernel_set_arg_buffer(self._h, arg.index, s._h))
        self._remember(arg.index, a, (s, v.keep), True)
        return None

    def _bind_host_copy(self, arg: Arg, v: ArrayView, as2d: bool) -> Callable[[bool], None]:
        """A host array for a CUDA kernel: copied to the GPU before the
        launch and back after it."""
        dev, L = self.device, self.device._lib
        if as2d:
            fmt, w, h, pitch = _surface_geometry(self, arg, v)
            s = Surface2D._create_raw(dev, w, h, fmt)
            check(L.surface2d_write(s._h, c_void_p(v.ptr), pitch))
            check(L.kernel_set_arg_surface2d(self._h, arg.index, s._h))

            def back(ok: bool) -> None:
                if ok:
                    check(L.surface2d_read(s._h, c_void_p(v.ptr), pitch))
                s.release()
        else:
            # a host-aliasing buffer: the runtime copies it in and out
            b = Buffer._host_alias(dev, v)
            check(L.kernel_set_arg_buffer(self._h, arg.index, b._h))

            def back(ok: bool) -> None:
                b.release()
        self._remember(arg.index, _UNSET, None, False)
        return back


class _Unset:
    pass


_UNSET = _Unset()


def _what(a: Any) -> str:
    if isinstance(a, (bool, int, float)):
        return f"{type(a).__name__} {a!r}"
    if isinstance(a, np.ndarray):
        return f"a NumPy array of {a.dtype} {a.shape}"
    return f"{type(a).__module__}.{type(a).__name__}" if type(a).__module__ != "builtins" \
        else type(a).__name__


def _same_device(k: Kernel, arg: Arg, obj: Any) -> None:
    if obj.device is not k.device:
        raise k._fail(arg, f"a cmetal.{type(obj).__name__} of another device ({obj.device.name})",
                      f"; the kernel runs on {k.device.name}")
    if not obj._h:
        raise k._fail(arg, f"a released cmetal.{type(obj).__name__}")


def _check_array(k: Kernel, arg: Arg, v: ArrayView, need_contiguous: bool) -> None:
    if v.nbytes == 0:
        raise k._fail(arg, f"an empty {v.what}")
    if v.readonly:
        raise k._fail(arg, f"a read-only {v.what}", " (kernels may write it: pass a writable "
                                                    "copy)")
    if need_contiguous and not v.contiguous():
        raise k._fail(arg, f"a non-contiguous {v.what} (strides {v.strides})",
                      " (pass numpy.ascontiguousarray(a) or a contiguous copy)")


def _check_place(k: Kernel, arg: Arg, v: ArrayView) -> None:
    """A CUDA array needs a CUDA kernel of its GPU."""
    dev = k.device
    if v.cuda is not None and dev.kind != "cuda":
        raise k._fail(arg, f"a {v.what} in GPU memory", f"; the kernel runs on {dev.name} "
                                                         "(use cmetal.Device('cuda'))")
    if v.cuda is not None and v.cuda != dev.ordinal:
        raise k._fail(arg, f"a {v.what} on cuda:{v.cuda}", f"; the kernel runs on {dev.name}")


def _surface_geometry(k: Kernel, arg: Arg, v: ArrayView) -> Tuple[int, int, int, int]:
    """(format, width in pixels, height, pitch) of an array as a 2D surface."""
    try:
        return surface_geometry(v.shape, v.strides, v.dtype)
    except ValueError as e:
        raise k._fail(arg, f"a {v.what} of {v.dtype} {v.shape}", f" ({e})") from None


def surface_geometry(shape: Tuple[int, ...], strides: Tuple[int, ...], dtype: np.dtype,
                     format: Optional[str] = None) -> Tuple[int, int, int, int]:
    """How an array of that shape, byte strides and dtype is a 2D surface:
    (format code, width in pixels, height, pitch).  (h, w) arrays give one
    pixel per element; (h, w, 4) uint8 is R8G8B8A8 and (h, w, 4) float32
    R32G32B32A32F; other (h, w, c) arrays are rows of w * c elements.
    8-byte elements are two R32_UINT pixels each."""
    dtype = np.dtype(dtype)
    item = dtype.itemsize
    if len(shape) == 3:
        h, w, c = shape
        if strides[2] != item and c > 1 or strides[1] != c * item and w > 1:
            raise ValueError("the pixels of a row must be contiguous")
        if format is None and c == 4 and dtype == np.uint8:
            format = "R8G8B8A8"
        elif format is None and c == 4 and dtype == np.float32:
            format = "R32G32B32A32F"
        elif format is None:
            w *= c
    elif len(shape) == 2:
        h, w = shape
        if strides[1] != item and w > 1:
            raise ValueError("the elements of a row must be contiguous")
    else:
        raise ValueError("a 2D surface needs a 2D or a (height, width, channels) array")
    if format is None:
        by_size = {1: "R8_UINT", 2: "R16_UINT", 8: "R32_UINT"}
        if item == 4:
            format = {"f": "R32F", "i": "R32_SINT"}.get(dtype.kind, "R32_UINT")
        elif item in by_size:
            format = by_size[item]
            w *= 2 if item == 8 else 1
        else:
            raise ValueError(f"no surface format for {dtype}")
    if format not in FORMATS:
        raise ValueError(f"unknown format {format!r}: expected one of " + ", ".join(FORMATS))
    code, bpp = FORMATS[format]
    row = shape[1] * (shape[2] if len(shape) == 3 else 1) * item
    if w * bpp != row:
        raise ValueError(f"a row of {row} bytes is not a whole number of {format} pixels")
    pitch = strides[0] if h > 1 else row
    if pitch < row:
        raise ValueError(f"rows are {pitch} bytes apart, less than a row ({row} bytes)")
    if not (1 <= w <= 16384 and 1 <= h <= 16384):
        raise ValueError(f"{w}x{h} pixels: a 2D surface is 1..16384 pixels each way")
    return code, w, h, pitch


def _copy_back(tmp: "Svm", v: ArrayView) -> Callable[[bool], None]:
    def back(ok: bool) -> None:
        if ok:
            check(tmp.device._lib.svm_read(tmp._h, 0, v.nbytes, c_void_p(v.ptr)))
        tmp.release()
    return back


# ---- memory ----

class _Host:
    """Exposes memory at an address through __array_interface__, keeping
    its owner alive (zero-copy NumPy views of CPU-device memory)."""

    def __init__(self, ptr: int, shape: Tuple[int, ...], dtype: np.dtype, owner: Any):
        self.__array_interface__ = {"data": (ptr, False), "shape": shape,
                                    "typestr": dtype.str, "version": 3}
        self.owner = owner


class _Memory(_Owned):
    """What Buffer and Svm share: shape and dtype metadata, reads, writes,
    NumPy, DLPack and CUDA array interface views."""
    shape: Tuple[int, ...]
    dtype: np.dtype
    nbytes: int

    def _setup(self, device: Device, h: c_void_p, shape: Tuple[int, ...], dtype: np.dtype,
               nbytes: int) -> None:
        self._register(device, h)
        self.shape = shape
        self.dtype = np.dtype(dtype)
        self.nbytes = nbytes

    def _io(self, write: bool, off: int, n: int, ptr: int) -> None:
        raise NotImplementedError

    def write(self, array: Any) -> None:
        """Copies a host array of nbytes bytes into the memory."""
        a = np.ascontiguousarray(array)
        if a.nbytes != self.nbytes:
            raise ValueError(f"writing {a.nbytes} bytes into {self.nbytes} bytes")
        self._io(True, 0, a.nbytes, a.ctypes.data)

    def _write_view(self, v: ArrayView) -> None:
        self._io(True, 0, v.nbytes, v.ptr)

    def read(self, out: Optional[np.ndarray] = None) -> np.ndarray:
        """A copy of the contents, as an array of the object's shape and
        dtype (into out when given)."""
        if out is None:
            out = np.empty(self.shape, self.dtype)
        if not out.flags.c_contiguous or out.nbytes != self.nbytes:
            raise ValueError(f"out must be a contiguous array of {self.nbytes} bytes")
        self._io(False, 0, out.nbytes, out.ctypes.data)
        return out

    def numpy(self, copy: Optional[bool] = None) -> np.ndarray:
        """The contents as a NumPy array.  On the CPU device a view of the
        memory itself (later launches change it) unless copy=True; on a GPU
        a copy (copy=False raises)."""
        if self.device.kind == "cpu" and not copy:
            return np.asarray(_Host(self.address, self.shape, self.dtype, self))
        if copy is False:
            raise ValueError("the memory is on a GPU: it cannot be seen from NumPy "
                             "without a copy")
        return self.read()

    def __array__(self, dtype: Any = None, copy: Optional[bool] = None) -> np.ndarray:
        a = self.numpy(copy=copy)
        return a if dtype is None else a.astype(dtype, copy=False)

    @property
    def address(self) -> int:
        raise NotImplementedError

    @property
    def __cuda_array_interface__(self) -> dict:
        """CUDA memory (CuPy: cupy.asarray(buf); PyTorch: torch.as_tensor(buf,
        device='cuda')); absent on the CPU device."""
        if self.device.kind != "cuda":
            raise AttributeError("__cuda_array_interface__: the memory is not on a GPU")
        return {"shape": self.shape, "typestr": self.dtype.str, "data": (self.address, False),
                "version": 3, "strides": None, "stream": None}

    def __dlpack_device__(self) -> Tuple[int, int]:
        return (2, self.device.ordinal) if self.device.kind == "cuda" else (1, 0)

    def __dlpack__(self, stream: Any = None, **kw: Any) -> Any:
        """A DLPack capsule of the memory (torch.from_dlpack, cupy.from_dlpack,
        numpy.from_dlpack).  Launches are synchronous, so the data is ready
        for any stream."""
        cuda = self.device.ordinal if self.device.kind == "cuda" else None
        return to_dlpack(self, self.address, self.shape, self.dtype, cuda)

    def __repr__(self) -> str:
        return (f"<cmetal.{type(self).__name__} {self.dtype} {self.shape} on "
                f"{self.device.name}>")


class Buffer(_Memory):
    """A buffer (1D surface, for SurfaceIndex arguments).  Make one with
    Device.buffer(); numpy.asarray(buf) or buf.numpy() reads it."""
    _release_fn = "buffer_release"

    @classmethod
    def _create(cls, device: Device, shape: Tuple[int, ...], dtype: np.dtype) -> "Buffer":
        n = int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize
        h = c_void_p()
        check(device._lib.buffer_create(device._h, n, byref(h)))
        return cls._of(device, h, shape, dtype, n)

    @classmethod
    def _wrap(cls, device: Device, ptr: int, nbytes: int) -> "Buffer":
        h = c_void_p()
        check(device._lib.buffer_wrap(device._h, ptr, nbytes, byref(h)))
        return cls._of(device, h, (nbytes,), np.dtype(np.uint8), nbytes)

    @classmethod
    def _host_alias(cls, device: Device, v: ArrayView) -> "Buffer":
        h = c_void_p()
        check(device._lib.buffer_create_host(device._h, c_void_p(v.ptr), v.nbytes, byref(h)))
        return cls._of(device, h, v.shape, v.dtype, v.nbytes)

    def _io(self, write: bool, off: int, n: int, ptr: int) -> None:
        L = self.device._lib
        fn = L.buffer_write if write else L.buffer_read
        check(fn(self._h, off, n, c_void_p(ptr)))

    @property
    def address(self) -> int:
        """What kernels access: a host address on the CPU, a device address
        on a GPU."""
        a = c_uint64()
        check(self.device._lib.buffer_address(self._h, byref(a)))
        return a.value


class Svm(_Memory):
    """An SVM allocation (for svmptr_t arguments); ``address`` is what the
    kernel gets."""
    _release_fn = "svm_free"

    @classmethod
    def _create(cls, device: Device, shape: Tuple[int, ...], dtype: np.dtype) -> "Svm":
        n = int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize
        h = c_void_p()
        check(device._lib.svm_alloc(device._h, n, byref(h)))
        return cls._of(device, h, shape, dtype, n)

    def _io(self, write: bool, off: int, n: int, ptr: int) -> None:
        L = self.device._lib
        fn = L.svm_write if write else L.svm_read
        check(fn(self._h, off, n, c_void_p(ptr)))

    @property
    def address(self) -> int:
        a = c_uint64()
        check(self.device._lib.svm_address(self._h, byref(a)))
        return a.value


class Surface2D(_Owned):
    """A 2D surface (image2d_t).  Make one with Device.surface2d();
    ``numpy()`` reads it back as an array of the shape it was made with."""
    _release_fn = "surface2d_release"

    def _setup(self, device: Device, h: c_void_p, shape: Tuple[int, ...],
               dtype: np.dtype) -> None:
        self._register(device, h)
        w, hh, pitch, bpp = c_uint32(), c_uint32(), c_uint32(), c_uint32()
        check(device._lib.surface2d_info(h, byref(w), byref(hh), byref(pitch), byref(bpp)))
        self.width, self.height, self.pitch, self.bpp = w.value, hh.value, pitch.value, bpp.value
        self.shape = shape
        self.dtype = np.dtype(dtype)

    @classmethod
    def _create_raw(cls, device: Device, w: int, h: int, fmt: int,
                    shape: Optional[Tuple[int, ...]] = None,
                    dtype: Any = np.uint8) -> "Surface2D":
        hd = c_void_p()
        check(device._lib.surface2d_create(device._h, w, h, fmt, byref(hd)))
        s = cls._of(device, hd, shape or (h, w), dtype)
        s._fmt = fmt
        return s

    @classmethod
    def _create(cls, device: Device, shape: Tuple[int, ...], dtype: np.dtype,
                format: Optional[str]) -> "Surface2D":
        item = np.dtype(dtype).itemsize
        strides = (shape[1] * (shape[2] if len(shape) == 3 else 1) * item,) + \
            ((shape[2] * item, item) if len(shape) == 3 else (item,))
        fmt, w, h, _ = surface_geometry(tuple(shape), strides, dtype, format)
        return cls._create_raw(device, w, h, fmt, tuple(shape), dtype)

    @classmethod
    def _wrap(cls, device: Device, ptr: int, w: int, h: int, pitch: int,
              fmt: int) -> "Surface2D":
        hd = c_void_p()
        check(device._lib.surface2d_wrap(device._h, ptr, w, h, pitch, fmt, byref(hd)))
        s = cls._of(device, hd, (h, w), np.uint8)
        s._fmt = fmt
        return s

    @property
    def format(self) -> str:
        """The pixel format's name (``"R32F"``, ...)."""
        return _FORMAT_NAMES[self._fmt]

    def write(self, array: Any) -> None:
        """Copies a host array of the surface's shape into it."""
        a = np.ascontiguousarray(array, dtype=self.dtype)
        if a.nbytes != self.width * self.bpp * self.height:
            raise ValueError(f"writing {a.nbytes} bytes into a {self.width}x{self.height} "
                             f"surface of {self.bpp}-byte pixels")
        check(self.device._lib.surface2d_write(self._h, c_void_p(a.ctypes.data), 0))

    def numpy(self, copy: Optional[bool] = None) -> np.ndarray:
        """A copy of the pixels, of the shape and dtype the surface was made
        with."""
        out = np.empty(self.shape, self.dtype)
        check(self.device._lib.surface2d_read(self._h, c_void_p(out.ctypes.data), 0))
        return out

    read = numpy

    def __array__(self, dtype: Any = None, copy: Optional[bool] = None) -> np.ndarray:
        a = self.numpy()
        return a if dtype is None else a.astype(dtype, copy=False)

    def __repr__(self) -> str:
        return f"<cmetal.Surface2D {self.width}x{self.height} {self.bpp}-byte pixels>"

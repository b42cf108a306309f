"""Load a shared library built by ireec and call its functions with numpy arrays.

Only the reflection table (``ireec_module_info_t``, see runtime_c/ireec_runtime.h) and
cffi's ABI mode are used: ``ffi.dlopen`` the library, call ``ireec_query_module_info()``,
and call each function through its generic trampoline
``status = call(const void *const *args, void *const *results, void *workspace,
int64_t workspace_size)``.

    m = load("libmodel.so")
    m.functions                  # ['abs', 'matmul_static']
    m.info("abs")                # FunctionInfo: argument/result names, shapes, types
    y = m.abs(np.float32(-2))    # numpy in, numpy out (a tuple when several results)

Arguments are checked against the table before the call (count: TypeError; element type:
TypeError; shape: ValueError), so a wrong call raises instead of corrupting memory; a non-OK
status from the module raises :class:`StatusError` naming the status (e.g. INVALID_ARGUMENT).
Each function gets a :class:`CallPlan` at load time (expected dtypes and shapes, the
argument and result pointer arrays, the cffi casts), so a call with C-contiguous arrays of
the exact dtype and shape costs a few microseconds over the bare C call: the arrays are
passed in place (``ffi.from_buffer``), only the results are allocated (or taken from
``out=``). Anything else (lists, scalars, other dtypes, strided views) goes through the
checked conversion. Element types map to numpy as: f16 -> float16, bf16 -> uint16 bit patterns, i1 -> bool_,
siN/iN -> intN, uiN -> uintN, index -> int64, complex<f32> -> complex64.
"""
from __future__ import annotations

import mmap
import os
import shutil
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from .device_arrays import call_device, device_entry
from .device_arrays import is_device_array as _is_device_array
from .io_format import ELEMENT_TYPES, ElementType, _contiguous, element_type_for_code


__all__ = ["load", "LoadedModule", "CallPlan", "FunctionInfo", "TensorInfo", "StatusError", "STATUS_NAMES",
           "ABI_VERSION"]

#: IREEC_ABI_VERSION of runtime_c/ireec_runtime.h that this loader reads (4: the module's
#: constants' size, CRC-32 and ``set_constants`` for external ones; 3: dynamic dimensions:
#: tensors' ``dynamic_dims``, the trampoline's ``dims``, ``num_dims``).
ABI_VERSION = 4

#: iree_status_code_t names (iree/base/status.h).
STATUS_NAMES = {
    0: "OK", 1: "CANCELLED", 2: "UNKNOWN", 3: "INVALID_ARGUMENT", 4: "DEADLINE_EXCEEDED",
    5: "NOT_FOUND", 6: "ALREADY_EXISTS", 7: "PERMISSION_DENIED", 8: "RESOURCE_EXHAUSTED",
    9: "FAILED_PRECONDITION", 10: "ABORTED", 11: "OUT_OF_RANGE", 12: "UNIMPLEMENTED",
    13: "INTERNAL", 14: "UNAVAILABLE", 15: "DATA_LOSS", 16: "UNAUTHENTICATED",
    17: "DEFERRED", 18: "INCOMPATIBLE",
}

WORKSPACE_ALIGNMENT = 64

_CDEF = """
typedef int32_t ireec_status_t;
typedef uint32_t ireec_element_type_t;
typedef struct ireec_tensor_info_t {
  const char *name;
  const char *element_type_name;
  ireec_element_type_t element_type;
  int32_t rank;
  const int64_t *shape;
  int64_t byte_size;
  const int32_t *dynamic_dims;
} ireec_tensor_info_t;
typedef ireec_status_t (*ireec_call_fn_t)(const void *const *args, void *const *results, const int64_t *dims,
                                          void *workspace, int64_t workspace_size);
typedef struct ireec_function_info_t {
  const char *name;
  int32_t num_args;  const ireec_tensor_info_t *args;
  int32_t num_results; const ireec_tensor_info_t *results;
  ireec_call_fn_t call;
  int64_t workspace_size;
  int32_t num_dims;
} ireec_function_info_t;
typedef struct ireec_module_info_t {
  uint32_t abi_version;
  const char *name;
  int32_t num_functions; const ireec_function_info_t *functions;
  int64_t workspace_size;
  int64_t constants_size;
  uint32_t constants_crc32;
  int32_t constants_external;
  ireec_status_t (*set_constants)(const void *data, int64_t size);
} ireec_module_info_t;
const ireec_module_info_t *ireec_query_module_info(void);
"""

class StatusError(RuntimeError):
    """A module function returned a non-OK status: ``status`` is the iree_status_code_t
    value, ``status_name`` its name (``INVALID_ARGUMENT``...)."""

    def __init__(self, function: str, status: int):
        self.function = function
        self.status = int(status)
        self.status_name = STATUS_NAMES.get(self.status, "UNKNOWN_CODE")
        super().__init__(f"{function}: call failed with status {self.status} ({self.status_name})")


_ffi = None
_ffi_lock = threading.Lock()


def _get_ffi():
    global _ffi
    with _ffi_lock:
        if _ffi is None:
            import cffi

            ffi = cffi.FFI()
            ffi.cdef(_CDEF)
            _ffi = ffi
        return _ffi


@dataclass(frozen=True)
class TensorInfo:
    """One argument or result: name, element type, shape (-1: a dynamic dimension), bytes
    (of one slice when dynamic: each dynamic dimension 1), numpy dtype, and per dimension
    the index in the call's dims array giving a dynamic extent (None when static)."""

    name: str
    element_type_name: str
    element_type: int
    shape: Tuple[int, ...]
    byte_size: int
    dtype: np.dtype
    dynamic_dims: Optional[Tuple[int, ...]] = None

    @property
    def mlir_type(self) -> str:
        """``tensor<3x5xf32>`` (``tensor<f32>`` at rank 0, ``tensor<?x5xf32>`` when dynamic)."""
        dims = "".join(("?" if d < 0 else str(d)) + "x" for d in self.shape)
        return f"tensor<{dims}{self.element_type_name}>"

    def resolve(self, dims: Sequence[int]) -> Tuple[int, ...]:
        """The shape with each dynamic dimension's extent taken from ``dims``."""
        if self.dynamic_dims is None:
            return self.shape
        return tuple(d if k < 0 else int(dims[k]) for d, k in zip(self.shape, self.dynamic_dims))


@dataclass(frozen=True)
class FunctionInfo:
    """One exported function as its reflection entry describes it."""

    name: str
    args: Tuple[TensorInfo, ...]
    results: Tuple[TensorInfo, ...]
    workspace_size: int
    num_dims: int = 0

    @property
    def signature(self) -> str:
        """``@fn(tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>``."""
        a = ", ".join(t.mlir_type for t in self.args)
        r = ", ".join(t.mlir_type for t in self.results)
        if len(self.results) != 1:
            r = f"({r})"
        return f"@{self.name}({a}) -> {r}"


def _dtype_for(element_type_name: str, code: int, byte_width: int) -> np.dtype:
    et: Optional[ElementType] = ELEMENT_TYPES.get(element_type_name) or element_type_for_code(code)
    if et is not None:
        return et.dtype
    # Unknown types travel as raw unsigned bits of their width.
    return np.dtype({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}.get(byte_width, np.uint8))


# dlopen returns the already-loaded object for a path it has seen, even when the file was
# replaced since; remember what each path was, and load changed files from a fresh copy.
_loaded_identity: Dict[str, Tuple[int, int, int]] = {}
_copies_dir: Optional[str] = None


def _identity(path: str) -> Tuple[int, int, int]:
    st = os.stat(path)
    return (st.st_ino, st.st_mtime_ns, st.st_size)


def _dlopen_path(path: str) -> str:
    global _copies_dir
    ident = _identity(path)
    seen = _loaded_identity.get(path)
    if seen is None:
        _loaded_identity[path] = ident
        return path
    if seen == ident:
        return path
    if _copies_dir is None:
        _copies_dir = tempfile.mkdtemp(prefix="ireec-loaded-")
    copy = os.path.join(_copies_dir, f"{len(os.listdir(_copies_dir))}-{os.path.basename(path)}")
    shutil.copyfile(path, copy)
    return copy


#: ``dlopen`` flags of module libraries: ``RTLD_NODELETE`` keeps a library (and what it links,
#: libgomp for ``openmp`` modules) mapped for the life of the process. cffi closes its handles
#: when Python finalizes; without it libgomp could be unmapped while its idle worker threads
#: still spin in its code, and the process would die of SIGSEGV at exit.
DLOPEN_FLAGS = os.RTLD_NOW | getattr(os, "RTLD_NODELETE", 0)

#: libgomp's wait-policy variables (libgomp manual, "Environment Variables"; read once, by
#: libgomp's constructor ``initialize_env`` in env.c, when libgomp is loaded into a process).
GOMP_WAIT_VARIABLES = ("GOMP_SPINCOUNT", "OMP_WAIT_POLICY")

#: What :func:`load` sets while it loads the first module when libgomp (``openmp`` modules)
#: is not in the process yet and the environment sets none of :data:`GOMP_WAIT_VARIABLES`:
#: a thread waiting at a barrier or for the next parallel region spins ``GOMP_SPINCOUNT``
#: times (a load and a ``pause`` each: 15 ns on the AVX-512 Xeon of benchmarks/RESULTS.md,
#: so about 4.5 µs; libgomp's own estimate is 10 ns, "100000 spins per msec"), then sleeps on
#: a futex until the thread it waits for wakes it. libgomp's default, 300000 spins (4.5 ms
#: there), and ``OMP_WAIT_POLICY=active`` (minutes) suit a machine the process has to itself;
#: where other processes, or another thread pool of the same process (ONNX Runtime's
#: spinning one), keep the cores busy, a thread spinning at a barrier holds a core the thread
#: it waits for needs, and every barrier of a call costs up to the whole spin (measured:
#: a 16-barrier call of 0.05 ms took 2.5 ms with 10000 spins, 0.8 ms with 3000, single calls
#: 50-170 ms with the default). 3000 spins (about 45 µs) also cover the gap between two calls
#: made back to back from Python (10-20 µs): with 300 (4.5 µs) the worker was asleep at every
#: call's start, and waking it (a futex wake and a scheduler hop, about 8 µs on this VM)
#: delayed each parallel region: the torch MLP's `openmp` call took 0.037 ms with 300 spins,
#: 0.032 with 1000 and 0.024 with 3000, where its `c` call takes 0.029 (medians of 3
#: alternating child processes). On a busy machine 3000 was no worse than 300 in the same
#: comparison (`python3 -m benchmarks.busy`, resnet18 and gpt_block, one run each: 99th
#: percentiles 4.6 against 6.9 ms and 0.17 against 4.8 ms beside two busy processes, 4.6
#: against 9.4 ms and 1.9 against 2.6 ms beside ONNX Runtime's pool; medians within 10 %):
#: there the waits are scheduler time slices either way, which the spin does not lengthen.
#: 100 spins had slowed the smallest models by 2x (futex wake-ups); benchmarks/RESULTS.md,
#: "Busy machine", has the numbers.
OPENMP_ENVIRONMENT = {"GOMP_SPINCOUNT": "3000"}

#: libgomp's soname, as ``-fopenmp`` links it (``DT_NEEDED``). Another copy with its own
#: soname (e.g. the ``libgomp-<hash>.so.1`` that wheels such as torch vendor) is another
#: runtime with its own settings and does not count.
LIBGOMP_SONAME = "libgomp.so.1"

_openmp_lock = threading.Lock()
_openmp_policy: Optional[str] = None


def libgomp_loaded() -> Optional[bool]:
    """Whether :data:`LIBGOMP_SONAME` is loaded in this process (``dlopen`` with
    ``RTLD_NOLOAD``, which loads nothing); None where that cannot be asked."""
    flag = getattr(os, "RTLD_NOLOAD", None)
    if flag is None:
        return None
    import ctypes

    try:
        ctypes.CDLL(LIBGOMP_SONAME, mode=flag | getattr(os, "RTLD_LAZY", 1))
    except OSError:
        return False
    return True


def openmp_wait_policy() -> str:
    """How the process's libgomp waits, as far as ireec knows: ``GOMP_SPINCOUNT=3000 (set
    by ireec.load)``, the variables the environment gave it, that libgomp was loaded before
    ireec loaded a module (then it read the environment of that moment, which ireec cannot
    change), or ``libgomp not loaded``."""
    with _openmp_lock:
        if _openmp_policy is not None:
            return _openmp_policy
    return "libgomp not loaded" if not libgomp_loaded() else _describe_policy(
        _user_wait_settings(), "loaded before ireec.load")


def _user_wait_settings() -> Dict[str, str]:
    return {k: os.environ[k] for k in GOMP_WAIT_VARIABLES if k in os.environ}


def _describe_policy(settings: Dict[str, str], who: str) -> str:
    given = ", ".join(f"{k}={v}" for k, v in settings.items())
    if who == "loaded before ireec.load":
        return (f"libgomp {who}: it read the environment then"
                + (f" (now {given})" if given else " (now unset: libgomp's default, 300000 spins)"))
    return f"{given} ({who})"


def _dlopen_module(ffi, path: str):
    """``ffi.dlopen(path)`` with libgomp's wait policy set up (:data:`OPENMP_ENVIRONMENT`).

    While libgomp is not loaded yet and the environment sets none of
    :data:`GOMP_WAIT_VARIABLES`, :data:`OPENMP_ENVIRONMENT` is put into the environment for
    the ``dlopen`` alone (libgomp reads it in its constructor, while the module's
    ``DT_NEEDED`` libraries load) and taken out afterwards, so child processes and libraries
    loaded later see the environment as it was. The policy then holds for every user of this
    libgomp in the process. When libgomp was already loaded (by another library, or a
    Python extension), nothing can change it: it keeps what it read then
    (:func:`openmp_wait_policy` says so). Never calls ``omp_set_num_threads`` or any other
    process-wide OpenMP setter. Like any ``setenv``, the change races with ``getenv`` calls
    that C code on other threads makes during that first ``dlopen`` (glibc's ``setenv`` and
    ``getenv`` are not safe against each other)."""
    global _openmp_policy
    if _openmp_policy is not None:  # set once, never unset: libgomp is in, its policy fixed
        return ffi.dlopen(path, DLOPEN_FLAGS)
    with _openmp_lock:
        if _openmp_policy is not None:
            return ffi.dlopen(path, DLOPEN_FLAGS)
        loaded = libgomp_loaded()
        if loaded is None or loaded:
            lib = ffi.dlopen(path, DLOPEN_FLAGS)
            if loaded:
                _openmp_policy = _describe_policy(_user_wait_settings(), "loaded before ireec.load")
            return lib
        user = _user_wait_settings()
        added = {} if user else dict(OPENMP_ENVIRONMENT)
        for k, v in added.items():
            os.environ[k] = v
        try:
            lib = ffi.dlopen(path, DLOPEN_FLAGS)
        finally:
            for k, v in added.items():
                if os.environ.get(k) == v:
                    del os.environ[k]
        if libgomp_loaded():
            _openmp_policy = _describe_policy(user, "the environment") if user else \
                _describe_policy(added, "set by ireec.load")
        return lib


class LoadedModule:
    """A loaded ireec module. Each exported function is a method (``m.add(a, b)``); names
    that are not Python identifiers or clash with attributes work with ``m["name"](...)``.
    Calls are serialised per module (they share one 64-byte-aligned workspace)."""

    def __init__(self, path: Union[str, os.PathLike],
                 constants: Optional[Union[str, os.PathLike]] = None):
        self.path = str(Path(path).resolve())
        if not os.path.isfile(self.path):
            raise FileNotFoundError(f"no module at '{path}'")
        ffi = _get_ffi()
        self._ffi = ffi
        try:
            self._lib = _dlopen_module(ffi, _dlopen_path(self.path))
        except OSError as e:
            raise OSError(f"cannot load '{path}': {e}") from None
        try:
            query = self._lib.ireec_query_module_info
        except AttributeError:
            raise ValueError(f"'{path}' is not an ireec module (no ireec_query_module_info)") from None
        info = query()
        if info == ffi.NULL:
            raise ValueError(f"'{path}': ireec_query_module_info() returned NULL")
        if info.abi_version != ABI_VERSION:
            raise ValueError(f"'{path}' has ireec ABI version {info.abi_version}; "
                             f"this ireec reads version {ABI_VERSION} (rebuild the module)")
        self._info = info
        self.name = ffi.string(info.name).decode() if info.name != ffi.NULL else ""
        self._functions: Dict[str, FunctionInfo] = {}
        self._calls: Dict[str, object] = {}
        for i in range(info.num_functions):
            f = info.functions[i]
            name = ffi.string(f.name).decode()
            fi = FunctionInfo(
                name=name,
                args=tuple(self._tensor(f.args[j], name) for j in range(f.num_args)),
                results=tuple(self._tensor(f.results[j], name) for j in range(f.num_results)),
                workspace_size=int(f.workspace_size),
                num_dims=int(f.num_dims),
            )
            if f.call == ffi.NULL:
                raise ValueError(f"'{path}': function '{name}' has no call trampoline")
            self._functions[name] = fi
            self._calls[name] = f.call
        self.workspace_size = max([int(info.workspace_size)] +
                                  [fi.workspace_size for fi in self._functions.values()])
        self._workspace_owner, self._workspace_ptr = self._allocate_workspace(self.workspace_size)
        self._lock = threading.Lock()
        self._plans: Dict[str, CallPlan] = {name: CallPlan(self, fi, self._calls[name])
                                            for name, fi in self._functions.items()}
        self._device_call = None  # <module>_call_device of a cuda module, looked up on first use
        self.constants_size = int(info.constants_size)
        self.constants_crc32 = int(info.constants_crc32)
        self.constants_path: Optional[str] = None
        self._constants_map = None
        if info.constants_external:
            self._set_constants(constants)
        elif constants is not None:
            raise ValueError(f"'{path}' holds its constants (built without "
                             "--constants=external): constants= is not taken")

    def _set_constants(self, constants) -> None:
        """Map the external constant pool file read-only (no copy) and hand it to the
        module's ``set_constants``. The file is ``constants`` or, when None, the
        library's path with the suffix ``.bin`` (where ``ireec build`` writes it).
        FileNotFoundError when it is missing; StatusError when the module refuses it
        (INVALID_ARGUMENT: wrong size; DATA_LOSS: its CRC-32 is not the one the module was
        built with)."""
        file = Path(constants) if constants is not None else Path(self.path).with_suffix(".bin")
        if not file.is_file():
            raise FileNotFoundError(
                f"'{self.path}' was built with --constants=external and needs its constants "
                f"file ({self.constants_size} bytes): no file '{file}' (pass constants=PATH)")
        ffi = self._ffi
        with open(file, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            mapped = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) if size else b""
        buf = ffi.from_buffer("char[]", mapped) if size else ffi.NULL
        status = self._info.set_constants(buf, size)
        if status != 0:
            if size:
                del buf
                mapped.close()
            error = StatusError(f"{self.name}_set_constants('{file}')", status)
            reason = {3: f"it has {size} bytes, the module needs {self.constants_size}",
                      15: f"its CRC-32 is not 0x{self.constants_crc32:08X}: not the constants "
                          "this module was built with"}.get(int(status))
            if reason:
                error.args = (f"{error.args[0]}: {reason}",)
            raise error
        self._constants_map = (mapped, buf)  # kept alive (and mapped) with the module
        self.constants_path = str(file)

    # -- table reading -------------------------------------------------------
    def _tensor(self, t, fn: str) -> TensorInfo:
        ffi = self._ffi
        tname = ffi.string(t.element_type_name).decode() if t.element_type_name != ffi.NULL else ""
        rank = int(t.rank)
        if rank < 0 or (rank > 0 and t.shape == ffi.NULL):
            raise ValueError(f"'{self.path}': {fn}: bad rank/shape in the reflection table")
        shape = tuple(int(t.shape[k]) for k in range(rank))
        dyn = None
        if t.dynamic_dims != ffi.NULL:
            dyn = tuple(int(t.dynamic_dims[k]) for k in range(rank))
        if any(d < 0 and (dyn is None or dyn[k] < 0) for k, d in enumerate(shape)):
            raise ValueError(f"'{self.path}': {fn}: a dynamic dimension without its dims index")
        count = int(np.prod([d if d >= 0 else 1 for d in shape], dtype=np.int64)) if shape else 1
        byte_size = int(t.byte_size)
        width = byte_size // count if count else 1
        dtype = _dtype_for(tname, int(t.element_type), width)
        if byte_size != count * dtype.itemsize:
            raise ValueError(f"'{self.path}': {fn}: {tname} tensor of shape {shape} "
                             f"declares {byte_size} bytes, expected {count * dtype.itemsize}")
        name = ffi.string(t.name).decode() if t.name != ffi.NULL else ""
        return TensorInfo(name, tname, int(t.element_type), shape, byte_size, dtype, dyn)

    def _allocate_workspace(self, size: int):
        if size <= 0:
            return None, self._ffi.NULL
        buf = np.zeros(size + WORKSPACE_ALIGNMENT, dtype=np.uint8)
        offset = (-buf.ctypes.data) % WORKSPACE_ALIGNMENT
        view = buf[offset:offset + size]
        return buf, self._ffi.cast("void *", view.ctypes.data)

    # -- public API ----------------------------------------------------------
    @property
    def functions(self) -> List[str]:
        """Names of the exported functions, in table order."""
        return list(self._functions)

    def info(self, fn: str) -> FunctionInfo:
        """The FunctionInfo of ``fn``; KeyError naming the available functions."""
        try:
            return self._functions[fn]
        except KeyError:
            raise KeyError(f"module '{self.name}' has no function '{fn}' "
                           f"(available: {', '.join(self._functions) or 'none'})") from None

    def __getitem__(self, fn: str):
        self.info(fn)
        return _BoundFunction(self, fn)

    def plan(self, fn: str) -> "CallPlan":
        """The prepared :class:`CallPlan` of ``fn``; KeyError as :meth:`info`."""
        self.info(fn)
        return self._plans[fn]

    def __getattr__(self, attr: str):
        if attr.startswith("_"):
            raise AttributeError(attr)
        funcs = self.__dict__.get("_functions", {})
        if attr in funcs:
            # Only reached for names that are no attribute: keep it, later lookups skip this.
            bound = self.__dict__[attr] = _BoundFunction(self, attr)
            return bound
        raise AttributeError(f"module '{self.__dict__.get('name', '?')}' has no function "
                             f"'{attr}' (available: {', '.join(funcs) or 'none'})")

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self._functions))

    def __repr__(self) -> str:
        return f"<ireec module '{self.name}' from {self.path}: {', '.join(self._functions)}>"

    def call(self, fn: str, *args, out=None):
        """Call ``fn`` with numpy-convertible ``args``; return one array, a tuple for
        several results, None for none. ``out``: result array(s) to write into (C-contiguous,
        exact dtype and shape), returned as given. A dynamic dimension (-1 in the reflection
        table) takes the argument's extent, and sizes the results that follow it.

        Raises TypeError (argument count, element type, non-array), ValueError (shape) and
        StatusError (a RuntimeError) when the function returns a non-OK status.
        """
        self.info(fn)
        return self._plans[fn](args, out)

    def _call_checked(self, fi: FunctionInfo, args, out):
        """The general call path: any numpy-convertible arguments, checked and converted
        (``_check_argument``), device arrays, and errors raised as :meth:`call` documents."""
        fn = fi.name
        if len(args) != len(fi.args):
            raise TypeError(f"{fn}: expects {len(fi.args)} argument{'s' * (len(fi.args) != 1)} "
                            f"{fi.signature}, got {len(args)}")
        if any(_is_device_array(a) for a in args) or _is_device_array(out) or (
                isinstance(out, (list, tuple)) and any(_is_device_array(o) for o in out)):
            return self._call_device(fi, args, out)
        arrays = [_check_argument(fn, i, t, a) for i, (t, a) in enumerate(zip(fi.args, args))]
        dims = _dynamic_extents(fi, arrays)
        return self._plans[fn].run(arrays, self._result_arrays(fi, out, dims), dims)

    def _call_device(self, fi: FunctionInfo, args, out):
        """Zero-copy call of a module built with ``--target=cuda`` on device arrays
        (``__cuda_array_interface__`` or DLPack): see :mod:`ireec.runtime.device_arrays`."""
        if fi.num_dims:
            raise TypeError(f"{fi.name}: a function with dynamic dimensions takes host arrays "
                            "(device arrays: not yet)")
        if self._device_call is None:
            self._device_call = device_entry(self.path, self.name)
        status, outs = call_device(self._device_call, list(self._functions).index(fi.name),
                                   fi, args, out)
        if status != 0:
            raise StatusError(fi.name, status)
        if not outs:
            return None
        return outs[0] if len(outs) == 1 else tuple(outs)

    def _result_arrays(self, fi: FunctionInfo, out, dims: Sequence[int] = ()) -> List[np.ndarray]:
        if out is None:
            return [np.empty(t.resolve(dims), dtype=t.dtype) for t in fi.results]
        outs = [out] if isinstance(out, np.ndarray) else list(out)
        if len(outs) != len(fi.results):
            raise TypeError(f"{fi.name}: out= has {len(outs)} arrays, the function has "
                            f"{len(fi.results)} results")
        for j, (t, o) in enumerate(zip(fi.results, outs)):
            if isinstance(o, np.ndarray) and _fits(o, t.shape, t.dtype):
                continue
            what = f"{fi.name}: out[{j}] ({t.name}) expects {t.mlir_type}"
            if not isinstance(o, np.ndarray):
                raise TypeError(f"{what}, got {type(o).__name__}")
            if o.dtype != t.dtype:
                raise TypeError(f"{what} ({t.dtype} array), got {o.dtype} array")
            if o.shape != t.resolve(dims):
                raise ValueError(f"{what}, got shape {o.shape}")
            if not o.flags.c_contiguous or not o.flags.writeable:
                raise ValueError(f"{what}: the array must be C-contiguous and writeable")
        return outs


_ndarray = np.ndarray


class CallPlan:
    """What calling one function needs, prepared once at load time: per argument the
    expected (dtype, shape), per result (shape, dtype), the argument and result pointer
    arrays (``void *[]``) and their casts to the trampoline's parameter types, the
    trampoline, the module's workspace pointer and lock (the workspace size is read from
    the module at each call).

    ``plan(args, out)`` is :meth:`LoadedModule.call`. Its fast path takes arguments that are
    exactly ``np.ndarray`` of the expected dtype and shape and C-contiguous, and passes them
    in place (``ffi.from_buffer``, no copy, no ``.ctypes``); any other argument, or a wrong
    count, goes through the module's checked path, which converts what it may and raises
    the documented TypeError/ValueError. Results are ``np.empty`` arrays, or the ``out=``
    arrays once checked. Calls are serialised by the module's lock (the pointer arrays and
    the workspace are shared), so a plan may be called from several threads.
    """

    __slots__ = ("module", "info", "name", "n_args", "arg_specs", "result_specs", "argv", "resv",
                 "args_p", "results_p", "trampoline", "workspace", "lock",
                 "from_buffer", "null")

    def __init__(self, module: "LoadedModule", fi: FunctionInfo, trampoline):
        ffi = module._ffi
        self.module = module
        self.info = fi
        self.name = fi.name
        self.n_args = len(fi.args)
        self.arg_specs = tuple((t.dtype, t.shape) for t in fi.args)
        self.result_specs = tuple((t.shape, t.dtype) for t in fi.results)
        self.argv = ffi.new("void *[]", max(1, len(fi.args)))
        self.resv = ffi.new("void *[]", max(1, len(fi.results)))
        self.args_p = ffi.cast("const void *const *", self.argv)
        self.results_p = ffi.cast("void *const *", self.resv)
        self.trampoline = trampoline
        self.workspace = module._workspace_ptr
        self.lock = module._lock
        self.from_buffer = ffi.from_buffer
        self.null = ffi.NULL

    def __call__(self, args, out=None):
        """Call with ``args`` (a sequence) and optional ``out=``; see :meth:`LoadedModule.call`."""
        if len(args) != self.n_args:
            return self.module._call_checked(self.info, args, out)
        fb = self.from_buffer
        ptrs = []
        for a, (dtype, shape) in zip(args, self.arg_specs):
            if not (type(a) is _ndarray and a.shape == shape and (a.dtype is dtype or a.dtype == dtype)
                    and a.flags.c_contiguous):
                return self.module._call_checked(self.info, args, out)
            ptrs.append(fb(a))
        if out is None:
            results = [np.empty(shape, dtype) for shape, dtype in self.result_specs]
        elif type(out) is _ndarray and len(self.result_specs) == 1 and _fits(out, *self.result_specs[0]):
            results = [out]
        else:
            if _is_device_array(out) or (isinstance(out, (list, tuple)) and any(_is_device_array(o) for o in out)):
                return self.module._call_checked(self.info, args, out)
            results = self.module._result_arrays(self.info, out)
        return self._run(ptrs, results)

    def run(self, arrays, results, dims: Sequence[int] = ()):
        """Call the trampoline on C-contiguous ``arrays`` and ``results`` of the expected
        dtypes and shapes (already checked), with the extents ``dims`` of the function's
        dynamic dimensions (in the order of the reflection table); StatusError on a non-OK
        status."""
        fb = self.from_buffer
        dimv = self.module._ffi.new("int64_t[]", list(dims)) if dims else self.module._ffi.NULL
        return self._run([fb(a) for a in arrays], results, dimv)

    def _run(self, ptrs, results, dimv=None):
        # ``ptrs``: ffi.from_buffer views of the arguments; the callers keep the arrays alive.
        # ``dimv``: the dynamic extents (int64_t[]), NULL for a static function.
        fb = self.from_buffer
        if dimv is None:
            dimv = self.null
        with self.lock:
            argv, resv = self.argv, self.resv
            for i, p in enumerate(ptrs):
                argv[i] = p
            for i, r in enumerate(results):
                resv[i] = fb(r)
            status = self.trampoline(self.args_p, self.results_p, dimv, self.workspace,
                                     self.module.workspace_size)
        if status != 0:
            raise StatusError(self.name, status)
        if not results:
            return None
        return results[0] if len(results) == 1 else tuple(results)


def _fits(o: np.ndarray, shape, dtype) -> bool:
    """Whether result array ``o`` can be written in place: exact shape and dtype,
    C-contiguous, writeable."""
    return (o.shape == shape and (o.dtype is dtype or o.dtype == dtype) and o.flags.c_contiguous
            and o.flags.writeable)


class _BoundFunction:
    """``m.fn``: calls ``m.call("fn", ...)``; ``.info`` gives its FunctionInfo."""

    __slots__ = ("_module", "_name", "_plan")

    def __init__(self, module: LoadedModule, name: str):
        self._module = module
        self._name = name
        self._plan = module._plans[name]

    @property
    def info(self) -> FunctionInfo:
        return self._module.info(self._name)

    def __call__(self, *args, out=None):
        return self._plan(args, out)

    def __repr__(self) -> str:
        return f"<ireec function {self.info.signature}>"


def _describe(a) -> str:
    if isinstance(a, (np.ndarray, np.generic)):
        return f"{a.dtype} array of shape {tuple(np.shape(a))}"
    return f"{type(a).__name__}"


def _check_argument(fn: str, i: int, t: TensorInfo, a) -> np.ndarray:
    """Argument ``a`` as a C-contiguous array of exactly ``t``'s dtype and shape."""
    what = f"{fn}: argument {i} ({t.name}) expects {t.mlir_type}"
    if t.element_type_name == "bf16":
        what += " (as uint16 bf16 bits)"
    if isinstance(a, (np.ndarray, np.generic)):
        arr = np.asarray(a)
        if arr.dtype != t.dtype:
            raise TypeError(f"{what}, got {_describe(a)}")
    else:
        try:
            arr = np.asarray(a)
        except Exception as e:  # ragged lists and such
            raise TypeError(f"{what}, got {type(a).__name__} that is not array-like: {e}") from None
        if arr.dtype == object or arr.dtype.kind not in "biufc":
            raise TypeError(f"{what}, got {type(a).__name__}")
        # Python scalars and lists take the expected dtype when the cast keeps the kind
        # (int -> float yes, float -> int no).
        if arr.dtype != t.dtype:
            if not np.can_cast(arr.dtype, t.dtype, casting="same_kind") or t.element_type_name == "bf16":
                raise TypeError(f"{what}, got {type(a).__name__} of {arr.dtype} values")
            arr = arr.astype(t.dtype)
    if len(arr.shape) != len(t.shape) or any(d >= 0 and d != a for d, a in zip(t.shape, arr.shape)):
        raise ValueError(f"{what}, got {_describe(arr)}")
    return _contiguous(arr)


def _dynamic_extents(fi: FunctionInfo, arrays: Sequence[np.ndarray]) -> List[int]:
    """The call's dims array: the extent of every dynamic argument dimension, at the index
    the reflection table gives it (ireec_runtime.h, ireec_call_fn_t)."""
    dims = [0] * fi.num_dims
    for t, a in zip(fi.args, arrays):
        for d, k in enumerate(t.dynamic_dims or ()):
            if k >= 0:
                dims[k] = int(a.shape[d])
    return dims


def load(path: Union[str, os.PathLike],
         constants: Optional[Union[str, os.PathLike]] = None) -> LoadedModule:
    """Load the ireec shared library at ``path`` (see :class:`LoadedModule`).

    A module built with ``--constants=external`` maps its constants file read-only (no
    copy): ``constants``, or by default ``path`` with the suffix ``.bin`` (where ``ireec
    build`` writes it). Raises FileNotFoundError (no library, or no constants file),
    OSError (not loadable), ValueError (not an ireec module, ABI version mismatch,
    inconsistent table, ``constants`` given to a module that holds its own) or
    StatusError (the constants file has the wrong size or CRC-32).
    """
    return LoadedModule(path, constants)

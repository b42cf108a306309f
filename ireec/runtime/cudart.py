"""The few CUDA runtime calls the Python side of ireec makes: device buffers and CUDA events,
for timing a ``--target=cuda`` module on the GPU (``ireec benchmark-module``).

cffi in ABI mode on the CUDA runtime library (``libcudart``): ``$IREEC_CUDART`` when set (a
path or a library name), else what ``ctypes.util.find_library("cudart")`` finds, else the
usual sonames. A cuda module links the runtime statically; both runtimes use the device's
primary context, so device pointers, the legacy default stream and events are shared between
them (CUDA Runtime API: "Interactions with the CUDA Driver API", primary contexts).

Functions used (CUDA Runtime API reference): ``cudaMalloc``, ``cudaFree``, ``cudaMemcpy``
(``cudaMemcpyHostToDevice`` = 1, ``cudaMemcpyDeviceToHost`` = 2), ``cudaEventCreate``,
``cudaEventRecord``, ``cudaEventSynchronize``, ``cudaEventElapsedTime`` (milliseconds, about
0.5 µs resolution), ``cudaEventDestroy`` and ``cudaGetErrorString``.
"""
from __future__ import annotations

import ctypes.util
import os
import threading
from typing import Dict, List, Optional, Tuple

import numpy as np

__all__ = ["CudaError", "CudaRuntime", "EventClock", "cuda_runtime", "library_candidates"]

_CDEF = """
typedef int cudaError_t;
typedef void *cudaStream_t;
typedef void *cudaEvent_t;
cudaError_t cudaMalloc(void **ptr, size_t size);
cudaError_t cudaFree(void *ptr);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, int kind);
cudaError_t cudaEventCreate(cudaEvent_t *event);
cudaError_t cudaEventDestroy(cudaEvent_t event);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream);
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end);
const char *cudaGetErrorString(cudaError_t error);
"""

MEMCPY_HOST_TO_DEVICE = 1
MEMCPY_DEVICE_TO_HOST = 2


class CudaError(RuntimeError):
    """A CUDA runtime call failed, or no CUDA runtime library could be loaded."""


def library_candidates() -> List[str]:
    """The CUDA runtime libraries tried, in order (see the module docstring)."""
    out = []
    env = os.environ.get("IREEC_CUDART")
    if env:
        out.append(env)
    found = ctypes.util.find_library("cudart")
    if found:
        out.append(found)
    out += ["libcudart.so", "libcudart.so.12", "libcudart.so.11.0"]
    return list(dict.fromkeys(out))


class CudaRuntime:
    """An opened CUDA runtime library (see :func:`cuda_runtime`)."""

    def __init__(self, names: Optional[List[str]] = None):
        import cffi

        self.ffi = cffi.FFI()
        self.ffi.cdef(_CDEF)
        errors = []
        for name in names or library_candidates():
            try:
                self.lib = self.ffi.dlopen(name)
                self.name = name
                break
            except OSError as e:
                errors.append(f"{name}: {e}")
        else:
            raise CudaError("no CUDA runtime library could be loaded (set IREEC_CUDART): "
                            + "; ".join(errors))

    def check(self, err: int, what: str) -> None:
        """CudaError naming ``what`` and the runtime's message when ``err`` is not cudaSuccess."""
        if err:
            msg = self.ffi.string(self.lib.cudaGetErrorString(err)).decode(errors="replace")
            raise CudaError(f"{what} failed: CUDA error {err} ({msg})")

    def malloc(self, size: int) -> int:
        """A device buffer of ``size`` bytes (at least one); its address."""
        p = self.ffi.new("void **")
        self.check(self.lib.cudaMalloc(p, max(1, int(size))), "cudaMalloc")
        return int(self.ffi.cast("uintptr_t", p[0]))

    def free(self, ptr: int) -> None:
        """Release a buffer of :meth:`malloc`."""
        self.check(self.lib.cudaFree(self.ffi.cast("void *", ptr)), "cudaFree")

    def to_device(self, array: np.ndarray) -> int:
        """A new device buffer holding the bytes of the C-contiguous ``array``."""
        a = np.ascontiguousarray(array)
        ptr = self.malloc(a.nbytes)
        if a.nbytes:
            self.check(self.lib.cudaMemcpy(self.ffi.cast("void *", ptr), self.ffi.cast("void *", a.ctypes.data),
                                           a.nbytes, MEMCPY_HOST_TO_DEVICE), "cudaMemcpy (host to device)")
        return ptr

    def to_host(self, ptr: int, out: np.ndarray) -> np.ndarray:
        """Copy ``out.nbytes`` bytes at device address ``ptr`` into the C-contiguous ``out``."""
        if out.nbytes:
            self.check(self.lib.cudaMemcpy(self.ffi.cast("void *", out.ctypes.data), self.ffi.cast("void *", ptr),
                                           out.nbytes, MEMCPY_DEVICE_TO_HOST), "cudaMemcpy (device to host)")
        return out


class EventClock:
    """A clock of GPU time on ``stream`` for :func:`ireec.tools.benchmark.benchmark_callable`:
    each reading records a CUDA event on the stream, waits for it and adds the
    ``cudaEventElapsedTime`` since the previous reading to a running total (seconds, float64,
    so long runs keep the events' resolution). The time between two readings is thus the
    time the stream took for the work enqueued between them."""

    def __init__(self, runtime: CudaRuntime, stream: int = 0):
        self.rt = runtime
        self.stream = runtime.ffi.cast("cudaStream_t", stream)
        self.events = []
        for _ in range(2):
            e = runtime.ffi.new("cudaEvent_t *")
            runtime.check(runtime.lib.cudaEventCreate(e), "cudaEventCreate")
            self.events.append(e[0])
        self.total = 0.0
        self.last = None  # index of the event recorded by the previous reading

    def __call__(self) -> float:
        lib, check = self.rt.lib, self.rt.check
        k = 0 if self.last is None else 1 - self.last
        check(lib.cudaEventRecord(self.events[k], self.stream), "cudaEventRecord")
        check(lib.cudaEventSynchronize(self.events[k]), "cudaEventSynchronize")
        if self.last is not None:
            ms = self.rt.ffi.new("float *")
            check(lib.cudaEventElapsedTime(ms, self.events[self.last], self.events[k]), "cudaEventElapsedTime")
            self.total += max(float(ms[0]), 0.0) / 1e3
        self.last = k
        return self.total

    def close(self) -> None:
        """Destroy the events."""
        for e in self.events:
            self.rt.lib.cudaEventDestroy(e)
        self.events = []


_runtimes: Dict[Tuple[str, ...], CudaRuntime] = {}
_lock = threading.Lock()


def cuda_runtime() -> CudaRuntime:
    """The :class:`CudaRuntime` of :func:`library_candidates` (opened once per list);
    CudaError when no CUDA runtime library can be loaded."""
    names = tuple(library_candidates())
    with _lock:
        if names not in _runtimes:
            _runtimes[names] = CudaRuntime(list(names))
        return _runtimes[names]

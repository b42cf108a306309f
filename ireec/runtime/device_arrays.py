"""Zero-copy calls of ``--target=cuda`` modules on device arrays.

A cuda module exports, besides the host-pointer entries its reflection table calls (copy
in, run, copy out), ``<module>_call_device(function, args, results, stream)``: function
number ``function`` (reflection order) on **device** pointers, enqueued on ``stream``
(templates/cuda/module.cu.j2). :meth:`ireec.runtime.loader.LoadedModule.call` sends a call
here when an argument or ``out=`` is a device array:

- an object with ``__cuda_array_interface__`` (version 2 or 3: CuPy, Numba, PyTorch), whose
  ``data`` pointer is taken as is;
- an object with ``__dlpack__`` and ``__dlpack_device__`` on a CUDA device (DLPack device
  types ``kDLCUDA`` = 2 and ``kDLCUDAManaged`` = 13, ``dlpack.h``): the ``DLTensor`` inside
  the capsule it exports gives the pointer (``data + byte_offset``), shape, strides and
  element type. The capsule is not consumed (its name stays ``"dltensor"``), so its
  destructor releases the producer's ``DLManagedTensor`` when the call is done.

Every argument and result must then be a device array: C-contiguous, of the exact shape and
element type of the reflection table, results writable (``out=`` is required: the call
does not allocate). The call is enqueued on the stream named by the first device array that
names one (``__cuda_array_interface__``'s ``stream``), else on the legacy default stream (0),
and does not wait.
"""
from __future__ import annotations

import ctypes
from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

import numpy as np

__all__ = ["DeviceArray", "is_device_array", "device_array", "device_entry", "call_device",
           "DLPACK_CUDA_DEVICES"]

#: DLPack device types whose memory the cuda module's kernels read (``DLDeviceType``:
#: kDLCUDA = 2, kDLCUDAManaged = 13).
DLPACK_CUDA_DEVICES = (2, 13)

#: DLPack ``DLDataTypeCode`` → numpy kind: kDLInt = 0, kDLUInt = 1, kDLFloat = 2,
#: kDLBfloat = 4 (carried as uint16 bit patterns, as the loader does), kDLComplex = 5,
#: kDLBool = 6.
_DL_KINDS = {0: "i", 1: "u", 2: "f", 4: "u", 5: "c", 6: "b"}


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    """``DLTensor`` of ``dlpack.h`` (the first member of ``DLManagedTensor``)."""

    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", _DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


@dataclass(frozen=True)
class DeviceArray:
    """What a call needs of one device array: its pointer, shape, element type, byte
    strides (None: C-contiguous), whether it is read-only, the stream it names (None: none)
    and ``keep``, an object to hold until the call is done (the DLPack capsule)."""

    pointer: int
    shape: Tuple[int, ...]
    dtype: np.dtype
    strides: Optional[Tuple[int, ...]]
    readonly: bool
    stream: Optional[int]
    keep: object = None


def _dlpack_device(a) -> Optional[Tuple[int, int]]:
    try:
        dev = a.__dlpack_device__()
    except Exception:  # noqa: BLE001 - any failure means "not a DLPack device array"
        return None
    return int(dev[0]), int(dev[1])


def is_device_array(a) -> bool:
    """Whether ``a`` is an array in CUDA device memory that :func:`device_array` reads:
    ``__cuda_array_interface__``, or DLPack on a CUDA device. numpy arrays (host memory,
    DLPack device type kDLCPU) are not."""
    if hasattr(a, "__cuda_array_interface__"):
        return True
    if isinstance(a, (np.ndarray, np.generic)) or not hasattr(a, "__dlpack__"):
        return False
    dev = _dlpack_device(a)
    return dev is not None and dev[0] in DLPACK_CUDA_DEVICES


def _from_cuda_array_interface(a) -> DeviceArray:
    iface = a.__cuda_array_interface__
    ptr, readonly = iface["data"]
    strides = iface.get("strides")
    return DeviceArray(int(ptr or 0), tuple(int(d) for d in iface["shape"]), np.dtype(iface["typestr"]),
                       tuple(int(s) for s in strides) if strides is not None else None,
                       bool(readonly), iface.get("stream"))


def _from_dlpack(a) -> DeviceArray:
    capsule = a.__dlpack__()
    t = _DLTensor.from_address(_capsule_pointer(capsule, b"dltensor"))
    if t.dtype.lanes != 1 or t.dtype.code not in _DL_KINDS or t.dtype.bits % 8 and t.dtype.code != 6:
        raise TypeError(f"DLPack element type (code {t.dtype.code}, {t.dtype.bits} bits, "
                        f"{t.dtype.lanes} lanes) has no numpy equivalent")
    kind = _DL_KINDS[t.dtype.code]
    dtype = np.dtype(np.bool_) if kind == "b" else np.dtype(f"{kind}{t.dtype.bits // 8}")
    shape = tuple(int(t.shape[k]) for k in range(t.ndim))
    strides = None
    if t.strides:  # DLPack strides count elements
        strides = tuple(int(t.strides[k]) * dtype.itemsize for k in range(t.ndim))
    pointer = int(t.data or 0) + int(t.byte_offset)
    return DeviceArray(pointer, shape, dtype, strides, False, None, keep=capsule)


def device_array(a) -> DeviceArray:
    """The :class:`DeviceArray` view of ``a`` (see :func:`is_device_array`); TypeError for
    anything else or a DLPack element type numpy cannot name."""
    if hasattr(a, "__cuda_array_interface__"):
        return _from_cuda_array_interface(a)
    if is_device_array(a):
        return _from_dlpack(a)
    raise TypeError(f"{type(a).__name__} is not a CUDA device array")


def _checked_pointer(fn: str, what: str, t, a, writable: bool) -> DeviceArray:
    """``a`` as a DeviceArray after checking it against the reflection entry ``t``
    (:class:`ireec.runtime.loader.TensorInfo`): same shape, same element type, C-contiguous,
    writable for results. TypeError / ValueError naming ``fn`` and ``what`` otherwise."""
    if not is_device_array(a):
        raise TypeError(f"{fn}: {what} ({t.name}) is not a device array; pass every argument and "
                        "result as a device array, or none")
    d = device_array(a)
    expect = f"{fn}: {what} ({t.name}) expects {t.mlir_type}"
    if d.shape != tuple(t.shape):
        raise ValueError(f"{expect}, got shape {d.shape}")
    if d.dtype != t.dtype:
        raise ValueError(f"{expect} ({t.dtype}), got {d.dtype}")
    if d.strides is not None:
        contiguous = tuple(int(np.prod(t.shape[k + 1:], dtype=np.int64)) * t.dtype.itemsize
                           for k in range(len(t.shape)))
        # Strides of unit dimensions say nothing about the layout.
        if any(s != c for s, c, n in zip(d.strides, contiguous, t.shape) if n > 1):
            raise ValueError(f"{expect}: the array must be C-contiguous")
    if writable and d.readonly:
        raise ValueError(f"{expect}: the array is read-only")
    return d


def device_entry(path: str, module_name: str):
    """The ctypes function ``<module_name>_call_device`` of the library at ``path``; TypeError
    when the library has none (a module not built with ``--target=cuda``)."""
    try:
        f = getattr(ctypes.CDLL(path), f"{module_name}_call_device")
    except AttributeError:
        raise TypeError(f"'{path}' has no device entries (build it with --target=cuda "
                        "to call it on device arrays)") from None
    f.argtypes = [ctypes.c_int64, ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_void_p),
                  ctypes.c_void_p]
    f.restype = ctypes.c_int
    return f


def call_device(entry, index: int, fi, args: Sequence, out) -> Tuple[int, List]:
    """Call function number ``index`` (reflection entry ``fi``) through the device entry
    ``entry`` (:func:`device_entry`) on device arrays ``args`` and ``out`` (one array, or
    one per result). Returns (status, the result arrays as given). TypeError for a missing
    ``out=``, a wrong number of results or host arrays mixed in; ValueError for a shape,
    element type or layout mismatch."""
    if out is None:
        raise TypeError(f"{fi.name}: device arrays need out= (device arrays for the results)")
    outs = list(out) if isinstance(out, (list, tuple)) else [out]
    if len(outs) != len(fi.results):
        raise TypeError(f"{fi.name}: out= has {len(outs)} arrays, the function has "
                        f"{len(fi.results)} results")
    argd = [_checked_pointer(fi.name, f"argument {i}", t, a, False) for i, (t, a) in enumerate(zip(fi.args, args))]
    resd = [_checked_pointer(fi.name, f"out[{j}]", t, o, True) for j, (t, o) in enumerate(zip(fi.results, outs))]
    stream = next((d.stream for d in argd + resd if d.stream), None) or 0
    argv = (ctypes.c_void_p * max(1, len(argd)))(*[d.pointer for d in argd])
    resv = (ctypes.c_void_p * max(1, len(resd)))(*[d.pointer for d in resd])
    status = entry(index, argv, resv, stream)
    del argd, resd  # DLPack capsules held until the call has been enqueued
    return int(status), outs

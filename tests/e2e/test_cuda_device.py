"""Target ``cuda`` from Python: zero-copy calls on device arrays (``__cuda_array_interface__``
and DLPack, :mod:`ireec.runtime.device_arrays`) and ``ireec benchmark-module`` timing with
CUDA events (:mod:`ireec.runtime.cudart`).

Without a GPU these run the generated CUDA on the CPU (tests/e2e/cuda_emulation/:
``emulated_cuda_library`` of test_cuda.py for the module, ``cudart_emulation.c`` for the
runtime library ireec opens with cffi), where device memory is host memory, so numpy arrays
dressed as device arrays stand for CuPy or PyTorch ones. Tests marked ``gpu`` run the real
thing and skip without an NVIDIA GPU.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import ireec
from ireec.runtime import cudart, device_arrays
from ireec.tools.benchmark import prepare_cuda_call

from .common import build, run_cli
from .test_cuda import EMULATION, GPU, SEEDS, _DeviceArray, emulated_cuda_library, needs_cxx

CC = shutil.which(os.environ.get("CC", "gcc"))
ADD = Path(__file__).resolve().parent / "inputs" / "add.mlir"


class _DLPackDeviceArray:
    """A numpy array seen as a DLPack array on CUDA device 0 (``__dlpack_device__`` says
    kDLCUDA; the capsule is numpy's, whose memory the emulated runtime reads as device
    memory)."""

    def __init__(self, array: np.ndarray, device_type: int = 2):
        self.array = np.array(array, order="C")
        self.device_type = device_type

    def __dlpack__(self, stream=None):
        return self.array.__dlpack__()

    def __dlpack_device__(self):
        return (self.device_type, 0)


@pytest.fixture(scope="module")
def emulated_add(tmp_path_factory):
    """The emulated cuda library of inputs/add.mlir and its loaded module."""
    if shutil.which(os.environ.get("CXX", "g++")) is None:
        pytest.skip("no C++ compiler (set CXX)")
    lib = emulated_cuda_library(ADD, tmp_path_factory.mktemp("cuda_add"))
    return lib, ireec.load(lib)


@pytest.fixture(scope="module")
def emulated_cudart(tmp_path_factory):
    """tests/e2e/cuda_emulation/cudart_emulation.c built as a shared library."""
    if CC is None:
        pytest.skip("no C compiler (set CC)")
    lib = tmp_path_factory.mktemp("cudart") / "libcudart_emulation.so"
    subprocess.run([CC, "-O1", "-fPIC", "-shared", str(EMULATION / "cudart_emulation.c"), "-o", str(lib)],
                   check=True)
    return lib


# --------------------------------------------------------------------------- device arrays
def test_device_array_recognition():
    """numpy arrays (host memory, DLPack kDLCPU) are not device arrays; DLPack on kDLCUDA and
    ``__cuda_array_interface__`` objects are, with their pointer, shape and type."""
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    assert not device_arrays.is_device_array(a)
    assert not device_arrays.is_device_array(_DLPackDeviceArray(a, device_type=1))
    d = _DLPackDeviceArray(a)
    assert device_arrays.is_device_array(d)
    v = device_arrays.device_array(d)
    assert (v.pointer, v.shape, v.dtype) == (d.array.ctypes.data, (2, 3), np.dtype(np.float32))
    c = _DeviceArray(a)
    v = device_arrays.device_array(c)
    assert (v.pointer, v.shape, v.dtype, v.readonly) == (c.array.ctypes.data, (2, 3), np.dtype(np.float32), False)
    for dt in (np.bool_, np.int8, np.uint16, np.float16, np.float64, np.int64, np.complex64):
        assert device_arrays.device_array(_DLPackDeviceArray(np.zeros(3, dt))).dtype == np.dtype(dt)
    with pytest.raises(TypeError, match="not a CUDA device array"):
        device_arrays.device_array(a)


def test_dlpack_offset_and_strides_are_read():
    """A DLPack view starting inside its buffer gives the view's address; a transposed view
    is refused as not C-contiguous by the call checks."""
    base = np.arange(12, dtype=np.float32).reshape(3, 4)

    class View(_DLPackDeviceArray):
        def __init__(self, view):
            self.array = view
            self.device_type = 2

    v = device_arrays.device_array(View(base[1:]))
    assert v.pointer == base.ctypes.data + 16 and v.shape == (2, 4)
    t = device_arrays.device_array(View(base.T))
    assert t.strides == (4, 16)


@needs_cxx
def test_emulated_cuda_dlpack_zero_copy_call(emulated_add):
    """DLPack arguments and ``out=`` (and CUDA-array-interface ones mixed in) go to the
    device entry without copies; results match the host-pointer call."""
    _lib, g = emulated_add
    rng = np.random.default_rng(2)
    for name in g.functions:
        fi = g.info(name)
        args = [rng.standard_normal(t.shape).astype(t.dtype) for t in fi.args]
        want = g.call(name, *args)
        want = want if isinstance(want, tuple) else (want,)
        outs = [_DLPackDeviceArray(np.zeros(t.shape, t.dtype)) for t in fi.results]
        dev_args = [(_DeviceArray if i % 2 else _DLPackDeviceArray)(a) for i, a in enumerate(args)]
        got = g.call(name, *dev_args, out=outs if len(outs) > 1 else outs[0])
        assert got is outs[0] if len(outs) == 1 else got == tuple(outs)
        for o, w in zip(outs, want):
            np.testing.assert_array_equal(o.array, w)


@needs_cxx
def test_emulated_cuda_device_call_errors(emulated_add):
    """Wrong shape, element type, layout or a host array among device arrays is refused
    before anything runs."""
    _lib, g = emulated_add
    name = g.functions[0]
    fi = g.info(name)
    args = [_DLPackDeviceArray(np.zeros(t.shape, t.dtype)) for t in fi.args]
    out = _DLPackDeviceArray(np.zeros(fi.results[0].shape, fi.results[0].dtype))
    with pytest.raises(TypeError, match="need out="):
        g.call(name, *args)
    with pytest.raises(TypeError, match="not a device array"):
        g.call(name, *args, out=np.zeros(fi.results[0].shape, fi.results[0].dtype))
    bad = _DLPackDeviceArray(np.zeros(fi.args[0].shape, np.float64))
    with pytest.raises(ValueError, match="expects"):
        g.call(name, bad, *args[1:], out=out)
    if len(fi.args[0].shape) >= 1 and fi.args[0].shape[0] > 1:
        wrong = _DLPackDeviceArray(np.zeros(fi.args[0].shape[::-1] + (2,), fi.args[0].dtype))
        with pytest.raises(ValueError, match="got shape"):
            g.call(name, wrong, *args[1:], out=out)


# --------------------------------------------------------------------------- CUDA events
@needs_cxx
def test_prepare_cuda_call_times_the_device_entry_with_events(emulated_add, emulated_cudart, monkeypatch):
    """``prepare_cuda_call`` copies the inputs to device buffers once and returns the device
    call and an event clock; the clock advances by the stream's time between readings."""
    monkeypatch.setenv("IREEC_CUDART", str(emulated_cudart))
    _lib, g = emulated_add
    name = g.functions[0]
    fi = g.info(name)
    inputs = [np.ones(t.shape, t.dtype) for t in fi.args]
    call, clock = prepare_cuda_call(g, name, inputs)
    assert isinstance(clock, cudart.EventClock)
    t0 = clock()
    for _ in range(3):
        call()
    t1 = clock()
    assert t1 >= t0 >= 0.0 and t1 < 10.0
    clock.close()


@needs_cxx
def test_benchmark_module_on_cuda_uses_events(emulated_add, emulated_cudart, monkeypatch, capsys):
    """``ireec benchmark-module`` on a cuda module times the device entry with CUDA events
    (no note on stderr), as JSON with one run per repetition."""
    monkeypatch.setenv("IREEC_CUDART", str(emulated_cudart))
    lib, g = emulated_add
    name = g.functions[0]
    fi = g.info(name)
    inputs = [f"--input={'x'.join(str(d) for d in t.shape)}x{t.element_type_name}=1" for t in fi.args]
    rc, out, err = run_cli(["benchmark-module", f"--module={lib}", f"--function={name}", *inputs,
                            "--benchmark_min_time=20x", "--benchmark_repetitions=2",
                            "--benchmark_format=json"], capsys)
    assert rc == 0, err
    assert "note:" not in err
    doc = json.loads(out)
    runs = [b for b in doc["benchmarks"] if b.get("run_type") == "iteration"]
    assert len(runs) == 2 and all(b["iterations"] == 20 and b["real_time"] >= 0 for b in runs)


@needs_cxx
def test_benchmark_module_on_cuda_without_runtime_library(emulated_add, monkeypatch, tmp_path, capsys):
    """Without a CUDA runtime library to open, the host-pointer entry is timed with the wall
    clock and stderr says so."""
    monkeypatch.setenv("IREEC_CUDART", str(tmp_path / "absent" / "libcudart.so"))
    monkeypatch.setattr(cudart, "library_candidates", lambda: [os.environ["IREEC_CUDART"]])
    lib, g = emulated_add
    name = g.functions[0]
    fi = g.info(name)
    inputs = [f"--input={'x'.join(str(d) for d in t.shape)}x{t.element_type_name}=1" for t in fi.args]
    rc, out, err = run_cli(["benchmark-module", f"--module={lib}", f"--function={name}", *inputs,
                            "--benchmark_min_time=5x"], capsys)
    assert rc == 0, err
    assert "no CUDA runtime library" in err and f"BM_{name}" in out


# --------------------------------------------------------------------------- on a GPU
@pytest.mark.gpu
@pytest.mark.parametrize("path", SEEDS[:2], ids=[p.stem for p in SEEDS[:2]])
def test_gpu_zero_copy_and_event_timing(path, tmp_path, capsys):
    """On a GPU: device buffers made with the CUDA runtime, passed through
    ``__cuda_array_interface__`` and through DLPack (PyTorch, when installed), give the
    host-pointer call's results; the event clock measures the device calls."""
    if not GPU:
        pytest.skip("no NVIDIA GPU visible (nvidia-smi -L)")
    try:
        rt = cudart.cuda_runtime()
    except cudart.CudaError as e:
        pytest.skip(str(e))
    g = ireec.load(build(path, tmp_path, capsys, target="cuda"))
    rng = np.random.default_rng(3)

    class Cai:
        def __init__(self, ptr, shape, dtype):
            self.__cuda_array_interface__ = {"shape": tuple(shape), "typestr": np.dtype(dtype).str,
                                             "data": (ptr, False), "strides": None, "version": 3}

    for name in g.functions:
        fi = g.info(name)
        args = [rng.standard_normal(t.shape).astype(t.dtype) for t in fi.args]
        want = g.call(name, *args)
        want = want if isinstance(want, tuple) else (want,)
        dargs = [Cai(rt.to_device(a), t.shape, t.dtype) for a, t in zip(args, fi.args)]
        douts = [Cai(rt.malloc(t.byte_size), t.shape, t.dtype) for t in fi.results]
        g.call(name, *dargs, out=douts)
        for o, t, w in zip(douts, fi.results, want):
            got = rt.to_host(o.__cuda_array_interface__["data"][0], np.empty(t.shape, t.dtype))
            np.testing.assert_allclose(got, w, rtol=1e-6, atol=1e-6)
        call, clock = prepare_cuda_call(g, name, args)
        t0 = clock()
        call()
        assert clock() > t0
        clock.close()
    torch = pytest.importorskip("torch")
    name = g.functions[0]
    fi = g.info(name)
    targs = [torch.from_numpy(rng.standard_normal(t.shape).astype(t.dtype)).cuda() for t in fi.args]
    touts = [torch.from_numpy(np.zeros(t.shape, t.dtype)).cuda() for t in fi.results]


    class DLPackOnly:  # torch tensors also have __cuda_array_interface__, which would win
        def __init__(self, t):
            self.t = t

        def __dlpack__(self, stream=None):
            return self.t.__dlpack__()

        def __dlpack_device__(self):
            return self.t.__dlpack_device__()

    g.call(name, *[DLPackOnly(t) for t in targs], out=[DLPackOnly(t) for t in touts])
    torch.cuda.synchronize()
    want = g.call(name, *[t.cpu().numpy() for t in targs])
    want = want if isinstance(want, tuple) else (want,)
    for o, w in zip(touts, want):
        np.testing.assert_allclose(o.cpu().numpy(), w, rtol=1e-6, atol=1e-6)

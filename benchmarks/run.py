"""Time ireec's generated C against numpy and IREE; write benchmarks/RESULTS.md.

    python3 -m benchmarks                 # everything (make bench)
    python3 -m benchmarks --quick         # fewer repetitions, shorter runs, no 1024³ matmul
    python3 -m benchmarks --cases matmul_128,mlp --targets c --no-iree --output -
    python3 -m benchmarks --only compile-time   # only the compile-time section (see
                                                # benchmarks/compile_time.py), updated in place
    python3 -m benchmarks --only weight-scale --weight-sizes 1   # only the compile cost by
                                                # weight size (benchmarks/weight_scale.py)
    python3 -m benchmarks --only igemm          # only the int8 GEMM against the VNNI peak
                                                # (benchmarks/igemm.py)
    python3 -m benchmarks --only cortex-m      # only int8 against f32 on a Cortex-M4 under
                                                # QEMU (benchmarks/cortex_m.py)
    python3 -m benchmarks --only numpy          # only numpy's timings ("numpy baseline")
    python3 -m benchmarks --only numpy-alt      # only numpy against ireec on the large
                                                # matmuls, alternating (benchmarks/numpy_alternating.py)
    python3 -m benchmarks --only busy           # only the busy-machine table (benchmarks/busy.py)
    python3 -m benchmarks --only ort            # only ONNX Runtime against ireec (benchmarks/onnx_runtime.py)

Cases (``benchmarks/cases/*.mlir``, linalg on tensors; inputs uniform in [-1, 1) from a
fixed seed):

=======================  ===========================================================
matmul_128 … 2048          C = A·B, f32 square matrices (128, 256, 512, 1024, 2048)
batch_matmul               8 batches of 256x256x256
conv3x3                    3x3 convolution, 1x58x58x64 NHWC (VALID) → 1x56x56x64
elementwise_chain          relu(a*b + c) over 2^20 floats (three elementwise ops)
row_sum                    (a + b).sum(axis=1) for 100000x100
mlp                        64x784 → dense 256 + relu → dense 10 → softmax
jax_mlp, jax_lenet         ../shared/models/jax/{mlp,lenet}/*.args.mlir (StableHLO from
                           JAX) with their arg*.npy inputs
jax_resnet_block, …        the JAX resnet_block, mobilenet_block and gpt_block; no numpy
                           version: checked against the exporter's out0.npy
=======================  ===========================================================

For every case: the same computation in numpy on the same inputs (the reference output
here; the numpy timing on 1 and on 2 BLAS threads in subprocesses whose environment has no
BLAS pinning variable, :data:`BLAS_PINNING_VARIABLES`, with the BLAS kernel family in use
named); for each target
(``c``, ``openmp``): compile with ``ireec.compiler.compile_file`` (its ``report`` gives the
arena bytes and the FLOPs, the IR after the flow phase the dispatch count), build with
``ireec.runtime.build``, check the output, time the bare C call and the ``ireec.load``
call overhead; when ``iree.compiler``/``iree.runtime`` import, IREE 3.x's ``llvm-cpu``
backend with ``--iree-llvmcpu-target-cpu=host``, with and without
``--iree-opt-data-tiling``, on the ``local-sync`` (one thread, compared with ``c``) and
``local-task`` (all cores, compared with ``openmp``) devices. Then the FMA peak
(``benchmarks/peak.py``) and, when ``onnxruntime`` imports, ONNX Runtime against ireec on
the torch-mlir models (``benchmarks/onnx_runtime.py``), and the same ``openmp`` calls on a
quiet and a busy machine (``benchmarks/busy.py``); without ``--cases``, the int8 GEMM
against the VNNI peak (``benchmarks/igemm.py``), the compile time and the compile cost by
weight size. Cases or runners that cannot run
are reported with the reason.
Nothing here is a test: numbers depend on the machine and its load.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shlex
import subprocess
import sys
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple

# numpy's BLAS (OpenBLAS) runs on one thread unless OPENBLAS_NUM_THREADS says otherwise:
# on a small shared machine its threads spin-wait for each other and a 0.05 ms matmul
# can take 50 ms. This only works before numpy is first imported (else it is left alone).
if "numpy" not in sys.modules:
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:  # `python3 benchmarks/run.py` from anywhere
    sys.path.insert(0, str(REPO))

from ireec.tools.benchmark import (call_overhead, harness_overhead,  # noqa: E402
                                   machine_context, parse_min_time, prepare_call)

from benchmarks import busy, compile_time, onnx_runtime, peak  # noqa: E402
from benchmarks import cortex_m, igemm, numpy_alternating, weight_scale  # noqa: E402

#: Sections ``--only`` can measure alone.
SECTIONS = ("compile-time", "weight-scale", "igemm", "cortex-m", "numpy", "numpy-alt", "busy", "ort")
NUMPY_SECTION_TITLE = "## numpy baseline"
COMPILE_SIZES = compile_time.DEFAULT_SIZES
QUICK_COMPILE_SIZES = (2000, 10000)

CASES_DIR = REPO / "benchmarks" / "cases"
DEFAULT_OUTPUT = REPO / "benchmarks" / "RESULTS.md"
SEED = 20240601
TARGETS = ("c", "openmp")
#: IREE device compared with each ireec target (same number of threads).
IREE_DEVICE_FOR = {"c": "local-sync", "openmp": "local-task"}
#: IREE configurations: {name: extra iree-compile flags}. ``dt``: data tiling (packed
#: layouts and micro-kernels for contractions), IREE's strongest CPU configuration.
IREE_CONFIGS = {"default": [], "dt": ["--iree-opt-data-tiling"]}
#: Cases slower than this (ms per call) get no call-overhead figure: one call's noise
#: exceeds the few microseconds measured.
OVERHEAD_MAX_MS = 1.0


def shared_dir() -> Path:
    """``$IREEC_SHARED`` or the ``shared/`` folder beside the repository."""
    return Path(os.environ.get("IREEC_SHARED", REPO.parent / "shared"))


# ---------------------------------------------------------------------------
# cases: MLIR, inputs, and the same computation in numpy
# ---------------------------------------------------------------------------

@dataclass
class Case:
    """One benchmark: ``path`` to the MLIR, the public ``function`` to call, ``make_inputs()``
    (numpy arrays, one per argument) and ``reference(*inputs)`` computing the result in numpy."""

    name: str
    what: str
    path: Path
    function: str
    make_inputs: Callable[[], List[np.ndarray]]
    reference: Optional[Callable[..., np.ndarray]]
    rtol: float = 1e-4
    atol: float = 1e-4
    quick: bool = True
    expected_file: Optional[Path] = None  # the exporter's own output, to check `reference`
    #: Without a numpy version (a model): ``reference`` is None, ``expected_file`` the reference.


def _uniform(*shapes) -> List[np.ndarray]:
    rng = np.random.default_rng(SEED)
    return [rng.uniform(-1.0, 1.0, size=s).astype(np.float32) for s in shapes]


def np_matmul(a, b):
    """a @ b (numpy's BLAS)."""
    return a @ b


def np_conv3x3(x, w):
    """VALID 3x3 convolution, NHWC input, HWIO filter, stride 1."""
    return _conv2d_nhwc(x, w, 0)


def np_mul_add_relu(a, b, c):
    """relu(a * b + c) elementwise."""
    return np.maximum(a * b + c, np.float32(0))


def np_row_sum(a, b):
    """Row sums of a + b."""
    return (a + b).sum(axis=1, dtype=np.float32)


def np_softmax_rows(logits):
    """Softmax over the last axis, max-subtracted."""
    e = np.exp(logits - logits.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def np_mlp(x, w1, b1, w2, b2):
    """softmax(relu(x @ w1 + b1) @ w2 + b2)."""
    h = np.maximum(x @ w1 + b1, np.float32(0))
    return np_softmax_rows(h @ w2 + b2)


def _conv2d_nhwc(x, w, pad):
    """2-D convolution, NHWC input, HWIO filter, stride 1, ``pad`` zeros on each side."""
    if pad:
        x = np.pad(x, ((0, 0), (pad, pad), (pad, pad), (0, 0)))
    kh, kw = w.shape[:2]
    win = np.lib.stride_tricks.sliding_window_view(x, (kh, kw), axis=(1, 2))  # N,H,W,C,kh,kw
    return np.einsum("nhwcij,ijco->nhwo", win, w, optimize=True).astype(np.float32)


def _pool2(x, op):
    n, h, w, c = x.shape
    return op(x.reshape(n, h // 2, 2, w // 2, 2, c), axis=(2, 4))


def np_lenet(x, c1w, c1b, c2w, c2b, f1w, f1b, f2w, f2b, f3w, f3b):
    """LeNet as the JAX model (see its manifest): conv5x5 SAME + relu + avgpool2, conv5x5
    VALID + relu + maxpool2, flatten (NHWC order), dense 120 + relu, 84 + relu, 10."""
    relu = lambda v: np.maximum(v, np.float32(0))  # noqa: E731
    y = _pool2(relu(_conv2d_nhwc(x, c1w, 2) + c1b), np.mean)
    y = _pool2(relu(_conv2d_nhwc(y, c2w, 0) + c2b), np.max)
    y = y.reshape(y.shape[0], -1)
    y = relu(y @ f1w + f1b)
    y = relu(y @ f2w + f2b)
    return y @ f3w + f3b


def _npy_inputs(folder: Path) -> Callable[[], List[np.ndarray]]:
    def load() -> List[np.ndarray]:
        manifest = json.loads((folder / "manifest.json").read_text())
        return [np.load(folder / a["file"]) for a in sorted(manifest["args"], key=lambda a: a["index"])]
    return load


def all_cases() -> List[Case]:
    """The cases in run order."""
    cases = [
        Case(f"matmul_{n}", f"{n}x{n}x{n} f32 matmul", CASES_DIR / f"matmul_{n}.mlir", "matmul",
             lambda n=n: _uniform((n, n), (n, n)), np_matmul, rtol=1e-3, atol=1e-3,
             quick=n < 1024)
        for n in (128, 256, 512, 1024, 2048)
    ]
    cases += [
        Case("batch_matmul", "8 × 256x256x256 f32 batch matmul", CASES_DIR / "batch_matmul.mlir",
             "batch_matmul", lambda: _uniform((8, 256, 256), (8, 256, 256)), np_matmul,
             rtol=1e-3, atol=1e-3),
        Case("conv3x3", "3x3 conv, 56x56x64 → 64 NHWC f32", CASES_DIR / "conv3x3_56x56x64.mlir", "conv",
             lambda: _uniform((1, 58, 58, 64), (3, 3, 64, 64)), np_conv3x3, rtol=1e-3, atol=1e-3),
    ]
    n = 1 << 20
    cases += [
        Case("elementwise_chain", "relu(a*b + c), 2^20 f32", CASES_DIR / "elementwise_chain.mlir",
             "mul_add_relu", lambda: _uniform(n, n, n), np_mul_add_relu),
        Case("row_sum", "(a + b).sum(1), 100000x100 f32", CASES_DIR / "row_sum.mlir", "row_sum",
             lambda: _uniform((100000, 100), (100000, 100)), np_row_sum),
        Case("mlp", "64x784 → 256 relu → 10 softmax", CASES_DIR / "mlp.mlir", "mlp",
             lambda: _uniform((64, 784), (784, 256), 256, (256, 10), 10), np_mlp),
    ]
    jax = shared_dir() / "models" / "jax"
    cases += [
        Case("jax_mlp", "JAX mlp (StableHLO), batch 8", jax / "mlp" / "mlp.args.mlir", "main",
             _npy_inputs(jax / "mlp"), np_mlp, rtol=1e-5, atol=1e-5,
             expected_file=jax / "mlp" / "out0.npy"),
        Case("jax_lenet", "JAX lenet (StableHLO), batch 1", jax / "lenet" / "lenet.args.mlir",
             "main", _npy_inputs(jax / "lenet"), np_lenet, rtol=1e-5, atol=1e-5,
             expected_file=jax / "lenet" / "out0.npy"),
    ]
    cases += [
        Case(f"jax_{m}", f"JAX {m} (StableHLO), {what}", jax / m / f"{m}.args.mlir", "main",
             _npy_inputs(jax / m), None, rtol=1e-3, atol=1e-4, expected_file=jax / m / "out0.npy")
        for m, what in (("resnet_block", "two 3x3 convs on 8x8x16 + skip"),
                        ("mobilenet_block", "depthwise-separable block"),
                        ("gpt_block", "attention + MLP, 2x16x64"))
    ]
    torch = shared_dir() / "models" / "torch_mlir"
    cases += [
        Case(f"torch_{m}", f"torch-mlir {m} (linalg on tensors, weights as constants), {what}",
             torch / m / f"{m}.const.linalg.mlir", "main", lambda m=m: [np.load(torch / m / "arg0.npy")],
             None, rtol=1e-3, atol=1e-4, expected_file=torch / m / "out0.npy")
        for m, what in (("mlp", "8x784 → 256 → 10"), ("lenet", "batch 1, NCHW"),
                        ("gpt_block", "attention + GELU MLP, 2x16x64"),
                        ("mobilenet_block", "NCHW depthwise-separable block"),
                        ("resnet18", "whole network, width 16, 1x3x80x80, NCHW"),
                        ("mobilenetv2", "whole network, width 0.5, 1x3x64x64, NCHW"),
                        ("unet_small", "whole 2-level U-Net, 1x3x32x32, GroupNorm + SiLU"))
    ]
    return cases


# ---------------------------------------------------------------------------
# measuring
# ---------------------------------------------------------------------------

@dataclass
class Options:
    repetitions: int = 5
    min_time: str = "0.2s"
    warmup_time: float = 0.05


@dataclass
class Measurement:
    """One (case, runner) cell. Times in milliseconds per call."""

    median_ms: Optional[float] = None
    min_ms: Optional[float] = None
    cpu_ms: Optional[float] = None
    iterations: int = 0
    repetitions: int = 0
    max_abs_err: Optional[float] = None
    correct: Optional[bool] = None
    dispatches: Optional[int] = None
    arena_bytes: Optional[int] = None
    compile_s: Optional[float] = None
    skipped: Optional[str] = None
    flops: Optional[int] = None           # floating-point operations per call (the cost model's)
    raw_us: Optional[float] = None        # the bare C call (µs), next to...
    load_us: Optional[float] = None       # ...the call through ireec.load (µs)
    load_out_us: Optional[float] = None   # ...and through ireec.load with out= (µs)

    mean_ms: Optional[float] = None

    def take(self, times: Sequence[float]) -> "Measurement":
        """Keep the median, minimum and mean of per-call ``times`` (seconds)."""
        ordered = sorted(times)
        self.median_ms, self.min_ms = ordered[len(ordered) // 2] * 1e3, ordered[0] * 1e3
        self.mean_ms = sum(ordered) / len(ordered) * 1e3
        self.iterations, self.repetitions = len(ordered), 1
        return self


def time_calls(fn: Callable[[], object], opts: "Options") -> List[float]:
    """Seconds of each of a series of calls of ``fn``, each timed alone: warm-up calls for
    ``opts.warmup_time`` seconds, then calls until ``opts.repetitions`` × ``opts.min_time``
    seconds have passed (at least 5 calls; ``min_time`` may also be an iteration count such
    as ``10x``). Per-call times let the median ignore the calls a shared machine's scheduler
    delays by a whole time slice (an OpenMP barrier waiting for a descheduled thread), while
    the mean keeps them."""
    clock = time.perf_counter
    end = clock() + opts.warmup_time
    fn()
    while clock() < end:
        fn()
    seconds, count = parse_min_time(opts.min_time)
    budget = (seconds or 0.0) * max(1, opts.repetitions)
    want = max(5, (count or 0) * max(1, opts.repetitions))
    times: List[float] = []
    stop = clock() + budget
    while len(times) < want or clock() < stop:
        t0 = clock()
        fn()
        times.append(clock() - t0)
    return times


@dataclass
class CaseResult:
    case: Case
    numpy: Measurement = field(default_factory=Measurement)
    targets: Dict[str, Measurement] = field(default_factory=dict)
    iree: Dict[str, Measurement] = field(default_factory=dict)  # by IREE config (IREE_CONFIGS)
    numpy2_ms: Optional[float] = None  # numpy with OPENBLAS_NUM_THREADS=2 (a subprocess)
    # r.numpy.median_ms: numpy with OPENBLAS_NUM_THREADS=1, also in a subprocess (numpy_times)
    note: str = ""


def _first_line(e: BaseException) -> str:
    text = (getattr(e, "message", None) or str(e) or type(e).__name__).strip()
    text = text.splitlines()[0] if text else type(e).__name__
    return text if len(text) <= 200 else text[:197] + "..."


def _check(got, ref, case: Case, m: Measurement) -> None:
    got = np.asarray(got)
    if got.shape != ref.shape:
        m.correct, m.max_abs_err = False, float("nan")
        return
    m.max_abs_err = float(np.max(np.abs(got.astype(np.float64) - ref.astype(np.float64))))
    m.correct = bool(np.allclose(got, ref, rtol=case.rtol, atol=case.atol))


def count_dispatches(flow_ir: str) -> int:
    """Number of ``flow.dispatch`` ops (pretty or generic form) in IR printed after the
    flow phase: the host program runs each exactly once per call (no host loops)."""
    return len(re.findall(r'(?:^|[\s=])"?flow\.dispatch"?\s*[@(]', flow_ir, re.M))


def measure_ireec(case: Case, target: str, inputs, ref, opts: Options, build_dir: Path) -> Measurement:
    """Compile, build, check and time ``case`` for an ireec ``target``."""
    from ireec.compiler import compile_file
    from ireec.runtime.build import build_shared_library
    from ireec.runtime.loader import load

    m = Measurement()
    name = f"bench_{case.name}"
    t0 = time.perf_counter()
    out = compile_file(str(case.path), target=target, module_name=name)
    m.compile_s = time.perf_counter() - t0
    plan = out.report.get("functions", {}).get(case.function, {})
    m.arena_bytes = plan.get("arena_bytes")
    flow = compile_file(str(case.path), target=target, module_name=name, compile_to="flow")
    m.dispatches = count_dispatches(flow.ir_text or "")
    lib = build_shared_library(out.files, out.module_name, build_dir / f"lib{name}_{target}.so",
                               target=target)
    m.flops = out.report.get("module_report", {}).get("functions", {}).get(case.function, {}).get("flops")
    module = load(lib)
    _check(module.call(case.function, *inputs), ref, case, m)
    m.take(time_calls(prepare_call(module, case.function, inputs), opts))
    if m.median_ms is not None and m.median_ms < OVERHEAD_MAX_MS:
        samples = max(20, min(3000, int(100.0 / max(m.median_ms, 1e-3))))  # ~0.3 s at most
        oh = call_overhead(module, case.function, inputs, samples=samples)
        m.raw_us, m.load_us, m.load_out_us = oh["raw_us"], oh["load_us"], oh["load_out_us"]
    return m


def iree_unavailable() -> Optional[str]:
    """None when IREE's Python compiler and runtime import, else why not."""
    try:
        import iree.compiler  # noqa: F401
        import iree.runtime  # noqa: F401
    except Exception as e:  # ImportError, or a broken install
        return f"IREE not importable ({_first_line(e)}); pip install -e '.[iree]'"
    return None


def iree_version() -> str:
    """Installed iree-base-compiler / iree-base-runtime versions."""
    from importlib import metadata

    parts = []
    for dist in ("iree-base-compiler", "iree-base-runtime"):
        try:
            parts.append(f"{dist} {metadata.version(dist)}")
        except metadata.PackageNotFoundError:
            pass
    return ", ".join(parts) or "unknown version"


def measure_iree(case: Case, devices: Sequence[str], inputs, ref, opts: Options,
                 flags: Sequence[str] = ()) -> Dict[str, Measurement]:
    """Compile ``case`` once with IREE (llvm-cpu, host CPU, plus ``flags``) and time it on
    each device.
    The timed call is the compiled function called from Python on inputs already in device
    buffers (``asdevicearray``); it returns when the results are ready (IREE allocates
    them, as iree-benchmark-module counts too)."""
    import iree.compiler as ic
    import iree.runtime as rt

    t0 = time.perf_counter()
    vmfb = ic.compile_str(case.path.read_text(encoding="utf-8"), target_backends=["llvm-cpu"],
                          extra_args=["--iree-llvmcpu-target-cpu=host", *flags])
    compile_s = time.perf_counter() - t0
    results = {}
    for device in devices:
        m = Measurement(compile_s=compile_s)
        config = rt.Config(device)
        ctx = rt.SystemContext(config=config)
        vm_module = rt.VmModule.copy_buffer(ctx.instance, vmfb)
        ctx.add_vm_module(vm_module)
        fn = ctx.modules[vm_module.name][case.function]
        dev_inputs = [rt.asdevicearray(config.device, x) for x in inputs]
        _check(fn(*dev_inputs).to_host(), ref, case, m)
        results[device] = m.take(time_calls(lambda: fn(*dev_inputs), opts))
    return results


def run_case(case: Case, targets: Sequence[str], opts: Options, build_dir: Path,
             use_iree: bool, log) -> CaseResult:
    """Measure one case with numpy, every ireec target and (optionally) IREE; problems
    become ``skipped`` reasons, never exceptions."""
    r = CaseResult(case)
    if not case.path.is_file():
        reason = f"{case.path} not found"
        if not shared_dir().is_dir() and case.name.startswith("jax_"):
            reason = f"{shared_dir()} is absent (the JAX models live there)"
        r.numpy.skipped = reason
        for t in targets:
            r.targets[t] = Measurement(skipped=reason)
        return r
    inputs = case.make_inputs()
    if case.reference is None:
        ref = np.load(case.expected_file)
        r.numpy.skipped = "no numpy version (checked against the exporter's out0.npy)"
    else:
        ref = np.asarray(case.reference(*inputs))
        if case.expected_file is not None and case.expected_file.is_file():
            expected = np.load(case.expected_file)
            if not np.allclose(ref, expected, rtol=case.rtol, atol=case.atol):
                r.note = "numpy reference differs from the exporter's out0.npy"
    for t in targets:
        try:
            m = measure_ireec(case, t, inputs, ref, opts, build_dir)
            verdict = "ok" if m.correct else f"WRONG (max abs err {m.max_abs_err:.3g})"
            log(f"  ireec {t:<7}{m.median_ms:10.3f} ms  {m.dispatches} dispatches, "
                f"arena {m.arena_bytes} B, {verdict}")
        except Exception as e:  # CompileError, BuildError, a bug: recorded, not fatal
            if os.environ.get("IREEC_DEBUG"):
                traceback.print_exc()
            m = Measurement(skipped=f"{type(e).__name__}: {_first_line(e)}")
            log(f"  ireec {t:<7} skipped: {m.skipped}")
        r.targets[t] = m
    if use_iree:
        devices = sorted({IREE_DEVICE_FOR[t] for t in targets})
        for config, flags in IREE_CONFIGS.items():
            try:
                for d, m in measure_iree(case, devices, inputs, ref, opts, flags).items():
                    r.iree[_iree_key(d, config)] = m
                    log(f"  IREE {d:<11}{config:<8}{m.median_ms:7.3f} ms")
            except Exception as e:
                reason = f"{type(e).__name__}: {_first_line(e)}"
                for d in devices:
                    r.iree[_iree_key(d, config)] = Measurement(skipped=reason)
                log(f"  IREE {config} skipped: {reason}")
    return r


def _iree_key(device: str, config: str) -> str:
    """``local-task`` (default flags) or ``local-task dt`` (with IREE_CONFIGS[config])."""
    return device if config == "default" else f"{device} {config}"


#: Variables that pin a BLAS (or numpy's own SIMD dispatch) to a code path other than the one
#: it picks for this CPU: ``OPENBLAS_CORETYPE=Haswell`` keeps OpenBLAS on its AVX2 kernels on
#: an AVX-512 machine (a 1024³ matmul 8.3 ms instead of 4.5 ms); MKL's
#: ``MKL_ENABLE_INSTRUCTIONS``/``MKL_DEBUG_CPU_TYPE``/``MKL_CBWR`` (conditional numerical
#: reproducibility picks a fixed code path), BLIS's ``BLIS_ARCH_TYPE`` and numpy's
#: ``NPY_DISABLE_CPU_FEATURES``/``NPY_ENABLE_CPU_FEATURES`` do the same. They are removed
#: from the environment of the numpy subprocesses only (:func:`numpy_environment`): tests and
#: CI keep them, and so does this process.
BLAS_PINNING_VARIABLES = ("OPENBLAS_CORETYPE", "MKL_ENABLE_INSTRUCTIONS", "MKL_DEBUG_CPU_TYPE",
                          "MKL_CBWR", "BLIS_ARCH_TYPE", "NPY_DISABLE_CPU_FEATURES",
                          "NPY_ENABLE_CPU_FEATURES")


@dataclass
class NumpyRun:
    """numpy timed in a subprocess: {case name: median ms}, the BLAS libraries numpy
    loaded as threadpoolctl's ``threadpool_info()`` describes them (``internal_api``,
    ``version``, ``architecture``: the kernel family in use, ``num_threads``), the pinning
    variables removed from the subprocess's environment ({name: value}), or why it failed."""

    threads: int
    times: Dict[str, float] = field(default_factory=dict)
    blas: List[Dict[str, object]] = field(default_factory=list)
    removed: Dict[str, str] = field(default_factory=dict)
    error: Optional[str] = None
    pinned: Dict[str, str] = field(default_factory=dict)  # kept on purpose (keep_pinning)

    def kernel(self) -> str:
        """``openblas 0.3.31 SkylakeX, 2 threads`` (each BLAS of :attr:`blas`), or why unknown."""
        if self.error and not self.blas:
            return f"unknown ({self.error})"
        return "; ".join(f"{b.get('internal_api', '?')} {b.get('version') or ''} "
                         f"{b.get('architecture') or '(architecture not reported)'}, "
                         f"{b.get('num_threads')} thread{'s' * (b.get('num_threads') != 1)}".replace("  ", " ")
                         for b in self.blas) or "no BLAS found by threadpoolctl"


def numpy_environment(threads: int, base: Optional[Dict[str, str]] = None) -> Tuple[Dict[str, str], Dict[str, str]]:
    """(environment, removed): ``base`` (default ``os.environ``) with
    ``OPENBLAS_NUM_THREADS`` and ``OMP_NUM_THREADS`` set to ``threads`` and every
    :data:`BLAS_PINNING_VARIABLES` removed; ``removed`` gives the ones that were set."""
    base = dict(os.environ if base is None else base)
    removed = {k: base.pop(k) for k in BLAS_PINNING_VARIABLES if k in base}
    base.update(OPENBLAS_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads))
    return base, removed


def numpy_times(cases: Sequence[Case], threads: int, opts: Options, keep_pinning: bool = False) -> NumpyRun:
    """Each case's numpy version timed in a subprocess (:func:`_numpy_worker`) whose
    environment is :func:`numpy_environment` (``threads`` BLAS threads, no pinning
    variables: OpenBLAS reads them once, when numpy is first imported, so they must be
    right before that), and the BLAS kernel it used. ``keep_pinning``: the pinning
    variables of this process's environment stay (:attr:`NumpyRun.pinned`), for comparison."""
    run = NumpyRun(threads)
    names = [c.name for c in cases if c.reference is not None and c.path.is_file()]
    env, run.removed = numpy_environment(threads)
    if keep_pinning:
        env.update(run.removed)
        run.pinned, run.removed = run.removed, {}
    code = ("import json, sys; from benchmarks.run import _numpy_worker; "
            f"print(json.dumps(_numpy_worker({names!r}, {opts.repetitions}, {opts.min_time!r}, "
            f"{opts.warmup_time!r})))")
    try:
        proc = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True,
                              text=True, timeout=1800)
        if proc.returncode != 0:
            run.error = (proc.stderr.strip().splitlines() or ["numpy subprocess failed"])[-1][:200]
            return run
        out = json.loads(proc.stdout.strip().splitlines()[-1])
        run.times, run.blas = out["times"], out["blas"]
        run.error = out.get("blas_error")
    except (OSError, subprocess.SubprocessError, ValueError, IndexError, KeyError) as e:
        run.error = f"{type(e).__name__}: {_first_line(e)}"
    return run


def measure_numpy(cases: Sequence[Case], opts: Options, log) -> List[NumpyRun]:
    """:func:`numpy_times` on 1 and on 2 BLAS threads, logged; when this process's
    environment pins the BLAS, a third run on 1 thread with the pinning kept (what the
    numpy timings were before they were taken without it), for the "numpy baseline" section."""
    runs = []
    for threads, keep in ((1, False), (2, False), (1, True)):
        if keep and not runs[0].removed:
            break
        run = numpy_times(cases, threads, opts, keep_pinning=keep)
        removed = ", ".join(f"{k}={v}" for k, v in run.removed.items()) or "none set"
        what = (f"pinning kept: {', '.join(f'{k}={v}' for k, v in run.pinned.items())}" if keep
                else f"pinning variables removed: {removed}")
        log(f"numpy, {threads} BLAS thread{'s' * (threads > 1)} (subprocess; {what}): {run.kernel()}")
        for name, ms in run.times.items():
            log(f"  {name:<20}{ms:10.3f} ms")
        runs.append(run)
    return runs


def numpy_threaded_times(cases: Sequence[Case], threads: int, opts: Options) -> Dict[str, float]:
    """{case name: median ms} of :func:`numpy_times` (empty when the subprocess fails)."""
    return numpy_times(cases, threads, opts).times


def blas_info() -> Tuple[List[Dict[str, object]], Optional[str]]:
    """(the BLAS libraries loaded in this process as threadpoolctl describes them, None), or
    ([], why not) when threadpoolctl is not installed (``pip install -e '.[bench]'``)."""
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return [], "threadpoolctl not installed"
    keys = ("internal_api", "version", "architecture", "num_threads", "threading_layer")
    return [{k: i.get(k) for k in keys} for i in threadpool_info() if i.get("user_api") == "blas"], None


def _numpy_worker(names: Sequence[str], repetitions: int, min_time: str, warmup: float) -> Dict[str, object]:
    """In the subprocess of :func:`numpy_times`: time the named cases' numpy versions;
    {"times": {case: median ms}, "blas": blas_info(), "blas_error": why none}."""
    out = {}
    for case in all_cases():
        if case.name in names:
            inputs = case.make_inputs()
            opts = Options(repetitions=repetitions, min_time=min_time, warmup_time=warmup)
            out[case.name] = Measurement().take(time_calls(lambda: case.reference(*inputs), opts)).median_ms
    np.ones((2, 2), np.float32) @ np.ones((2, 2), np.float32)  # the BLAS is loaded and set up
    blas, error = blas_info()
    return {"times": out, "blas": blas, "blas_error": error}


# ---------------------------------------------------------------------------
# report
# ---------------------------------------------------------------------------

def _cc_version() -> str:
    cc = os.environ.get("CC", "cc")
    try:
        out = subprocess.run([cc, "--version"], capture_output=True, text=True, timeout=30)
        return out.stdout.splitlines()[0] if out.stdout else cc
    except (OSError, subprocess.SubprocessError):
        return cc


def _ms(v: Optional[float]) -> str:
    if v is None:
        return "—"
    return f"{v:.3f}" if v < 10 else f"{v:.1f}" if v < 1000 else f"{v:.0f}"


def _num(v: Optional[float]) -> str:
    """A GFLOP or GFLOP/s figure with 3 significant digits ('—' when unknown)."""
    return "—" if v is None else f"{v:.3g}"


def _peak_line(p: Optional["peak.Peak"]) -> str:
    if p is None:
        return "not measured"
    if p.error:
        return p.error
    return (f"{p.isa}, {p.one_thread:.1f} GFLOP/s on 1 thread, {p.all_threads:.1f} GFLOP/s on "
            f"{p.threads} threads")


def _ratio(a: Optional[float], b: Optional[float]) -> str:
    if a is None or b is None or b <= 0:
        return "—"
    return f"{a / b:.2f}×"


def model_plans(root: Path) -> List[Tuple[str, int, Dict[str, int]]]:
    """(model file, dispatch count, memory plan of its entry function) for every ``.mlir``
    under ``root`` (../shared/models), compiled for target ``c``; files that do not compile
    are left out."""
    from ireec.compiler import compile_file
    from ireec.ir.diagnostics import CompileError

    rows = []
    for path in sorted(root.rglob("*.mlir")):
        try:
            flow = compile_file(str(path), target="c", compile_to="flow")
            out = compile_file(str(path), target="c")
        except CompileError:
            continue
        for fn, plan in sorted(out.report.get("functions", {}).items()):
            rows.append((f"{path.relative_to(root)} @{fn}", count_dispatches(flow.ir_text or ""), plan))
    return rows


def render_model_plans(rows) -> List[str]:
    L = ["", "## Every model: dispatches and memory plan", "",
         "Each file of `../shared/models` compiled for `c`: `flow.dispatch` ops after the flow "
         "phase, and the static plan of the function's transients (bytes): the workspace arena, "
         "its lower bound (the most bytes live at one point) and the sum of all transients "
         "(what a plan without reuse would take).", "",
         "| model | dispatches | arena | lower bound | arena / bound | transient sum |",
         "|---|---:|---:|---:|---:|---:|"]
    for name, nd, plan in rows:
        bound = plan["lower_bound_bytes"]
        ratio = f"{plan['arena_bytes'] / bound:.2f}" if bound else "—"
        L.append(f"| {name} | {nd} | {plan['arena_bytes']} | {bound} | {ratio} | {plan['transient_sum_bytes']} |")
    return L


def render_results(results: Sequence[CaseResult], context: Dict[str, object], env: Dict[str, str],
                   targets: Sequence[str], opts: Options, iree_note: Optional[str],
                   plans: Sequence = (), fma_peak: Optional[peak.Peak] = None,
                   ort_lines: Sequence[str] = (), numpy_runs: Sequence[NumpyRun] = (),
                   busy_rows: Sequence = (), busy_context: Sequence[str] = ()) -> str:
    """RESULTS.md: machine, date, one row per case and target, skipped cells with their
    reason, and how it was measured. ``numpy_runs``: the 1- and 2-thread numpy runs
    (:func:`measure_numpy`), named in the numpy column; ``busy_rows``: the busy-machine
    section (benchmarks/busy.py)."""
    L = ["# ireec benchmarks", "",
         "Generated by `make bench` (`python3 -m benchmarks`); numbers change with the "
         "compiler and the machine's load.", "",
         "## Machine", "",
         f"- date: {context['date']}",
         f"- CPU: {context.get('cpu_model')}, {context['num_cpus']} cores available "
         f"({context.get('mhz_per_cpu')} MHz), load average at start "
         f"{', '.join(f'{v:.2f}' for v in context.get('load_avg') or [])}, at the end "
         f"{', '.join(f'{v:.2f}' for v in _load_average())}",
         f"- OS: {env['os']}; Python {env['python']}; numpy {env['numpy']}; C compiler: {env['cc']}",
         f"- C flags: {env['flags']}",
         f"- OpenMP threads: {env['omp_threads']}; IREE: {iree_note or env['iree']}",
         f"- numpy: {numpy_line(numpy_runs)}",
         f"- run: {opts.repetitions} repetitions of at least {opts.min_time} each after "
         f"{opts.warmup_time:g} s of warm-up; timing-loop overhead "
         f"{env['overhead_us']} µs per call",
         f"- FMA peak (f32, measured now by `benchmarks/peak.py`): {_peak_line(fma_peak)}", "",
         "## Results", "",
         "Times are milliseconds per call, each call timed alone: median, minimum and mean "
         "(the mean keeps the calls the shared machine's scheduler delayed; the median does "
         "not; every other column uses medians). GFLOP: floating-point operations per call (ireec's cost model, a "
         "multiply-add counting 2); GFLOP/s from the median, and `% peak` against the FMA peak "
         "above for the target's threads (`c`: one thread, `openmp`: all). numpy ms: numpy "
         "with 1 and 2 BLAS threads (OPENBLAS_NUM_THREADS), each in a subprocess without the "
         "variables that pin a BLAS to older kernels (OPENBLAS_CORETYPE...); the header names "
         "the BLAS and the kernel family it picked (threadpoolctl); `/ numpy` divides ireec's median by "
         "numpy's with as many threads (1 for `c`, 2 for `openmp`). IREE ms: IREE with its "
         "default flags and with data tiling (`--iree-opt-data-tiling`), on `local-sync` (one "
         "thread) for `c` and `local-task` (all cores) for `openmp`; `/ IREE` divides by the "
         "faster of the two. Below 1 means ireec is faster. Call overhead: µs that calling "
         "through `ireec.load` costs above the bare C call, allocating the results and with "
         "`out=` arrays (cases under "
         f"{OVERHEAD_MAX_MS:g} ms; for longer calls one call's noise exceeds it). Dispatches: `flow.dispatch` ops after the flow phase; "
         "arena: the transient workspace bytes of the static memory plan.", "",
         "| case | target | GFLOP | median ms | min ms | mean ms | GFLOP/s | % peak | "
         f"numpy{numpy_kernel_label(numpy_runs)} ms 1T / 2T "
         "| / numpy | IREE ms / DT | / IREE | call overhead µs / out= | dispatches | arena bytes | check |",
         "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    skipped: List[str] = []
    threads = int(os.environ.get("OMP_NUM_THREADS") or os.cpu_count() or 1)
    for r in results:
        for t in targets:
            m = r.targets.get(t, Measurement(skipped="not run"))
            dev = IREE_DEVICE_FOR[t]
            iree = [r.iree.get(_iree_key(dev, c)) for c in IREE_CONFIGS]
            iree_ms = [im.median_ms if im is not None and im.skipped is None else None for im in iree]
            best_iree = min((v for v in iree_ms if v is not None), default=None)
            np1, np2 = r.numpy.median_ms, r.numpy2_ms
            np_same = np1 if t == "c" else np2
            numpy_cell = f"{_ms(np1)} / {_ms(np2)}"
            iree_cell = " / ".join(_ms(v) for v in iree_ms)
            if m.skipped:
                skipped.append(f"- `{r.case.name}` / `{t}`: {m.skipped}")
                L.append(f"| {r.case.name} | {t} | | skipped | | | | | {numpy_cell} | | {iree_cell} | "
                         f"| | | | see below |")
                continue
            check = "ok" if m.correct else f"**wrong** (max err {m.max_abs_err:.2g})"
            gflop = m.flops / 1e9 if m.flops else None
            rate = gflop / (m.median_ms * 1e-3) if gflop and m.median_ms else None
            top = fma_peak.for_threads(1 if t == "c" else threads) if fma_peak else None
            overhead = "—"
            if m.load_us is not None and m.raw_us is not None:
                overhead = f"{m.load_us - m.raw_us:.1f}"
                if m.load_out_us is not None:
                    overhead += f" / {m.load_out_us - m.raw_us:.1f}"
            L.append(f"| {r.case.name} | {t} | {_num(gflop)} | {_ms(m.median_ms)} | {_ms(m.min_ms)} | "
                     f"{_ms(m.mean_ms)} | "
                     f"{_num(rate)} | {f'{100 * rate / top:.1f}' if rate and top else '—'} | "
                     f"{numpy_cell} | {_ratio(m.median_ms, np_same)} | {iree_cell} | "
                     f"{_ratio(m.median_ms, best_iree)} | {overhead} | {m.dispatches} | "
                     f"{m.arena_bytes if m.arena_bytes is not None else '—'} | {check} |")
        for d, im in sorted(r.iree.items()):
            if im.skipped:
                skipped.append(f"- `{r.case.name}` / IREE {d}: {im.skipped}")
            elif not im.correct:
                skipped.append(f"- `{r.case.name}` / IREE {d}: output differs from numpy "
                               f"(max err {im.max_abs_err:.2g})")
        if r.note:
            skipped.append(f"- `{r.case.name}`: {r.note}")
    L += ["", "Cases:", ""]
    for r in results:
        L.append(f"- `{r.case.name}`: {r.case.what} (`{_display_path(r.case.path)}`, "
                 f"function `@{r.case.function}`)")
    if ort_lines:
        L += [""] + list(ort_lines)
    if busy_rows:
        L += [""] + busy.render_busy(list(busy_rows), list(busy_context))
    if plans:
        L += render_model_plans(plans)
    if skipped:
        L += ["", "## Skipped or failing", ""] + skipped
    L += ["", "## How measured", "",
          "- ireec: each case is compiled by `ireec.compiler.compile_file` for the target, "
          "built by `ireec.runtime.build` with the target's C flags (listed above) and "
          "loaded with `ireec.load`; its output is compared with numpy's before timing.",
          "- Timing (`time_calls` in `benchmarks/run.py`): warm-up calls, then calls for "
          "repetitions × minimum time, each timed alone with `time.perf_counter`; the table "
          "gives their median, minimum and mean. The timed ireec call is the generated C entry "
          "point through its cffi trampoline (`ireec.tools.benchmark.prepare_call`, as "
          "`ireec benchmark-module` times it), with inputs and result buffers prepared once: "
          "no argument checks, no allocation. The timer's own cost is the overhead given above.",
          "- numpy: the same computation written in numpy (`benchmarks/run.py`), on the same "
          "inputs, timed the same way in two subprocesses (`numpy_times`), with "
          "OPENBLAS_NUM_THREADS=1 and =2 (multi-threaded OpenBLAS timings swing widely on a "
          "loaded machine) and without the variables that pin a BLAS to a code path "
          "(`BLAS_PINNING_VARIABLES`: OPENBLAS_CORETYPE, MKL_ENABLE_INSTRUCTIONS, ...; e.g. "
          "OPENBLAS_CORETYPE=Haswell keeps OpenBLAS on its AVX2 kernels on an AVX-512 CPU), "
          "which are removed from those subprocesses' environment only. numpy allocates its "
          "results, and its matmuls use the BLAS numpy was built with; the kernel family it "
          "picked is threadpoolctl's `architecture` of that BLAS, named in the column header. "
          "The JAX models have no numpy version: they are checked against the exporter's "
          "out0.npy.",
          "- IREE: `iree.compiler.compile_str(..., target_backends=['llvm-cpu'], "
          "extra_args=['--iree-llvmcpu-target-cpu=host'])` (DT: plus "
          "`--iree-opt-data-tiling`), run with `iree.runtime` on "
          "inputs already in device buffers; each call includes the Python binding, IREE's "
          "VM invocation and allocation of the results, as `iree-benchmark-module` counts.",
          "- Call overhead: `ireec.tools.benchmark.call_overhead`, loops of the bare C "
          "trampoline call (pointers prepared once) and of `module.fn(*inputs)` interleaved, "
          "the fastest loop of each.",
          "- % peak: `benchmarks/peak.py` builds a C program with `cc -O2 -march=native` that "
          "runs 12 independent FMA chains per thread on the widest vectors (AVX-512, else "
          "AVX2, else scalar) and reports the fastest of 3 runs on 1 and on all threads. "
          "ireec's kernels are built without FMA contraction (`-ffp-contract=off`), so their "
          "ceiling is half of this peak.",
          "- The machine is shared: medians and minima are less noisy than means; compare "
          "ratios within one run, not across runs.", ""]
    return "\n".join(L)


def numpy_kernel_label(runs: Sequence[NumpyRun]) -> str:
    """`` (openblas SkylakeX)``: the BLAS and kernel family of the 1-thread numpy run, for the
    numpy column's header ('' when unknown)."""
    for run in runs:
        for b in run.blas:
            return f" ({b.get('internal_api')} {b.get('architecture') or '?'})"
    return ""


def numpy_line(runs: Sequence[NumpyRun]) -> str:
    """The Machine section's numpy line: the BLAS of each run and the pinning variables removed."""
    runs = [run for run in runs if not run.pinned]
    if not runs:
        return "not timed"
    removed = {k: v for run in runs for k, v in run.removed.items()}
    return ("timed in subprocesses with " + " and ".join(
        f"OPENBLAS_NUM_THREADS={run.threads} ({run.kernel()})" for run in runs)
        + "; BLAS pinning variables removed from their environment: "
        + (", ".join(f"{k}={v}" for k, v in removed.items()) or "none were set"))


def render_numpy(runs: Sequence[NumpyRun], results: Sequence[CaseResult], load_before: Sequence[float],
                 partial: bool) -> List[str]:
    """The "numpy baseline" section: each case's numpy median on 1 and 2 BLAS threads
    (:func:`measure_numpy`) with the BLAS kernel named."""
    one, two = (list(runs) + [NumpyRun(1), NumpyRun(2)])[:2]
    pinned = runs[2] if len(runs) > 2 else None
    L = [NUMPY_SECTION_TITLE, "",
         "numpy's side of the Results table, measured alone: each case's numpy version in a "
         "subprocess with OPENBLAS_NUM_THREADS=1 and one with =2, with the BLAS pinning "
         "variables removed from their environment (`BLAS_PINNING_VARIABLES` in "
         "`benchmarks/run.py`); the BLAS and kernel family are threadpoolctl's "
         "`threadpool_info()` (`internal_api`, `version`, `architecture`, `num_threads`) in "
         "those subprocesses. Milliseconds per call, median.", "",
         f"- load average {', '.join(f'{v:.2f}' for v in load_before)} before, "
         f"{', '.join(f'{v:.2f}' for v in _load_average())} after (2 cores, shared)",
         f"- {numpy_line(runs)}"]
    if partial:
        L.append("- from a partial run (`python3 -m benchmarks --only numpy`): the numpy "
                 "columns of the Results table above are from the last full run")
    head = f"| case | numpy{numpy_kernel_label(runs)} 1T ms | 2T ms |"
    rule = "|---|---:|---:|"
    if pinned is not None:
        given = ", ".join(f"{k}={v}" for k, v in pinned.pinned.items())
        head += f" 1T with {given}{numpy_kernel_label([pinned])} ms | pinned / not |"
        rule += "---:|---:|"
        L.append(f"- the last columns keep the environment's {given} (how numpy was timed before): "
                 f"{pinned.kernel()}")
    L += ["", head, rule]
    for r in results:
        name = r.case.name
        if name in one.times or name in two.times:
            row = f"| {name} | {_ms(one.times.get(name))} | {_ms(two.times.get(name))} |"
            if pinned is not None:
                row += f" {_ms(pinned.times.get(name))} | {_ratio(pinned.times.get(name), one.times.get(name))} |"
            L.append(row)
    return L


def _load_average() -> List[float]:
    try:
        return list(os.getloadavg())
    except (AttributeError, OSError):
        return []


def _display_path(p: Path) -> str:
    for base, label in ((REPO, ""), (shared_dir().parent, "")):
        try:
            return label + str(p.relative_to(base))
        except ValueError:
            continue
    return str(p)


def environment(targets: Sequence[str], use_iree: bool) -> Dict[str, str]:
    """Versions and settings printed in RESULTS.md."""
    return {
        "os": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "numpy": np.__version__,
        "cc": _cc_version(),
        "omp_threads": os.environ.get("OMP_NUM_THREADS", f"default ({os.cpu_count()})"),
        "blas_threads": os.environ.get("OPENBLAS_NUM_THREADS", "default"),
        "iree": iree_version() if use_iree else "not measured",
        "overhead_us": _overhead_us(),
        "flags": "; ".join(f"`{t}`: `{_target_cflags(t)}`" for t in targets),
    }


def _overhead_us() -> str:
    try:
        return f"{harness_overhead(100_000) * 1e6:.2f}"
    except (OSError, AttributeError) as e:  # no libc to dlopen
        return f"unknown ({_first_line(e)})"


def _target_cflags(target: str) -> str:
    """The C flags ``ireec.runtime.build`` uses for ``target`` (then ``$CFLAGS``)."""
    from ireec.runtime import build

    flags = build.target_flags(target)[0] if hasattr(build, "target_flags") else list(build.BASE_CFLAGS)
    return " ".join(list(flags) + shlex.split(os.environ.get("CFLAGS", "")))


# ---------------------------------------------------------------------------
# main
# ---------------------------------------------------------------------------

def main(argv: Optional[Sequence[str]] = None) -> int:
    """Command line of ``python3 -m benchmarks``; returns the exit code (0 even when cases
    are skipped: skipped cells are listed in the results with their reason)."""
    names = [c.name for c in all_cases()]
    p = argparse.ArgumentParser(prog="python3 -m benchmarks", description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true",
                   help="3 repetitions of 0.05 s, no matmul_1024/2048 (unless named in --cases)")
    p.add_argument("--cases", help=f"comma-separated subset of: {', '.join(names)}")
    p.add_argument("--targets", default=",".join(TARGETS), help="comma-separated (default c,openmp)")
    p.add_argument("--no-iree", action="store_true", help="do not measure IREE even if installed")
    p.add_argument("--no-ort", action="store_true",
                   help="do not compare with ONNX Runtime even if installed")
    p.add_argument("--repetitions", type=int, help="repetitions per measurement (default 5; quick 3)")
    p.add_argument("--min-time", help="least time of a repetition, e.g. 0.2s or 10x "
                                      "(default 0.2s; quick 0.05s)")
    p.add_argument("--output", default=str(DEFAULT_OUTPUT),
                   help="where to write the Markdown results ('-': stdout only)")
    p.add_argument("--build-dir", default=str(REPO / "build" / "bench"),
                   help="where the benchmark libraries are built (default build/bench)")
    p.add_argument("--only", choices=SECTIONS,
                   help="measure one section and replace only it in --output, keeping the rest")
    p.add_argument("--compile-sizes",
                   help="chain lengths of the compile-time section (default "
                        f"{','.join(map(str, COMPILE_SIZES))}; quick {','.join(map(str, QUICK_COMPILE_SIZES))})")
    p.add_argument("--compile-timeout", type=float, default=1800.0,
                   help="seconds one compile-time or weight-scale command may run before it "
                        "is reported unfinished (default 1800)")
    p.add_argument("--weight-sizes",
                   help="model sizes of the weight-scale section, millions of parameters "
                        f"(default {','.join(f'{m:g}' for m in weight_scale.DEFAULT_SIZES)}; "
                        f"quick {','.join(f'{m:g}' for m in weight_scale.QUICK_SIZES)})")
    p.add_argument("--weight-repeats", type=int,
                   help="runs of each weight-scale command, alternating (default "
                        f"{weight_scale.DEFAULT_REPEATS}; quick 1)")
    args = p.parse_args(argv)
    weight_sizes = weight_scale.QUICK_SIZES if args.quick else weight_scale.DEFAULT_SIZES
    if args.weight_sizes:
        try:
            weight_sizes = weight_scale.parse_sizes(args.weight_sizes)
        except ValueError:
            p.error(f"--weight-sizes: expected comma-separated positive numbers, got "
                    f"'{args.weight_sizes}'")
    weight_repeats = args.weight_repeats
    if weight_repeats is None:
        weight_repeats = 1 if args.quick else weight_scale.DEFAULT_REPEATS
    if weight_repeats < 1:
        p.error("--weight-repeats: at least 1")
    weight_dir = None if args.build_dir == p.get_default("build_dir") else Path(args.build_dir)
    sizes = (QUICK_COMPILE_SIZES if args.quick else COMPILE_SIZES)
    if args.compile_sizes:
        try:
            sizes = tuple(int(x) for x in args.compile_sizes.split(",") if x.strip())
        except ValueError:
            p.error(f"--compile-sizes: expected comma-separated integers, got '{args.compile_sizes}'")
        if not sizes or min(sizes) < 1:
            p.error("--compile-sizes: chain lengths must be at least 1")
    if args.only == "compile-time":
        return _compile_time_only(args, sizes)
    if args.only == "weight-scale":
        return _weight_scale_only(args, weight_sizes, weight_repeats, weight_dir)
    if args.only == "igemm":
        lines = igemm.section(Path(args.build_dir), lambda m: print(m, flush=True), partial=True)
        return _splice_section(args.output, igemm.SECTION_TITLE, lines, "int8 GEMM")
    if args.only == "cortex-m":
        return _cortex_m_only(args)

    opts = Options()
    if args.quick:
        opts = Options(repetitions=3, min_time="0.05s", warmup_time=0.01)
    if args.repetitions:
        opts.repetitions = args.repetitions
    if args.min_time:
        opts.min_time = args.min_time
    targets = [t.strip() for t in args.targets.split(",") if t.strip()]
    for t in targets:
        if t not in TARGETS:
            p.error(f"unknown target '{t}' (benchmarked targets: {', '.join(TARGETS)})")
    cases = all_cases()
    if args.cases:
        wanted = [c.strip() for c in args.cases.split(",") if c.strip()]
        unknown = [w for w in wanted if w not in names]
        if unknown:
            p.error(f"unknown case(s) {', '.join(unknown)} (cases: {', '.join(names)})")
        cases = [c for c in cases if c.name in wanted]
    elif args.quick:
        cases = [c for c in cases if c.quick]
    if args.only == "numpy":
        return _numpy_only(args, cases, opts)
    if args.only == "busy":
        return _busy_only(args, 100 if args.quick else busy.CALLS)
    if args.only == "numpy-alt":
        return _numpy_alt_only(args, [c.name for c in cases])
    if args.only == "ort":
        return _ort_only(args)
    iree_note = None
    use_iree = not args.no_iree
    if use_iree:
        iree_note = iree_unavailable()
        use_iree = iree_note is None
        if iree_note:
            print(f"IREE: skipped: {iree_note}", flush=True)
    elif args.no_iree:
        iree_note = "not measured (--no-iree)"
    build_dir = Path(args.build_dir)
    build_dir.mkdir(parents=True, exist_ok=True)

    context = machine_context("python3 -m benchmarks")
    env = environment(targets, use_iree)
    print(f"{context['date']}  {context.get('cpu_model')}  x{context['num_cpus']}", flush=True)

    def log(msg: str) -> None:
        print(msg, flush=True)

    fma_peak = peak.measure_peak()
    log(f"FMA peak: {_peak_line(fma_peak)}")
    results = []
    for case in cases:
        log(f"{case.name}: {case.what}")
        results.append(run_case(case, targets, opts, build_dir, use_iree, log))
    numpy_runs = measure_numpy(cases, opts, log)
    for r in results:
        if r.numpy.skipped is None:
            r.numpy.median_ms = numpy_runs[0].times.get(r.case.name)
        r.numpy2_ms = numpy_runs[1].times.get(r.case.name)
    alt_cases = [c.name for c in cases if c.name in numpy_alternating.CASES]
    alt_lines: List[str] = []
    if alt_cases:
        log("numpy against ireec on the large matmuls, alternating (a process per engine)")
        alt_load = _load_average()
        alt_rows = numpy_alternating.measure(build_dir, log, alt_cases)
        alt_lines = numpy_alternating.render(alt_rows, _ort_context(alt_load, partial=False))
    models = shared_dir() / "models"
    ort_lines: List[str] = []
    if not args.no_ort and (models / "torch_mlir").is_dir():
        log("ONNX Runtime against ireec (openmp / 2 threads, c / 1 thread; a process per engine)")
        ort_load = _load_average()
        ort_rows = onnx_runtime.measure_ort_vs_ireec(models / "torch_mlir", build_dir, log)
        ort_lines = onnx_runtime.render_ort(ort_rows, onnx_runtime.ort_version(),
                                            _ort_context(ort_load, partial=False))
    plans = model_plans(models) if models.is_dir() and not args.cases else []
    busy_rows, busy_context = [], []
    if not args.cases and (models / "torch_mlir").is_dir():
        log("busy machine: openmp calls quiet, beside two busy processes, with ONNX Runtime in process")
        load = _load_average()
        busy_rows = busy.measure_busy(models / "torch_mlir", build_dir, log,
                                      calls=100 if args.quick else busy.CALLS)
        busy_context = busy.context_lines(", ".join(f"{v:.2f}" for v in load))
    text = render_results(results, context, env, targets, opts, iree_note, plans, fma_peak, ort_lines,
                          numpy_runs, busy_rows, busy_context)
    text = compile_time.replace_section(text, NUMPY_SECTION_TITLE,
                                        render_numpy(numpy_runs, results, context.get("load_avg") or [],
                                                     partial=False))
    if alt_lines:
        text = compile_time.replace_section(text, numpy_alternating.SECTION_TITLE, alt_lines)
    if not args.cases:
        text = compile_time.replace_section(text, igemm.SECTION_TITLE, igemm.section(build_dir, log))
        load = _load_average()
        timings = compile_time.run_compile_time(sizes, build_dir / "compile_time",
                                                args.compile_timeout, log)
        text = compile_time.replace_section(
            text, compile_time.SECTION_TITLE,
            compile_time.render_compile_time(timings, compile_time.context_lines(load)))
        load = _load_average()
        weights = weight_scale.run_weight_scale(weight_sizes, weight_repeats,
                                                args.compile_timeout, log, weight_dir)
        text = compile_time.replace_section(
            text, weight_scale.SECTION_TITLE,
            weight_scale.render_weight_scale(weights, weight_scale.context_lines(load),
                                             weight_repeats))
        text = compile_time.replace_section(
            text, cortex_m.SECTION_TITLE,
            cortex_m.section(models / "quant", build_dir / "cortex_m", log))
    if args.output == "-":
        sys.stdout.write(text)
    else:
        Path(args.output).write_text(text, encoding="utf-8")
        print(f"wrote {args.output}")
    return 0


def _compile_time_only(args, sizes) -> int:
    """``--only compile-time``: measure that section and splice it into ``--output``
    (created when missing), leaving every other section as it was."""
    load = _load_average()
    timings = compile_time.run_compile_time(sizes, Path(args.build_dir) / "compile_time",
                                            args.compile_timeout, lambda m: print(m, flush=True))
    lines = compile_time.render_compile_time(timings, compile_time.context_lines(load))
    return _splice_section(args.output, compile_time.SECTION_TITLE, lines, "compile-time")


def _splice_section(output: str, title: str, lines, what: str) -> int:
    """Print ``lines`` (``output`` ``-``) or replace the section ``title`` of the file
    ``output`` with them (created when missing), leaving every other section as it was."""
    if output == "-":
        sys.stdout.write("\n".join(lines))
        return 0
    out = Path(output)
    old = out.read_text(encoding="utf-8") if out.is_file() else "# ireec benchmarks\n"
    out.write_text(compile_time.replace_section(old, title, lines), encoding="utf-8")
    print(f"updated the {what} section of {output}")
    return 0


def _numpy_only(args, cases: Sequence[Case], opts: Options) -> int:
    """``--only numpy``: time the cases' numpy versions (:func:`measure_numpy`) and splice
    the "numpy baseline" section into ``--output``, leaving every other section as it was."""
    load = _load_average()
    log = lambda m: print(m, flush=True)  # noqa: E731
    runs = measure_numpy(cases, opts, log)
    lines = render_numpy(runs, [CaseResult(c) for c in cases], load, partial=True)
    return _splice_section(args.output, NUMPY_SECTION_TITLE, lines, "numpy")


def _numpy_alt_only(args, names: Sequence[str]) -> int:
    """``--only numpy-alt``: numpy against ireec on the large matmuls, alternating
    (benchmarks/numpy_alternating.py; the cases of ``--cases`` among them, else all), spliced
    into ``--output``."""
    load = _load_average()
    build_dir = Path(args.build_dir)
    build_dir.mkdir(parents=True, exist_ok=True)
    wanted = [n for n in names if n in numpy_alternating.CASES] or list(numpy_alternating.CASES)
    rows = numpy_alternating.measure(build_dir, lambda m: print(m, flush=True), wanted)
    lines = numpy_alternating.render(rows, _ort_context(load, partial=True, only="numpy-alt"))
    return _splice_section(args.output, numpy_alternating.SECTION_TITLE, lines, "alternating numpy")


def _busy_only(args, calls: int) -> int:
    """``--only busy``: the busy-machine section (benchmarks/busy.py), spliced into ``--output``."""
    load = ", ".join(f"{v:.2f}" for v in _load_average())
    build_dir = Path(args.build_dir)
    build_dir.mkdir(parents=True, exist_ok=True)
    rows = busy.measure_busy(shared_dir() / "models" / "torch_mlir", build_dir,
                             lambda m: print(m, flush=True), calls=calls)
    lines = busy.render_busy(rows, busy.context_lines(load, partial=True), calls)
    return _splice_section(args.output, busy.SECTION_TITLE, lines, "busy-machine")


def _ort_context(load_before, partial: bool, only: str = "ort") -> List[str]:
    """The bullet lines under the ONNX Runtime table (or another alternating comparison's:
    ``only``, its ``--only`` section): date, cores and load average before and after, and
    whether this is a partial run."""
    import datetime

    def fmt(v):
        return ", ".join(f"{x:.2f}" for x in v)
    lines = [f"- date {datetime.datetime.now(datetime.timezone.utc).isoformat(timespec='seconds')}; "
             f"{os.cpu_count()} cores; load average {fmt(load_before)} before, {fmt(_load_average())} after "
             "(other work on this shared machine included)"]
    if partial:
        lines.append(f"- from a partial run: `python3 -m benchmarks --only {only}`, not the whole `make bench`")
    return lines


def _ort_only(args) -> int:
    """``--only ort``: the ONNX Runtime section (benchmarks/onnx_runtime.py), spliced into
    ``--output``."""
    load = _load_average()
    build_dir = Path(args.build_dir)
    build_dir.mkdir(parents=True, exist_ok=True)
    rows = onnx_runtime.measure_ort_vs_ireec(shared_dir() / "models" / "torch_mlir", build_dir,
                                             lambda m: print(m, flush=True))
    lines = onnx_runtime.render_ort(rows, onnx_runtime.ort_version(), _ort_context(load, partial=True))
    return _splice_section(args.output, onnx_runtime.SECTION_TITLE, lines, "ONNX Runtime")


def _weight_scale_only(args, sizes, repeats, work_parent) -> int:
    """``--only weight-scale``: measure the compile cost by weight size and splice that
    section into ``--output`` (created when missing), leaving every other section as it was.
    The generated files go to a temporary folder (under ``--build-dir`` when given)."""
    load = _load_average()
    results = weight_scale.run_weight_scale(sizes, repeats, args.compile_timeout,
                                            lambda m: print(m, flush=True), work_parent)
    lines = weight_scale.render_weight_scale(results, weight_scale.context_lines(load), repeats)
    return _splice_section(args.output, weight_scale.SECTION_TITLE, lines, "weight-scale")


def _cortex_m_only(args) -> int:
    """``--only cortex-m``: measure the Cortex-M4 (QEMU) section and splice it into
    ``--output`` (created when missing), leaving every other section as it was."""
    lines = cortex_m.section(shared_dir() / "models" / "quant", Path(args.build_dir) / "cortex_m",
                             lambda m: print(m, flush=True), partial=True)
    return _splice_section(args.output, cortex_m.SECTION_TITLE, lines, "cortex-m")


if __name__ == "__main__":
    sys.exit(main())

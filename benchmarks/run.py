"""Time ireec's generated C against numpy and IREE; write benchmarks/RESULTS.md.

    python3 -m benchmarks                 # everything (make bench)
    python3 -m benchmarks --quick         # fewer repetitions, shorter runs, no 1024³ matmul
    python3 -m benchmarks --cases matmul_128,mlp --targets c --no-iree --output -
    python3 -m benchmarks --only compile-time   # only the compile-time section (see
                                                # benchmarks/compile_time.py), updated in place

Cases (``benchmarks/cases/*.mlir``, linalg on tensors; inputs uniform in [-1, 1) from a
fixed seed):

=================  =================================================================
matmul_128/512/1024  C = A·B, f32 square matrices
elementwise_chain    relu(a*b + c) over 2^20 floats (three elementwise ops)
row_sum              (a + b).sum(axis=1) for 100000x100
mlp                  64x784 → dense 256 + relu → dense 10 → softmax
jax_mlp, jax_lenet   ../shared/models/jax/{mlp,lenet}/*.args.mlir (StableHLO from JAX)
                     with their arg*.npy inputs; skipped with the reason when they do
                     not compile or ../shared is absent
=================  =================================================================

For every case: the same computation in numpy on the same inputs (the reference output
and the numpy timing); for each target (``c``, ``openmp``): compile with
``ireec.compiler.compile_file`` (its ``report`` gives the arena bytes, the IR after the
flow phase the dispatch count), build with ``ireec.runtime.build``, check the output
against numpy, time with ``ireec.tools.benchmark`` (what ``ireec benchmark-module`` uses);
and, when ``iree.compiler``/``iree.runtime`` import, IREE 3.x's ``llvm-cpu`` backend with
``--iree-llvmcpu-target-cpu=host`` on the ``local-sync`` (one thread, compared with
``c``) and ``local-task`` (all cores, compared with ``openmp``) devices.
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

from ireec.tools.benchmark import (BenchmarkResult, benchmark_callable,  # noqa: E402
                                   benchmark_function, harness_overhead, machine_context)

from benchmarks import compile_time  # noqa: E402

#: Sections ``--only`` can measure alone.
SECTIONS = ("compile-time",)
COMPILE_SIZES = compile_time.DEFAULT_SIZES
QUICK_COMPILE_SIZES = (2000, 10000)

CASES_DIR = REPO / "benchmarks" / "cases"
DEFAULT_OUTPUT = REPO / "benchmarks" / "RESULTS.md"
SEED = 20240601
TARGETS = ("c", "openmp")
#: IREE device compared with each ireec target (same number of threads).
IREE_DEVICE_FOR = {"c": "local-sync", "openmp": "local-task"}


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
    reference: Callable[..., np.ndarray]
    rtol: float = 1e-4
    atol: float = 1e-4
    quick: bool = True
    expected_file: Optional[Path] = None  # the exporter's own output, to check `reference`


def _uniform(*shapes) -> List[np.ndarray]:
    rng = np.random.default_rng(SEED)
    return [rng.uniform(-1.0, 1.0, size=s).astype(np.float32) for s in shapes]


def np_matmul(a, b):
    """a @ b (numpy's BLAS)."""
    return a @ b


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
        for n in (128, 512, 1024)
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

    def take(self, res: BenchmarkResult) -> "Measurement":
        real = res.real_stats()
        self.median_ms, self.min_ms = real.median * 1e3, real.min * 1e3
        self.cpu_ms = res.cpu_stats().median * 1e3
        self.iterations, self.repetitions = res.iterations, len(res.runs)
        return self


@dataclass
class CaseResult:
    case: Case
    numpy: Measurement = field(default_factory=Measurement)
    targets: Dict[str, Measurement] = field(default_factory=dict)
    iree: Dict[str, Measurement] = field(default_factory=dict)
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
    module = load(lib)
    _check(module.call(case.function, *inputs), ref, case, m)
    return m.take(benchmark_function(module, case.function, inputs, repetitions=opts.repetitions,
                                     min_time=opts.min_time, warmup_time=opts.warmup_time))


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


def measure_iree(case: Case, devices: Sequence[str], inputs, ref, opts: Options) -> Dict[str, Measurement]:
    """Compile ``case`` once with IREE (llvm-cpu, host CPU) and time it on each device.
    The timed call is the compiled function called from Python on inputs already in device
    buffers (``asdevicearray``); it returns when the results are ready (IREE allocates
    them, as iree-benchmark-module counts too)."""
    import iree.compiler as ic
    import iree.runtime as rt

    t0 = time.perf_counter()
    vmfb = ic.compile_str(case.path.read_text(encoding="utf-8"), target_backends=["llvm-cpu"],
                          extra_args=["--iree-llvmcpu-target-cpu=host"])
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
        results[device] = m.take(benchmark_callable(
            lambda: fn(*dev_inputs), f"IREE_{case.name}_{device}", repetitions=opts.repetitions,
            min_time=opts.min_time, warmup_time=opts.warmup_time))
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
    ref = np.asarray(case.reference(*inputs))
    if case.expected_file is not None and case.expected_file.is_file():
        expected = np.load(case.expected_file)
        if not np.allclose(ref, expected, rtol=case.rtol, atol=case.atol):
            r.note = "numpy reference differs from the exporter's out0.npy"
    r.numpy.take(benchmark_callable(lambda: case.reference(*inputs), f"numpy_{case.name}",
                                    repetitions=opts.repetitions, min_time=opts.min_time,
                                    warmup_time=opts.warmup_time))
    log(f"  numpy        {r.numpy.median_ms:10.3f} ms")
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
        try:
            r.iree = measure_iree(case, devices, inputs, ref, opts)
            for d, m in r.iree.items():
                log(f"  IREE {d:<11}{m.median_ms:7.3f} ms")
        except Exception as e:
            reason = f"{type(e).__name__}: {_first_line(e)}"
            r.iree = {d: Measurement(skipped=reason) for d in devices}
            log(f"  IREE skipped: {reason}")
    return r


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
                   plans: Sequence = ()) -> str:
    """RESULTS.md: machine, date, one row per case and target, skipped cells with their
    reason, and how it was measured."""
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
         f"- OpenMP threads: {env['omp_threads']}; numpy BLAS threads "
         f"(OPENBLAS_NUM_THREADS): {env['blas_threads']}; IREE: {iree_note or env['iree']}",
         f"- run: {opts.repetitions} repetitions of at least {opts.min_time} each after "
         f"{opts.warmup_time:g} s of warm-up; timing-loop overhead "
         f"{env['overhead_us']} µs per call", "",
         "## Results", "",
         "Times are milliseconds per call: median and minimum wall-clock time over the "
         "repetitions, and the median CPU time of the process (all threads; on a loaded "
         "machine a single-threaded `c` run's CPU time is closer to its unloaded time). "
         "`/ numpy` and `/ IREE` are ireec's median divided by theirs: below 1 means ireec is "
         "faster. The IREE column of target `c` is IREE on `local-sync` (one thread), of "
         "`openmp` IREE on `local-task` (all cores). Dispatches: `flow.dispatch` ops after "
         "the flow phase; arena: the transient workspace bytes of the static memory plan.", "",
         "| case | target | median ms | min ms | CPU ms | numpy ms | / numpy | IREE ms "
         "| / IREE | dispatches | arena bytes | check |",
         "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    skipped: List[str] = []
    for r in results:
        for t in targets:
            m = r.targets.get(t, Measurement(skipped="not run"))
            im = r.iree.get(IREE_DEVICE_FOR[t])
            iree_ms = im.median_ms if im is not None and im.skipped is None else None
            if m.skipped:
                skipped.append(f"- `{r.case.name}` / `{t}`: {m.skipped}")
                L.append(f"| {r.case.name} | {t} | skipped | | | {_ms(r.numpy.median_ms)} | | "
                         f"{_ms(iree_ms)} | | | | see below |")
                continue
            check = "ok" if m.correct else f"**wrong** (max err {m.max_abs_err:.2g})"
            L.append(f"| {r.case.name} | {t} | {_ms(m.median_ms)} | {_ms(m.min_ms)} | "
                     f"{_ms(m.cpu_ms)} | {_ms(r.numpy.median_ms)} | {_ratio(m.median_ms, r.numpy.median_ms)} | "
                     f"{_ms(iree_ms)} | {_ratio(m.median_ms, iree_ms)} | {m.dispatches} | "
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
    if plans:
        L += render_model_plans(plans)
    if skipped:
        L += ["", "## Skipped or failing", ""] + skipped
    L += ["", "## How measured", "",
          "- ireec: each case is compiled by `ireec.compiler.compile_file` for the target, "
          "built by `ireec.runtime.build` with the target's C flags (listed above) and "
          "loaded with `ireec.load`; its output is compared with numpy's before timing.",
          "- Timing is `ireec.tools.benchmark` (the code behind `ireec benchmark-module`), "
          "modelled on google benchmark: a repetition calls the function N times in a loop, "
          "N grown until the loop lasts the minimum time, and reports the loop's wall-clock "
          "time divided by N; every repetition reuses N. The timed call is the generated C "
          "entry point through its cffi trampoline, with inputs and result buffers prepared "
          "once: no argument checks, no allocation. The loop's own cost (Python loop step, "
          "cffi call, status check) is the overhead given above.",
          "- numpy: the same computation written in numpy (`benchmarks/run.py`), on the same "
          "arrays, timed by the same loop; it allocates its results, and its matmuls use the "
          "BLAS numpy was built with (OpenBLAS), on one thread unless OPENBLAS_NUM_THREADS "
          "is set: multi-threaded OpenBLAS timings swing by 100x on a loaded 2-core machine.",
          "- IREE: `iree.compiler.compile_str(..., target_backends=['llvm-cpu'], "
          "extra_args=['--iree-llvmcpu-target-cpu=host'])`, run with `iree.runtime` on "
          "inputs already in device buffers; each call includes the Python binding, IREE's "
          "VM invocation and allocation of the results, as `iree-benchmark-module` counts.",
          "- The machine is shared: medians and minima are less noisy than means; compare "
          "ratios within one run, not across runs.", ""]
    return "\n".join(L)


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
                   help="3 repetitions of 0.05 s, no matmul_1024 (unless named in --cases)")
    p.add_argument("--cases", help=f"comma-separated subset of: {', '.join(names)}")
    p.add_argument("--targets", default=",".join(TARGETS), help="comma-separated (default c,openmp)")
    p.add_argument("--no-iree", action="store_true", help="do not measure IREE even if installed")
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
                   help="seconds one compile-time command may run before it is reported "
                        "unfinished (default 1800)")
    args = p.parse_args(argv)
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

    results = []
    for case in cases:
        log(f"{case.name}: {case.what}")
        results.append(run_case(case, targets, opts, build_dir, use_iree, log))
    models = shared_dir() / "models"
    plans = model_plans(models) if models.is_dir() and not args.cases else []
    text = render_results(results, context, env, targets, opts, iree_note, plans)
    if not args.cases:
        load = _load_average()
        timings = compile_time.run_compile_time(sizes, build_dir / "compile_time",
                                                args.compile_timeout, log)
        text = compile_time.replace_section(
            text, compile_time.SECTION_TITLE,
            compile_time.render_compile_time(timings, compile_time.context_lines(load)))
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
    if args.output == "-":
        sys.stdout.write("\n".join(lines))
        return 0
    out = Path(args.output)
    old = out.read_text(encoding="utf-8") if out.is_file() else "# ireec benchmarks\n"
    out.write_text(compile_time.replace_section(old, compile_time.SECTION_TITLE, lines),
                   encoding="utf-8")
    print(f"updated the compile-time section of {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

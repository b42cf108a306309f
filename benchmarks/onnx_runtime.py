"""ONNX Runtime against ireec on the models of ../shared/models that have an ONNX twin.

Rows: every folder of ``../shared/models/torch_mlir`` with a ``<model>.onnx`` and a
``<model>.const.linalg.mlir`` (both take the input ``x`` alone; the weights are constants):
the whole networks and the blocks (:data:`MODELS`), each followed by the same network's TOSA
and StableHLO exports where the folder has them (:data:`OTHER_FORMS`); then the int8 QDQ models of
``../shared/models/quant`` (:data:`QUANT_MODELS`), ONNX Runtime on ``<model>.qdq.onnx``
against each of ireec's forms of it (``.qdq.linalg.mlir`` and ``.qdq.tosa.mlir``).

Columns: ONNX Runtime's CPU execution provider (every graph optimisation,
``ORT_ENABLE_ALL``) with 2 intra-op threads against ireec's ``openmp`` build with 2 OpenMP
threads, and with 1 intra-op thread against ireec's ``c`` build; ireec is called through
``ireec.load`` (what a Python user pays: checks, result allocation). Each engine is timed in
a process of its own (:func:`time_in_child`: warm-up, then the median of one second of
calls), the engines alternating for :data:`ROUNDS` rounds (ORT first in even rounds, ireec
first in odd ones, so a drift of the machine's speed favours neither); a time column is the
median of its rounds, and a ratio the median of the rounds' ratios (each of two timings
taken one after the other). A shared machine's speed changes within seconds: alternating
makes every side see the same phases, the ratio of neighbouring timings cancels most of a
slow phase that hits one round, and separate processes keep one engine's spinning threads
off the other's cores. Both outputs are checked against the exporter's ``out0.npy``: within 1e-3 relative /
1e-4 absolute for float models, identical (0 quantisation steps) for the int8 ones.
ONNX Runtime is optional (``pip install -e '.[bench]'``); without it the section says so.
"""
from __future__ import annotations

import gc
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

#: The torch-mlir models compared, in table order: the whole networks, then the blocks.
MODELS = ("resnet18", "mobilenetv2", "unet_small", "gpt_block", "mobilenet_block", "lenet", "mlp")
#: The same network's other exports with constant weights (``<model>.const.<form>.mlir``:
#: torch-mlir's TOSA, as iree-opt re-prints it and as torch-mlir prints it, and StableHLO),
#: a row each where the folder has them.
OTHER_FORMS = ("tosa.ireeopt", "tosa", "stablehlo")
#: The int8 QDQ models of ``../shared/models/quant`` compared after them, each in both forms.
QUANT_MODELS = ("cnn_int8", "mlp_int8")
#: ireec's forms of a QDQ model (``<model>.qdq.<form>.mlir``).
QUANT_FORMS = ("linalg", "tosa")
#: Rounds of the alternation (each engine timed once per round, in a new process).
ROUNDS = 5
#: Seconds of calls each timed process measures, after :data:`WARMUP_S` of untimed calls.
MEASURE_S, WARMUP_S = 0.6, 0.3
#: The two comparisons: (ireec target, threads of both engines).
COLUMNS = (("openmp", 2), ("c", 1))


@dataclass
class ModelFiles:
    """One row's files: its name, folder (``arg0.npy``, ``out0.npy``), ONNX model and
    ireec input; ``exact``: an int8 model, whose outputs must be identical."""

    name: str
    folder: Path
    onnx: Path
    mlir: Path
    exact: bool = False


def model_files(root: Path) -> List[ModelFiles]:
    """The rows, :data:`MODELS` under ``root`` (``../shared/models/torch_mlir``), each
    followed by its other exports of :data:`OTHER_FORMS` that the folder has, then
    :data:`QUANT_MODELS` under ``root/../quant`` in each of :data:`QUANT_FORMS`."""
    rows = []
    for n in MODELS:
        rows.append(ModelFiles(n, root / n, root / n / f"{n}.onnx", root / n / f"{n}.const.linalg.mlir"))
        rows += [ModelFiles(f"{n} ({form})", root / n, root / n / f"{n}.onnx", root / n / f"{n}.const.{form}.mlir")
                 for form in OTHER_FORMS if (root / n / f"{n}.const.{form}.mlir").is_file()]
    for n in QUANT_MODELS:
        folder = root.parent / "quant" / n
        rows += [ModelFiles(f"{n} ({form})", folder, folder / f"{n}.qdq.onnx",
                            folder / f"{n}.qdq.{form}.mlir", exact=True) for form in QUANT_FORMS]
    return rows


#: ONNX Runtime's intra-op threads (the machine's 2 cores; ireec's openmp uses the same).
ORT_THREADS = 2


def ort_unavailable() -> Optional[str]:
    """None when ``onnxruntime`` imports, else why not."""
    try:
        import onnxruntime  # noqa: F401
    except Exception as e:  # ImportError or a broken install
        return f"onnxruntime not importable ({type(e).__name__}); pip install -e '.[bench]'"
    return None


def ort_version() -> str:
    """The installed onnxruntime version ('' when absent)."""
    try:
        import onnxruntime

        return onnxruntime.__version__
    except Exception:
        return ""


def ort_session(path: Path, threads: int = ORT_THREADS):
    """An ONNX Runtime CPU session of the model at ``path`` as the benchmarks run it: all graph
    optimizations, ``threads`` intra-op threads, sequential execution. ImportError without
    onnxruntime; ORT's own exception for a model it cannot load."""
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    return ort.InferenceSession(str(path), sess_options=so, providers=["CPUExecutionProvider"])


#: The RESULTS.md heading of this section.
SECTION_TITLE = "## ONNX Runtime"


@dataclass
class OrtRow:
    """One model: per target of :data:`COLUMNS` the median milliseconds per call of ONNX
    Runtime and of ireec, whether each output matched (``ort_ok``, ``ireec_ok``: the largest
    absolute difference from ``out0.npy`` within tolerance, 0 for int8 models), or why the
    row was skipped."""

    model: str
    exact: bool = False
    ort_ms: Dict[str, float] = field(default_factory=dict)
    ireec_ms: Dict[str, float] = field(default_factory=dict)
    ort_ok: Optional[bool] = None
    ireec_ok: Dict[str, bool] = field(default_factory=dict)
    ireec_err: Dict[str, float] = field(default_factory=dict)
    ratios: Dict[str, List[float]] = field(default_factory=dict)  # ireec / ORT of each round
    skipped: Optional[str] = None


def _child_env(threads: int) -> dict:
    """The environment of a timed process: the repository on ``PYTHONPATH``, ``threads``
    OpenMP and BLAS threads (numpy's BLAS must not spin beside the engine)."""
    repo = str(Path(__file__).resolve().parent.parent)
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS="1")
    env["PYTHONPATH"] = repo + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def time_in_child(kind: str, path: Path, x_path: Path, threads: int) -> Tuple[float, float]:
    """``(median ms per call, largest absolute difference from out0.npy)`` of ``kind``
    (``"ort"``: an :func:`ort_session` of the ONNX model at ``path`` with ``threads`` intra-op
    threads; ``"ireec"``: the library at ``path`` through ``ireec.load``, ``threads`` OpenMP
    threads) on ``x_path``, measured in a new Python process (:func:`_child_main`).
    RuntimeError with the child's last error line when it fails."""
    cmd = [sys.executable, "-m", "benchmarks.onnx_runtime", "--child", kind, str(path), str(x_path),
           str(threads)]
    r = subprocess.run(cmd, env=_child_env(threads), capture_output=True, text=True, timeout=600)
    if r.returncode != 0 or not r.stdout.split():
        tail = (r.stderr.strip().splitlines() or ["no output"])[-1]
        raise RuntimeError(f"{kind} child failed: {tail[:200]}")
    ms, err = r.stdout.split()[-2:]
    return float(ms), float(err)


def _child_main(kind: str, path: str, x_path: str, threads: int) -> None:
    """The timed process of :func:`time_in_child`: prints ``<median ms> <max abs diff>``."""
    x = np.load(x_path)
    expected = np.load(Path(x_path).parent / "out0.npy")
    if kind == "ort":
        sess = ort_session(Path(path), threads)
        feed = {sess.get_inputs()[0].name: x}

        def call():
            return sess.run(None, feed)[0]
    else:
        from ireec.runtime.loader import load

        m = load(path)
        fn = m[m.functions[0]]

        def call():
            return fn(x)
    y = np.asarray(call())
    err = float(np.abs(y.astype(np.float64) - expected.astype(np.float64)).max()) if y.shape == expected.shape \
        else float("inf")
    print(f"{median_call_ms(call, WARMUP_S, MEASURE_S):.6f} {err:.9g}")


def median_call_ms(call: Callable[[], object], warmup_s: float, measure_s: float, least: int = 5) -> float:
    """Median milliseconds of ``call()``: untimed calls for ``warmup_s`` seconds, then calls
    timed one by one for ``measure_s`` seconds (at least ``least`` of them)."""
    end = time.perf_counter() + warmup_s
    while time.perf_counter() < end:
        call()
    times = []
    end = time.perf_counter() + measure_s
    while time.perf_counter() < end or len(times) < least:
        t = time.perf_counter()
        call()
        times.append(time.perf_counter() - t)
    return float(np.median(times)) * 1e3


def _ok(err: float, expected: np.ndarray, exact: bool) -> bool:
    if exact:
        return err == 0.0
    return bool(err <= 1e-4 + 1e-3 * float(np.abs(expected).max()))


def measure_ort_vs_ireec(root: Path, build_dir: Path, log: Callable[[str], None],
                         rounds: int = ROUNDS) -> List[OrtRow]:
    """One :class:`OrtRow` per model of :func:`model_files` under ``root``
    (``../shared/models/torch_mlir``): ireec built for each target of :data:`COLUMNS`, then
    per column ``rounds`` rounds of ONNX Runtime and ireec, each timed in a process of its
    own (:func:`time_in_child`). Problems become ``skipped`` reasons, never exceptions."""
    from ireec.compiler import compile_file
    from ireec.runtime.build import build_shared_library

    rows = []
    missing = ort_unavailable()
    for mf in model_files(root):
        row = OrtRow(mf.name, exact=mf.exact)
        rows.append(row)
        if missing:
            row.skipped = missing
            continue
        x_path = mf.folder / "arg0.npy"
        if not (mf.onnx.is_file() and mf.mlir.is_file() and x_path.is_file()
                and (mf.folder / "out0.npy").is_file()):
            row.skipped = f"{mf.folder} lacks {mf.onnx.name}, {mf.mlir.name}, arg0.npy or out0.npy"
            continue
        try:
            expected = np.load(mf.folder / "out0.npy")
            stem = mf.mlir.name.replace(".mlir", "").replace(".", "_")
            libs = {}
            for target, _threads in COLUMNS:
                out = compile_file(str(mf.mlir), target=target, module_name=f"ort_{stem}")
                libs[target] = build_shared_library(out.files, out.module_name,
                                                    build_dir / f"libort_{stem}_{target}.so", target=target)
            ort_errs = []
            for target, threads in COLUMNS:
                ort_t, ire_t = [], []
                for r in range(rounds):
                    for kind in (("ort", "ireec") if r % 2 == 0 else ("ireec", "ort")):
                        if kind == "ort":
                            ms, err = time_in_child("ort", mf.onnx, x_path, threads)
                            ort_t.append(ms)
                            ort_errs.append(err)
                        else:
                            ms, err = time_in_child("ireec", libs[target], x_path, threads)
                            ire_t.append(ms)
                            row.ireec_err[target] = err
                row.ort_ms[target] = float(np.median(ort_t))
                row.ireec_ms[target] = float(np.median(ire_t))
                row.ratios[target] = [a / b for a, b in zip(ire_t, ort_t)]
                row.ireec_ok[target] = _ok(row.ireec_err[target], expected, mf.exact)
                log(f"  {mf.name:<18} {target:<6} ORT {row.ort_ms[target]:8.4f} ms   "
                    f"ireec {row.ireec_ms[target]:8.4f} ms   x{np.median(row.ratios[target]):.2f}")
            row.ort_ok = all(_ok(e, expected, mf.exact) for e in ort_errs)
        except Exception as e:  # an export ORT cannot run, a compile error: recorded
            text = str(e).strip().splitlines()[0] if str(e).strip() else ""
            row.skipped = f"{type(e).__name__}: {text[:200]}"
            log(f"  {mf.name:<18} skipped: {row.skipped}")
        finally:
            gc.collect()
    return rows


def render_ort(rows: List[OrtRow], version: str, context: Sequence[str] = ()) -> List[str]:
    """The RESULTS.md section of the comparison (:data:`SECTION_TITLE`); ``context``:
    bullet lines (date, load) put under the description."""
    def ms(v):
        return "—" if v is None else f"{v:.3f}"

    def ratio(r, t):
        v = r.ratios.get(t)
        return f"{np.median(v):.2f}× ({min(v):.2f}–{max(v):.2f})" if v else "—"

    def check(r, t):
        if t not in r.ireec_ok:
            return "—"
        if r.exact:
            return "identical" if r.ireec_ok[t] else f"**differs** (max {r.ireec_err[t]:.3g})"
        return f"ok ({r.ireec_err[t]:.1g})" if r.ireec_ok[t] else f"**wrong** ({r.ireec_err[t]:.3g})"

    L = [SECTION_TITLE, "",
         f"ONNX Runtime {version or '(absent)'} (CPU execution provider, `ORT_ENABLE_ALL`) on "
         "`../shared/models/torch_mlir/<model>/<model>.onnx` against ireec's "
         "`<model>.const.linalg.mlir`, and on `../shared/models/quant/<model>/<model>.qdq.onnx` "
         "against each of ireec's forms (`.qdq.linalg.mlir`, `.qdq.tosa.mlir`). Two comparisons: "
         "ORT with 2 intra-op threads against ireec's `openmp` build (2 OpenMP threads), and ORT "
         "with 1 thread against ireec's `c` build. ireec is called through `ireec.load` (the "
         "Python call included: checks, result allocation). Each engine runs in a process of its "
         f"own ({WARMUP_S} s of warm-up, then the median of {MEASURE_S} s of calls), the engines "
         f"alternating for {ROUNDS} rounds (ORT first in even rounds, ireec first in odd ones); a time "
         "column is the median of its rounds (`benchmarks/onnx_runtime.py`). `/ ORT` is the median of "
         "the rounds' ratios of ireec's time to ORT's (timed one after the other), their range in "
         "brackets: below 1 means ireec is faster. Checks against "
         "the exporter's `out0.npy`: within 1e-3 relative for float models (largest absolute "
         "difference in brackets), identical for the int8 ones.", ""]
    L += list(context)
    if context:
        L.append("")
    L += ["| model | ORT 2T ms | ireec openmp ms | / ORT | ORT 1T ms | ireec c ms | / ORT | check ORT | "
          "check openmp | check c |",
          "|---|---:|---:|---:|---:|---:|---:|---|---|---|"]
    notes = []
    for r in rows:
        if r.skipped:
            L.append(f"| {r.model} | — | — | — | — | — | — | see below | see below | see below |")
            notes.append(f"- `{r.model}`: {r.skipped}")
            continue
        ort_check = "ok" if r.ort_ok else "**differs**"
        L.append(f"| {r.model} | {ms(r.ort_ms.get('openmp'))} | {ms(r.ireec_ms.get('openmp'))} | "
                 f"{ratio(r, 'openmp')} | {ms(r.ort_ms.get('c'))} | {ms(r.ireec_ms.get('c'))} | "
                 f"{ratio(r, 'c')} | {ort_check} | {check(r, 'openmp')} | {check(r, 'c')} |")
    if notes:
        L += [""] + notes
    return L


if __name__ == "__main__":
    if len(sys.argv) == 6 and sys.argv[1] == "--child":
        _child_main(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]))
    else:
        sys.exit("usage: python -m benchmarks.onnx_runtime --child {ort,ireec} PATH X_NPY THREADS "
                 "(the timed process of time_in_child; the section runs from python3 -m benchmarks)")

"""ONNX Runtime against ireec on the torch-mlir exports of ../shared/models.

For each model folder of ``../shared/models/torch_mlir`` with a ``<model>.onnx`` and a
``<model>.const.linalg.mlir`` (both take the input ``x`` alone; the weights are constants),
and the int8 QDQ models of ``../shared/models/quant`` (``<model>.qdq.onnx`` against
``<model>.qdq.tosa.mlir``):
ONNX Runtime's CPU execution provider with 2 intra-op threads and every graph optimisation
(``ORT_ENABLE_ALL``), against ireec's ``.const.linalg.mlir`` built for ``openmp`` and
called through ``ireec.load`` (what a Python user pays: checks, result allocation), with
the bare C call beside it. Both outputs are checked against the exporter's ``out0.npy``.
The three are timed in alternating blocks (:func:`measure_ort_vs_ireec`): on a shared
machine whose speed changes by 2x within seconds, timing one runtime after the other
compared the machine's phases, not the runtimes.
ONNX Runtime is optional (``pip install -e '.[bench]'``); without it the section says so.
"""
from __future__ import annotations

import gc
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, List, Optional, Sequence

import numpy as np

#: The models compared, in table order.
MODELS = ("mlp", "lenet", "gpt_block", "mobilenet_block")
#: The int8 QDQ models of ``../shared/models/quant`` compared after them: ONNX Runtime on
#: ``<model>.qdq.onnx``, ireec on ``<model>.qdq.tosa.mlir`` (both take ``x`` alone).
QUANT_MODELS = ("cnn_int8", "mlp_int8")


def _model_files(root: Path):
    """``(name, folder, onnx, mlir)`` of every model compared, :data:`MODELS` under ``root``
    then :data:`QUANT_MODELS` under ``root/../quant``."""
    for name in MODELS:
        folder = root / name
        yield name, folder, folder / f"{name}.onnx", folder / f"{name}.const.linalg.mlir"
    for name in QUANT_MODELS:
        folder = root.parent / "quant" / name
        yield name, folder, folder / f"{name}.qdq.onnx", folder / f"{name}.qdq.tosa.mlir"
#: ONNX Runtime's intra-op threads (the machine's 2 cores; ireec's openmp uses the same).
ORT_THREADS = 2


@dataclass
class OrtRow:
    """One model: milliseconds per call (median) of ONNX Runtime, of ireec through
    ``ireec.load`` and of ireec's bare C call; whether each output matched; or why skipped."""

    model: str
    ort_ms: Optional[float] = None
    ireec_ms: Optional[float] = None
    ireec_raw_ms: Optional[float] = None
    ort_ok: Optional[bool] = None
    ireec_ok: Optional[bool] = None
    skipped: Optional[str] = None


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


def measure_ort_vs_ireec(root: Path, build_dir: Path,
                         timer: Callable[[Sequence[Callable[[], object]]], List[float]],
                         log: Callable[[str], None]) -> List[OrtRow]:
    """One :class:`OrtRow` per model of :data:`MODELS` under ``root``
    (``../shared/models/torch_mlir``). ``timer(fns)`` returns the median milliseconds per
    call of each of ``fns``, timed in alternating blocks (ONNX Runtime, ireec.load, the bare
    C call, again and again), so a shared machine whose speed changes during the run slows
    every side alike. Problems become ``skipped`` reasons, never exceptions."""
    from ireec.compiler import compile_file
    from ireec.runtime.build import build_shared_library
    from ireec.runtime.loader import load
    from ireec.tools.benchmark import prepare_call

    rows = []
    missing = ort_unavailable()
    for name, folder, onnx, mlir in _model_files(root):
        row = OrtRow(name)
        rows.append(row)
        if missing:
            row.skipped = missing
            continue
        if not (onnx.is_file() and mlir.is_file() and (folder / "arg0.npy").is_file()):
            row.skipped = f"{folder} lacks {onnx.name}, {mlir.name} or arg0.npy"
            continue
        sess = feed = None
        try:
            x = np.load(folder / "arg0.npy")
            expected = np.load(folder / "out0.npy")
            sess = ort_session(onnx)
            feed = {sess.get_inputs()[0].name: x}
            row.ort_ok = bool(np.allclose(sess.run(None, feed)[0], expected, rtol=1e-3, atol=1e-4))
            out = compile_file(str(mlir), target="openmp", module_name=f"ort_{name}")
            lib = build_shared_library(out.files, out.module_name, build_dir / f"libort_{name}.so",
                                       target="openmp")
            m = load(lib)
            fn = m.functions[0]
            f = m[fn]
            row.ireec_ok = bool(np.allclose(f(x), expected, rtol=1e-3, atol=1e-4))
            row.ort_ms, row.ireec_ms, row.ireec_raw_ms = timer(
                [lambda: sess.run(None, feed), lambda: f(x), prepare_call(m, fn, [x])])
            log(f"  {name:<16} ORT {row.ort_ms:8.3f} ms   ireec.load {row.ireec_ms:8.3f} ms   "
                f"C {row.ireec_raw_ms:8.3f} ms")
        except Exception as e:  # an export ORT cannot run, a compile error: recorded
            _skip(row, e, log)
        finally:
            sess = feed = None
            gc.collect()  # this model's session and its thread pool go before the next
    return rows


def _skip(row: OrtRow, e: Exception, log) -> None:
    text = str(e).strip().splitlines()[0] if str(e).strip() else ""
    row.skipped = f"{type(e).__name__}: {text[:200]}"
    log(f"  {row.model:<16} skipped: {row.skipped}")


def render_ort(rows: List[OrtRow], version: str) -> List[str]:
    """The RESULTS.md section of the comparison."""
    def ms(v):
        return "—" if v is None else f"{v:.3f}"

    L = ["", "## ONNX Runtime", "",
         f"ONNX Runtime {version or '(absent)'} (CPU, {ORT_THREADS} intra-op threads, "
         "`ORT_ENABLE_ALL`) on `../shared/models/torch_mlir/<model>/<model>.onnx`, against "
         "ireec's `<model>.const.linalg.mlir` built for `openmp` and called through "
         "`ireec.load` (the Python call included: checks, result allocation), and the bare C "
         "call of the same library; the int8 QDQ models (`cnn_int8`, `mlp_int8`) from "
         "`../shared/models/quant/<model>/<model>.qdq.onnx` against `<model>.qdq.tosa.mlir`. "
         "Milliseconds per call (median); `/ ORT` is ireec.load's "
         "time divided by ORT's: below 1 means ireec is faster.", "",
         "| model | ORT ms | ireec.load ms | ireec C ms | / ORT | check ORT | check ireec |",
         "|---|---:|---:|---:|---:|---|---|"]
    notes = []
    for r in rows:
        if r.skipped:
            L.append(f"| {r.model} | — | — | — | — | see below | see below |")
            notes.append(f"- `{r.model}`: {r.skipped}")
            continue
        ratio = f"{r.ireec_ms / r.ort_ms:.2f}×" if r.ort_ms else "—"
        L.append(f"| {r.model} | {ms(r.ort_ms)} | {ms(r.ireec_ms)} | {ms(r.ireec_raw_ms)} | {ratio} | "
                 f"{'ok' if r.ort_ok else '**wrong**'} | {'ok' if r.ireec_ok else '**wrong**'} |")
    if notes:
        L += [""] + notes
    return L

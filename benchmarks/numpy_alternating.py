"""numpy against ireec on the large matmuls, the two engines alternating.

The Results table times ireec in the benchmark's own process and numpy afterwards, in two
subprocesses: on a shared machine whose speed changes within seconds (one thread's 1024^3
matmul took 15 ms in one minute and 22 ms in the next on this project's machine), the two
sides of a ratio there can see different machines. This section times each side in a
process of its own, the engines alternating for :data:`ROUNDS` rounds, as the ONNX Runtime
comparison does (``benchmarks/onnx_runtime.py``): numpy (its BLAS with 1 and with 2
threads, without the variables that pin it to older kernels: ``numpy_environment`` of
``benchmarks/run.py``, the kernel family named by threadpoolctl) against ireec's ``c``
build (one thread) and ``openmp`` build (2 OpenMP threads) of the same case, called through
``ireec.load``. Each process warms up for :data:`WARMUP_S`, then times calls one by one
for :data:`MEASURE_S` and reports their median. numpy goes first in even rounds, ireec in
odd ones; a time column is the median of its rounds, with the rounds' range beside it, and
a ratio the median of the rounds' ratios (two timings taken one after the other).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence

import numpy as np

#: The cases compared (``benchmarks/run.py``'s ``all_cases`` names), in table order.
CASES = ("matmul_512", "matmul_1024", "matmul_2048")
#: Rounds of the alternation (each engine timed once per round, in a new process).
ROUNDS = 5
#: Seconds of untimed calls, then of timed calls, in each process.
WARMUP_S, MEASURE_S = 0.3, 1.0
#: The two comparisons: (ireec target, threads of both engines).
COLUMNS = (("c", 1), ("openmp", 2))
SECTION_TITLE = "## numpy against ireec, alternating"


@dataclass
class AltRow:
    """One case: per ireec target, the rounds' medians (ms) of numpy and of ireec, numpy's
    BLAS kernel (``NumpyRun.kernel``'s text) and ireec's largest difference from numpy."""

    case: str
    numpy_ms: Dict[str, List[float]] = field(default_factory=dict)
    ireec_ms: Dict[str, List[float]] = field(default_factory=dict)
    kernel: Dict[str, str] = field(default_factory=dict)
    max_err: Dict[str, float] = field(default_factory=dict)
    skipped: Optional[str] = None


def _case(name: str):
    from benchmarks.run import all_cases

    return next(c for c in all_cases() if c.name == name)


def _child_env(engine: str, threads: int) -> Dict[str, str]:
    """numpy: ``numpy_environment(threads)`` (no pinning variables); ireec: ``threads``
    OpenMP threads and one BLAS thread (numpy only makes its inputs there)."""
    from benchmarks.run import REPO, numpy_environment

    if engine == "numpy":
        env = numpy_environment(threads)[0]
    else:
        env = dict(os.environ, OMP_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS="1")
    env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def time_in_child(engine: str, case: str, threads: int, lib: Optional[Path] = None) -> Dict[str, object]:
    """Run :func:`_child_main` in a new Python process: ``{"ms": median ms per call}`` plus,
    for numpy, ``"kernel"`` (the BLAS and kernel family), for ireec, ``"max_err"`` against
    numpy. RuntimeError with the child's last error line when it fails."""
    from benchmarks.run import REPO

    cmd = [sys.executable, "-m", "benchmarks.numpy_alternating", "--child", engine, case, str(threads),
           str(lib or "")]
    r = subprocess.run(cmd, cwd=REPO, env=_child_env(engine, threads), capture_output=True, text=True,
                       timeout=900)
    if r.returncode != 0 or not r.stdout.strip():
        tail = (r.stderr.strip().splitlines() or ["no output"])[-1]
        raise RuntimeError(f"{engine} child failed: {tail[:200]}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def _child_main(engine: str, case_name: str, threads: int, lib: str) -> None:
    """The timed process of :func:`time_in_child`; prints one JSON line."""
    from benchmarks.onnx_runtime import median_call_ms
    from benchmarks.run import NumpyRun, blas_info

    case = _case(case_name)
    inputs = case.make_inputs()
    out: Dict[str, object] = {}
    if engine == "numpy":
        def call():
            return case.reference(*inputs)
    else:
        from ireec.runtime.loader import load

        fn = load(lib)[case.function]

        def call():
            return fn(*inputs)
        want = case.reference(*inputs)
        out["max_err"] = float(np.abs(np.asarray(call(), np.float64) - want).max())
    out["ms"] = median_call_ms(call, WARMUP_S, MEASURE_S)
    if engine == "numpy":
        blas, error = blas_info()
        out["kernel"] = NumpyRun(threads, blas=blas, error=error).kernel()
    print(json.dumps(out))


def measure(build_dir: Path, log: Callable[[str], None], cases: Sequence[str] = CASES,
            rounds: int = ROUNDS) -> List[AltRow]:
    """One :class:`AltRow` per case: ireec built for each target of :data:`COLUMNS`, then per
    column ``rounds`` rounds of numpy and ireec, each in a process of its own. Problems become
    ``skipped`` reasons, never exceptions."""
    from ireec.compiler import compile_file
    from ireec.runtime.build import build_shared_library

    rows = []
    for name in cases:
        row = AltRow(name)
        rows.append(row)
        try:
            case = _case(name)
            libs = {}
            for target, _threads in COLUMNS:
                out = compile_file(str(case.path), target=target, module_name=f"alt_{name}")
                libs[target] = build_shared_library(out.files, out.module_name,
                                                    build_dir / f"libalt_{name}_{target}.so", target=target)
            for target, threads in COLUMNS:
                np_t, ir_t = [], []
                for k in range(rounds):
                    for engine in (("numpy", "ireec") if k % 2 == 0 else ("ireec", "numpy")):
                        if engine == "numpy":
                            r = time_in_child("numpy", name, threads)
                            np_t.append(r["ms"])
                            row.kernel[target] = r["kernel"]
                        else:
                            r = time_in_child("ireec", name, threads, libs[target])
                            ir_t.append(r["ms"])
                            row.max_err[target] = max(row.max_err.get(target, 0.0), r["max_err"])
                row.numpy_ms[target], row.ireec_ms[target] = np_t, ir_t
                log(f"  {name:<12} {target:<6} numpy {np.median(np_t):8.3f} ms   ireec {np.median(ir_t):8.3f} ms"
                    f"   x{np.median([i / n for i, n in zip(ir_t, np_t)]):.2f}")
        except Exception as e:  # a compile error, a failed child: recorded
            text = str(e).strip().splitlines()[0] if str(e).strip() else ""
            row.skipped = f"{type(e).__name__}: {text[:200]}"
            log(f"  {name:<12} skipped: {row.skipped}")
    return rows


def _cell(times: Sequence[float]) -> str:
    return f"{np.median(times):.3f} ({min(times):.3f}–{max(times):.3f})"


def _ratio(ireec_ms: Sequence[float], numpy_ms: Sequence[float]) -> str:
    """The median of the rounds' ratios, their range in brackets."""
    r = [a / b for a, b in zip(ireec_ms, numpy_ms)]
    return f"{np.median(r):.2f}× ({min(r):.2f}–{max(r):.2f})"


def render(rows: Sequence[AltRow], context: Sequence[str] = ()) -> List[str]:
    """The RESULTS.md section (:data:`SECTION_TITLE`)."""
    kernels = sorted({k for r in rows for k in r.kernel.values()})
    lines = [SECTION_TITLE, "",
             f"Generated by `python3 -m benchmarks --only numpy-alt` (also part of `make bench`; "
             f"`benchmarks/numpy_alternating.py`). numpy and ireec on the same case and inputs, each in a "
             f"process of its own, alternating for {ROUNDS} rounds (numpy first in even rounds, ireec in odd ones): one thread "
             f"(numpy's BLAS with 1 thread against ireec's `c` build) and two (BLAS with 2 threads against "
             f"`openmp` with 2 OpenMP threads). Each process warms up for {WARMUP_S} s, then reports the median "
             f"of {MEASURE_S} s of calls; a time cell is the median of its rounds (their range in brackets), "
             f"milliseconds per call. numpy runs without the BLAS pinning variables (`BLAS_PINNING_VARIABLES` "
             f"in `benchmarks/run.py`); its BLAS kernel (threadpoolctl): "
             f"{'; '.join(kernels) if kernels else 'not measured'}. `/ numpy` is the median of the rounds' ratios of "
             f"ireec's time to numpy's (timed one after the other), their range in brackets: below 1 means "
             f"ireec is faster. `max diff`: ireec's largest absolute difference from "
             f"numpy's result.", ""]
    lines += list(context) + ([""] if context else [])
    lines += ["| case | numpy 1T ms | ireec c ms | / numpy | numpy 2T ms | ireec openmp ms | / numpy | max diff |",
              "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        if r.skipped:
            lines.append(f"| {r.case} | skipped: {r.skipped} | | | | | | |")
            continue
        cells = []
        for target, _threads in COLUMNS:
            n, i = r.numpy_ms.get(target), r.ireec_ms.get(target)
            cells += [_cell(n), _cell(i), _ratio(i, n)] if n and i else ["—"] * 3
        err = max(r.max_err.values()) if r.max_err else float("nan")
        lines.append(f"| {r.case} | " + " | ".join(cells) + f" | {err:.1e} |")
    return lines + [""]


if __name__ == "__main__":
    if len(sys.argv) == 6 and sys.argv[1] == "--child":
        _child_main(sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5])
    else:
        sys.exit("usage: python3 -m benchmarks --only numpy-alt")

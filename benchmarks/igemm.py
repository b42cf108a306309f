"""The int8 GEMM section of RESULTS.md: ireec's ``ireec_uk_igemm`` micro-kernel against the
machine's int8 dot-product (VNNI) peak.

    python3 -m benchmarks --only igemm          # this section alone, replaced in RESULTS.md
    python3 -m benchmarks.igemm                 # print it

``benchmarks/cases/igemm_1024.mlir`` (C[1024x1024] i32 = A[1024x1024] i8 · B i8, a
``linalg.matmul`` into a zero fill: 2·1024³ integer operations, a multiply-add counting 2)
is compiled for ``openmp`` (the kernel calls ``ireec_uk_igemm`` on 512 x 256 workgroup
tiles, see ireec/passes/hal/ukernels.py), built with ``ireec.runtime.build``, checked
exactly against numpy (int64 products, wrapped to int32) and timed on 1 and on 2 threads:
each thread count in its own Python process (``OMP_NUM_THREADS``: libgomp reads it once),
the processes taking turns for :data:`ROUNDS` rounds, each timing the bare C call
(``ireec.tools.benchmark.prepare_call``) for :data:`SECONDS` seconds after warm-up calls.
The table gives the median and the fastest call over all rounds, GOP/s of each, and their
share of the VNNI peak for as many threads (``benchmarks/peak.py``'s ``measure_vnni_peak``:
12 independent ``vpdpbusd`` chains per thread, fastest of 3 runs), measured before and after the rounds (the higher of the two).
On a shared machine the fastest call is the one least disturbed by other processes; the
median includes the calls a busy core slowed down.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence

import numpy as np

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from benchmarks import peak  # noqa: E402

SECTION_TITLE = "## int8 GEMM (VNNI)"
CASE = REPO / "benchmarks" / "cases" / "igemm_1024.mlir"
FUNCTION = "igemm"
SIZE = 1024
TARGET = "openmp"
#: Thread counts timed (each also gets the VNNI peak for as many threads).
THREADS = (1, 2)
#: Rounds of the alternating timing processes, and seconds of calls each process times.
ROUNDS = 5
SECONDS = 0.5
SEED = 20240601

#: What one timing process runs: ``python3 -c TIMER lib a.npy b.npy seconds``; prints the
#: per-call seconds as JSON.
TIMER = r"""
import json, sys, time
import numpy as np
from ireec.runtime.loader import load
from ireec.tools.benchmark import prepare_call
lib, fa, fb, seconds = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
module = load(lib)
call = prepare_call(module, module.functions[0], [np.load(fa), np.load(fb)])
for _ in range(3):
    call()
times, end = [], time.perf_counter() + seconds
while len(times) < 10 or time.perf_counter() < end:
    t0 = time.perf_counter()
    call()
    times.append(time.perf_counter() - t0)
print(json.dumps(times))
"""


@dataclass
class Row:
    """One thread count: per-call seconds of every round, the VNNI peak (GOP/s) for as many
    threads, or why there is no figure (``error``)."""

    threads: int
    times: List[float] = field(default_factory=list)
    peak_gops: Optional[float] = None
    error: Optional[str] = None

    def ms(self, which: str) -> Optional[float]:
        """Median or min (``which``) milliseconds per call."""
        if not self.times:
            return None
        ordered = sorted(self.times)
        return 1e3 * (ordered[len(ordered) // 2] if which == "median" else ordered[0])


@dataclass
class Result:
    rows: List[Row]
    peak: Optional[peak.Peak] = None
    correct: Optional[bool] = None
    error: Optional[str] = None
    call: str = ""


def gops(ms: Optional[float]) -> Optional[float]:
    """GOP/s of one SIZE³ int8 GEMM taking ``ms`` milliseconds."""
    return None if not ms else 2.0 * SIZE ** 3 / (ms * 1e-3) * 1e-9


def run_igemm(build_dir: Path, log: Callable[[str], None] = print, rounds: int = ROUNDS,
              seconds: float = SECONDS) -> Result:
    """Measure the section (module docstring); problems become ``error`` texts, never
    exceptions."""
    from ireec.compiler import compile_file
    from ireec.runtime.build import build_shared_library
    from ireec.runtime.loader import load

    rows = [Row(t) for t in THREADS]
    log("VNNI peak (benchmarks/peak.py)")
    vnni = peak.measure_vnni_peak(threads=max(THREADS))
    for r in rows:
        r.peak_gops = None if vnni.error else vnni.for_threads(r.threads)
    res = Result(rows, vnni)
    try:
        log(f"int8 GEMM {SIZE}^3 on {TARGET}: compile, build, check")
        out = compile_file(str(CASE), target=TARGET, module_name="bench_igemm")
        calls = [ln.strip() for ln in out.files["bench_igemm_kernels.c"].splitlines() if "ireec_uk_igemm(" in ln]
        res.call = calls[0] if calls else "(no ireec_uk_igemm call)"
        build_dir.mkdir(parents=True, exist_ok=True)
        lib = build_shared_library(out.files, out.module_name, build_dir / f"libbench_igemm_{TARGET}.so",
                                   target=TARGET)
        rng = np.random.default_rng(SEED)
        a = rng.integers(-128, 128, (SIZE, SIZE), dtype=np.int8)
        b = rng.integers(-128, 128, (SIZE, SIZE), dtype=np.int8)
        want = (a.astype(np.int64) @ b.astype(np.int64)).astype(np.int32)
        res.correct = bool(np.array_equal(load(lib).call(FUNCTION, a, b), want))
    except Exception as e:  # a compile or build failure is reported, not raised
        res.error = f"{type(e).__name__}: {str(e).strip().splitlines()[0] if str(e).strip() else ''}"[:300]
        return res
    with tempfile.TemporaryDirectory(prefix="ireec-igemm-") as d:
        fa, fb = Path(d) / "a.npy", Path(d) / "b.npy"
        np.save(fa, a)
        np.save(fb, b)
        for k in range(rounds):
            for r in rows:
                log(f"  round {k + 1}/{rounds}: {r.threads} thread(s)")
                env = dict(os.environ, OMP_NUM_THREADS=str(r.threads),
                           PYTHONPATH=os.pathsep.join([str(REPO)] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
                proc = subprocess.run([sys.executable, "-c", TIMER, str(lib), str(fa), str(fb), str(seconds)],
                                      capture_output=True, text=True, env=env, timeout=600)
                if proc.returncode != 0:
                    r.error = (proc.stderr.strip().splitlines() or ["timing process failed"])[-1][:300]
                    continue
                r.times += json.loads(proc.stdout.strip().splitlines()[-1])
    log("VNNI peak again, after the rounds")
    _keep_higher_peak(res, peak.measure_vnni_peak(threads=max(THREADS)))
    return res


def _keep_higher_peak(res: Result, again: "peak.Peak") -> None:
    """Use the higher of the peaks measured before and after the rounds, per thread count: a
    peak measured while the shared machine slows the core reads low (one run's peak read
    462 GOP/s on one thread, under the GEMM's own 568: "123 % of peak")."""
    if again.error or res.peak is None or res.peak.error:
        return
    for attr in ("one_thread", "all_threads"):
        a, b = getattr(res.peak, attr), getattr(again, attr)
        if b is not None and (a is None or b > a):
            setattr(res.peak, attr, b)
    for r in res.rows:
        r.peak_gops = res.peak.for_threads(r.threads)


def _num(v: Optional[float], fmt: str = "{:.0f}") -> str:
    return "—" if v is None else fmt.format(v)


def _pct(v: Optional[float], top: Optional[float]) -> str:
    return "—" if v is None or not top else f"{100 * v / top:.0f} %"


def render_igemm(res: Result, context: Dict[str, str]) -> List[str]:
    """The Markdown lines of the section."""
    p = res.peak
    peak_line = p.error if p is not None and p.error else (
        f"{p.isa}, {p.one_thread:.0f} GOP/s on 1 thread, {p.all_threads:.0f} GOP/s on {p.threads} threads"
        if p is not None else "not measured")
    L = [SECTION_TITLE, "",
         "Generated by `python3 -m benchmarks --only igemm` (also part of `make bench`; "
         "`benchmarks/igemm.py`). `benchmarks/cases/igemm_1024.mlir`: C = A·B, 1024x1024 int8 "
         "matrices into int32 (`linalg.matmul` on i8 with an i32 accumulator, 2.15 G integer "
         "operations, a multiply-add counting 2), compiled for `openmp`, where it calls the "
         "`ireec_uk_igemm` micro-kernel (`runtime_c/ireec_ukernel_igemm.h`: `vpdpbusd` 8 x 48 "
         "register tiles on AVX-512 VNNI) on 512 x 256 workgroup tiles; checked exactly against "
         "numpy. Each thread count is timed in its own process (`OMP_NUM_THREADS`), the "
         f"processes taking turns for {ROUNDS} rounds of {SECONDS:g} s of calls; median and "
         "fastest call over all rounds. `% peak` divides by the VNNI peak for as many threads "
         "(`benchmarks/peak.py`: 12 independent `vpdpbusd` chains per thread, fastest of 3 "
         "runs), measured before and after the rounds, the higher of the two. The machine is shared: the fastest call is the least "
         "disturbed one, the median includes calls slowed by other processes.", "",
         f"- date: {context.get('date', '')}; CPU: {context.get('cpu', '')}; load average "
         f"before / after: {context.get('load', '')}",
         f"- VNNI peak: {peak_line}",
         f"- output {'checked: exact' if res.correct else ('**wrong**' if res.correct is False else 'not checked')}; "
         f"the call: `{res.call}`" if res.call else "- not compiled", ""]
    if res.error:
        L += [f"Not measured: {res.error}", ""]
        return L
    L += ["| threads | median ms | GOP/s | % peak | fastest ms | GOP/s | % peak | VNNI peak GOP/s |",
          "|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in res.rows:
        if r.error and not r.times:
            L.append(f"| {r.threads} | {r.error} | | | | | | |")
            continue
        med, fast = r.ms("median"), r.ms("min")
        L.append(f"| {r.threads} | {_num(med, '{:.3f}')} | {_num(gops(med))} | {_pct(gops(med), r.peak_gops)} | "
                 f"{_num(fast, '{:.3f}')} | {_num(gops(fast))} | {_pct(gops(fast), r.peak_gops)} | "
                 f"{_num(r.peak_gops)} |")
    return L + [""]


def context_lines(load_before: Sequence[float]) -> Dict[str, str]:
    """Date, CPU model and load averages for the section's header."""
    from ireec.tools.benchmark import machine_context

    ctx = machine_context("python3 -m benchmarks --only igemm")
    try:
        after = ", ".join(f"{v:.2f}" for v in os.getloadavg())
    except OSError:
        after = "unknown"
    before = ", ".join(f"{v:.2f}" for v in load_before) or "unknown"
    return {"date": str(ctx.get("date")), "cpu": f"{ctx.get('cpu_model')} x{ctx.get('num_cpus')}",
            "load": f"{before} / {after}"}


def _load() -> List[float]:
    try:
        return list(os.getloadavg())
    except OSError:
        return []


def section(build_dir: Path, log: Callable[[str], None] = print, partial: bool = False) -> List[str]:
    """Measure and render the section (``partial``: measured alone, ``--only igemm``)."""
    load = _load()
    res = run_igemm(build_dir, log)
    lines = render_igemm(res, context_lines(load))
    if partial:
        at = lines.index("") + 1
        at = lines.index("", at) + 1
        lines.insert(at, "- from a partial run (`python3 -m benchmarks --only igemm`), not the whole `make bench`")
    return lines


if __name__ == "__main__":
    print("\n".join(section(REPO / "build" / "bench", lambda m: print(m, file=sys.stderr, flush=True))))

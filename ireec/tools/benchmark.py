"""``ireec benchmark-module``: time one function of a built library, like
``iree-benchmark-module``.

``iree-benchmark-module`` (IREE ``tools/iree-benchmark-module-main.cc``) registers one
google-benchmark benchmark per function, named ``BM_<function>`` and measured with
``MeasureProcessCPUTime()`` and ``UseRealTime()`` (hence the ``/process_time/real_time``
suffix), in milliseconds. This module reproduces what a user sees of that, written from
google benchmark's documented behaviour (``docs/user_guide.md``):

* iterations: a repetition calls the function ``N`` times in a loop and reports the time of
  the loop divided by ``N``. ``N`` grows from 1 until one loop lasts at least
  ``--benchmark_min_time`` (default ``0.5s``; ``100x`` asks for exactly 100 iterations);
  the first loop long enough is repetition 0 and the later repetitions reuse its ``N``;
* ``Time`` is wall-clock time per iteration; ``CPU`` is the CPU time of the whole process
  (every thread, so OpenMP workers count) per iteration;
* ``--benchmark_repetitions=R`` (default 1) runs R repetitions and, when R > 1, adds the
  aggregates ``_mean``, ``_median``, ``_stddev`` (sample standard deviation, n-1), ``_cv``
  (stddev / mean, in percent) and — not in google benchmark, but asked for here — ``_min``;
  the ``Iterations`` column of an aggregate holds the number of repetitions;
* ``--benchmark_format=console|json`` picks the table or google benchmark's JSON document;
  ``--benchmark_out=FILE`` also writes the JSON (or ``--benchmark_out_format``) to a file.
  The context lines (date, CPUs, load average) go to stderr, as google benchmark does.

What is timed: the generated C entry point, called through its generic trampoline
``status = call(args, results, workspace)`` with cffi, on inputs and result buffers made
once before timing (IREE's tool also counts allocating its outputs; ireec's results are
caller buffers, so there is nothing to allocate). The loop adds the Python ``for`` step,
the cffi call and a status check: about 0.2-1 µs per call, see :func:`harness_overhead`.
One untimed call, checked like ``ireec run-module`` checks one, comes first (warm-up:
page faults, OpenMP thread start); ``--benchmark_min_warmup_time`` adds more.

A module built with ``--target=cuda`` is timed on the GPU instead (:func:`prepare_cuda_call`):
its device entry ``<module>_call_device`` runs on device buffers filled once, enqueued on the
legacy default stream without copies or waiting, and ``Time`` is the GPU time of the loop
measured with CUDA events (``cudaEventRecord``/``cudaEventElapsedTime`` before and after it,
:class:`ireec.runtime.cudart.EventClock`), as IREE's tool measures a CUDA device's work. When
no CUDA runtime library can be opened (``$IREEC_CUDART``), the host-pointer entry (copies
included) is timed with the wall clock, and a note on stderr says so.
"""
from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import platform
import time
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Sequence, TextIO, Tuple

__all__ = [
    "BenchmarkError",
    "Run",
    "Stats",
    "BenchmarkResult",
    "parse_min_time",
    "statistics",
    "benchmark_callable",
    "prepare_call",
    "prepare_cuda_call",
    "benchmark_function",
    "harness_overhead",
    "machine_context",
    "format_console",
    "format_json",
    "add_arguments",
    "run_cli",
    "TIME_UNITS",
    "AGGREGATES",
]

#: Seconds per unit of the ``--benchmark_time_unit`` values.
TIME_UNITS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
#: Aggregates reported when there are several repetitions, in print order.
AGGREGATES = ("mean", "median", "stddev", "cv", "min")
#: google benchmark's cap on the iterations of one repetition (``kMaxIterations``: 1e9).
MAX_ITERATIONS = 1_000_000_000
DEFAULT_MIN_TIME = "0.5s"


class BenchmarkError(Exception):
    """A bad flag, input or module; the CLI prints it as ``error: <message>``."""


# ---------------------------------------------------------------------------
# measurements and statistics
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Run:
    """One repetition: ``iterations`` calls that took ``real_time`` seconds of wall-clock
    time and ``cpu_time`` seconds of process CPU time (totals over the loop)."""

    iterations: int
    real_time: float
    cpu_time: float

    @property
    def real_time_per_iteration(self) -> float:
        """Seconds of wall-clock time per call."""
        return self.real_time / self.iterations

    @property
    def cpu_time_per_iteration(self) -> float:
        """Seconds of process CPU time per call (all threads)."""
        return self.cpu_time / self.iterations


@dataclass(frozen=True)
class Stats:
    """Statistics of a sample (same unit as the sample; ``cv`` is a fraction)."""

    count: int
    mean: float
    median: float
    stddev: float
    cv: float
    min: float
    max: float


def statistics(values: Sequence[float]) -> Stats:
    """Mean, median, sample standard deviation (divides by n-1, as google benchmark's
    ``StatisticsStdDev``; 0 for one value), coefficient of variation (stddev / mean, 0 when
    the mean is 0), min and max of ``values``. ValueError for an empty sequence."""
    xs = [float(v) for v in values]
    n = len(xs)
    if n == 0:
        raise ValueError("statistics of an empty sample")
    mean = math.fsum(xs) / n
    s = sorted(xs)
    median = s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2.0
    stddev = math.sqrt(math.fsum((x - mean) ** 2 for x in xs) / (n - 1)) if n > 1 else 0.0
    cv = stddev / mean if mean != 0 else 0.0
    return Stats(n, mean, median, stddev, cv, s[0], s[-1])


@dataclass
class BenchmarkResult:
    """The repetitions of one benchmark (``name`` like ``BM_matmul/process_time/real_time``)."""

    name: str
    runs: List[Run] = field(default_factory=list)

    @property
    def iterations(self) -> int:
        """Iterations per repetition (the same for every repetition)."""
        return self.runs[0].iterations if self.runs else 0

    def real_stats(self) -> Stats:
        """Statistics of the wall-clock seconds per call over the repetitions."""
        return statistics([r.real_time_per_iteration for r in self.runs])

    def cpu_stats(self) -> Stats:
        """Statistics of the process CPU seconds per call over the repetitions."""
        return statistics([r.cpu_time_per_iteration for r in self.runs])

    def aggregate(self, kind: str) -> Tuple[float, float]:
        """(real, cpu) value of aggregate ``kind`` (one of :data:`AGGREGATES`): seconds per
        call, except ``cv`` which is a fraction."""
        if kind not in AGGREGATES:
            raise ValueError(f"unknown aggregate '{kind}' (known: {', '.join(AGGREGATES)})")
        return getattr(self.real_stats(), kind), getattr(self.cpu_stats(), kind)


def parse_min_time(spec) -> Tuple[Optional[float], Optional[int]]:
    """``--benchmark_min_time``: ``"0.5s"`` or ``"0.5"`` → (0.5, None) seconds; ``"100x"`` →
    (None, 100) iterations. BenchmarkError for anything else (negative, zero iterations)."""
    text = str(spec).strip()
    try:
        if text.endswith("x"):
            n = int(text[:-1])
            if n <= 0:
                raise ValueError
            return None, min(n, MAX_ITERATIONS)
        seconds = float(text[:-1] if text.endswith("s") else text)
        if not math.isfinite(seconds) or seconds < 0:
            raise ValueError
        return seconds, None
    except ValueError:
        raise BenchmarkError(f"--benchmark_min_time='{spec}': expected seconds ('0.5s', '2') "
                             "or an iteration count ('100x')") from None


def _next_iterations(n: int, elapsed: float, min_time: float) -> int:
    """Iterations of the next trial loop when ``n`` took ``elapsed`` < ``min_time``
    seconds: aim 40% past min_time (google benchmark's user guide: the count grows until
    the loop is long enough), grow at most 10x when the trial was under a tenth of it (a
    first call is often slow or the clock coarse), always by at least one."""
    want = min_time * 1.4 / max(elapsed, 1e-9)
    if elapsed < 0.1 * min_time:
        want = min(want, 10.0)
    return int(min(MAX_ITERATIONS, max(n + 1, math.ceil(n * want))))


def _timed_loop(fn: Callable[[], object], n: int, real_clock, cpu_clock) -> Run:
    r0, c0 = real_clock(), cpu_clock()
    for _ in range(n):
        fn()
    r1, c1 = real_clock(), cpu_clock()
    return Run(n, max(r1 - r0, 0.0), max(c1 - c0, 0.0))


def benchmark_callable(fn: Callable[[], object], name: str, *, repetitions: int = 1,
                       min_time=DEFAULT_MIN_TIME, warmup_time: float = 0.0,
                       real_clock: Callable[[], float] = time.perf_counter,
                       cpu_clock: Callable[[], float] = time.process_time) -> BenchmarkResult:
    """Time ``fn()`` (no arguments) as google benchmark times a benchmark.

    ``min_time``: see :func:`parse_min_time`. ``warmup_time``: seconds of untimed calls
    before the first measurement. ``repetitions`` ≥ 1. The clocks return seconds (defaults:
    ``time.perf_counter`` wall clock, ``time.process_time`` CPU time of the process); tests
    pass fake ones. Returns a :class:`BenchmarkResult` with ``repetitions`` runs of the same
    iteration count. BenchmarkError for bad parameters; exceptions of ``fn`` propagate.
    """
    if repetitions < 1:
        raise BenchmarkError(f"--benchmark_repetitions={repetitions}: must be at least 1")
    if warmup_time < 0:
        raise BenchmarkError(f"--benchmark_min_warmup_time={warmup_time}: must be >= 0")
    seconds, fixed = parse_min_time(min_time)
    if warmup_time > 0:
        n, start = 1, real_clock()
        while real_clock() - start < warmup_time:
            run = _timed_loop(fn, n, real_clock, cpu_clock)
            n = _next_iterations(n, run.real_time, warmup_time)
    result = BenchmarkResult(name)
    if fixed is not None:
        n = fixed
    else:
        n = 1
        while True:
            run = _timed_loop(fn, n, real_clock, cpu_clock)
            if run.real_time >= seconds or n >= MAX_ITERATIONS:
                result.runs.append(run)  # the first long-enough loop is repetition 0
                break
            n = _next_iterations(n, run.real_time, seconds)
    while len(result.runs) < repetitions:
        result.runs.append(_timed_loop(fn, n, real_clock, cpu_clock))
    return result


# ---------------------------------------------------------------------------
# calling a module's function
# ---------------------------------------------------------------------------

def _status_name(status: int) -> str:
    from ..runtime.loader import STATUS_NAMES

    return STATUS_NAMES.get(int(status), "UNKNOWN_CODE")


def prepare_call(module, fn: str, inputs: Sequence, outs: Optional[Sequence] = None) -> Callable[[], None]:
    """A no-argument callable that runs ``fn`` of the loaded ``module`` on ``inputs``,
    writing its results into ``outs`` (C-contiguous arrays of the results' dtypes and shapes)
    or into arrays allocated once.

    One checked call (``module.call``) comes first: wrong argument count, types or shapes
    raise TypeError/ValueError and a failing status RuntimeError, as in ``ireec run-module``.
    The callable then calls the C trampoline directly through cffi with argument and result
    pointers built once (no per-call checks or allocation), and raises RuntimeError on a
    non-OK status. Without the loader internals it needs, it falls back to ``module.call``
    with preallocated ``out=`` buffers.
    """
    import numpy as np

    from ..runtime.loader import _dynamic_extents

    info = module.info(fn)
    module.call(fn, *inputs)  # checks everything once
    arrays = []
    for t, a in zip(info.args, inputs):
        arr = np.asarray(a, dtype=t.dtype)
        arr = arr.reshape(t.shape) if all(d >= 0 for d in t.shape) else arr
        arrays.append(arr if arr.flags.c_contiguous else arr.copy(order="C"))
    dims = _dynamic_extents(info, arrays) if len(arrays) == len(info.args) else []
    if outs is None:
        outs = [np.empty(t.resolve(dims), dtype=t.dtype) for t in info.results]
    else:
        outs = list(outs)
        want = [(tuple(t.resolve(dims)), np.dtype(t.dtype)) for t in info.results]
        if [(tuple(o.shape), o.dtype) for o in outs] != want or not all(o.flags.c_contiguous for o in outs):
            raise ValueError(f"{fn}: outs must be C-contiguous arrays of {want}")
    ffi = getattr(module, "_ffi", None)
    call = getattr(module, "_calls", {}).get(fn)
    workspace = getattr(module, "_workspace_ptr", None)
    if ffi is None or call is None or workspace is None:
        out = outs if outs else None

        def slow_call() -> None:
            module.call(fn, *arrays, out=out)
        return slow_call
    argv = ffi.new("void *[]", max(1, len(arrays)))
    for i, a in enumerate(arrays):
        argv[i] = ffi.cast("void *", a.ctypes.data)
    resv = ffi.new("void *[]", max(1, len(outs)))
    for i, r in enumerate(outs):
        resv[i] = ffi.cast("void *", r.ctypes.data)
    args_p = ffi.cast("const void *const *", argv)
    results_p = ffi.cast("void *const *", resv)
    dimv = ffi.new("int64_t[]", dims) if dims else ffi.NULL
    keep = (arrays, outs, argv, resv, dimv)  # the pointers above point into these
    workspace_size = int(getattr(module, "workspace_size", 0))

    def fast_call(keep=keep) -> None:
        status = call(args_p, results_p, dimv, workspace, workspace_size)
        if status:
            raise RuntimeError(f"{fn}: call failed with status {status} ({_status_name(status)})")
    return fast_call


def prepare_cuda_call(module, fn: str, inputs: Sequence, runtime=None):
    """For ``module`` built with ``--target=cuda``: (callable, clock) timing ``fn`` on the GPU.

    One checked call (``module.call``, host arrays) comes first, as in :func:`prepare_call`.
    The inputs are then copied once into device buffers and the result buffers allocated
    (``runtime``: an :class:`ireec.runtime.cudart.CudaRuntime`, default the process's); the
    callable calls the device entry on them on the legacy default stream (it enqueues and
    returns) and raises RuntimeError on a non-OK status; the clock is a
    :class:`ireec.runtime.cudart.EventClock` on that stream. The device buffers are freed
    when the callable is collected. TypeError when the module has no device entry;
    CudaError when the CUDA runtime fails."""
    import ctypes
    import weakref

    import numpy as np

    from ..runtime import cudart, device_arrays

    entry = device_arrays.device_entry(module.path, module.name)
    rt = runtime or cudart.cuda_runtime()
    info = module.info(fn)
    outs = [np.empty(t.shape, dtype=t.dtype) for t in info.results]
    module.call(fn, *inputs, out=outs if outs else None)  # checks everything once
    buffers: List[int] = []

    def free(buffers=buffers) -> None:
        for p in buffers:
            rt.free(p)

    for t, a in zip(info.args, inputs):
        buffers.append(rt.to_device(np.asarray(a, dtype=t.dtype).reshape(t.shape)))
    for t in info.results:
        buffers.append(rt.malloc(t.byte_size))
    n = len(info.args)
    argv = (ctypes.c_void_p * max(1, n))(*buffers[:n])
    resv = (ctypes.c_void_p * max(1, len(info.results)))(*buffers[n:])
    index = module.functions.index(fn)

    def device_call() -> None:
        status = entry(index, argv, resv, 0)
        if status:
            raise RuntimeError(f"{fn}: call failed with status {status} ({_status_name(status)})")

    weakref.finalize(device_call, free)
    return device_call, cudart.EventClock(rt, 0)


def _is_cuda_module(module) -> bool:
    """Whether ``module`` (loaded by ``ireec.load``) has the device entry of a cuda module."""
    from ..runtime import device_arrays

    try:
        device_arrays.device_entry(module.path, module.name)
    except (TypeError, OSError):
        return False
    return True


def benchmark_function(module, fn: str, inputs: Sequence, **options) -> BenchmarkResult:
    """Benchmark ``fn`` of a loaded ireec module (``ireec.load``) on ``inputs`` (numpy
    arrays, one per argument); the result is named ``BM_<fn>/process_time/real_time``.
    ``options`` go to :func:`benchmark_callable`. Errors as :func:`prepare_call`."""
    call = prepare_call(module, fn, inputs)
    return benchmark_callable(call, f"BM_{fn}/process_time/real_time", **options)


def harness_overhead(samples: int = 200_000) -> float:
    """Seconds per iteration that the timing loop itself adds around a cffi call of a C
    function doing almost nothing (libc's ``abs``), measured over a loop of ``samples`` calls."""
    import cffi

    ffi = cffi.FFI()
    ffi.cdef("int abs(int);")
    libc = ffi.dlopen(None)
    f = libc.abs

    def call() -> None:
        status = f(0)
        if status:
            raise RuntimeError
    run = _timed_loop(call, samples, time.perf_counter, time.process_time)
    return run.real_time_per_iteration


def call_overhead(module, fn: str, inputs: Sequence, *, samples: int = 20_000,
                  repetitions: int = 1) -> Dict[str, float]:
    """Microseconds per call of ``fn`` of a loaded ireec ``module`` on ``inputs`` three ways:
    ``raw_us``, the C trampoline called through cffi with pointers prepared once
    (:func:`prepare_call`: the bare C call); ``load_us``, ``module.fn(*inputs)`` (checks,
    result allocation); ``load_out_us``, the same with preallocated ``out=`` arrays; and
    ``overhead_us`` = ``load_us - raw_us``, ``overhead_out_us`` = ``load_out_us - raw_us``.
    The bare call and the ``out=`` call write into the same arrays.

    The three calls alternate, ``samples`` × ``repetitions`` times, each timed alone; each
    figure is the fastest of its calls, the one least disturbed by other processes (on a
    shared machine a mean would carry their time slices). ``inputs`` should be C-contiguous
    arrays of the exact dtypes (what the fast path takes). Errors as :func:`prepare_call`."""
    import numpy as np

    bound = module[fn]
    info = module.info(fn)
    outs = [np.empty(t.shape, dtype=t.dtype) for t in info.results]
    # The bare call writes into the same arrays as the out= call: the two then differ only
    # by the Python path, not by which memory (cache lines, pages) their results land in.
    raw = prepare_call(module, fn, inputs, outs)
    out = None if not outs else (outs[0] if len(outs) == 1 else outs)
    args = tuple(inputs)
    clock = time.perf_counter
    best = {"raw_us": float("inf"), "load_us": float("inf"), "load_out_us": float("inf")}
    for _ in range(max(1, samples) * max(1, repetitions)):
        t0 = clock()
        raw()
        t1 = clock()
        bound(*args)
        t2 = clock()
        bound(*args, out=out)
        t3 = clock()
        best["raw_us"] = min(best["raw_us"], t1 - t0)
        best["load_us"] = min(best["load_us"], t2 - t1)
        best["load_out_us"] = min(best["load_out_us"], t3 - t2)
    best = {k: v * 1e6 for k, v in best.items()}
    best["overhead_us"] = best["load_us"] - best["raw_us"]
    best["overhead_out_us"] = best["load_out_us"] - best["raw_us"]
    return best

# ---------------------------------------------------------------------------
# reports
# ---------------------------------------------------------------------------

def _cpu_model_and_mhz() -> Tuple[str, float]:
    model, mhz = platform.processor() or platform.machine(), 0.0
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                key, _, value = line.partition(":")
                key = key.strip()
                if key == "model name" and model in ("", platform.machine(), platform.processor()):
                    model = value.strip()
                elif key == "cpu MHz" and not mhz:
                    try:
                        mhz = float(value)
                    except ValueError:
                        pass
    except OSError:
        pass
    return model, mhz


def machine_context(executable: str = "ireec benchmark-module") -> Dict[str, object]:
    """google benchmark's JSON ``context`` fields (date, host_name, executable, num_cpus,
    mhz_per_cpu, load_avg, library_build_type) plus ``cpu_model``. ``num_cpus`` is the
    number of CPUs this process may run on."""
    model, mhz = _cpu_model_and_mhz()
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    try:
        load = list(os.getloadavg())
    except (AttributeError, OSError):
        load = []
    return {
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "host_name": platform.node(),
        "executable": executable,
        "num_cpus": cpus,
        "mhz_per_cpu": int(round(mhz)),
        "cpu_model": model,
        "cpu_scaling_enabled": False,
        "load_avg": load,
        "library_build_type": "release",
    }


def format_context(context: Dict[str, object]) -> str:
    """The lines google benchmark prints before its table (to stderr)."""
    lines = [str(context.get("date", "")), f"Running {context.get('executable', '')}",
             f"Run on ({context.get('num_cpus')} X {context.get('mhz_per_cpu')} MHz CPU s)"]
    if context.get("cpu_model"):
        lines.append(f"CPU: {context['cpu_model']}")
    load = context.get("load_avg") or []
    if load:
        lines.append("Load Average: " + ", ".join(f"{v:.2f}" for v in load))
    return "\n".join(lines) + "\n"


def _format_time(value: float) -> str:
    """A time in the console's 10 columns: google benchmark's console precision (3
    decimals under 1, 2 under 10, 1 under 100, none above, exponent past 10 digits)."""
    if value < 1.0:
        return f"{value:10.3f}"
    if value < 10.0:
        return f"{value:10.2f}"
    if value < 100.0:
        return f"{value:10.1f}"
    if value > 9999999999:
        return f"{value:10.4e}"
    return f"{value:10.0f}"


def _rows(result: BenchmarkResult, aggregates_only: bool):
    """(name, real, cpu, iterations, unit_kind, run_type, aggregate, repetition_index);
    times in seconds, ``unit_kind`` 'time' or 'percentage'."""
    reps = len(result.runs)
    if not aggregates_only or reps == 1:
        for i, r in enumerate(result.runs):
            yield (result.name, r.real_time_per_iteration, r.cpu_time_per_iteration,
                   r.iterations, "time", "iteration", None, i)
    if reps > 1:
        for kind in AGGREGATES:
            real, cpu = result.aggregate(kind)
            yield (f"{result.name}_{kind}", real, cpu, reps,
                   "percentage" if kind == "cv" else "time", "aggregate", kind, None)


def format_console(results: Sequence[BenchmarkResult], time_unit: str = "ms",
                   aggregates_only: bool = False) -> str:
    """google benchmark's console table::

        ---------------------------------------------------------------------
        Benchmark                           Time             CPU   Iterations
        ---------------------------------------------------------------------
        BM_abs/process_time/real_time   0.220 ms        0.230 ms         3356

    ``time_unit``: ns|us|ms|s. ``aggregates_only``: print only the aggregate lines when
    there are several repetitions (``--benchmark_display_aggregates_only``)."""
    scale = TIME_UNITS[time_unit]
    rows = [row for res in results for row in _rows(res, aggregates_only)]
    width = max([len("Benchmark")] + [len(r[0]) for r in rows])
    header = f"{'Benchmark':<{width}} {'Time':>13} {'CPU':>15} {'Iterations':>12}"
    rule = "-" * len(header)
    lines = [rule, header, rule]
    for name, real, cpu, iters, kind, _, _, _ in rows:
        if kind == "percentage":
            lines.append(f"{name:<{width}} {real * 100:10.2f} {'%':<2} {cpu * 100:12.2f} "
                         f"{'%':<2} {iters:>12}")
        else:
            lines.append(f"{name:<{width}} {_format_time(real / scale)} {time_unit:<2} "
                         f"{_format_time(cpu / scale):>12} {time_unit:<2} {iters:>12}")
    return "\n".join(lines) + "\n"


def format_json(results: Sequence[BenchmarkResult], context: Dict[str, object],
                time_unit: str = "ms", aggregates_only: bool = False) -> str:
    """google benchmark's JSON document: ``{"context": {...}, "benchmarks": [...]}`` with one
    entry per repetition (``run_type`` "iteration") and per aggregate (``run_type``
    "aggregate", ``aggregate_name``, ``aggregate_unit`` "time" or "percentage"); times in
    ``time_unit`` per iteration, a cv as a fraction."""
    scale = TIME_UNITS[time_unit]
    entries = []
    for family, res in enumerate(results):
        for name, real, cpu, iters, kind, run_type, agg, rep in _rows(res, aggregates_only):
            e: Dict[str, object] = {
                "name": name, "family_index": family, "per_family_instance_index": 0,
                "run_name": res.name, "run_type": run_type, "repetitions": len(res.runs),
            }
            if rep is not None:
                e["repetition_index"] = rep
            e["threads"] = 1
            if agg is not None:
                e["aggregate_name"] = agg
                e["aggregate_unit"] = kind
            e["iterations"] = iters
            pct = kind == "percentage"
            e["real_time"] = real if pct else real / scale
            e["cpu_time"] = cpu if pct else cpu / scale
            e["time_unit"] = time_unit
            entries.append(e)
    return json.dumps({"context": context, "benchmarks": entries}, indent=2) + "\n"


# ---------------------------------------------------------------------------
# command line
# ---------------------------------------------------------------------------

def _parse_bool(text: str) -> bool:
    t = str(text).strip().lower()
    if t in ("1", "true", "yes", "on", ""):
        return True
    if t in ("0", "false", "no", "off"):
        return False
    raise argparse.ArgumentTypeError(f"expected true or false, got '{text}'")


def _positive_int(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got '{text}'") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {n}")
    return n


def _seconds(text: str) -> float:
    t = text[:-1] if text.endswith("s") else text
    try:
        v = float(t)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds, got '{text}'") from None
    if not math.isfinite(v) or v < 0:
        raise argparse.ArgumentTypeError(f"expected seconds >= 0, got '{text}'")
    return v


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The flags of ``ireec benchmark-module`` (IREE's and google benchmark's spelling;
    the dashed spelling is accepted too)."""
    p.add_argument("--module", action="append", metavar="LIB",
                   help="shared library built by `ireec build`")
    p.add_argument("--function", metavar="NAME",
                   help="function to time (default: the only one, or every function "
                        "without arguments, as iree-benchmark-module)")
    p.add_argument("--input", action="append", metavar="SPEC",
                   help='an input, as for run-module: "128x128xf32=1", @x.npy ...')
    p.add_argument("--device", action="append", metavar="DEVICE",
                   help="accepted for IREE compatibility (local-task, local-sync, cuda); ignored")
    p.add_argument("--benchmark_repetitions", "--benchmark-repetitions", dest="repetitions",
                   type=_positive_int, default=1, metavar="N",
                   help="repetitions; with N > 1 also mean/median/stddev/cv/min (default 1)")
    p.add_argument("--benchmark_min_time", "--benchmark-min-time", dest="min_time",
                   default=DEFAULT_MIN_TIME, metavar="T",
                   help="least time of one repetition ('0.5s', default) or iterations ('100x')")
    p.add_argument("--benchmark_min_warmup_time", "--benchmark-min-warmup-time",
                   dest="warmup_time", type=_seconds, default=0.0, metavar="SECONDS",
                   help="untimed calls for this long before measuring (default 0; one "
                        "checked call always comes first)")
    p.add_argument("--benchmark_format", "--benchmark-format", dest="format",
                   choices=("console", "json"), default="console", help="stdout format")
    p.add_argument("--benchmark_out", "--benchmark-out", dest="out", metavar="FILE",
                   help="also write the results to FILE")
    p.add_argument("--benchmark_out_format", "--benchmark-out-format", dest="out_format",
                   choices=("console", "json"), default="json",
                   help="format of --benchmark_out (default json)")
    p.add_argument("--benchmark_time_unit", "--benchmark-time-unit", dest="time_unit",
                   choices=tuple(TIME_UNITS), default="ms", help="time unit (default ms)")
    for flag, dest, what in (("report_aggregates_only", "report_aggregates_only",
                              "stdout and --benchmark_out"),
                             ("display_aggregates_only", "display_aggregates_only", "stdout")):
        p.add_argument(f"--benchmark_{flag}", f"--benchmark-{flag.replace('_', '-')}",
                       dest=dest, type=_parse_bool, nargs="?", const=True, default=False,
                       metavar="BOOL", help=f"only aggregate lines in {what} when repeating")


def _select_functions(module, fn: Optional[str], n_inputs: int) -> List[str]:
    if fn:
        fn = fn[1:] if fn.startswith("@") else fn
        try:
            module.info(fn)
        except KeyError as e:
            raise BenchmarkError(e.args[0]) from None
        return [fn]
    if len(module.functions) == 1:
        return list(module.functions)
    if n_inputs:
        raise BenchmarkError(f"--input= given without --function= and module '{module.name}' "
                             f"exports {len(module.functions)} functions: "
                             f"{', '.join(module.functions)}")
    # iree-benchmark-module: without --function, every function that takes no inputs.
    fns = [f for f in module.functions if not module.info(f).args]
    if not fns:
        raise BenchmarkError(f"no --function= given and module '{module.name}' exports "
                             f"{len(module.functions)} functions, none without arguments: "
                             f"{', '.join(module.functions)}")
    return fns


def _module_path(args) -> str:
    """The library path of ``--module=`` (exactly one, an existing file), after checking
    ``--device=``. BenchmarkError otherwise."""
    for device in args.device or []:
        if not any(device == d or device.startswith(d + ":")
                   for d in ("local-task", "local-sync", "cuda")):
            raise BenchmarkError(f"unsupported --device={device} (ireec accepts local-task, "
                                 "local-sync, cuda; the library runs on the target it was built for)")
    modules = args.module or []
    if not modules:
        raise BenchmarkError("no module specified; use --module=libmodel.so (built by `ireec build`)")
    if len(modules) > 1:
        raise BenchmarkError("ireec benchmark-module takes one --module= (a library holds the "
                             "whole program)")
    path = modules[0]
    if not os.path.isfile(path):
        raise BenchmarkError(f"cannot open module '{path}': No such file or directory"
                             if not os.path.exists(path) else f"cannot open module '{path}': Is a directory")
    return path


def _prepare_calls(module, fns: List[str], inputs, stderr: TextIO) -> list:
    """(function name, call, clock) for each of ``fns`` on ``inputs``: a CUDA library's
    device entries timed with CUDA events when the CUDA runtime loads (else a note to
    ``stderr`` and the host-pointer entries on the wall clock). BenchmarkError when the
    inputs do not fit a function."""
    clock = None
    if _is_cuda_module(module):
        from ..runtime.cudart import CudaError, cuda_runtime

        try:
            cuda_runtime()
            clock = "cuda"
        except CudaError as e:
            stderr.write(f"note: {e}; timing the host-pointer entries (copies included) "
                         "with the wall clock\n")
    calls = []
    for fn in fns:
        info = module.info(fn)
        if len(inputs) != len(info.args):
            raise BenchmarkError(f"@{fn} takes {len(info.args)} input{'s' * (len(info.args) != 1)} "
                                 f"{info.signature}, got {len(inputs)} --input= value"
                                 f"{'s' * (len(inputs) != 1)}")
        try:
            if clock == "cuda":
                calls.append((fn, *prepare_cuda_call(module, fn, inputs)))
            else:
                calls.append((fn, prepare_call(module, fn, inputs), time.perf_counter))
        except (TypeError, ValueError, RuntimeError) as e:
            raise BenchmarkError(str(e)) from None
    return calls


def run_cli(args, stdout: TextIO, stderr: TextIO) -> int:
    """Run ``ireec benchmark-module`` with parsed ``args`` (see :func:`add_arguments`):
    tables/JSON to ``stdout``, the context to ``stderr``. Returns 0; raises BenchmarkError
    (or io_format.InputError for a bad ``--input``) for user mistakes."""
    from ..runtime import io_format
    from ..runtime.loader import load

    path = _module_path(args)
    parse_min_time(args.min_time)  # flag errors before any work
    try:
        module = load(path)
    except (OSError, ValueError, RuntimeError) as e:  # RuntimeError: constants refused
        raise BenchmarkError(str(e)) from None
    inputs = io_format.parse_inputs(args.input or [])
    fns = _select_functions(module, args.function, len(inputs))
    calls = _prepare_calls(module, fns, inputs, stderr)

    context = machine_context()
    stderr.write(format_context(context))
    stderr.flush()
    results = []
    for fn, call, real_clock in calls:
        try:
            results.append(benchmark_callable(call, f"BM_{fn}/process_time/real_time",
                                              repetitions=args.repetitions,
                                              min_time=args.min_time,
                                              warmup_time=args.warmup_time,
                                              real_clock=real_clock))
        except RuntimeError as e:
            raise BenchmarkError(str(e)) from None
    display_aggr = args.display_aggregates_only or args.report_aggregates_only
    if args.format == "json":
        stdout.write(format_json(results, context, args.time_unit, display_aggr))
    else:
        stdout.write(format_console(results, args.time_unit, display_aggr))
    stdout.flush()
    if args.out:
        if args.out_format == "json":
            text = format_json(results, context, args.time_unit, args.report_aggregates_only)
        else:
            text = format_console(results, args.time_unit, args.report_aggregates_only)
        try:
            with open(args.out, "w", encoding="utf-8") as f:
                f.write(text)
        except OSError as e:
            raise BenchmarkError(f"cannot write '{args.out}': {e.strerror or e}") from None
    return 0

"""The same ``openmp`` calls on a quiet and on a busy machine.

A library lives inside someone else's process, on a machine other programs use too. This
section times one model's call through ``ireec.load`` (``m.main(x)``: what a Python user
pays) in four situations, one after the other, in child processes (:data:`ROUNDS` per model
and wait policy, the policies in turns):

``quiet``
    nothing else of ours runs (the machine's own load is reported beside the table);
``quiet-rt``
    the same in a child of its own at real-time priority (:data:`REALTIME`), which other
    processes cannot preempt: the speed of a quiet machine, on a shared one;
``busy``
    two busy-looping processes (``python3 -c "while True: pass"``, bounded to
    :data:`LOOPER_SECONDS`) run beside it, as many as this 2-core machine has cores;
``ort``
    an ONNX Runtime session of the same model (its ``.onnx``, :data:`ORT_THREADS` intra-op
    threads, spinning allowed: ORT's default) runs back to back on another thread of the same
    process.

Each situation warms up for :data:`WARMUP_S`, then times :data:`CALLS` calls one by one with
``time.perf_counter`` (at most :data:`MAX_SECONDS` of them); the table gives the median and
the 99th percentile (nearest rank) in milliseconds, and their ratio to the ``quiet-rt`` run, with
the cores other processes of the machine kept busy meanwhile (:class:`OthersLoad`: this
machine is shared, and "quiet" only means that this benchmark adds nothing).

Wait policies (rows): ``ireec.load`` is what :func:`ireec.load` sets up when the user left
libgomp's variables alone (:data:`ireec.runtime.loader.OPENMP_ENVIRONMENT`: bounded spinning,
then sleeping); ``libgomp default`` sets ``GOMP_SPINCOUNT=300000`` in the child's
environment, libgomp's own default spin count (env.c, ``initialize_env``), which the loader
then leaves alone: the behaviour before. ``ONNX Runtime`` times ONNX Runtime's own
call (``session.run`` on the model's ``.onnx``, :data:`ORT_THREADS` intra-op threads, its
default spinning) in the same situations: what another engine's call pays on this machine,
the reference for ireec's ratios (the ``ort`` situation does not apply to it).

    python3 -m benchmarks --only busy                 # this section alone, spliced into RESULTS.md
    python3 -m benchmarks.busy --models resnet18 --calls 200 --output -
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence

from benchmarks import onnx_runtime

REPO = Path(__file__).resolve().parents[1]

SECTION_TITLE = "## Busy machine"
#: Models of ``../shared/models/torch_mlir`` timed (each has ``.const.linalg.mlir``, ``.onnx``
#: and ``arg0.npy``).
MODELS = ("resnet18", "gpt_block")
SITUATIONS = ("quiet", "busy", "ort")
#: Calls timed per situation.
CALLS = 300
#: Each (model, policy) runs in this many child processes, the policies in turns, each
#: timing its share of the calls: on a shared machine whose load changes within seconds,
#: every policy sees the same mix of load.
ROUNDS = 3
#: Seconds of untimed calls before each situation's timed ones.
WARMUP_S = 0.3
#: Seconds after which a situation stops timing even with fewer than CALLS calls.
MAX_SECONDS = 30.0
#: Busy-looping processes of the ``busy`` situation (this machine's core count: 2).
LOOPERS = 2
#: A looper ends by itself after this many seconds, should its parent die first.
LOOPER_SECONDS = 120
#: ONNX Runtime's intra-op threads in the ``ort`` situation (as benchmarks/onnx_runtime.py).
ORT_THREADS = 2
#: The command prefix of the ``quiet-rt`` run: the child's threads at real-time priority
#: (``SCHED_FIFO`` 1, inherited by libgomp's workers), so every other (normal) process waits
#: while they run: what a quiet machine gives, measured on a shared one. Linux keeps 5% of
#: each second for normal processes (``sched_rt_runtime_us``), and the run lasts a second or so.
REALTIME = ("chrt", "-f", "1")
QUIET_RT = "quiet-rt"
#: Wait policies compared: {row name: environment variables set in the child}.
POLICIES = {"ireec.load": {}, "libgomp default": {"GOMP_SPINCOUNT": "300000"}, "c, one thread": {},
            "ONNX Runtime": {}}
#: The engine of :data:`POLICIES`'s ONNX Runtime row (no ireec build: its ``.onnx`` is timed).
ORT_ENGINE = "onnxruntime"
#: Rows built for another target than ``openmp``: the single-threaded ``c`` build under the same
#: load, no thread pool at all, shows what the scheduler alone costs a call (a busy core's
#: time slice when the call's one thread is preempted); the ONNX Runtime row is no build at all.
TARGET_OF = {"c, one thread": "c", "ONNX Runtime": ORT_ENGINE}
#: libgomp's variables cleared in the child before ``POLICIES`` applies its own.
_GOMP_VARIABLES = ("GOMP_SPINCOUNT", "OMP_WAIT_POLICY")


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0-100) of ``values``, nearest rank (no interpolation)."""
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, -(-len(ordered) * q // 100) - 1))
    return ordered[int(k)]


@dataclass
class Stats:
    """Milliseconds per call of one situation: median, 99th percentile, maximum; calls timed."""

    median_ms: float
    p99_ms: float
    max_ms: float
    calls: int

    @classmethod
    def of(cls, seconds: Sequence[float]) -> "Stats":
        ms = [s * 1e3 for s in seconds]
        return cls(percentile(ms, 50), percentile(ms, 99), max(ms), len(ms))


@dataclass
class Row:
    """One model under one wait policy: Stats per situation, or why it was skipped."""

    model: str
    policy: str
    stats: Dict[str, Stats] = field(default_factory=dict)
    wait_policy: str = ""  # what the loader reported (ireec.runtime.loader.openmp_wait_policy)
    #: Per situation, the cores other processes kept busy meanwhile (:class:`OthersLoad`),
    #: averaged over the rounds; the busy loopers are this benchmark's children, not counted.
    others: Dict[str, float] = field(default_factory=dict)
    skipped: Optional[str] = None
    #: Per situation, the share of calls longer than :data:`DELAYED` times the quiet median
    #: (:func:`delayed_share`).
    delayed: Dict[str, float] = field(default_factory=dict)


#: A call counts as delayed when it takes more than this many times the quiet median (the
#: issue's bound on the 99th percentile): the 99th percentile stays under it exactly when
#: fewer than 1% of the calls are delayed.
DELAYED = 5.0


def delayed_share(seconds: Sequence[float], quiet_median_s: float) -> float:
    """The share (0-1) of ``seconds`` over :data:`DELAYED` times ``quiet_median_s``.

    With two busy-looping processes on this 2-core machine and calls back to back, the fair
    scheduler (CFS / EEVDF) leaves a caller's thread runnable but waiting a third of the time,
    in slices of about a scheduler tick (4 ms at HZ=250) against a 0.3 ms call: about one
    call in 25 waits a slice (2-7% measured for a single thread, the ``c, one thread``
    row), whatever the library does. A 99th percentile under 5x needs that share under 1%,
    which only a larger CPU share (a higher priority than the other processes') gives."""
    if not seconds or quiet_median_s <= 0:
        return float("nan")
    return sum(1 for t in seconds if t > DELAYED * quiet_median_s) / len(seconds)


# ---------------------------------------------------------------------------
# the child: one model, every situation
# ---------------------------------------------------------------------------

def _time_calls(fn: Callable[[], object], calls: int, warmup_s: float, max_s: float) -> List[float]:
    clock = time.perf_counter
    end = clock() + warmup_s
    fn()
    while clock() < end:
        fn()
    times: List[float] = []
    stop = clock() + max_s
    while len(times) < calls and clock() < stop:
        t0 = clock()
        fn()
        times.append(clock() - t0)
    return times


def _cpu_seconds() -> Optional[float]:
    """CPU seconds the whole machine has spent busy (``/proc/stat``: user, nice, system, irq,
    softirq, steal), or None where there is no /proc/stat."""
    try:
        with open("/proc/stat") as f:
            fields = f.readline().split()[1:]
        user, nice, system, _idle, _iowait, irq, softirq, steal = (int(v) for v in fields[:8])
    except (OSError, ValueError):
        return None
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


class OthersLoad:
    """Cores that processes other than this one and its children kept busy between
    :meth:`start` and :meth:`stop`: the machine's busy CPU time (``/proc/stat``) less this
    process's and its reaped children's (``os.times``), over the wall time."""

    def start(self) -> None:
        self.t0, self.cpu0, self.own0 = time.perf_counter(), _cpu_seconds(), self._own()

    def stop(self) -> Optional[float]:
        cpu1 = _cpu_seconds()
        if cpu1 is None or self.cpu0 is None:
            return None
        wall = time.perf_counter() - self.t0
        return max(0.0, (cpu1 - self.cpu0 - (self._own() - self.own0)) / wall) if wall > 0 else None

    @staticmethod
    def _own() -> float:
        t = os.times()
        return t.user + t.system + t.children_user + t.children_system


def start_loopers(n: int = LOOPERS, seconds: float = LOOPER_SECONDS) -> List[subprocess.Popen]:
    """``n`` busy-looping Python processes, each ending by itself after ``seconds``."""
    code = f"import time\nend = time.time() + {seconds!r}\nwhile time.time() < end: pass\n"
    return [subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.DEVNULL)
            for _ in range(n)]


def stop_loopers(procs: Sequence[subprocess.Popen]) -> None:
    """End the processes of :func:`start_loopers` (each by its own handle)."""
    for p in procs:
        if p.poll() is None:
            p.kill()
    for p in procs:
        p.wait()


def run_child(lib: str, x_file: str, onnx: Optional[str], situations: Sequence[str], calls: int,
              warmup_s: float, max_s: float) -> Dict[str, object]:
    """Load ``lib`` (before anything else loads libgomp), time its first function on the
    array in ``x_file`` in each situation; {"wait_policy": str, "times": {situation: [s]},
    "skipped": {situation: reason}}. With ``lib`` = :data:`ORT_ENGINE`, time an ONNX Runtime
    session of ``onnx`` instead (:data:`ORT_THREADS` threads; no ``ort`` situation)."""
    import numpy as np

    x = np.load(x_file)
    if lib == ORT_ENGINE:
        own = onnx_runtime.ort_session(Path(onnx), ORT_THREADS)
        own_feed = {own.get_inputs()[0].name: x}

        def f(_x):
            return own.run(None, own_feed)
        wait_policy = f"— (ONNX Runtime's own pool, {ORT_THREADS} threads)"
        situations = [s for s in situations if s != "ort"]
    else:
        from ireec.runtime.loader import load, openmp_wait_policy

        m = load(lib)
        f = m[m.functions[0]]
        wait_policy = openmp_wait_policy()
    out: Dict[str, object] = {"wait_policy": wait_policy, "times": {}, "skipped": {},
                              "others": {}}
    others_load = OthersLoad()
    for s in situations:
        others_load.start()
        if s == "quiet":
            out["times"][s] = _time_calls(lambda: f(x), calls, warmup_s, max_s)
        elif s == "busy":
            loopers = start_loopers()
            try:
                time.sleep(0.2)
                out["times"][s] = _time_calls(lambda: f(x), calls, warmup_s, max_s)
            finally:
                stop_loopers(loopers)
        elif s == "ort":
            try:
                sess = onnx_runtime.ort_session(Path(onnx), ORT_THREADS) if onnx else None
            except Exception as e:  # onnxruntime absent or the model not runnable
                out["skipped"][s] = f"{type(e).__name__}: {str(e).splitlines()[0][:160] if str(e) else ''}"
                continue
            if sess is None:
                out["skipped"][s] = "no .onnx file"
                continue
            feed = {sess.get_inputs()[0].name: x}
            stop = threading.Event()

            def serve():
                while not stop.is_set():
                    sess.run(None, feed)
            t = threading.Thread(target=serve, daemon=True)
            t.start()
            try:
                time.sleep(0.2)
                out["times"][s] = _time_calls(lambda: f(x), calls, warmup_s, max_s)
            finally:
                stop.set()
                t.join()
        out["others"][s] = others_load.stop()
    return out


# ---------------------------------------------------------------------------
# the parent: build, one child per model and policy, the table
# ---------------------------------------------------------------------------

def measure_busy(root: Path, build_dir: Path, log: Callable[[str], None],
                 models: Sequence[str] = MODELS, calls: int = CALLS,
                 policies: Optional[Sequence[str]] = None, rounds: int = ROUNDS,
                 realtime: bool = True) -> List[Row]:
    """One :class:`Row` per model of ``models`` under ``root`` (``../shared/models/torch_mlir``)
    and wait policy (:data:`POLICIES`): the model's ``.const.linalg.mlir`` built for
    ``openmp`` (into ``build_dir``), timed by ``rounds`` child processes per policy
    (:func:`run_child`, each timing its share of ``calls`` per situation; the policies take
    turns) whose environment has libgomp's variables removed and the policy's set; with
    ``realtime``, each round also times the quiet calls in a child run under
    :data:`REALTIME` (:data:`QUIET_RT`). Problems become ``skipped``."""
    from ireec.compiler import compile_file
    from ireec.runtime.build import build_shared_library

    rows: List[Row] = []
    policies = list(POLICIES) if policies is None else policies
    for name in models:
        folder = root / name
        mlir, onnx, x = folder / f"{name}.const.linalg.mlir", folder / f"{name}.onnx", folder / "arg0.npy"
        libs: Dict[str, object] = {ORT_ENGINE: ORT_ENGINE}
        reason = None
        if not (mlir.is_file() and x.is_file()):
            reason = f"{folder} lacks {mlir.name} or arg0.npy"
        else:
            try:
                for target in sorted({TARGET_OF.get(p, "openmp") for p in policies} - {ORT_ENGINE}):
                    out = compile_file(str(mlir), target=target, module_name=f"busy_{name}")
                    libs[target] = build_shared_library(out.files, out.module_name,
                                                        build_dir / f"libbusy_{name}_{target}.so", target=target)
            except Exception as e:  # a compile or build error: recorded
                reason = f"{type(e).__name__}: {str(e).strip().splitlines()[0][:200] if str(e).strip() else ''}"
        model_rows = [Row(name, policy) for policy in policies]
        rows += model_rows
        for row in model_rows:
            if reason:
                row.skipped = reason
            elif TARGET_OF.get(row.policy) == ORT_ENGINE and not onnx.is_file():
                row.skipped = f"{folder} has no {onnx.name}"
        if reason:
            continue
        times: Dict[str, Dict[str, List[float]]] = {policy: {} for policy in policies}
        rt_note = None
        others: Dict[str, Dict[str, List[float]]] = {policy: {} for policy in policies}
        for r in range(rounds):
            for row in model_rows:
                if row.skipped:
                    continue
                env = {k: v for k, v in os.environ.items() if k not in _GOMP_VARIABLES}
                env.update(POLICIES[row.policy])
                n = calls // rounds + (1 if r < calls % rounds else 0)
                lib = libs[TARGET_OF.get(row.policy, "openmp")]
                cmd = [sys.executable, "-m", "benchmarks.busy", "--child", str(lib), str(x),
                       "--calls", str(n)]
                if onnx.is_file():
                    cmd += ["--onnx", str(onnx)]
                try:
                    res = _run(cmd, env)
                except Exception as e:
                    row.skipped = f"{type(e).__name__}: {str(e)[:200]}"
                    log(f"  {name:<10} {row.policy:<16} skipped: {row.skipped}")
                    continue
                if realtime and rt_note is None:
                    try:
                        rt = _run(list(REALTIME) + cmd + ["--situations", "quiet"], env)
                        res["times"][QUIET_RT] = rt["times"]["quiet"]
                    except Exception as e:  # no chrt, or no permission for SCHED_FIFO
                        rt_note = f"{QUIET_RT}: `{' '.join(REALTIME)}` failed ({type(e).__name__}: {str(e)[:120]})"
                row.wait_policy = ("— (no thread pool)" if TARGET_OF.get(row.policy) == "c"
                                   else res["wait_policy"])
                for s, ts in res["times"].items():
                    times[row.policy].setdefault(s, []).extend(ts)
                for s, cores in res.get("others", {}).items():
                    if cores is not None:
                        others[row.policy].setdefault(s, []).append(cores)
                for s, why in res["skipped"].items():
                    row.skipped = f"{s}: {why}"
        for row in model_rows:
            if rt_note and not row.skipped:
                row.skipped = rt_note
            row.stats = {s: Stats.of(ts) for s, ts in times[row.policy].items() if ts}
            q = row.stats.get(QUIET_RT) or row.stats.get("quiet")
            if q is not None:
                row.delayed = {s: delayed_share(ts, q.median_ms / 1e3)
                               for s, ts in times[row.policy].items() if ts and s in SITUATIONS}
            row.others = {s: sum(v) / len(v) for s, v in others[row.policy].items() if v}
            log(f"  {name:<10} {row.policy:<16} " + "   ".join(
                f"{s} {st.median_ms:.3f}/{st.p99_ms:.3f} ms" for s, st in row.stats.items())
                + "   others " + "/".join(f"{row.others.get(s, float('nan')):.2f}" for s in SITUATIONS))
    return rows


def _run(cmd: List[str], env: Dict[str, str]) -> Dict[str, object]:
    """Run a child (:func:`run_child`) and return its JSON; RuntimeError when it fails."""
    proc = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=len(SITUATIONS) * (MAX_SECONDS + 30) + 60)
    if proc.returncode != 0:
        raise RuntimeError((proc.stderr.strip().splitlines() or ["child failed"])[-1])
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _load_average() -> str:
    try:
        return ", ".join(f"{v:.2f}" for v in os.getloadavg())
    except (AttributeError, OSError):
        return "unknown"


def context_lines(load_before: str, partial: bool = False) -> List[str]:
    """Date, CPU and load lines of the section."""
    import datetime
    import platform

    lines = [f"- date {datetime.datetime.now(datetime.timezone.utc).isoformat(timespec='seconds')}; "
             f"{os.cpu_count()} cores; load average {load_before} before, {_load_average()} after "
             "(other work on this shared machine included)",
             f"- Python {platform.python_version()}; onnxruntime {_ort_version() or 'absent'}"]
    if partial:
        lines.append("- from a partial run: `python3 -m benchmarks --only busy`, not the whole `make bench`")
    return lines


def _ort_version() -> str:
    try:
        import onnxruntime

        return onnxruntime.__version__
    except Exception:
        return ""


def render_busy(rows: Sequence[Row], context: Sequence[str], calls: int = CALLS,
                rounds: int = ROUNDS) -> List[str]:
    """The RESULTS.md section."""
    L = [SECTION_TITLE, "",
         "Generated by `python3 -m benchmarks --only busy` (also part of `make bench`; "
         "`benchmarks/busy.py`). Each model's `.const.linalg.mlir` from "
         "`../shared/models/torch_mlir`, built for `openmp` (2 threads), called through "
         f"`ireec.load` (`m.main(x)`): {calls} calls per situation, timed one by one after "
         f"{WARMUP_S:g} s of warm-up, in {rounds} child processes per row, the rows' in turns. "
         "Situations, one after the other in each child: quiet (nothing added by the "
         "benchmark); beside two busy-looping processes (`python3 -c \"while True: pass\"` "
         f"x2); with an ONNX Runtime session of the same model's `.onnx` ({ORT_THREADS} intra-op "
         "threads, spinning allowed: ORT's default) running back to back on another thread of "
         "the same process; and quiet again in a child of its own run with `chrt -f 1` (real-time "
         "priority, inherited by libgomp's threads: no normal process preempts them, so this is "
         "the speed of a quiet machine, measured on a shared one). Milliseconds per call, "
         "median / 99th percentile; `x quiet` divides each by the real-time quiet run's (by "
         "the plain quiet run's where there is none). `others` is how many cores other processes of this shared "
         "machine kept busy meanwhile (quiet / busy / ORT; `/proc/stat` less this benchmark's "
         "own time). Rows: `ireec.load` is the wait policy the loader gives libgomp when the "
         "environment sets none (`GOMP_SPINCOUNT=3000`: bounded spinning, then sleeping); "
         "`libgomp default` sets `GOMP_SPINCOUNT=300000`, libgomp's own default (about 4.5 ms "
         "of spinning here), which the loader leaves alone: the behaviour before; `c, one "
         "thread` is the model's single-threaded `c` build in the same situations, no thread "
         "pool at all: what the scheduler alone costs a call whose one thread is preempted; "
         f"`ONNX Runtime` is ONNX Runtime's own call (`session.run` on the `.onnx`, {ORT_THREADS} "
         "intra-op threads, its default spinning) in the same situations: what another engine pays "
         "on this machine (the ORT-in-process situation does not apply to it). `delayed` is "
         f"the share of the busy situation's calls that took more than {DELAYED:g}x the quiet "
         "median: the 99th percentile is under that bound exactly when the share is under 1%. "
         "Back-to-back calls beside two busy loops on 2 cores leave every engine's threads "
         "waiting about a third of the time in scheduler slices of about 4 ms, so the share "
         "stays at several percent even with no thread pool at all (`c, one thread`); see "
         "`benchmarks/busy.py` (`delayed_share`).", ""]
    L += list(context) + [""]
    L += ["| model | wait policy | libgomp read | quiet, real-time ms | quiet ms | busy ms | x quiet | "
          "delayed | ORT in process ms | x quiet | others (cores) |",
          "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    notes = []

    def cell(st: Optional[Stats]) -> str:
        return "—" if st is None else f"{st.median_ms:.3f} / {st.p99_ms:.3f}"

    def ratio(st: Optional[Stats], q: Optional[Stats]) -> str:
        if st is None or q is None or not q.median_ms or not q.p99_ms:
            return "—"
        return " / ".join(f"{v:.1f}×" if v < 10 else f"{v:.0f}×"
                          for v in (st.median_ms / q.median_ms, st.p99_ms / q.p99_ms))

    def share(v: Optional[float]) -> str:
        return "—" if v is None or v != v else f"{100 * v:.1f}%"

    for r in rows:
        if r.skipped:
            notes.append(f"- `{r.model}` / {r.policy}: {r.skipped}")
        if not r.stats:
            L.append(f"| {r.model} | {r.policy} | — | — | — | — | — | — | — | — | — |")
            continue
        q = r.stats.get(QUIET_RT) or r.stats.get("quiet")
        others = " / ".join(f"{r.others[s]:.2f}" if s in r.others else "—" for s in SITUATIONS)
        L.append(f"| {r.model} | {r.policy} | {r.wait_policy or '—'} | {cell(r.stats.get(QUIET_RT))} | "
                 f"{cell(r.stats.get('quiet'))} | "
                 f"{cell(r.stats.get('busy'))} | {ratio(r.stats.get('busy'), q)} | "
                 f"{share(r.delayed.get('busy'))} | "
                 f"{cell(r.stats.get('ort'))} | {ratio(r.stats.get('ort'), q)} | {others} |")
    if notes:
        L += [""] + notes
    return L


def main(argv: Optional[Sequence[str]] = None) -> int:
    p = argparse.ArgumentParser(prog="python3 -m benchmarks.busy", description=__doc__.split("\n\n")[0])
    p.add_argument("--child", nargs=2, metavar=("LIB", "X_NPY"), help=argparse.SUPPRESS)
    p.add_argument("--onnx", help=argparse.SUPPRESS)
    p.add_argument("--situations", default=",".join(SITUATIONS), help=argparse.SUPPRESS)
    p.add_argument("--calls", type=int, default=CALLS, help=f"calls timed per situation (default {CALLS})")
    p.add_argument("--models", default=",".join(MODELS), help=f"comma-separated (default {','.join(MODELS)})")
    p.add_argument("--policies", default=",".join(POLICIES),
                   help=f"comma-separated wait policies (default {','.join(POLICIES)})")
    p.add_argument("--build-dir", default=str(REPO / "build" / "bench"))
    p.add_argument("--output", default="-", help="'-' (default): print the section")
    args = p.parse_args(argv)
    if args.child:
        res = run_child(args.child[0], args.child[1], args.onnx, args.situations.split(","),
                        args.calls, WARMUP_S, MAX_SECONDS)
        print(json.dumps(res))
        return 0
    from benchmarks.run import shared_dir

    load = _load_average()
    build_dir = Path(args.build_dir)
    build_dir.mkdir(parents=True, exist_ok=True)
    rows = measure_busy(shared_dir() / "models" / "torch_mlir", build_dir,
                        lambda m: print(m, file=sys.stderr, flush=True),
                        [m for m in args.models.split(",") if m], args.calls,
                        [q for q in args.policies.split(",") if q])
    lines = render_busy(rows, context_lines(load, partial=True), args.calls)
    if args.output == "-":
        print("\n".join(lines))
    else:
        Path(args.output).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

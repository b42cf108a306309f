"""Compile cost by weight size: ``ireec build`` against ``iree-compile`` on const-weight MLPs.

    python3 -m benchmarks --only weight-scale                     # 1 M, 25 M, 100 M parameters
    python3 -m benchmarks --only weight-scale --weight-sizes 1 --weight-repeats 1

For each size (millions of parameters), ``benchmarks/gen_weights.py`` writes the MLP
``x[8,1024] -> h relu -> h relu -> 1024`` with its weights as hex ``dense`` literals
(``hidden_for`` picks ``h``), and two commands run one after the other, each as its own
process, ``repeats`` times, alternating:

- ``python3 -m ireec.cli build FILE -o LIB``: the whole build, C compiler, assembler and
  linker included;
- ``iree-compile --iree-hal-target-backends=llvm-cpu --iree-llvmcpu-target-cpu=host FILE
  -o OUT.vmfb`` (``pip install -e '.[iree]'``); reported as skipped when not installed. The
  binary is run directly: the ``iree-compile`` on PATH is a Python launcher whose own
  start-up and memory would be counted otherwise (:func:`iree_compile_binary`).

Each run is measured by :func:`run_tree`: wall-clock seconds and the peak resident memory
of the whole process tree (the sum over the process and its live descendants, sampled every
few milliseconds), and for comparison ``ru_maxrss`` (the largest single process of the
tree). The table gives the median wall time and the largest peak of the repeats. Then the
library is loaded with ``ireec.load`` and ``main`` called on a fixed random ``x`` and compared
with ``gen_weights.reference`` (and IREE's module, when ``iree.runtime`` imports, the same
way); the check runs in a child process so that a crash in generated code is reported, not
fatal. Generated files live in a temporary folder removed after each size.

A command that fails, runs past the time limit, or whose tree's memory passes the limit
(by default 90 % of the memory available when it starts, so the machine does not run out)
is killed and reported as such, with the reason. Nothing here is a test: times depend on
the machine and its load.
"""
from __future__ import annotations

import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from . import gen_weights
from .compile_time import IREE_COMPILE_FLAGS, iree_compile_tool

REPO = Path(__file__).resolve().parents[1]
DEFAULT_SIZES = (1.0, 25.0, 100.0)
QUICK_SIZES = (1.0, 25.0)
DEFAULT_REPEATS = 3
SECTION_TITLE = "## Compile cost by weight size"
#: Seed of the input ``x`` [8, 1024] of the correctness check (uniform in [-1, 1)).
CHECK_SEED = 20261128
RTOL = ATOL = 1e-4
#: Seconds between two samples of the process tree's memory.
SAMPLE_INTERVAL_S = 0.005
#: Share of MemAvailable (read when a command starts) its process tree may use before it is
#: killed.
RSS_LIMIT_SHARE = 0.9
PAGE_SIZE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
#: /proc/<pid>/stat flags bit of a process that forked and has not called exec (PF_FORKNOEXEC).
_PF_FORKNOEXEC = 0x40
_TAIL_CHARS = 2000


# ---------------------------------------------------------------------------
# process-tree memory
# ---------------------------------------------------------------------------

@dataclass
class TreeRun:
    """One command's run under :func:`run_tree`.

    ``wall_s``: seconds from start to exit; ``peak_rss_bytes``: the largest sum of resident
    bytes of the process and its live descendants over the samples; ``maxrss_bytes``: the
    largest resident size of any single process of the tree that was waited for
    (``ru_maxrss`` of ``wait4``), None when unknown; ``returncode``: the exit status, or
    minus the signal number that ended it; ``output_tail``: the last characters of its stdout
    and stderr together; ``killed``: why it was killed (time or memory limit), else None;
    ``samples``: how many samples were taken."""

    wall_s: float
    peak_rss_bytes: int
    returncode: int
    output_tail: str
    maxrss_bytes: Optional[int] = None
    killed: Optional[str] = None
    samples: int = 0


def _read_stat(pid: str) -> Optional[Tuple[int, int, int, int, int]]:
    """(ppid, session id, resident pages, virtual size in bytes, flags) of ``pid`` from
    /proc/<pid>/stat, or None when it is gone."""
    try:
        fd = os.open(f"/proc/{pid}/stat", os.O_RDONLY)
    except OSError:
        return None
    try:
        data = os.read(fd, 4096)
    except OSError:
        return None
    finally:
        os.close(fd)
    # "pid (comm) state ppid pgrp session tty tpgid flags ... vsize rss" (fields 1-24); comm
    # may hold spaces and ')'.
    fields = data.rpartition(b")")[2].split()
    try:
        return int(fields[1]), int(fields[3]), int(fields[21]), int(fields[20]), int(fields[6])
    except (IndexError, ValueError):
        return None


def _is_image_of(st, parent) -> bool:
    """Whether the process of stat ``st`` is still an unchanged copy of ``parent``'s memory:
    forked (or vforked, sharing its parent's memory outright) and not yet exec'd, with the
    same virtual and resident sizes. Such a child adds no memory of its own and is not
    counted."""
    return (parent is not None and st[4] & _PF_FORKNOEXEC != 0
            and st[2] == parent[2] and st[3] == parent[3])


def _children_file_supported(pid: int) -> bool:
    return os.path.exists(f"/proc/{pid}/task/{pid}/children")


def _tree_rss_children_files(root: int) -> int:
    """Resident bytes of ``root`` and its descendants, found through
    /proc/<pid>/task/<tid>/children (kernels with CONFIG_PROC_CHILDREN)."""
    total, todo, seen = 0, [(root, None)], set()
    while todo:
        pid, parent = todo.pop()
        if pid in seen:
            continue
        seen.add(pid)
        st = _read_stat(str(pid))
        if st is None:
            continue
        if not _is_image_of(st, parent):
            total += st[2]
        try:
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tids:
            try:
                with open(f"/proc/{pid}/task/{tid}/children", "rb") as f:
                    todo.extend((int(c), st) for c in f.read().split())
            except (OSError, ValueError):
                pass
    return total * PAGE_SIZE


def _tree_rss_scan(root: int) -> int:
    """Resident bytes of ``root`` and its descendants, found by reading every
    /proc/<pid>/stat: a process is in the tree when its parent is, or when it is in the
    session ``root`` leads (so that orphans re-parented to init still count)."""
    procs: Dict[int, Tuple[int, int, int, int, int]] = {}
    with os.scandir("/proc") as it:
        for entry in it:
            if entry.name.isdigit():
                st = _read_stat(entry.name)
                if st is not None:
                    procs[int(entry.name)] = st
    if root not in procs:
        return 0
    children: Dict[int, List[int]] = {}
    for pid, st in procs.items():
        children.setdefault(st[0], []).append(pid)
    members = {pid for pid, st in procs.items() if st[1] == root}
    todo = [root]
    while todo:
        pid = todo.pop()
        members.add(pid)
        todo.extend(c for c in children.get(pid, ()) if c not in members)
    return sum(procs[p][2] for p in members
               if not _is_image_of(procs[p], procs.get(procs[p][0]))) * PAGE_SIZE


def mem_available_bytes() -> Optional[int]:
    """MemAvailable of /proc/meminfo in bytes, or None where it cannot be read."""
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def run_tree(cmd: Sequence[str], timeout_s: Optional[float] = None,
             cwd: Optional[Path] = None, interval_s: float = SAMPLE_INTERVAL_S,
             rss_limit_bytes: Optional[int] = None,
             env: Optional[Dict[str, str]] = None) -> TreeRun:
    """Run ``cmd`` (its own process, in a new session) to completion and measure it (see
    :class:`TreeRun`). A thread samples the resident memory of the process tree every
    ``interval_s`` seconds; processes that live shorter than that may be missed, and pages
    shared between processes count once per process, except that a child forked (or
    vforked) from its parent and not yet exec'd, still of its parent's exact size, is not
    counted: it adds no memory of its own. ``timeout_s``: seconds after which the
    whole tree is killed (SIGKILL); ``rss_limit_bytes``: the tree is killed as soon as a
    sample exceeds it. Linux only (reads /proc). Raises OSError when ``cmd`` cannot be
    started."""
    out = tempfile.TemporaryFile()
    try:
        t0 = time.perf_counter()
        proc = subprocess.Popen(list(cmd), cwd=None if cwd is None else str(cwd), env=env,
                                stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)
        pid = proc.pid
        tree_rss = _tree_rss_children_files if _children_file_supported(pid) else _tree_rss_scan
        state = {"peak": 0, "samples": 0, "killed": None}
        done = threading.Event()

        def kill(reason: str) -> None:
            if state["killed"] is None:
                state["killed"] = reason
            try:
                os.killpg(pid, signal.SIGKILL)
            except OSError:
                pass

        def sample() -> None:
            deadline = None if timeout_s is None else t0 + timeout_s
            while not done.is_set():
                rss = tree_rss(pid)
                state["samples"] += 1
                if rss > state["peak"]:
                    state["peak"] = rss
                if rss_limit_bytes is not None and rss > rss_limit_bytes:
                    kill(f"its processes' memory passed {rss_limit_bytes / 1e6:.0f} MB")
                if deadline is not None and time.perf_counter() > deadline:
                    kill(f"did not finish within {timeout_s:g} s")
                done.wait(interval_s)

        sampler = threading.Thread(target=sample, name="tree-rss", daemon=True)
        sampler.start()
        try:
            _, status, usage = os.wait4(pid, 0)
        except BaseException:  # interrupted: leave nothing running
            kill("interrupted")
            os.wait4(pid, 0)
            raise
        finally:
            wall = time.perf_counter() - t0
            done.set()
            sampler.join()
        proc.returncode = os.waitstatus_to_exitcode(status)
        # Whatever the session left behind (a daemonised grandchild) goes with it.
        try:
            os.killpg(pid, signal.SIGKILL)
        except OSError:
            pass
        out.seek(0, os.SEEK_END)
        size = out.tell()
        out.seek(max(0, size - 4 * _TAIL_CHARS))
        tail = out.read().decode("utf-8", "replace")[-_TAIL_CHARS:]
    finally:
        out.close()
    return TreeRun(wall_s=wall, peak_rss_bytes=state["peak"], returncode=proc.returncode,
                   output_tail=tail, maxrss_bytes=usage.ru_maxrss * 1024,
                   killed=state["killed"], samples=state["samples"])


def peak_tree_rss(cmd: Sequence[str], timeout_s: Optional[float] = None,
                  cwd: Optional[Path] = None, interval_s: float = SAMPLE_INTERVAL_S,
                  rss_limit_bytes: Optional[int] = None) -> Tuple[float, int, int, str]:
    """Run ``cmd`` and return ``(wall_s, peak_rss_bytes, returncode, stderr_tail)``.

    ``peak_rss_bytes`` is the largest sum, over samples taken every ``interval_s`` seconds
    (default 5 ms), of the resident bytes of the process and all its live descendants
    (/proc/<pid>/stat's rss field × the page size): a compiler driver and the ``cc``, ``as``
    and ``ld`` it waits for count together. ``returncode`` is the exit status, or minus the
    signal that ended it; ``stderr_tail`` the last 2,000 characters of its stderr (stdout
    merged in), followed by a line saying why it was killed when ``timeout_s`` or
    ``rss_limit_bytes`` ended it. Raises OSError when ``cmd`` cannot be started. See
    :func:`run_tree` for the full record."""
    r = run_tree(cmd, timeout_s=timeout_s, cwd=cwd, interval_s=interval_s,
                 rss_limit_bytes=rss_limit_bytes)
    tail = r.output_tail + (f"\nkilled: {r.killed}\n" if r.killed else "")
    return r.wall_s, r.peak_rss_bytes, r.returncode, tail


# ---------------------------------------------------------------------------
# the benchmark
# ---------------------------------------------------------------------------

@dataclass
class CommandResult:
    """The repeats of one command on one size: their runs, or why there are none."""

    runs: List[TreeRun] = field(default_factory=list)
    failed: Optional[str] = None

    @property
    def wall_s(self) -> Optional[float]:
        """Median wall-clock seconds of the runs (None when none succeeded)."""
        if not self.runs or self.failed:
            return None
        return statistics.median(r.wall_s for r in self.runs)

    @property
    def first_s(self) -> Optional[float]:
        """Wall-clock seconds of the first run (for ireec: with an empty micro-kernel cache)."""
        return None if not self.runs or self.failed else self.runs[0].wall_s

    @property
    def peak_rss_bytes(self) -> Optional[int]:
        """Largest tree peak of the runs."""
        if not self.runs or self.failed:
            return None
        return max(r.peak_rss_bytes for r in self.runs)

    @property
    def maxrss_bytes(self) -> Optional[int]:
        """Largest ``ru_maxrss`` of the runs."""
        vals = [r.maxrss_bytes for r in self.runs if r.maxrss_bytes is not None]
        return max(vals) if vals and not self.failed else None


@dataclass
class Check:
    """Output of ``main`` against ``gen_weights.reference``: the largest absolute
    difference and whether ``allclose(rtol=atol=1e-4)`` holds, or why there is none."""

    max_abs_err: Optional[float] = None
    ok: Optional[bool] = None
    failed: Optional[str] = None


@dataclass
class WeightResult:
    """One size: the generated model's dimensions and file sizes, both commands, checks."""

    millions: float
    hidden: int
    params: int
    mlir_bytes: int = 0
    lib_bytes: Optional[int] = None
    ext_bytes: Optional[int] = None  # a constants file written beside the library
    vmfb_bytes: Optional[int] = None
    ireec: CommandResult = field(default_factory=CommandResult)
    ireec_host: CommandResult = field(default_factory=CommandResult)
    iree: CommandResult = field(default_factory=CommandResult)
    check: Check = field(default_factory=Check)
    host_check: Check = field(default_factory=Check)
    iree_check: Check = field(default_factory=Check)


def iree_compile_binary() -> Optional[str]:
    """The ``iree-compile`` executable itself, or None when not installed. The
    ``iree-compile`` on PATH from ``iree-base-compiler`` is a Python script (behind a pyenv
    shim, if any) that imports ``iree.compiler`` and then runs this binary as its child: its
    memory would count in the tree and its start-up in the time. Falls back to that script
    where the binary cannot be located."""
    script = iree_compile_tool()
    if script is None:
        return None
    try:
        proc = subprocess.run([sys.executable, "-c", "from iree.compiler.tools.binaries import "
                               "find_tool; print(find_tool('iree-compile'))"],
                              capture_output=True, text=True, timeout=120)
        lines = proc.stdout.strip().splitlines() if proc.returncode == 0 else []
        exe = lines[-1] if lines else ""
    except (OSError, subprocess.SubprocessError):
        exe = ""
    return os.path.realpath(exe) if exe and os.access(exe, os.X_OK) else script


def _describe_failure(r: TreeRun) -> str:
    if r.killed:
        return f"killed: {r.killed}"
    lines = [ln for ln in r.output_tail.splitlines() if ln.strip()]
    last = lines[-1][:200] if lines else ""
    if r.returncode < 0:
        try:
            name = signal.Signals(-r.returncode).name
        except ValueError:
            name = f"signal {-r.returncode}"
        return f"ended by {name}" + (f": {last}" if last else "")
    return f"exit status {r.returncode}: {last}"


def _rss_limit() -> Optional[int]:
    avail = mem_available_bytes()
    return None if avail is None else int(avail * RSS_LIMIT_SHARE)


def ireec_env(cache: Path) -> Dict[str, str]:
    """The environment ``ireec build`` is timed in: a user's, i.e. Python writes and reuses
    its bytecode (``PYTHONDONTWRITEBYTECODE``, set on some machines, removed: with it every
    run compiles ireec's ~150 modules again, ~0.45 s), and a micro-kernel cache of this run's
    own (``IREEC_CACHE_DIR``), empty at the first build, so that build pays for compiling
    the micro-kernel family once (ireec/runtime/ukernel_objects.py)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["IREEC_CACHE_DIR"] = str(cache)
    return env


def _run_once(cmd: Sequence[str], res: CommandResult, timeout_s: float,
              env: Optional[Dict[str, str]] = None) -> None:
    """Run ``cmd`` once (in ``env``, default this process's) and add it to ``res``
    (``failed`` on the first failure)."""
    if res.failed:
        return
    try:
        r = run_tree(cmd, timeout_s=timeout_s, cwd=REPO, rss_limit_bytes=_rss_limit(), env=env)
    except OSError as e:
        res.failed = f"cannot run {cmd[0]}: {e}"
        return
    res.runs.append(r)
    if r.returncode != 0 or r.killed:
        res.failed = _describe_failure(r)


def check_input() -> np.ndarray:
    """The fixed ``x`` [8, 1024] float32 of the correctness check."""
    rng = np.random.default_rng(CHECK_SEED)
    x = rng.uniform(-1.0, 1.0, size=(gen_weights.BATCH, gen_weights.IO_WIDTH))
    return x.astype(np.float32)


def compare(got, hidden: int) -> Check:
    """``got`` (the module's output on :func:`check_input`) against the numpy reference."""
    ref = gen_weights.reference(check_input(), gen_weights.weights(hidden))
    got = np.asarray(got)
    if got.shape != ref.shape:
        return Check(failed=f"output shape {got.shape}, expected {ref.shape}")
    err = float(np.max(np.abs(got.astype(np.float64) - ref.astype(np.float64))))
    return Check(err, bool(np.allclose(got, ref, rtol=RTOL, atol=ATOL)))


def run_ireec_lib(lib: Path):
    """``main`` of the ireec library ``lib`` on :func:`check_input`."""
    import ireec

    return ireec.load(str(lib)).main(check_input())


def run_iree_vmfb(vmfb: Path):
    """``main`` of IREE's module ``vmfb`` on :func:`check_input` (``local-sync``)."""
    import iree.runtime as rt

    m = rt.load_vm_flatbuffer_file(str(vmfb), driver="local-sync")
    out = m.main(check_input())
    return out.to_host() if hasattr(out, "to_host") else out


def check_in_child(kind: str, path: Path, hidden: int, timeout_s: float) -> Check:
    """Run the check of ``path`` (``kind``: ``ireec`` or ``iree``) in a child process, so that
    a crash in the module is reported rather than fatal."""
    code = ("import json, sys; from pathlib import Path; from benchmarks import weight_scale as w; "
            "kind, path, hidden = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3]); "
            "run = w.run_ireec_lib if kind == 'ireec' else w.run_iree_vmfb; "
            "c = w.compare(run(path), hidden); "
            "print('CHECK ' + json.dumps([c.max_abs_err, c.ok, c.failed]))")
    try:
        proc = subprocess.run([sys.executable, "-c", code, kind, str(path), str(hidden)],
                              cwd=str(REPO), capture_output=True, text=True, errors="replace",
                              timeout=timeout_s)
    except subprocess.TimeoutExpired:
        return Check(failed=f"check did not finish within {timeout_s:g} s")
    for line in proc.stdout.splitlines():
        if line.startswith("CHECK "):
            err, ok, failed = json.loads(line[6:])
            return Check(err, ok, failed)
    lines = [ln for ln in (proc.stderr or proc.stdout).splitlines() if ln.strip()]
    return Check(failed=f"check exit status {proc.returncode}: {lines[-1][:200] if lines else ''}")


def measure_size(millions: float, work: Path, repeats: int, timeout_s: float,
                 iree_tool: Optional[str], log, check_iree: bool = True) -> WeightResult:
    """Generate the model of ``millions`` parameters under ``work``, time both commands
    ``repeats`` times (alternating) and check the outputs."""
    hidden = gen_weights.hidden_for(millions)
    r = WeightResult(millions, hidden, gen_weights.param_count(hidden))
    src = gen_weights.write_mlp(work / f"mlp_{hidden}.mlir", hidden)
    r.mlir_bytes = src.stat().st_size
    lib, vmfb = work / f"libmlp_{hidden}.so", work / f"mlp_{hidden}.vmfb"
    ireec_cmd = [sys.executable, "-m", "ireec.cli", "build", str(src), "-o", str(lib)]
    lib_host = work / f"libmlp_{hidden}_host.so"
    host_cmd = [sys.executable, "-m", "ireec.cli", "build", str(src), "-o", str(lib_host),
                "--target-cpu=host"]
    iree_cmd = (None if iree_tool is None
                else [iree_tool, *IREE_COMPILE_FLAGS, str(src), "-o", str(vmfb)])
    if iree_cmd is None:
        r.iree.failed = "iree-compile not installed (pip install -e '.[iree]')"
    env = ireec_env(work / "cache")
    for i in range(repeats):
        _run_once(ireec_cmd, r.ireec, timeout_s, env)
        log(f"  [{i + 1}/{repeats}] ireec build   {_fmt_run(r.ireec)}")
        _run_once(host_cmd, r.ireec_host, timeout_s, env)
        log(f"  [{i + 1}/{repeats}] ireec build --target-cpu=host {_fmt_run(r.ireec_host)}")
        if iree_cmd is not None:
            _run_once(iree_cmd, r.iree, timeout_s)
            log(f"  [{i + 1}/{repeats}] iree-compile  {_fmt_run(r.iree)}")
    if not r.ireec.failed and lib.is_file():
        r.lib_bytes = lib.stat().st_size
        ext = lib.with_suffix(".bin")
        r.ext_bytes = ext.stat().st_size if ext.is_file() else None
        r.check = check_in_child("ireec", lib, hidden, timeout_s)
    else:
        r.check = Check(failed="not built")
    if not r.ireec_host.failed and lib_host.is_file():
        r.host_check = check_in_child("ireec", lib_host, hidden, timeout_s)
    else:
        r.host_check = Check(failed="not built")
    if iree_cmd is not None and not r.iree.failed and vmfb.is_file():
        r.vmfb_bytes = vmfb.stat().st_size
        if check_iree:
            r.iree_check = check_in_child("iree", vmfb, hidden, timeout_s)
        else:
            r.iree_check = Check(failed="not checked")
    log(f"  check: ireec {_fmt_check(r.check)}; --target-cpu=host {_fmt_check(r.host_check)}; "
        f"iree-compile {_fmt_check(r.iree_check)}")
    return r


def run_weight_scale(sizes: Sequence[float], repeats: int, timeout_s: float, log,
                     work_parent: Optional[Path] = None) -> List[WeightResult]:
    """Measure every size in order (see the module docstring). Each size's files go to a
    new temporary folder under ``work_parent`` (default: the system's temporary folder),
    removed when that size is done."""
    if work_parent is not None:
        Path(work_parent).mkdir(parents=True, exist_ok=True)
    tool = iree_compile_binary()
    log(f"iree-compile: {tool or 'not installed'}")
    try:
        import iree.runtime  # noqa: F401
        check_iree = True
    except ImportError:
        check_iree = False
    results = []
    for m in sizes:
        h = gen_weights.hidden_for(m)
        log(f"weight scale: {m:g} M parameters (hidden width {h}, "
            f"{4 * gen_weights.param_count(h) / 1e6:.0f} MB of f32)")
        parent = None if work_parent is None else str(work_parent)
        with tempfile.TemporaryDirectory(prefix="ireec-weight-scale-", dir=parent) as d:
            results.append(measure_size(m, Path(d), repeats, timeout_s, tool, log, check_iree))
    return results


# ---------------------------------------------------------------------------
# RESULTS.md
# ---------------------------------------------------------------------------

def _mb(v: Optional[float]) -> str:
    if v is None:
        return "—"
    v = v / 1e6
    return f"{v:.0f}" if v >= 100 else f"{v:.1f}" if v >= 1 else f"{v:.2f}"


def _s(v: Optional[float]) -> str:
    return "—" if v is None else f"{v:.1f}" if v >= 10 else f"{v:.2f}"


def _ratio(a: Optional[float], b: Optional[float]) -> str:
    return "—" if a is None or b is None or b <= 0 else f"{a / b:.2f}×"


def _fmt_run(c: CommandResult) -> str:
    if c.failed:
        return f"failed: {c.failed}"
    r = c.runs[-1]
    return f"{r.wall_s:8.2f} s wall, tree peak {r.peak_rss_bytes / 1e6:8.0f} MB " \
           f"(largest process {(r.maxrss_bytes or 0) / 1e6:.0f} MB, {r.samples} samples)"


def _fmt_check(c: Check) -> str:
    if c.failed:
        return c.failed
    return f"{'pass' if c.ok else 'FAIL'} (max abs error {c.max_abs_err:.2e})"


def _cell_check(c: Check) -> str:
    if c.failed:
        return "—"
    return f"{'yes' if c.ok else '**no**'} ({c.max_abs_err:.1e})"


def _cell(c: CommandResult, value: str) -> str:
    return "failed" if c.failed else value


def render_weight_scale(results: Sequence[WeightResult], context: Dict[str, str],
                        repeats: int) -> List[str]:
    """The ``## Compile cost by weight size`` section of RESULTS.md (Markdown lines)."""
    L = [SECTION_TITLE, "",
         "Generated by `python3 -m benchmarks --only weight-scale` (also part of `make bench`). "
         "Input: `benchmarks/gen_weights.py`'s JAX-style StableHLO MLP "
         "x[8,1024] → h, relu → h, relu → 1024 with its weights as hex `dense` constants "
         "(f32). Each command ran as its own process, one after the other, "
         f"{repeats} time{'s' if repeats != 1 else ''}, alternating: `ireec build` is "
         "`python3 -m ireec.cli build FILE -o LIB` (C compiler, assembler and linker "
         "included; portable code with AVX-512/AVX2/baseline clones), then the same with "
         "`--target-cpu=host` (what iree-compile's flags below ask for: code for this CPU), "
         "both in a user's environment (Python's bytecode cached; a micro-kernel cache of the "
         "run's own, empty before the first build, whose time is in parentheses: it compiles "
         "the sgemm family once), "
         f"`iree-compile` is `iree-compile {' '.join(IREE_COMPILE_FLAGS)} FILE -o "
         "OUT.vmfb` (iree-base-compiler's binary, run directly rather than through the "
         "Python launcher script on PATH). Wall seconds are the median of the runs, peak RSS "
         "the largest of them (ireec: of both builds); ratios are ireec over iree-compile "
         "(below 1: ireec is faster or smaller). `correct` (default build, host build): "
         "`ireec.load(LIB).main(x)` on a fixed random x against numpy "
         "(`gen_weights.reference`, float64), allclose with rtol = atol = 1e-4, and the "
         "largest absolute error.", "",
         f"- {context.get('machine', '')}",
         f"- {context.get('tools', '')}",
         f"- Peak RSS is that of the whole process tree: every {SAMPLE_INTERVAL_S * 1e3:g} ms "
         "a thread sums the resident size (`/proc/<pid>/stat`'s rss × page size) of the "
         "command and all its live descendants, so Python, `cc`, `as` and `ld` running at "
         "once count together (pages shared between processes once per process, but a child "
         "forked and not yet exec'd, still its parent's image, not at all; a process shorter "
         "than a sample may be missed); the table keeps the largest sum.", "",
         "| parameters | weight MB | .mlir MB | ireec build s (first) "
         "| ireec --target-cpu=host s (first) | iree-compile s | wall ratio (host) "
         "| ireec peak RSS MB | iree-compile peak RSS MB | RSS ratio | output .so MB "
         "| correct (max abs error) |",
         "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    notes, extra = [], []
    for r in results:
        b, h, i = r.ireec, r.ireec_host, r.iree
        so = _mb(r.lib_bytes) + (f" + {_mb(r.ext_bytes)} .bin" if r.ext_bytes else "")
        peak = max([c.peak_rss_bytes for c in (b, h) if c.peak_rss_bytes is not None] or [0]) or None
        L.append(f"| {r.params / 1e6:.2f} M (h {r.hidden}) | {_mb(4 * r.params)} | "
                 f"{_mb(r.mlir_bytes)} | {_cell(b, f'{_s(b.wall_s)} ({_s(b.first_s)})')} | "
                 f"{_cell(h, f'{_s(h.wall_s)} ({_s(h.first_s)})')} | {_cell(i, _s(i.wall_s))} | "
                 f"{_ratio(b.wall_s, i.wall_s)} ({_ratio(h.wall_s, i.wall_s)}) | "
                 f"{_mb(peak)} | {_cell(i, _mb(i.peak_rss_bytes))} | "
                 f"{_ratio(peak, i.peak_rss_bytes)} | {so} | "
                 f"{_cell_check(r.check)}, {_cell_check(r.host_check)} |")
        extra.append(f"| {r.params / 1e6:.2f} M | {_mb(max(b.maxrss_bytes or 0, h.maxrss_bytes or 0) or None)} "
                     f"| {_mb(i.maxrss_bytes)} | {_mb(r.vmfb_bytes)} | {_cell_check(r.iree_check)} |")
        for what, c in (("ireec build", b), ("ireec build --target-cpu=host", h), ("iree-compile", i)):
            if c.failed:
                notes.append(f"- {r.params / 1e6:.2f} M, {what}: {c.failed}")
        for what, c in (("ireec output", r.check), ("ireec --target-cpu=host output", r.host_check),
                        ("iree-compile output", r.iree_check)):
            if c.failed and c.failed not in ("not built", "not checked"):
                notes.append(f"- {r.params / 1e6:.2f} M, {what}: {c.failed}")
            elif c.ok is False:
                notes.append(f"- {r.params / 1e6:.2f} M, {what}: differs from numpy "
                             f"(max abs error {c.max_abs_err:.2e})")
    L += ["", "For comparison, `ru_maxrss` (the largest single process of the tree, from "
          "`wait4`) and IREE's module, checked the same way through `iree.runtime` "
          "(`local-sync`):", "",
          "| parameters | ireec ru_maxrss MB | iree-compile ru_maxrss MB | .vmfb MB "
          "| iree-compile correct (max abs error) |",
          "|---:|---:|---:|---:|---|"] + extra
    if notes:
        L += ["", "Failed or unfinished:", ""] + notes
    return L + [""]


def context_lines(load_before: Sequence[float]) -> Dict[str, str]:
    """Machine and tool versions printed above the table (load average before and after)."""
    from .compile_time import context_lines as ct_context

    return ct_context(load_before)


def parse_sizes(text: str) -> Tuple[float, ...]:
    """``"1,25,100"`` -> (1.0, 25.0, 100.0). Raises ValueError on a non-number or a size
    that is not positive."""
    sizes = tuple(float(x) for x in text.split(",") if x.strip())
    if not sizes or min(sizes) <= 0:
        raise ValueError("sizes must be positive numbers of millions of parameters")
    return sizes

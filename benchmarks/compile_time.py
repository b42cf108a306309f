"""Compile time: ``ireec build`` against ``iree-compile`` on generated StableHLO chains.

    python3 -m benchmarks --only compile-time                  # 2k, 10k, 50k ops
    python3 -m benchmarks --only compile-time --compile-sizes 2000,10000

For each size N, ``benchmarks/gen_chain.py`` writes the N-op chain (tanh, add, a 64x64
``dot_general`` every fourth op) and three commands run one after the other, each as its
own process, timed by wall clock and by the CPU time of the process and its children
(``getrusage(RUSAGE_CHILDREN)``):

- ``python3 -m ireec.cli build FILE -o LIB``: the whole build, C compiler included;
- ``python3 -m ireec.cli compile FILE --output-format=vm-c -o DIR``: ireec's Python part
  alone (the C compiler's share is the difference);
- ``iree-compile --iree-hal-target-backends=llvm-cpu --iree-llvmcpu-target-cpu=host FILE -o
  OUT.vmfb`` (``pip install -e '.[iree]'``), IREE's own compiler to a loadable module.

A command that fails or runs past the time limit is reported as such, with the reason.
Nothing here is a test: times depend on the machine and its load.
"""
from __future__ import annotations

import os
import re
import resource
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from .gen_chain import write_chain

REPO = Path(__file__).resolve().parents[1]
DEFAULT_SIZES = (2000, 10000, 50000)
SECTION_TITLE = "## Compile time"
IREE_COMPILE_FLAGS = ("--iree-hal-target-backends=llvm-cpu", "--iree-llvmcpu-target-cpu=host")


@dataclass
class Timing:
    """One command's run: wall-clock and CPU seconds (user + system of the process and
    everything it waited for), or why it has no time (``failed``)."""

    wall_s: Optional[float] = None
    cpu_s: Optional[float] = None
    failed: Optional[str] = None


@dataclass
class SizeResult:
    """The three timings of one chain length ``ops``."""

    ops: int
    build: Timing = field(default_factory=Timing)
    python: Timing = field(default_factory=Timing)
    iree: Timing = field(default_factory=Timing)


def _children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def time_command(cmd: Sequence[str], timeout_s: float, cwd: Path = REPO) -> Timing:
    """Run ``cmd`` once and time it; ``failed`` holds the exit status and the last line of
    its output, or the time limit it ran past (the process is killed)."""
    cpu0, t0 = _children_cpu(), time.perf_counter()
    try:
        proc = subprocess.run(list(cmd), cwd=str(cwd), stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, errors="replace",
                              timeout=timeout_s)
    except subprocess.TimeoutExpired:
        return Timing(failed=f"did not finish within {timeout_s:g} s")
    except OSError as e:
        return Timing(failed=f"cannot run {cmd[0]}: {e}")
    wall, cpu = time.perf_counter() - t0, _children_cpu() - cpu0
    if proc.returncode != 0:
        lines = [ln for ln in proc.stdout.splitlines() if ln.strip()]
        last = lines[-1][:200] if lines else ""
        return Timing(failed=f"exit status {proc.returncode}: {last}")
    return Timing(wall, cpu)


def iree_compile_tool() -> Optional[str]:
    """Path of ``iree-compile`` (from ``iree-base-compiler``), or None when not installed."""
    return shutil.which("iree-compile")


def measure_size(n: int, work: Path, timeout_s: float, iree_tool: Optional[str], log) -> SizeResult:
    """Generate the ``n``-op chain under ``work`` and time the three commands on it."""
    src = write_chain(n, work / f"chain_{n}.mlir")
    r = SizeResult(n)
    py = [sys.executable, "-m", "ireec.cli"]
    r.build = time_command(py + ["build", str(src), "-o", str(work / f"libchain_{n}.so")], timeout_s)
    log(f"  ireec build     {_fmt(r.build)}")
    r.python = time_command(py + ["compile", str(src), "--output-format=vm-c",
                                  "-o", str(work / f"chain_{n}_c")], timeout_s)
    log(f"  ireec (Python)  {_fmt(r.python)}")
    if iree_tool is None:
        r.iree = Timing(failed="iree-compile not installed (pip install -e '.[iree]')")
    else:
        r.iree = time_command([iree_tool, *IREE_COMPILE_FLAGS, str(src),
                               "-o", str(work / f"chain_{n}.vmfb")], timeout_s)
    log(f"  iree-compile    {_fmt(r.iree)}")
    return r


def run_compile_time(sizes: Sequence[int], work: Path, timeout_s: float, log) -> List[SizeResult]:
    """Measure every size in order (see the module docstring)."""
    work.mkdir(parents=True, exist_ok=True)
    tool = iree_compile_tool()
    results = []
    for n in sizes:
        log(f"compile time: {n}-op chain")
        results.append(measure_size(n, work, timeout_s, tool, log))
    return results


def _fmt(t: Timing) -> str:
    if t.failed:
        return f"failed: {t.failed}"
    return f"{t.wall_s:8.2f} s wall {t.cpu_s:8.2f} s CPU"


def _s(v: Optional[float]) -> str:
    return "—" if v is None else f"{v:.1f}" if v >= 10 else f"{v:.2f}"


def _ratio(a: Optional[float], b: Optional[float]) -> str:
    return "—" if a is None or b is None or b <= 0 else f"{a / b:.2f}×"


def render_compile_time(results: Sequence[SizeResult], context: Dict[str, str]) -> List[str]:
    """The ``## Compile time`` section of RESULTS.md (Markdown lines)."""
    L = [SECTION_TITLE, "",
         "Generated by `python3 -m benchmarks --only compile-time` (also part of `make bench`). "
         "Input: `benchmarks/gen_chain.py`'s StableHLO chain of N ops on tensor<64x64xf32> "
         "(tanh, add, a 64x64 `dot_general` every fourth op). Each command ran once, as its own "
         "process, one after the other; wall-clock seconds and CPU seconds (user + system of the "
         "process and its children). `ireec build` is `python3 -m ireec.cli build FILE -o LIB` "
         "(C compiler included); `Python` is `python3 -m ireec.cli compile FILE "
         "--output-format=vm-c`, ireec's own part, so `cc` is their difference; `iree-compile` is "
         f"`iree-compile {' '.join(IREE_COMPILE_FLAGS)} FILE -o OUT.vmfb`. Ratios are ireec build "
         "over iree-compile: below 1 means ireec is faster.", "",
         f"- {context.get('machine', '')}",
         f"- {context.get('tools', '')}", "",
         "| ops | ireec build s | CPU s | Python s | cc s | iree-compile s | CPU s "
         "| build / iree-compile | CPU ratio |",
         "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    notes = []
    for r in results:
        b, p, i = r.build, r.python, r.iree
        cc = (b.wall_s - p.wall_s) if b.wall_s is not None and p.wall_s is not None else None
        L.append(f"| {r.ops} | {_s(b.wall_s) if not b.failed else 'failed'} | {_s(b.cpu_s)} | "
                 f"{_s(p.wall_s) if not p.failed else 'failed'} | {_s(cc)} | "
                 f"{_s(i.wall_s) if not i.failed else 'failed'} | {_s(i.cpu_s)} | "
                 f"{_ratio(b.wall_s, i.wall_s)} | {_ratio(b.cpu_s, i.cpu_s)} |")
        for what, t in (("ireec build", b), ("ireec compile (Python)", p), ("iree-compile", i)):
            if t.failed:
                notes.append(f"- {r.ops} ops, {what}: {t.failed}")
    if notes:
        L += ["", "Failed or unfinished:", ""] + notes
    return L + [""]


def replace_section(text: str, title: str, lines: Sequence[str], before: str = "## How measured") -> str:
    """``text`` (a Markdown file) with its section headed ``title`` (up to the next ``## ``
    heading) replaced by ``lines``; a missing section goes before the ``before`` heading, or
    at the end. Other sections are kept byte for byte."""
    body = "\n".join(lines).strip("\n") + "\n"
    m = re.search(rf"^{re.escape(title)}[ \t]*$", text, re.M)
    if m:
        nxt = re.search(r"^## ", text[m.end():], re.M)
        rest = text[m.end() + nxt.start():] if nxt else ""
        return text[:m.start()] + body + ("\n" + rest if rest else "")
    m = re.search(rf"^{re.escape(before)}[ \t]*$", text, re.M) if before else None
    if m:
        return text[:m.start()] + body + "\n" + text[m.start():]
    return (text.rstrip("\n") + "\n\n" if text.strip() else "") + body


def context_lines(load_before: Sequence[float]) -> Dict[str, str]:
    """Machine and tool versions printed above the table."""
    from importlib import metadata

    from ireec.tools.benchmark import machine_context

    ctx = machine_context("python3 -m benchmarks --only compile-time")
    try:
        load_after = ", ".join(f"{v:.2f}" for v in os.getloadavg())
    except OSError:
        load_after = "unknown"
    try:
        iree = f"iree-base-compiler {metadata.version('iree-base-compiler')}"
    except metadata.PackageNotFoundError:
        iree = "iree-base-compiler not installed"
    cc = os.environ.get("CC", "cc")
    try:
        out = subprocess.run([cc, "--version"], capture_output=True, text=True, timeout=30)
        cc = out.stdout.splitlines()[0] if out.stdout else cc
    except (OSError, subprocess.SubprocessError):
        pass
    return {
        "machine": f"date {ctx['date']}; CPU {ctx.get('cpu_model')}, {ctx['num_cpus']} cores; "
                   f"load average {', '.join(f'{v:.2f}' for v in load_before)} before, "
                   f"{load_after} after",
        "tools": f"Python {sys.version.split()[0]}; {iree}; C compiler: {cc}",
    }

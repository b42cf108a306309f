"""Runs the models and a corpus subset with the generated C built under ASan + UBSan
(``make sanitize``; not part of the test suite: a sanitized build is slow).

The generated C is built by the usual path (``ireec.compile_file`` / ``ireec check``) with
``CFLAGS``/``LDFLAGS`` = ``-fsanitize=address,undefined -fno-omit-frame-pointer -O1 -g`` and
loaded into Python. The sanitizer runtimes must be loaded before anything else in a process
that was not itself built with them, so every model and every corpus file runs in a child
Python started with ``LD_PRELOAD`` = the compiler's ``libasan.so`` and ``libubsan.so``
(``cc -print-file-name=...``) and ``ASAN_OPTIONS=detect_leaks=0`` (the interpreter's own
allocations at exit are not ours). A child is a finding when its stderr holds an ASan or UBSan
report, or when it dies of a signal.

Usage: ``python3 -m tests.e2e.sanitize [--corpus=N|all] [--jobs=N]``: every model under
``../shared/models`` (each ``.mlir`` with the ``arg<i>.npy`` inputs and ``out0.npy`` of its
folder, rtol = atol = 1e-5), then N corpus files with ``check.expect_*`` tests (default 24,
spread evenly over the sorted list). Exit code 1 when any finding (or crash) was seen; a model
that does not compile or does not match is listed but is not a sanitizer finding.
"""
from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Dict, List, Tuple

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared"
MODELS = SHARED / "models"
CORPUS = SHARED / "corpus" / "iree_e2e"
SANITIZE_FLAGS = "-fsanitize=address,undefined -fno-omit-frame-pointer -O1 -g"
#: What a sanitizer report starts with (ASan/LSan: "ERROR: ...Sanitizer"; UBSan: "runtime error:").
FINDINGS = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:")
TIMEOUT_S = 900


def sanitizer_env() -> Dict[str, str]:
    """The environment of a sanitized child: CFLAGS/LDFLAGS, LD_PRELOAD of the runtimes,
    a cache directory of its own (sanitized libraries never mix with plain ones)."""
    cc = os.environ.get("CC", "cc")
    preload = []
    for lib in ("libasan.so", "libubsan.so"):
        p = subprocess.run([cc, f"-print-file-name={lib}"], capture_output=True, text=True).stdout.strip()
        if not p or not os.path.isabs(p) or not os.path.exists(p):
            raise SystemExit(f"error: {cc} has no {lib} (install the compiler's sanitizer runtimes)")
        preload.append(p)
    env = dict(os.environ)
    env["CFLAGS"] = (env.get("CFLAGS", "") + " " + SANITIZE_FLAGS).strip()
    env["LDFLAGS"] = (env.get("LDFLAGS", "") + " -fsanitize=address,undefined").strip()
    env["LD_PRELOAD"] = " ".join(preload)
    env["ASAN_OPTIONS"] = "detect_leaks=0:abort_on_error=0"
    env["UBSAN_OPTIONS"] = "print_stacktrace=1"
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    env.setdefault("IREEC_CACHE_DIR", str(Path(os.environ.get("TMPDIR", "/tmp")) / "ireec-sanitize-cache"))
    return env


def model_files() -> List[Path]:
    """Every model file under ../shared/models (sorted)."""
    return sorted(MODELS.rglob("*.mlir")) if MODELS.is_dir() else []


def corpus_subset(count: int) -> List[Path]:
    """``count`` corpus files with check tests, evenly spread over the sorted list (all when
    ``count`` < 0)."""
    files = [p for p in sorted(CORPUS.rglob("*.mlir")) if "check.expect" in p.read_text(errors="replace")] \
        if CORPUS.is_dir() else []
    if count < 0 or count >= len(files):
        return files
    step = len(files) / max(count, 1)
    return [files[int(i * step)] for i in range(count)]


def run_model(path: Path) -> int:
    """In the sanitized child: compile, run and compare one model. Exit code 0 when it
    matches, 2 when it does not compile or does not match (printed)."""
    import numpy as np

    import ireec

    d = path.parent
    takes_weights = ".args." in path.name
    n_args = len(list(d.glob("arg*.npy"))) if takes_weights else 1
    try:
        m = ireec.compile_file(str(path), target="c")
    except Exception as e:  # noqa: BLE001 - reported, not a sanitizer finding
        print(f"does not compile: {str(e).splitlines()[0]}")
        return 2
    fn = m.functions[0] if isinstance(m.functions[0], str) else m.functions[0].name
    try:
        out = getattr(m, fn)(*[np.load(d / f"arg{i}.npy") for i in range(n_args)])
    except Exception as e:  # noqa: BLE001
        print(f"call failed: {e}")
        return 2
    expected = d / ("out0.const.npy" if not takes_weights and (d / "out0.const.npy").exists() else "out0.npy")
    out = out[0] if isinstance(out, tuple) else out
    if not np.allclose(out, np.load(expected), rtol=1e-5, atol=1e-5):
        print("does not match out0.npy")
        return 2
    return 0


def _child(cmd: List[str], env: Dict[str, str]) -> Tuple[str, str]:
    """(status, detail) of one sanitized child: SANITIZER, CRASH, ok, fail."""
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=REPO, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return "fail", f"timed out after {TIMEOUT_S} s"
    text = p.stdout + p.stderr
    for line in text.splitlines():
        if any(f in line for f in FINDINGS):
            return "SANITIZER", line.strip()
    if p.returncode < 0:
        return "CRASH", signal.Signals(-p.returncode).name
    if p.returncode == 0:
        return "ok", ""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    return "fail", (lines[-1] if lines else f"exit code {p.returncode}")[:200]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m tests.e2e.sanitize")
    ap.add_argument("--corpus", default="24", help="corpus files to run: a count, or 'all'")
    ap.add_argument("--jobs", type=int, default=min(4, os.cpu_count() or 1))
    ap.add_argument("--model", help=argparse.SUPPRESS)  # child mode: one model
    args = ap.parse_args(argv)
    if args.model:
        return run_model(Path(args.model))
    if shutil.which(os.environ.get("CC", "cc")) is None:
        raise SystemExit("error: no C compiler ($CC or cc)")
    env = sanitizer_env()
    jobs: List[Tuple[str, List[str]]] = []
    for path in model_files():
        jobs.append((str(path.relative_to(SHARED)), [sys.executable, "-m", "tests.e2e.sanitize", f"--model={path}"]))
    for path in corpus_subset(-1 if args.corpus == "all" else int(args.corpus)):
        jobs.append((str(path.relative_to(SHARED)), [sys.executable, "-m", "ireec.cli", "check", str(path)]))
    if not jobs:
        print(f"nothing to run: {SHARED} has no models or corpus")
        return 0
    print(f"{len(jobs)} files under {SANITIZE_FLAGS} (LD_PRELOAD={env['LD_PRELOAD']})", flush=True)
    findings = 0
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for (name, _), (status, detail) in zip(jobs, pool.map(lambda j: _child(j[1], env), jobs)):
            findings += status in ("SANITIZER", "CRASH")
            print(f"{status:9} {name}{': ' + detail if detail else ''}", flush=True)
    print(f"{findings} sanitizer finding(s) or crash(es) in {len(jobs)} files")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())

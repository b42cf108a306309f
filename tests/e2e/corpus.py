"""Runs IREE's e2e corpus (../shared/corpus/iree_e2e) and keeps its status file.

Every test function of every file gets one row: ``pass``, ``fail`` or ``unsupported`` with the
reason. Files with ``check.expect_*`` ops run through ``ireec check`` (one subprocess per file,
so a crash stays contained). The lit-style files (no check ops) are run like their
``// RUN: iree-run-mlir ... | FileCheck`` lines say: each RUN line's function and inputs,
the output printed as iree-run-module prints it, matched with the ``filecheck`` package
against the file's ``CHECK`` lines. Files without RUN lines (samples) run every function on
all-zero inputs and pass when the call succeeds.

Usage: ``python3 -m tests.e2e.corpus [--target=c] [--jobs=N] [--update]``; ``--update``
rewrites ``tests/e2e/corpus_status.md``.
"""
from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Dict, List, Tuple

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO.parent / "shared" / "corpus" / "iree_e2e"
STATUS_FILE = Path(__file__).resolve().parent / "corpus_status.md"
TIMEOUT_S = 600

Row = Tuple[str, str, str, str]  # (file relative to the corpus, test, status, reason)


def corpus_files() -> List[Path]:
    return sorted(CORPUS.rglob("*.mlir")) if CORPUS.is_dir() else []


def _rel(path: Path) -> str:
    return str(path.relative_to(CORPUS))


def _clean(reason: str) -> str:
    reason = reason.replace("|", "\\|").replace("\n", " ").strip()
    reason = re.sub(r"^\S*?/shared/corpus/iree_e2e/", "", reason)
    reason = reason.replace(str(CORPUS) + "/", "")
    return reason[:300]


def _error_line(err: str, rc: int) -> str:
    """The most telling line of a failed run's stderr (the diagnostic, not its caret)."""
    lines = [ln for ln in err.strip().splitlines() if ln.strip()]
    for ln in lines:
        if "error:" in ln or "Error:" in ln:
            return _clean(ln)
    return _clean(lines[-1]) if lines else f"exit code {rc}"


def _run(cmd: List[str], stdin: str = "") -> Tuple[int, str, str]:
    try:
        p = subprocess.run(cmd, input=stdin, capture_output=True, text=True, timeout=TIMEOUT_S, cwd=REPO)
    except subprocess.TimeoutExpired:
        return 124, "", f"timed out after {TIMEOUT_S} s"
    return p.returncode, p.stdout, p.stderr


def run_check_file(path: Path, target: str) -> List[Row]:
    rc, out, err = _run([sys.executable, "-m", "ireec", "check", str(path), f"--target={target}"])
    rows: List[Row] = []
    for line in out.splitlines():
        m = re.match(r"^(PASS|FAIL|UNSUPPORTED|ERROR) @(\S+?)(?::\s*(.*))?$", line)
        if m:
            status = {"PASS": "pass", "FAIL": "fail", "UNSUPPORTED": "unsupported", "ERROR": "fail"}[m.group(1)]
            rows.append((_rel(path), m.group(2), status, _clean(m.group(3) or "")))
        m = re.match(r"^CRASH @(\S+) \((.*)\)$", line)
        if m:
            rows.append((_rel(path), m.group(1), "fail", _clean(f"crashed ({m.group(2)})")))
    if not rows:
        reason = _clean((err or out).strip().splitlines()[-1] if (err or out).strip() else f"exit code {rc}")
        if rc < 0 or rc in (124, 134, 139):
            reason = f"crashed (exit code {rc}): {reason}"
        from ireec.frontend.parser import parse_file
        from ireec.tools.check import test_functions

        try:
            names = test_functions(parse_file(str(path)))
        except Exception:  # noqa: BLE001 - the file itself does not parse
            names = ["<file>"]
        status = "unsupported" if rc == 1 and "error:" in err and "crash" not in reason else "fail"
        rows = [(_rel(path), n, status, reason) for n in names]
    return rows


def _run_lines(text: str) -> List[Dict[str, object]]:
    runs = []
    for line in text.splitlines():
        m = re.match(r"^//\s*RUN:\s*(.*)$", line)
        if not m or "iree-run-mlir" not in m.group(1):
            continue
        cmd, _, check = m.group(1).partition("|")
        args = shlex.split(cmd)
        fn = next((a.split("=", 1)[1] for a in args if a.startswith("--function=")), None)
        inputs = [a.split("=", 1)[1] for a in args if a.startswith("--input=")]
        pm = re.search(r"--check-prefix[= ](\S+)", check)
        key = (fn, tuple(inputs), pm.group(1) if pm else "CHECK")
        if key not in [r["key"] for r in runs]:
            runs.append({"key": key, "function": fn, "inputs": inputs, "prefix": key[2]})
    return runs


_LIT_SCRIPT = r"""
import sys
import numpy as np
import ireec
from ireec.runtime.io_format import parse_input, format_invocation
path, fn = sys.argv[1], sys.argv[2]
specs = sys.argv[3:]
from ireec.ir.diagnostics import CompileError
try:
    m = ireec.compile_file(path, target=TARGET)
except CompileError as e:
    sys.stderr.write(e.render() + "\n")
    sys.exit(1)
names = m.functions
if fn == "-":
    fn = names[0]
info = m.info(fn)
if specs:
    args = [parse_input(s) for s in specs]
else:
    args = [np.zeros(t.shape, dtype=t.dtype) for t in info.args]
res = m.call(fn, *args)
res = [] if res is None else (list(res) if isinstance(res, tuple) else [res])
sys.stdout.write(format_invocation(fn, res, [t.element_type_name for t in info.results]))
"""


def run_lit_file(path: Path, target: str) -> List[Row]:
    from ireec.frontend.parser import parse_file
    from ireec.tools.check import _is_public
    from ireec.dialects.func import func_name

    text = path.read_text()
    module = parse_file(str(path))
    publics = [func_name(f) for f in module.body.ops if f.name == "func.func" and _is_public(f)]
    script = _LIT_SCRIPT.replace("TARGET", repr(target))
    runs = _run_lines(text)
    rows: List[Row] = []
    if not runs:  # samples: run each function on zeros
        for n in publics:
            rc, out, err = _run([sys.executable, "-c", script, str(path), n])
            ok = rc == 0
            rows.append((_rel(path), n, "pass" if ok else ("unsupported" if "error" in err else "fail"),
                         "" if ok else _error_line(err, rc)))
        return rows
    results: Dict[str, Tuple[str, str]] = {}
    for r in runs:
        fn = r["function"] or (publics[0] if len(publics) == 1 else None)
        if fn is None:
            continue
        rc, out, err = _run([sys.executable, "-c", script, str(path), fn] + list(r["inputs"]))
        if rc != 0:
            reason = _error_line(err, rc)
            status = "unsupported" if "error" in err and rc == 1 else "fail"
            results[fn] = (status, reason)
            continue
        frc, fout, ferr = _run(["filecheck", str(path), f"--check-prefix={r['prefix']}"], stdin=out)
        if frc != 0:
            results[fn] = ("fail", _clean("FileCheck: " + " ".join((ferr or fout).split())[:250]))
        elif results.get(fn, ("pass",))[0] == "pass":
            results[fn] = ("pass", "")
    for n in publics:
        status, reason = results.get(n, ("fail", "no RUN line runs this function"))
        rows.append((_rel(path), n, status, reason))
    return rows


def run_file(path: Path, target: str = "c") -> List[Row]:
    text = path.read_text()
    if "check.expect" in text:
        return run_check_file(path, target)
    return run_lit_file(path, target)


def run_all(target: str = "c", jobs: int = 0) -> List[Row]:
    files = corpus_files()
    jobs = jobs or max(1, os.cpu_count() or 1)
    with ThreadPoolExecutor(max_workers=jobs) as ex:
        per_file = list(ex.map(lambda p: run_file(p, target), files))
    return [row for rows in per_file for row in rows]


def write_status(rows: List[Row], path: Path = STATUS_FILE, target: str = "c") -> None:
    total = len(rows)
    passed = sum(1 for r in rows if r[2] == "pass")
    by_folder: Dict[str, List[int]] = {}
    for f, _, st, _ in rows:
        folder = str(Path(f).parent)
        c = by_folder.setdefault(folder, [0, 0])
        c[1] += 1
        c[0] += st == "pass"
    lines = [
        "# IREE e2e corpus status (target `c`)",
        "",
        "Generated by `python3 -m tests.e2e.corpus --update`; checked by `tests/e2e/test_corpus.py`",
        "(every row's status must still hold). One row per test function of",
        "`../shared/corpus/iree_e2e`: `pass`, `fail` or `unsupported`, with the reason.",
        "",
        f"**{passed} of {total} pass ({100.0 * passed / max(total, 1):.1f}%).**",
        "",
        "| folder | pass | tests |",
        "|---|---|---|",
    ]
    for folder in sorted(by_folder):
        p, t = by_folder[folder]
        lines.append(f"| {folder} | {p} | {t} |")
    lines += ["", "| file | test | status | reason |", "|---|---|---|---|"]
    for f, n, st, reason in sorted(rows):
        lines.append(f"| {f} | {n} | {st} | {reason} |")
    path.write_text("\n".join(lines) + "\n")


def read_status(path: Path = STATUS_FILE) -> Dict[Tuple[str, str], Tuple[str, str]]:
    table = {}
    if not path.exists():
        return table
    for line in path.read_text().splitlines():
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        if len(cells) == 4 and cells[2] in ("pass", "fail", "unsupported"):
            table[(cells[0], cells[1])] = (cells[2], cells[3])
    return table


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--target", default="c")
    ap.add_argument("--jobs", type=int, default=0)
    ap.add_argument("--update", action="store_true", help="rewrite tests/e2e/corpus_status.md")
    ap.add_argument("files", nargs="*", help="only these corpus files (relative paths)")
    args = ap.parse_args(argv)
    if args.files:
        rows = [r for f in args.files for r in run_file(CORPUS / f, args.target)]
    else:
        rows = run_all(args.target, args.jobs)
    for r in sorted(rows):
        print(" | ".join(r))
    passed = sum(1 for r in rows if r[2] == "pass")
    print(f"{passed} of {len(rows)} pass")
    if args.update and not args.files:
        write_status(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())

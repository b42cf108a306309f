"""Compares the generated sources of this tree with those of a given commit, byte for byte.

Every ``.mlir`` file of ``../shared/models``, ``../shared/corpus`` and ``benchmarks/cases`` is
compiled to the end (``compile_file``, default options) for each target (``c``, ``openmp``,
``cuda``), once with the tree of the commit and once with the working tree, each in
subprocesses of its own; every generated file (``.h``, ``.c``, ``.cu``, ``.S``, constant
``.bin``) and every compile error's text must be identical. The commit's outputs are cached
under ``$IREEC_CACHE_DIR`` (or ``~/.cache/ireec``)``/generated/<sha>``, so a second
comparison against the same commit compiles only the working tree.

Usage: ``python3 -m tests.e2e.compare_generated --against REV [--targets c,openmp,cuda]
[--jobs N] [--only SUBSTRING] [--skip-runtime-headers]``; exit status 0 when nothing differs, 1 otherwise (the
differing files are listed, with the first differing line of text files).
"""
from __future__ import annotations

import argparse
import filecmp
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import Dict, List, Tuple

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared"
TARGETS = ("c", "openmp", "cuda")

#: Runs in a subprocess with the tree to compile with as argv[1]: ``ireec`` and the two
#: folders pyproject.toml maps into it (templates/, runtime_c/) come from that tree, whatever
#: the installed package points at.
_WORKER = r"""
import importlib.util, json, os, sys
tree, out, jobs = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
sys.path.insert(0, tree)
import ireec
for sub in ("templates", "runtime_c"):
    spec = importlib.util.spec_from_file_location(
        "ireec." + sub, os.path.join(tree, sub, "__init__.py"),
        submodule_search_locations=[os.path.join(tree, sub)])
    mod = importlib.util.module_from_spec(spec)
    sys.modules["ireec." + sub] = mod
    spec.loader.exec_module(mod)
from ireec.compiler import compile_file
from ireec.ir.diagnostics import CompileError
for src, target, key in jobs:
    dest = os.path.join(out, target, key)
    os.makedirs(dest, exist_ok=True)
    try:
        files = compile_file(src, target=target).files
    except CompileError as e:
        files = {"ERROR": str(e)}
    except Exception as e:  # an internal error is an output like any other
        files = {"ERROR": f"{type(e).__name__}: {e}"}
    for name, data in files.items():
        mode = "wb" if isinstance(data, (bytes, bytearray, memoryview)) else "w"
        with open(os.path.join(dest, name), mode) as f:
            f.write(data)
"""


def inputs() -> List[Tuple[str, str]]:
    """(absolute path, key) of every input, sorted; the key names the output folder."""
    found = []
    for root, prefix in ((SHARED / "models", "models"), (SHARED / "corpus", "corpus"),
                         (REPO / "benchmarks" / "cases", "benchmarks")):
        if root.is_dir():
            for p in sorted(root.rglob("*.mlir")):
                found.append((str(p), prefix + "/" + str(p.relative_to(root))))
    return found


def generate(tree: Path, out: Path, targets, jobs: int, only: str = "") -> None:
    """Compile every input for every target with the sources of ``tree`` into ``out``."""
    work = [(src, t, key) for src, key in inputs() if only in key for t in targets]
    # Largest first, dealt round-robin, so the subprocesses end together.
    work.sort(key=lambda w: -os.path.getsize(w[0]))
    shares = [work[i::jobs] for i in range(jobs)]
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    procs = [subprocess.Popen([sys.executable, "-c", _WORKER, str(tree), str(out), json.dumps(s)],
                              env=env) for s in shares if s]
    failed = [p for p in procs if p.wait() != 0]
    if failed:
        raise SystemExit(f"generation with {tree} failed in {len(failed)} worker(s)")


def commit_tree(rev: str, dest: Path) -> str:
    """Extract ``rev``'s tracked files into ``dest``; returns the full sha."""
    sha = subprocess.run(["git", "rev-parse", rev], cwd=REPO, check=True,
                         capture_output=True, text=True).stdout.strip()
    archive = subprocess.run(["git", "archive", sha], cwd=REPO, check=True, capture_output=True).stdout
    with tempfile.TemporaryFile() as f:
        f.write(archive)
        f.seek(0)
        with tarfile.open(fileobj=f) as tar:
            tar.extractall(dest)
    return sha


def _cache_root() -> Path:
    return Path(os.environ.get("IREEC_CACHE_DIR") or Path.home() / ".cache" / "ireec") / "generated"


def diff(a: Path, b: Path, skip=lambda name: False) -> List[str]:
    """Relative paths present in only one of the trees or differing, with a hint each; paths
    whose file name ``skip`` accepts are left out."""
    out = []
    names_a = {str(p.relative_to(a)) for p in a.rglob("*") if p.is_file() and not skip(p.name)}
    names_b = {str(p.relative_to(b)) for p in b.rglob("*") if p.is_file() and not skip(p.name)}
    for n in sorted(names_a ^ names_b):
        out.append(f"{n}: only in {'the commit' if n in names_a else 'the working tree'}")
    for n in sorted(names_a & names_b):
        if not filecmp.cmp(a / n, b / n, shallow=False):
            hint = ""
            try:
                la = (a / n).read_text().splitlines()
                lb = (b / n).read_text().splitlines()
                for i, (x, y) in enumerate(zip(la, lb)):
                    if x != y:
                        hint = f" line {i + 1}: {x[:100]!r} -> {y[:100]!r}"
                        break
                else:
                    hint = f" ({len(la)} -> {len(lb)} lines)"
            except UnicodeDecodeError:
                hint = " (binary)"
            out.append(n + ":" + hint)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--against", default="HEAD", help="commit to compare with (default HEAD)")
    ap.add_argument("--targets", default=",".join(TARGETS))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--only", default="", help="only inputs whose key contains this")
    ap.add_argument("--skip-runtime-headers", action="store_true",
                    help="leave out the runtime_c headers copied next to the generated files "
                         "(when the commits ship different headers)")
    args = ap.parse_args(argv)
    targets = [t for t in args.targets.split(",") if t]
    with tempfile.TemporaryDirectory(prefix="ireec-compare-") as tmp:
        tmp = Path(tmp)
        sha = commit_tree(args.against, tmp / "tree")
        tag = hashlib.sha1(f"{sorted(targets)}|{args.only}".encode()).hexdigest()[:10]
        base = _cache_root() / sha / tag
        if not base.is_dir():
            staging = base.with_name(base.name + ".tmp")
            shutil.rmtree(staging, ignore_errors=True)
            generate(tmp / "tree", staging, targets, args.jobs, args.only)
            staging.rename(base)
        generate(REPO, tmp / "now", targets, args.jobs, args.only)
        runtime = {p.name for p in (REPO / "runtime_c").glob("*.h")} | {
            p.name for p in (tmp / "tree" / "runtime_c").glob("*.h")}
        diffs = diff(base, tmp / "now", (lambda n: n in runtime) if args.skip_runtime_headers else (lambda n: False))
    n = len(inputs()) if not args.only else sum(args.only in k for _, k in inputs())
    if diffs:
        print(f"{len(diffs)} generated file(s) differ from {args.against} ({sha[:10]}):")
        for d in diffs:
            print("  " + d)
        return 1
    what = " (runtime headers left out)" if args.skip_runtime_headers else ""
    print(f"identical: {n} inputs x {len(targets)} targets against {args.against} ({sha[:10]}){what}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

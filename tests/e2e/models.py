"""Every model file of ../shared/models and its expected status.

``tests/e2e/models_status.md`` holds one row per ``.mlir`` file under ../shared/models:
``pass`` (built for ``c`` and ``openmp``, its output matches the expected file within
rtol = atol = 1e-5, and its workspace arena is within 1.1x the lower bound) or
``unsupported`` (ireec rejects it with a located error; the reason says why). A file with no
row is a new case and fails its test until a row is added; ``python3 -m tests.e2e.models``
lists files without a row.

Inputs and expected outputs follow ../shared/models/README.md: ``.args`` files take
``arg<i>.npy`` (every one in the folder), other files only ``arg0.npy``; the expected output
is ``out0.const.npy`` for ``.const`` files when present, else ``out0.npy``. A file lowered at
one sequence length (``<m>.s<N>.<form>.mlir``) takes ``arg0.s<N>.npy`` (and, for ``.args``,
the weights ``arg1.npy``...) and expects ``out0.s<N>.npy``.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import numpy as np

from .common import SHARED

MODELS_DIR = SHARED / "models"
STATUS_FILE = Path(__file__).resolve().parent / "models_status.md"
_ROW = re.compile(r"^\|\s*`?([^|`]+?)`?\s*\|\s*(pass|unsupported)\s*\|\s*(.*?)\s*\|$")


def model_files() -> List[Path]:
    """Every ``.mlir`` file under ../shared/models, sorted ([] when it is absent)."""
    return sorted(MODELS_DIR.rglob("*.mlir")) if MODELS_DIR.is_dir() else []


def rel(path: Path) -> str:
    """``path`` relative to ../shared/models, with forward slashes."""
    return path.relative_to(MODELS_DIR).as_posix()


def read_status(path: Path = STATUS_FILE) -> Dict[str, Tuple[str, str]]:
    """{file relative to ../shared/models: (status, reason)} from the status table."""
    out: Dict[str, Tuple[str, str]] = {}
    for line in path.read_text().splitlines():
        m = _ROW.match(line.strip())
        if m:
            out[m.group(1).strip()] = (m.group(2), m.group(3))
    return out


def skip_unless_pass(path: Optional[Path]) -> None:
    """Skip (with the reason) a test of a model file that is absent, or not ``pass`` in the
    status file; fail for a file with no row (a new case needs one)."""
    import pytest

    if path is None:
        pytest.skip("../shared/models is not present")
    row = read_status().get(rel(path))
    assert row is not None, f"{rel(path)} is a new model file: add its row to {STATUS_FILE.name}"
    if row[0] != "pass":
        pytest.skip(f"{rel(path)} is {row[0]} in {STATUS_FILE.name}: {row[1]}")


def inputs_and_expected(path: Path):
    """(arguments as numpy arrays, expected output) of the model file ``path``."""
    d = path.parent
    tag = re.search(r"\.(s\d+)\.", path.name)  # lowered at one sequence length
    arg0, out0 = (f"arg0.{tag.group(1)}.npy", f"out0.{tag.group(1)}.npy") if tag else ("arg0.npy", "out0.npy")
    if ".args." in path.name:
        n = 1 + len([p for p in d.glob("arg*.npy") if re.fullmatch(r"arg[1-9]\d*\.npy", p.name)])
        args = [np.load(d / arg0)] + [np.load(d / f"arg{i}.npy") for i in range(1, n)]
        return args, np.load(d / out0)
    if tag:
        return [np.load(d / arg0)], np.load(d / out0)
    const_out = d / "out0.const.npy"
    return [np.load(d / "arg0.npy")], np.load(const_out if const_out.exists() else d / "out0.npy")


def main() -> int:
    status = read_status()
    missing = [rel(p) for p in model_files() if rel(p) not in status]
    for m in missing:
        print(f"no row in {STATUS_FILE.name}: {m}")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())

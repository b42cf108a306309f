"""Check tests of ireec's own (tests/e2e/checks/*.mlir, IREE's ``check`` dialect): every file
runs through ``ireec check`` on the ``c`` and ``openmp`` targets and every test function of it
must pass. A new file is a new case."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from .common import REPO

CHECKS = sorted((Path(__file__).resolve().parent / "checks").glob("*.mlir"))


@pytest.mark.parametrize("target", ["c", "openmp"])
@pytest.mark.parametrize("path", CHECKS, ids=[p.name for p in CHECKS])
def test_check_file_passes(path: Path, target: str):
    proc = subprocess.run([sys.executable, "-m", "ireec", "check", str(path), f"--target={target}"],
                          cwd=REPO, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert " 0 failed" in proc.stdout and "FAIL" not in proc.stdout, proc.stdout


def test_there_are_check_files():
    assert CHECKS, "tests/e2e/checks holds no .mlir file"

"""Shared helpers of the end-to-end tests: paths to ../shared and a build-and-run helper."""
from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared"
INPUTS = Path(__file__).resolve().parent / "inputs"


def shared_path(*parts: str) -> Path:
    """A path under ../shared, or skip the test with a clear reason when it is absent."""
    p = SHARED.joinpath(*parts)
    if not p.exists():
        pytest.skip(f"{p} is not present (the shared corpus and models live in ../shared)")
    return p


def run_cli(args, capsys):
    """Run ``ireec`` in-process; returns (exit code, stdout, stderr)."""
    from ireec.cli import main

    rc = main([str(a) for a in args])
    cap = capsys.readouterr()
    return rc, cap.out, cap.err


def build(path, tmp_path, capsys, target="c", *flags):
    lib = tmp_path / (Path(path).stem.replace(".", "_") + ".so")
    rc, out, err = run_cli(["build", path, "-o", lib, f"--target={target}", *flags], capsys)
    assert rc == 0, err
    return lib

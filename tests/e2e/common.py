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


def random_i8(rng, shape, extreme=False):
    """An int8 array of ``shape`` drawn by ``rng`` (a numpy Generator): uniform over
    [-128, 127], or with ``extreme`` only -128 and 127 (the largest products, for overflow and
    saturation paths)."""
    import numpy as np

    if extreme:
        return np.where(rng.random(shape) < 0.5, -128, 127).astype(np.int8)
    return rng.integers(-128, 128, shape, dtype=np.int8)


def cached_module(cache: dict, source: str, target: str):
    """``source`` (MLIR text) compiled for ``target`` and loaded, once per ``cache`` (a dict a
    module-scoped fixture holds) and target."""
    import ireec

    if target not in cache:
        cache[target] = ireec.compile_source(source, target=target)
    return cache[target]

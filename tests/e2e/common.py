"""Shared helpers of the end-to-end tests: paths to ../shared, a build-and-run helper and MLIR text
of the NCHW depthwise convolution in its generic form."""
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


def nchw_depthwise_generic(x: str, w: str, init: str, x_t: str, w_t: str, o_t: str,
                           stride: int, dilation: int = 1) -> str:
    """MLIR text of the ``linalg.generic`` form of ``linalg.depthwise_conv_2d_nchw_chw`` on
    values ``x`` (image, type ``x_t``), ``w`` (C x KH x KW filter, ``w_t``) and ``init``
    (output, ``o_t``): the form every target keeps NCHW (the named op runs channels-last on
    target c), so tests of the NCHW micro-kernel paths use it."""
    s, d = stride, dilation
    return f"""linalg.generic {{indexing_maps = [
        affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 * {s} + d4 * {d}, d3 * {s} + d5 * {d})>,
        affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d4, d5)>,
        affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>],
        iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}}
      ins({x}, {w} : {x_t}, {w_t}) outs({init} : {o_t}) {{
    ^bb0(%xa: f32, %xb: f32, %xo: f32):
      %xm = arith.mulf %xa, %xb : f32
      %xs = arith.addf %xo, %xm : f32
      linalg.yield %xs : f32
  }} -> {o_t}"""

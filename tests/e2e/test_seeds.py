"""The seeds' examples through `ireec build` + `ireec run-module`, printing what IREE prints."""
from __future__ import annotations

import numpy as np
import pytest

import ireec

from .common import INPUTS, build, run_cli, shared_path

CASES = [
    ("abs.mlir", "abs", ["f32=-2"], "EXEC @abs\nresult[0]: hal.buffer_view\nf32=2\n"),
    ("add.mlir", "add", ["4xf32=[1 2 3 4]", "4xf32=[2 2 2 2]"],
     "EXEC @add\nresult[0]: hal.buffer_view\n4xf32=3 4 5 6\n"),
    ("matmul_small.mlir", "matmul_static", ["3x5xf32=1", "5x3xf32=2", "3x3xf32=42"],
     "EXEC @matmul_static\nresult[0]: hal.buffer_view\n3x3xf32=[52 52 52][52 52 52][52 52 52]\n"),
]


@pytest.mark.parametrize("name,fn,inputs,expected", CASES, ids=[c[0] for c in CASES])
def test_run_module_prints_like_iree(name, fn, inputs, expected, tmp_path, capsys):
    lib = build(INPUTS / name, tmp_path, capsys)
    rc, out, err = run_cli(["run-module", f"--module={lib}", f"--function={fn}"]
                           + [f"--input={i}" for i in inputs], capsys)
    assert rc == 0, err
    assert out == expected


def test_matmul_128(tmp_path, capsys):
    lib = build(INPUTS / "matmul_128.mlir", tmp_path, capsys)
    m = ireec.load(lib)
    rng = np.random.default_rng(0)
    a, b, c = (rng.standard_normal((128, 128), dtype=np.float32) for _ in range(3))
    np.testing.assert_allclose(m.matmul_static(a, b, c), a @ b + c, rtol=1e-4, atol=1e-4)


def test_corpus_simple_mul(tmp_path, capsys):
    path = shared_path("corpus", "iree_e2e", "samples", "static_library", "simple_mul.mlir")
    lib = build(path, tmp_path, capsys)
    rc, out, err = run_cli(["run-module", f"--module={lib}", "--function=simple_mul",
                            "--input=4xf32=[1 2 3 4]", "--input=4xf32=[5 6 7 8]"], capsys)
    assert rc == 0, err
    assert out == "EXEC @simple_mul\nresult[0]: hal.buffer_view\n4xf32=5 12 21 32\n"


def test_corpus_simple_abs(tmp_path, capsys):
    path = shared_path("corpus", "iree_e2e", "samples", "models", "simple_abs.mlir")
    lib = build(path, tmp_path, capsys)
    rc, out, err = run_cli(["run-module", f"--module={lib}", "--function=abs", "--input=f32=-5.5"], capsys)
    assert rc == 0, err
    assert out == "EXEC @abs\nresult[0]: hal.buffer_view\nf32=5.5\n"


def test_openmp_target_matches(tmp_path, capsys):
    lib = build(INPUTS / "add.mlir", tmp_path, capsys, target="openmp")
    m = ireec.load(lib)
    x = np.arange(4, dtype=np.float32)
    np.testing.assert_array_equal(m.add(x, x), 2 * x)


def test_flow_phase_names_dispatch_like_iree(capsys):
    rc, out, err = run_cli(["compile", INPUTS / "matmul_128.mlir", "--compile-to=flow"], capsys)
    assert rc == 0, err
    assert "flow.executable" in out
    assert "@matmul_static_dispatch_0_matmul_128x128x128" in out
    assert "flow.dispatch @matmul_static_dispatch_0::@matmul_static_dispatch_0_matmul_128x128x128" in out


@pytest.mark.parametrize("phase", ["input", "abi", "flow", "stream", "hal", "vm"])
def test_every_phase_prints(phase, capsys):
    rc, out, err = run_cli(["compile", INPUTS / "add.mlir", f"--compile-to={phase}"], capsys)
    assert rc == 0, err
    assert out.lstrip().startswith("module")

"""`--output-format=vm-c` sources stand alone: strict C99, no malloc/free/printf, deterministic."""
from __future__ import annotations

import subprocess

import pytest

from .common import INPUTS, run_cli, shared_path

FORBIDDEN = {"malloc", "free", "calloc", "realloc", "printf", "fprintf", "puts"}


def _vmc(path, out_dir, capsys):
    rc, out, err = run_cli(["compile", path, "--output-format=vm-c", "-o", out_dir], capsys)
    assert rc == 0, err
    return sorted(p for p in out_dir.iterdir())


@pytest.mark.parametrize("source", [
    INPUTS / "matmul_small.mlir", INPUTS / "abs.mlir",
    ("models", "torch_mlir", "mlp", "mlp.const.linalg.mlir"),
    ("models", "torch_mlir", "lenet", "lenet.args.linalg.mlir")], ids=lambda s: str(s if not isinstance(s, tuple) else s[-1]).split("/")[-1])
def test_sources_compile_alone(source, tmp_path, capsys):
    path = shared_path(*source) if isinstance(source, tuple) else source
    files = _vmc(path, tmp_path / "out", capsys)
    names = {p.name for p in files}
    assert "ireec_runtime.h" in names
    objs = []
    for c in [p for p in files if p.suffix == ".c"]:
        obj = tmp_path / (c.stem + ".o")
        subprocess.run(["cc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-c", str(c), "-o", str(obj)],
                       check=True, cwd=tmp_path / "out")
        objs.append(obj)
    undefined = set()
    for o in objs:
        nm = subprocess.run(["nm", "-u", str(o)], check=True, capture_output=True, text=True).stdout
        undefined |= {line.split()[-1] for line in nm.splitlines() if line.strip()}
    assert not (undefined & FORBIDDEN), undefined & FORBIDDEN


def test_output_is_deterministic(tmp_path, capsys):
    a = _vmc(INPUTS / "matmul_small.mlir", tmp_path / "a", capsys)
    b = _vmc(INPUTS / "matmul_small.mlir", tmp_path / "b", capsys)
    assert [p.read_bytes() for p in a] == [p.read_bytes() for p in b]

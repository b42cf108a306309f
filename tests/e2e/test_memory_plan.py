"""The static memory plan of every model in ../shared/models: one workspace arena per function,
at most 1.1x the lower bound (the most bytes live at once), and below the sum of all transient
buffers wherever reuse is possible (some two transients are never live together)."""
from __future__ import annotations

from pathlib import Path

import pytest

from ireec.compiler import compile_file

from .common import SHARED

MODELS = sorted(p for p in (SHARED / "models").rglob("*.mlir")) if (SHARED / "models").is_dir() else []


@pytest.mark.parametrize("path", MODELS or [None], ids=[str(p.relative_to(SHARED / "models")) for p in MODELS] or ["absent"])
def test_arena_is_near_the_lower_bound(path):
    if path is None:
        pytest.skip("../shared/models is not present")
    out = compile_file(str(path), target="c")
    functions = out.report["functions"]
    assert functions, f"{Path(path).name}: no function was planned"
    for name, plan in functions.items():
        arena, bound, total = plan["arena_bytes"], plan["lower_bound_bytes"], plan["transient_sum_bytes"]
        assert bound <= arena <= 1.1 * bound, f"@{name}: arena {arena} B, lower bound {bound} B"
        if plan["transients"] > 1 and bound < total:
            assert arena < total, f"@{name}: arena {arena} B is not below the transient sum {total} B"


def test_plan_is_shown_in_the_ir_and_on_request(capsys, tmp_path):
    from .common import INPUTS, run_cli

    src = INPUTS / "matmul_small.mlir"
    rc, out, err = run_cli(["compile", src, "--compile-to=stream"], capsys)
    assert rc == 0 and "stream.memory_plan = {arena_bytes = " in out
    rc, out, err = run_cli(["build", src, "-o", tmp_path / "m.so", "--print-memory-plan"], capsys)
    assert rc == 0
    assert "@matmul_static: workspace arena 0 B (lower bound 0 B, sum of 0 transients 0 B)" in err

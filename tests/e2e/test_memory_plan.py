"""The static memory plan of every model in ../shared/models that compiles (status ``pass`` in
``models_status.md``): one workspace arena per function, at most 1.1x the lower bound (the most
bytes live at once), and below the sum of all transient buffers wherever reuse is possible (some
two transients are never live together). The packer itself is tested on hand-made lifetimes."""
from __future__ import annotations

from pathlib import Path

import pytest

from ireec.compiler import compile_file

from ireec.passes.stream.schedule_allocation import pack_greedy_by_size, pack_transients, peak_live_bytes

from .models import model_files, rel, skip_unless_pass

MODELS = model_files()


@pytest.mark.parametrize("path", MODELS or [None], ids=[rel(p) for p in MODELS] or ["absent"])
def test_arena_is_near_the_lower_bound(path):
    skip_unless_pass(path)
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


def _overlap(a, b):
    return not (a[2] < b[1] or b[2] < a[1])


def _check_plan(bufs, offsets):
    for i, a in enumerate(bufs):
        assert offsets[i] % 64 == 0
        for j in range(i):
            b = bufs[j]
            if _overlap(a, b):
                assert offsets[i] + a[0] <= offsets[j] or offsets[j] + b[0] <= offsets[i], (i, j)


def test_packer_beats_greedy_by_size_where_it_fragments():
    """Lifetimes (size, first use, last use) on which greedy-by-size leaves a hole: the
    best-of packer reaches the lower bound, and no two buffers live together overlap."""
    bufs = [(8192, 13, 16), (49152, 15, 16), (24576, 16, 20), (8192, 18, 22), (8192, 19, 26),
            (8192, 20, 25), (8192, 22, 29), (8192, 25, 35), (8192, 26, 29), (8192, 29, 32),
            (8192, 32, 35), (8192, 35, 37), (8192, 37, 40), (16384, 39, 40), (8192, 40, 52),
            (8192, 42, 45), (65536, 44, 45), (32768, 45, 47), (32768, 47, 50), (65536, 49, 50),
            (8192, 50, 52)]
    greedy = pack_greedy_by_size(bufs)
    offsets, arena = pack_transients(bufs)
    assert greedy[1] > peak_live_bytes(bufs) == arena == 114688
    _check_plan(bufs, offsets)
    assert pack_transients(bufs) == (offsets, arena)  # deterministic

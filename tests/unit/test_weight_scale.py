"""The weight-scale benchmark's pieces: the process-tree memory sampler and the const-weight
MLP generator (benchmarks/weight_scale.py, benchmarks/gen_weights.py).

The sampler must sum a process and its children: a parent holding 150 MiB runs a child that
allocates 200 MiB, so the tree's peak is above 350 MiB while no single process reaches
250 MiB (what ``ru_maxrss`` sees). The generator's smallest model (hidden width 128) must
build with ``ireec build`` and match the numpy reference.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from benchmarks import gen_weights, weight_scale
from benchmarks.weight_scale import check_input, compare, peak_tree_rss, run_tree

REPO = Path(__file__).resolve().parents[2]
MiB = 2 ** 20

CHILD = "x = bytearray(200 * 2**20); import time; time.sleep(0.3)"
PARENT = ("import subprocess, sys; y = bytearray(150 * 2**20); "
          f"subprocess.run([sys.executable, '-c', {CHILD!r}], check=True)")


def test_peak_tree_rss_sums_the_children():
    wall, peak, rc, tail = peak_tree_rss([sys.executable, "-c", PARENT], timeout_s=60)
    assert rc == 0, tail
    assert wall >= 0.3
    assert peak >= 350 * MiB  # 150 MiB in the parent + 200 MiB in the child, alive together
    assert peak < 1024 * MiB


def test_run_tree_reports_the_largest_single_process_apart():
    r = run_tree([sys.executable, "-c", PARENT], timeout_s=60)
    assert r.returncode == 0 and r.killed is None
    assert r.samples > 10
    # ru_maxrss is one process's peak: the child's 200 MiB (or, from a large test process,
    # the image a fork copies before exec); the tree's peak sums parent and child.
    assert r.maxrss_bytes >= 200 * MiB
    assert r.peak_rss_bytes >= 350 * MiB


def test_tree_found_by_scanning_proc_without_children_files(monkeypatch):
    # Kernels without CONFIG_PROC_CHILDREN: every /proc/<pid>/stat is read instead.
    monkeypatch.setattr(weight_scale, "_children_file_supported", lambda pid: False)
    wall, peak, rc, tail = peak_tree_rss([sys.executable, "-c", PARENT], timeout_s=60)
    assert rc == 0, tail
    assert peak >= 350 * MiB


def test_a_child_not_yet_execd_is_its_parents_image():
    # (ppid, session, resident pages, virtual bytes, flags); 0x40: forked, no exec yet.
    parent = (1, 100, 40_000, 400_000_000, 0x400000)
    assert weight_scale._is_image_of((100, 100, 40_000, 400_000_000, 0x400040), parent)
    assert not weight_scale._is_image_of((100, 100, 40_000, 400_000_000, 0x400000), parent)
    assert not weight_scale._is_image_of((100, 100, 41_000, 400_000_000, 0x400040), parent)
    assert not weight_scale._is_image_of((100, 100, 40_000, 400_000_000, 0x400040), None)


def test_peak_tree_rss_reports_failures_and_limits():
    wall, _, rc, tail = peak_tree_rss(
        [sys.executable, "-c", "import sys; sys.stderr.write('no such model'); sys.exit(3)"])
    assert rc == 3 and tail.endswith("no such model")
    wall, _, rc, tail = peak_tree_rss([sys.executable, "-c", "import time; time.sleep(30)"],
                                      timeout_s=0.5)
    assert rc < 0 and wall < 10 and "did not finish within 0.5 s" in tail
    wall, peak, rc, tail = peak_tree_rss([sys.executable, "-c", PARENT], timeout_s=60,
                                         rss_limit_bytes=100 * MiB)
    assert rc < 0 and peak > 100 * MiB and "memory passed" in tail
    with pytest.raises(OSError):
        peak_tree_rss(["/nonexistent/compiler"])


def test_hidden_width_and_parameter_count():
    assert gen_weights.param_count(128) == 1024 * 128 + 128 + 128 * 128 + 128 + 128 * 1024 + 1024
    assert gen_weights.hidden_for(1) == 384
    assert gen_weights.hidden_for(25) == 4096
    assert gen_weights.hidden_for(100) == 9088
    assert gen_weights.hidden_for(0.001) == 128
    for millions in (1, 25, 100):
        h = gen_weights.hidden_for(millions)
        assert h % 128 == 0
        near = [abs(gen_weights.param_count(c) - millions * 1e6) for c in (h - 128, h, h + 128)]
        assert near[1] == min(near)


def test_write_mlp_is_the_reference(tmp_path):
    h = 128
    path = gen_weights.write_mlp(tmp_path / "mlp.mlir", h)
    text = path.read_text(encoding="ascii")
    assert text.count("stablehlo.dot_general") == 3
    assert text.count("stablehlo.maximum") == 2
    assert f"tensor<1024x{h}xf32>" in text and f"tensor<{h}x{h}xf32>" in text
    # The first weight's hex literal holds W0's bytes, little-endian f32.
    w0 = gen_weights.weights(h)[0][0]
    start = text.index('dense<"0x') + len('dense<"0x')
    got = np.frombuffer(bytes.fromhex(text[start:start + 2 * 4 * 1024]), "<f4")
    np.testing.assert_array_equal(got, w0.reshape(-1)[:1024])
    assert gen_weights.write_mlp(tmp_path / "again.mlir", h).read_text(encoding="ascii") == text


def test_ireec_build_of_the_generated_mlp_matches_the_reference(tmp_path):
    h = 128
    src = gen_weights.write_mlp(tmp_path / "mlp.mlir", h)
    lib = tmp_path / "libmlp.so"
    proc = subprocess.run([sys.executable, "-m", "ireec.cli", "build", str(src), "-o", str(lib)],
                          cwd=str(REPO), capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    import ireec

    c = compare(ireec.load(str(lib)).main(check_input()), h)
    assert c.failed is None and c.ok, c
    assert c.max_abs_err < 1e-5

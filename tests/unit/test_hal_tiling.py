"""HAL phase: lowering configuration, workgroup counts, per-tile temporaries, loop order."""
from __future__ import annotations

import pytest

from ireec.ir import types as T
from tests.e2e.common import run_cli
from tests.e2e.test_fusion_tiling import BATCH_MATMUL, CONV, MM_RELU, _row_sum, mlp_stablehlo
from tests.unit.test_flow_fusion import run_to


def _exports(module):
    return {o.attributes["sym_name"].value: o for o in module.walk() if o.name == "hal.executable.export"}


def _kernels(module):
    return {o.attributes["sym_name"].value: o for o in module.walk()
            if o.name == "func.func" and o.ancestor("hal.executable") is not None}


def test_row_sum_100000x100_gets_391_workgroups(tmp_path, capsys):
    """Structural test on `ireec compile --compile-to=hal`: tile 256 on the parallel dim."""
    src = tmp_path / "rowsum.mlir"
    src.write_text(_row_sum(100000, 100))
    rc, out, err = run_cli(["compile", src, "--compile-to=hal"], capsys)
    assert rc == 0, err
    assert "workgroup_count = array<i64: 391, 1, 1>" in out
    assert "ireec.distribution = array<i64: 100000, 256>" in out
    assert '"hal.interface.workgroup.id"() {dimension = 0 : index}' in out
    assert "arith.minsi" in out  # the last tile is partial: 100000 = 390 * 256 + 160


def test_lowering_config_on_root_before_bufferization():
    from ireec.passes.hal.select_lowering_strategy import configure_kernel
    from ireec.passes.common.linalg_generalize_named_ops import LinalgGeneralizeNamedOpsPass
    from ireec.passes.hal.materialize_interfaces import MaterializeInterfacesPass

    m = run_to(MM_RELU, "stream")
    from ireec.passes.pass_base import PassContext
    ctx = PassContext(target="c", module_name="m", source_name="t.mlir")
    MaterializeInterfacesPass().run(m, ctx)
    LinalgGeneralizeNamedOpsPass().run(m, ctx)
    (name, k), = _kernels(m).items()
    count = configure_kernel(k, _exports(m)[name])
    # 130x150 output, 64x64 tiles: x over the 150 columns (3), y over the 130 rows (3).
    assert count == [3, 3, 1]
    cfgs = [str(o.attributes["lowering_config"]) for o in k.walk() if "lowering_config" in o.attributes]
    assert cfgs == ["#iree_codegen.lowering_config<tile_sizes = [[64, 64, 0]]>"]


@pytest.mark.parametrize("src,count", [
    (MM_RELU, (3, 3, 1)),
    (BATCH_MATMUL, (2, 2, 3)),
    (CONV, (2, 1, 17)),  # (oh, ow, f) = 17x21x70 tiled 1x21x64
])
def test_workgroup_counts(src, count):
    m = run_to(src, "hal")
    (exp,) = _exports(m).values()
    assert tuple(exp.attributes["workgroup_count"].value) == count


def _stack_bytes(kernel):
    total = 0
    for o in kernel.walk():
        if o.name == "memref.alloca":
            t = o.results[0].type
            total += t.num_elements * T.bit_width(t.element_type) // 8
    return total


@pytest.mark.parametrize("src", [MM_RELU, CONV, BATCH_MATMUL, mlp_stablehlo(64), _row_sum(100000, 100)])
def test_temporaries_are_per_tile_and_small(src):
    m = run_to(src, "hal")
    for name, k in _kernels(m).items():
        assert _stack_bytes(k) <= 32768, name


def test_softmax_temporaries_hold_one_tile():
    """5000 rows of 10: the row max and row sum are per-tile temporaries of one tile of rows
    (2048 = 32768 // 10 rounded down to a power of two); exp(x - max) is recomputed, never
    stored."""
    m = run_to(mlp_stablehlo(5000), "hal")
    k = next(k for n, k in _kernels(m).items() if "reduction" in n)
    assert list(k.attributes["ireec.distribution"].value) == [5000, 2048]
    allocas = [o for o in k.walk() if o.name == "memref.alloca"]
    assert len(allocas) == 2
    for o in allocas:
        assert list(o.attributes["ireec.tile_dims"].value) == [0]
        assert o.results[0].type.shape == (2048,)


def test_matmul_loops_are_i_k_j_with_constant_inner_bound():
    """The innermost loop walks the contiguous rows of B and C (j); all of its bounds are
    constants when the tile divides the extent."""
    src = """
func.func @f(%a: tensor<128x96xf32>, %b: tensor<96x128xf32>) -> tensor<128x128xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x128xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<128x128xf32>) -> tensor<128x128xf32>
  %m = linalg.matmul ins(%a, %b : tensor<128x96xf32>, tensor<96x128xf32>) outs(%f : tensor<128x128xf32>) -> tensor<128x128xf32>
  return %m : tensor<128x128xf32>
}
"""
    m = run_to(src, "hal")
    (k,) = _kernels(m).values()
    nests = [o for o in k.body.ops if o.name == "scf.for"]
    matmul = nests[-1]
    bounds = []
    loop = matmul
    while loop is not None:
        ub = loop.operands[1].owner
        bounds.append(ub.attributes["value"].value if ub.name == "arith.constant" else None)
        loop = next((o for o in loop.body.ops if o.name == "scf.for"), None)
    assert bounds == [64, 96, 64]  # i (tile), k (full), j (tile, innermost)
    assert "arith.minsi" not in [o.name for o in k.walk()]


def test_untileable_kernel_runs_as_one_workgroup():
    src = """
func.func @f(%a: tensor<3x4xf32>) -> tensor<5x8xf32> {
  %z = arith.constant 0.0 : f32
  %p = tensor.pad %a low[1, 2] high[1, 2] {
  ^bb0(%i: index, %j: index):
    tensor.yield %z : f32
  } : tensor<3x4xf32> to tensor<5x8xf32>
  return %p : tensor<5x8xf32>
}
"""
    m = run_to(src, "hal")
    (exp,) = _exports(m).values()
    assert tuple(exp.attributes["workgroup_count"].value) == (1, 1, 1)

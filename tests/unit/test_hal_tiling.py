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
    # f32 matmul → micro-kernel tiles (ukernels.workgroup_tile), 130x150 on c, halved
    # (largest first) until the matmul's per-tile temporary fits 32 KiB: 65x75.
    (MM_RELU, (2, 2, 1)),
    # On c (one thread) a micro-kernel tile covers 67x71; one workgroup per batch.
    (BATCH_MATMUL, (1, 1, 3)),
    # (oh, ow, f) = 17x21x70, 5 input channels: im2col (70 output channels, no multiple of
    # 16: im2col.profitable), whole rows and channels, 2 rows a tile (the rest is halved
    # off until the per-tile temporaries fit 32 KiB).
    (CONV, (1, 1, 9)),
])
def test_workgroup_counts(src, count):
    m = run_to(src, "hal")
    (exp,) = _exports(m).values()
    assert tuple(exp.attributes["workgroup_count"].value) == count


def _stack_bytes(kernel):
    """Bytes of the per-tile temporaries (allocas other than a micro-kernel's packing
    buffer, which the micro-kernel blocking bounds: test_ukernel_lowering_config)."""
    total = 0
    for o in kernel.walk():
        if o.name == "memref.alloca" and "ireec.ukernel_work" not in o.attributes:
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


def _loop_bounds(loop):
    """(upper bound, step) of an scf.for with constant operands."""
    ub, step = loop.operands[1].owner, loop.operands[2].owner
    return ub.attributes["value"].value, step.attributes["value"].value


def _nests(block_op):
    return [o for o in block_op.body.ops if o.name == "scf.for"]


@pytest.mark.parametrize("k_extent,kc,rows_inside", [(96, 32, True), (512, 128, False)])
def test_matmul_is_packed_and_register_blocked(k_extent, kc, rows_inside):
    """A 64x64 matmul tile becomes: a k0 loop (step KC: the largest power-of-two divisor of
    K whose KC x 64 B tile fits in PACK_BYTES) holding the B packing nest and the 8x16
    register blocks (i0 step 8, j0 step 16), each block with copy-in, reduction and
    copy-out nests; the reduction runs k, c, r for short reductions and k, r, c from
    ROWS_OUTSIDE_MIN_K on. All bounds are constants when the tile divides the extent.
    (i32: i32 contractions call the micro-kernel instead.)"""
    from ireec.passes.hal.convert_linalg_to_loops import PACK_BYTES, REGISTER_BLOCK, ROWS_OUTSIDE_MIN_K
    K = k_extent
    src = f"""
func.func @f(%a: tensor<128x{K}xi32>, %b: tensor<{K}x128xi32>) -> tensor<128x128xi32> {{
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<128x128xi32>
  %f = linalg.fill ins(%zero : i32) outs(%e : tensor<128x128xi32>) -> tensor<128x128xi32>
  %m = linalg.matmul ins(%a, %b : tensor<128x{K}xi32>, tensor<{K}x128xi32>) outs(%f : tensor<128x128xi32>) -> tensor<128x128xi32>
  return %m : tensor<128x128xi32>
}}
"""
    assert REGISTER_BLOCK == (8, 16) and kc * 64 * 4 <= PACK_BYTES
    assert (K < ROWS_OUTSIDE_MIN_K) == rows_inside
    m = run_to(src, "hal")
    (k,) = _kernels(m).values()
    k0 = _nests(k)[-1]
    assert _loop_bounds(k0) == (K, kc)
    pack, i0 = _nests(k0)
    assert _loop_bounds(pack) == (kc, 1) and _loop_bounds(_nests(pack)[0]) == (64, 1)
    packed = [o for o in k0.body.ops if o.name == "memref.alloca"]
    assert [o.results[0].type.shape for o in packed] == [(kc, 64)]
    assert _loop_bounds(i0) == (64, 8)
    (j0,) = _nests(i0)
    assert _loop_bounds(j0) == (64, 16)
    acc = [o for o in j0.body.ops if o.name == "memref.alloca"]
    assert [o.results[0].type.shape for o in acc] == [(8, 16)]
    init, red, store = _nests(j0)
    for nest in (init, store):
        assert _loop_bounds(nest) == (8, 1) and _loop_bounds(_nests(nest)[0]) == (16, 1)
    x = _nests(red)[0]
    y = _nests(x)[0]
    inner = [(16, 1), (8, 1)] if rows_inside else [(8, 1), (16, 1)]
    assert [_loop_bounds(n) for n in (red, x, y)] == [(kc, 1)] + inner
    # The innermost loop reads A, the packed B tile and the accumulator block, not B itself.
    loads = {o.operands[0] for o in y.walk() if o.name == "memref.load"}
    assert {v.type.shape for v in loads} == {(128, K), (kc, 64), (8, 16)}
    assert packed[0].results[0] in loads and acc[0].results[0] in loads
    assert "arith.minsi" not in [o.name for o in k.walk()]


def test_matmul_without_register_block_keeps_i_k_j():
    """When no 2x4 block divides the tile (odd sizes) the plain i, k, j nest remains (i32:
    f32 contractions call the micro-kernel)."""
    src = """
func.func @f(%a: tensor<7x5xi32>, %b: tensor<5x3xi32>) -> tensor<7x3xi32> {
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<7x3xi32>
  %f = linalg.fill ins(%zero : i32) outs(%e : tensor<7x3xi32>) -> tensor<7x3xi32>
  %m = linalg.matmul ins(%a, %b : tensor<7x5xi32>, tensor<5x3xi32>) outs(%f : tensor<7x3xi32>) -> tensor<7x3xi32>
  return %m : tensor<7x3xi32>
}
"""
    m = run_to(src, "hal")
    (k,) = _kernels(m).values()
    loop = _nests(k)[-1]
    bounds = []
    while loop is not None:
        bounds.append(_loop_bounds(loop))
        loop = next((o for o in loop.body.ops if o.name == "scf.for"), None)
    assert bounds == [(7, 1), (5, 1), (3, 1)]  # i, k, j (contiguous, innermost)


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


def test_ukernel_lowering_config(tmp_path, capsys):
    """An f32 matmul at --compile-to=hal (openmp: 130x150 split in two along both dims for
    the threads): the lowering config records the workgroup tiles and the micro-kernel's
    blocking, and the kernel calls ireec_uk_sgemm with a packing
    buffer of IREEC_UK_SGEMM_WORK_FLOATS(MC, NC, KC) floats."""
    from ireec.passes.hal import ukernels as UK
    src = tmp_path / "mm.mlir"
    src.write_text(MM_RELU)
    rc, out, err = run_cli(["compile", src, "--compile-to=hal", "--target=openmp"], capsys)
    assert rc == 0, err
    assert '"iree_codegen.ukernel.generic"' in out
    assert 'iree_codegen.ukernel = #iree_codegen.ukernel_descriptor<"ireec_uk_sgemm", memref>' in out
    assert "#iree_codegen.lowering_config<tile_sizes = [[72, 80, 0], [64, 80, 70]]>" in out
    assert 'u_kernel_fn_name = "ireec_uk_sgemm"' in out and "blocking = array<i64: 64, 80, 70>" in out
    assert f"memref<{UK.work_floats(64, 80, 70)}xf32>" in out
    # The C header's macro and the compiler's formula agree.
    from ireec.targets.c import runtime_header
    sgemm = runtime_header("ireec_ukernel_sgemm.h")
    assert "((kc) * ((nc) + IREEC_UK_SGEMM_MAX_NR) + (kc) * ((mc) + IREEC_UK_SGEMM_MAX_MR) + 32)" in sgemm
    assert f"#define IREEC_UK_SGEMM_MAX_MR {UK.MAX_MR}" in sgemm
    assert f"#define IREEC_UK_SGEMM_MAX_NR {UK.MAX_NR}" in sgemm


def test_ukernel_not_used_for_other_types_or_cuda():
    """i32 matmuls keep the register-blocked loops; the cuda target has no micro-kernels."""
    from ireec.targets import get_target
    m = run_to(MM_RELU.replace("f32", "i32").replace("0.0 : i32", "0 : i32")
               .replace("dense<0.0>", "dense<0>").replace("arith.addf", "arith.addi")
               .replace("arith.maximumf", "arith.maxsi"), "hal")
    assert not [o for o in m.walk() if o.name == "iree_codegen.ukernel.generic"]
    assert get_target("cuda").ukernels == () and "ireec_uk_sgemm" in get_target("openmp").ukernels


def test_ukernel_generic_verifier():
    """iree_codegen.ukernel.generic: one index per dim of A, B and C plus M, N, K."""
    from ireec.frontend.parser import parse_source
    from ireec.ir.diagnostics import CompileError
    from ireec.ir.verifier import verify
    text = """
func.func @f(%a: memref<4x4xf32>, %b: memref<4x4xf32>, %c: memref<4x4xf32>, %w: memref<64xf32>, %i: index) {
  "iree_codegen.ukernel.generic"(%a, %b, %c, %w, %i, %i, %i, %i, %i, %i, %i, %i, %i) {u_kernel_fn_name = "ireec_uk_sgemm", strides = array<i64: 4, 1, 4, 1, 4>, blocking = array<i64: 4, 4, 4>} : (memref<4x4xf32>, memref<4x4xf32>, memref<4x4xf32>, memref<64xf32>, index, index, index, index, index, index, index, index, index) -> ()
  return
}
"""
    verify(parse_source(text, "ok.mlir"))
    bad = text.replace("%i, %i, %i) {u_kernel_fn_name", "%i, %i) {u_kernel_fn_name").replace("index, index, index) -> ()", "index, index) -> ()")
    with pytest.raises(CompileError, match="expects 9 index operands"):
        verify(parse_source(bad, "bad.mlir"))
    # accumulate_after_first: the first-tap index follows the sizes.
    first = text.replace("%i, %i, %i) {u_kernel_fn_name", "%i, %i, %i, %i) {u_kernel_fn_name").replace(
        "index, index, index) -> ()", "index, index, index, index) -> ()").replace(
        "blocking = array<i64: 4, 4, 4>}", "blocking = array<i64: 4, 4, 4>, accumulate = false, accumulate_after_first}")
    verify(parse_source(first, "first.mlir"))
    with pytest.raises(CompileError, match="expects 9 index operands"):
        verify(parse_source(text.replace("blocking = array<i64: 4, 4, 4>}",
                                         "blocking = array<i64: 4, 4, 4>, accumulate_after_first}"), "bad.mlir"))
    with pytest.raises(CompileError, match="takes no bias or clamp"):
        verify(parse_source(first.replace("accumulate_after_first}", "accumulate_after_first, clamp_lo = 0.0 : f32}"),
                            "bad.mlir"))


def _elementwise_tanh(shape):
    t = "x".join(str(d) for d in shape) + "xf32"
    return (f"func.func @f(%a: tensor<{t}>) -> tensor<{t}> {{\n"
            f"  %r = math.tanh %a : tensor<{t}>\n  return %r : tensor<{t}>\n}}\n")


@pytest.mark.parametrize("shape,c_count,omp_count", [
    ((2, 16, 256), 1, 2),   # 8192 iterations: one workgroup on c, two halves on openmp
    ((3, 400), 1, 2),       # the outermost dim of extent >= 2 is cut (3 -> tiles of 2)
    ((8, 8), 1, 1),         # 64 iterations: below MIN_SPLIT_ITERATIONS, one workgroup
])
def test_concurrent_targets_split_single_workgroup_kernels(shape, c_count, omp_count):
    import math

    from ireec.compiler import compile_source

    for target, want in (("c", c_count), ("openmp", omp_count)):
        hal = compile_source(_elementwise_tanh(shape), "s.mlir", target=target, compile_to="hal").ir_text
        counts = [int(x) for x in hal.split("workgroup_count = array<i64: ")[1].split(">")[0].split(", ")]
        assert math.prod(counts) == want, (target, counts)


def _nchw_conv(c: int, f: int, hw: int, w: "np.ndarray") -> str:
    """A 3x3 NCHW convolution of a 1 x c x hw x hw image with the constant filter ``w``."""
    import numpy as np

    o = hw - 2
    dense = "dense<" + np.array2string(w, separator=", ", threshold=1 << 22, floatmode="unique").replace("\n", "") + ">"
    return f"""func.func @f(%x: tensor<1x{c}x{hw}x{hw}xf32>) -> tensor<1x{f}x{o}x{o}xf32> {{
  %w = arith.constant {dense} : tensor<{f}x{c}x3x3xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x{f}x{o}x{o}xf32>
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<1x{f}x{o}x{o}xf32>) -> tensor<1x{f}x{o}x{o}xf32>
  %r = linalg.conv_2d_nchw_fchw {{dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}}
      ins(%x, %w : tensor<1x{c}x{hw}x{hw}xf32>, tensor<{f}x{c}x3x3xf32>) outs(%i : tensor<1x{f}x{o}x{o}xf32>) -> tensor<1x{f}x{o}x{o}xf32>
  return %r : tensor<1x{f}x{o}x{o}xf32>
}}
"""


@pytest.mark.parametrize("hw,f,channels_cut", [(5, 96, True), (12, 96, False), (7, 48, False)])
def test_small_images_cut_output_channels_on_openmp(hw, f, channels_cut):
    """An im2col convolution whose GEMM rows are few output pixels (3x3 = 9, below
    SMALL_GEMM_PIXELS) is cut along its 96 output channels on openmp (two workgroups of 48,
    each with all 9 rows: 6 + 3 rows left partial register tiles); a 10x10 output keeps its
    rows cut; 48 channels (below SPLIT_CHANNELS_MIN) of a 5x5 output stay one workgroup (the
    halves would pack the same patches). Results match numpy either way."""
    import numpy as np

    from ireec.compiler import compile_source
    from ireec.passes.hal.select_lowering_strategy import SMALL_GEMM_PIXELS, SPLIT_CHANNELS_MIN

    assert ((hw - 2) ** 2 < SMALL_GEMM_PIXELS and f >= SPLIT_CHANNELS_MIN) == channels_cut
    rng = np.random.default_rng(3)
    w = rng.standard_normal((f, 96, 3, 3)).astype(np.float32)
    src = _nchw_conv(96, f, hw, w)
    hal = compile_source(src, "s.mlir", target="openmp", compile_to="hal").ir_text
    conv = [ln for ln in hal.splitlines() if "lowering_config" in ln and ("ireec_uk_sgemm" in ln or "ireec_uk_conv" in ln)]
    assert conv, "the convolution goes through the sgemm or the direct convolution micro-kernel"
    tiles = [int(t) for t in conv[0].split("tile_sizes = [[")[1].split("]")[0].split(", ")]
    assert (f // 2 in tiles) == channels_cut, tiles
    x = rng.standard_normal((1, 96, hw, hw)).astype(np.float32)
    o = hw - 2
    win = np.stack([x[0, :, i:i + o, j:j + o] for i in range(3) for j in range(3)], 1)  # c, 9, o, o
    want = np.einsum("ctyx,fct->fyx", win.astype(np.float64), w.reshape(f, 96, 9).astype(np.float64))[None]
    import ireec

    got = ireec.compile_source(src, target="openmp").f(x)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)

"""f32 contractions through the ireec_uk_sgemm micro-kernel (runtime_c/ireec_ukernel.h)
against numpy: awkward sizes (partial register tiles and blocks), transposed A and B (read
through the packing's strides), batch_matmul, on c and openmp; the build flags of FMA
contraction, --strict-fp and --target-cpu; the AVX-512 clone."""
from __future__ import annotations

import re

import numpy as np
import pytest

import ireec
from ireec.compiler import compile_source as compile_to_c
from ireec.targets import get_target
from ireec.targets.c import UKERNEL_HEADERS

from .common import run_cli

#: (A map, B map) of a matmul generic over (i, j, k): plain, A transposed, B transposed, both.
LAYOUTS = {
    "nn": ("(d0, d2)", "(d2, d1)"),
    "tn": ("(d2, d0)", "(d2, d1)"),
    "nt": ("(d0, d2)", "(d1, d2)"),
    "tt": ("(d2, d0)", "(d1, d2)"),
}


def _matmul_src(m: int, n: int, k: int, layout: str) -> str:
    """``C = A' B'`` as a linalg.generic, A' = A or A^T, B' = B or B^T per ``layout``."""
    am, bm = LAYOUTS[layout]
    a_shape = f"{m}x{k}" if layout[0] == "n" else f"{k}x{m}"
    b_shape = f"{k}x{n}" if layout[1] == "n" else f"{n}x{k}"
    return f"""
func.func @f(%a: tensor<{a_shape}xf32>, %b: tensor<{b_shape}xf32>) -> tensor<{m}x{n}xf32> {{
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<{m}x{n}xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32>
  %r = linalg.generic {{indexing_maps = [affine_map<(d0, d1, d2) -> {am}>, affine_map<(d0, d1, d2) -> {bm}>,
                                        affine_map<(d0, d1, d2) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}}
      ins(%a, %b : tensor<{a_shape}xf32>, tensor<{b_shape}xf32>) outs(%c : tensor<{m}x{n}xf32>) {{
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }} -> tensor<{m}x{n}xf32>
  return %r : tensor<{m}x{n}xf32>
}}
"""


def _operands(m, n, k, layout, seed=0):
    r = np.random.default_rng(seed)
    a = r.standard_normal((m, k)).astype(np.float32)
    b = r.standard_normal((k, n)).astype(np.float32)
    a_in = a if layout[0] == "n" else np.ascontiguousarray(a.T)
    b_in = b if layout[1] == "n" else np.ascontiguousarray(b.T)
    return a, b, a_in, b_in


#: The last two pack B (a kc x nc block wider than IREEC_UK_SGEMM_DIRECT_B_BYTES) into full,
#: half-width and zero-padded panels.
#: Column counts past whole register tiles take the half- and quarter-width kernels (24 = 16 +
#: 8 and 45 = 32 + 8 + 5 on AVX-512) and a zero-padded copy for the rest.
SIZES = [(1, 1, 1), (1, 256, 784), (7, 31, 33), (33, 7, 129), (129, 33, 7), (31, 129, 300), (8, 256, 784),
         (67, 1030, 999), (2049, 2047, 33), (256, 24, 64), (13, 45, 20), (5, 8, 9)]


@pytest.mark.parametrize("target", ["c", "openmp"])
@pytest.mark.parametrize("m,n,k", SIZES)
def test_sgemm_matches_numpy(target, m, n, k):
    src = _matmul_src(m, n, k, "nn")
    a, b, a_in, b_in = _operands(m, n, k, "nn")
    got = ireec.compile_source(src, target=target).f(a_in, b_in)
    np.testing.assert_allclose(got, a.astype(np.float64) @ b, rtol=1e-4, atol=1e-4 * np.sqrt(k))


@pytest.mark.parametrize("layout", ["tn", "nt", "tt"])
@pytest.mark.parametrize("m,n,k", [(7, 33, 129), (65, 47, 31)])
def test_sgemm_transposed_operands(layout, m, n, k):
    src = _matmul_src(m, n, k, layout)
    assert "ireec_uk_sgemm" in compile_to_c(src, "t.mlir", target="openmp").files["t_kernels.c"]
    a, b, a_in, b_in = _operands(m, n, k, layout, seed=1)
    got = ireec.compile_source(src, target="openmp").f(a_in, b_in)
    np.testing.assert_allclose(got, a.astype(np.float64) @ b, rtol=1e-4, atol=1e-4 * np.sqrt(k))


@pytest.mark.parametrize("target", ["c", "openmp"])
def test_zero_init_is_overwritten_and_other_inits_accumulate(target):
    """A zero fill of C right before the micro-kernel is dropped and the call starts its sums
    from zero (flags 0: C is only written, over edge tiles and several k blocks too); a
    bias broadcast as the init (along either dim) becomes the call's start
    (IREEC_UK_FLAG_BIAS_INIT, C only written), bit-identical to the same values computed by
    another dispatch as the init."""
    m, n, k = 67, 45, 600
    zero = _matmul_src(m, n, k, "nn")
    kernels = compile_to_c(zero, "t.mlir", target=target).files["t_kernels.c"]
    call = next(ln for ln in kernels.splitlines() if "ireec_uk_sgemm(" in ln)
    assert call.rstrip().endswith(", 0);") and "= 0.0f;" not in kernels
    a, b, _, _ = _operands(m, n, k, "nn", seed=4)
    out = np.full((m, n), np.nan, np.float32)  # C holds NaNs first: an overwrite never reads them
    ireec.compile_source(zero, target=target).f(a, b, out=out)
    np.testing.assert_allclose(out, a.astype(np.float64) @ b, rtol=1e-4, atol=1e-4 * np.sqrt(k))
    fill = f"%c = linalg.fill ins(%zero : f32) outs(%e : tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32>"
    # The init computed (cin + z, z = -0.0: the same values) by its own dispatch: read from
    # that buffer.
    t = f"tensor<{m}x{n}xf32>"
    ident = "affine_map<(d0, d1) -> (d0, d1)>"
    computed = zero.replace(fill, f"""%c = linalg.generic {{indexing_maps = [{ident}, {ident}, {ident}],
        iterator_types = ["parallel", "parallel"]}} ins(%cin, %z : {t}, {t}) outs(%e : {t}) {{
      ^bb0(%p: f32, %q: f32, %o: f32):
        %s0 = arith.addf %p, %q : f32
        linalg.yield %s0 : f32
      }} -> {t}""").replace(f"%b: tensor<{k}x{n}xf32>)", f"%b: tensor<{k}x{n}xf32>, %cin: {t}, %z: {t})")
    accumulated = ireec.compile_source(computed, target=target)
    minus_zero = np.full((m, n), -0.0, np.float32)
    for along, size in ((0, n), (1, m)):
        bias = zero.replace(fill, f"%c = linalg.broadcast ins(%v : tensor<{size}xf32>) outs(%e : tensor<{m}x{n}xf32>) "
                                  f"dimensions = [{along}]").replace(
            f"%b: tensor<{k}x{n}xf32>)", f"%b: tensor<{k}x{n}xf32>, %v: tensor<{size}xf32>)")
        kernels = compile_to_c(bias, "t.mlir", target=target).files["t_kernels.c"]
        assert "IREEC_UK_FLAG_BIAS_INIT" in kernels and "ACCUMULATE" not in kernels
        v = np.random.default_rng(5).standard_normal(size).astype(np.float32)
        v[0] = -0.0
        out = np.full((m, n), np.nan, np.float32)
        ireec.compile_source(bias, target=target).f(a, b, v, out=out)
        init = np.ascontiguousarray(np.broadcast_to(v[None, :] if along == 0 else v[:, None], (m, n)))
        np.testing.assert_array_equal(out.view(np.uint32),
                                      accumulated.f(a, b, init, minus_zero).view(np.uint32))


def test_batch_matmul_through_the_ukernel():
    from .test_fusion_tiling import BATCH_MATMUL
    out = compile_to_c(BATCH_MATMUL, "t.mlir", target="c")
    assert "ireec_uk_sgemm" in out.files["t_kernels.c"] and "ireec_ukernel.h" in out.files
    # the umbrella header the kernels include and the family headers it includes
    assert all(name in out.files for name in UKERNEL_HEADERS)
    r = np.random.default_rng(2)
    a = r.standard_normal((3, 67, 17)).astype(np.float32)
    b = r.standard_normal((3, 17, 71)).astype(np.float32)
    got = ireec.compile_source(BATCH_MATMUL, target="openmp").f(a, b)
    np.testing.assert_allclose(got, np.tanh(a.astype(np.float64) @ b), rtol=1e-5, atol=1e-5)


def test_other_element_types_keep_the_loops():
    src = _matmul_src(9, 10, 11, "nn").replace("f32", "f64")
    out = compile_to_c(src, "t.mlir", target="c")
    assert "ireec_uk_" not in out.files["t_kernels.c"]
    assert not any(name in out.files for name in UKERNEL_HEADERS)
    r = np.random.default_rng(3)
    a, b = r.standard_normal((9, 11)), r.standard_normal((11, 10))
    np.testing.assert_allclose(ireec.compile_source(src, target="c").f(a, b), a @ b, rtol=1e-12)


def test_fma_by_default_strict_fp_off():
    flags = get_target("c").compile_flags()
    assert "-ffp-contract=fast" in flags and "-ffp-contract=off" not in flags
    strict = get_target("openmp").configure(strict_fp=True).compile_flags()
    assert "-ffp-contract=off" in strict and "-ffp-contract=fast" not in strict
    cuda = get_target("cuda")
    cuda.arch = "sm_90"
    assert "-fmad=true" in cuda.compile_flags()
    assert "-fmad=false" in cuda.configure(strict_fp=True).compile_flags()


def test_target_cpu_flags():
    host = get_target("openmp").configure(target_cpu="host").compile_flags()
    assert "-march=native" in host and "-DIREEC_NO_TARGET_CLONES" in host
    assert "-march=skylake-avx512" in get_target("c").configure(target_cpu="skylake-avx512").compile_flags()
    assert not any(f.startswith("-march") for f in get_target("c").compile_flags())


def test_strict_fp_matches_the_sequential_sum_bitwise_and_fma_is_close():
    """--strict-fp: each product rounded, then added in k order (numpy's loop below); the
    default (FMA) stays within float rounding of it."""
    m, n, k = 33, 40, 129
    src = _matmul_src(m, n, k, "nt")
    a, b, a_in, b_in = _operands(m, n, k, "nt", seed=4)
    want = np.zeros((m, n), np.float32)
    for kk in range(k):
        want = want + a[:, kk:kk + 1] * b[kk:kk + 1, :]
    strict = ireec.compile_source(src, target=get_target("openmp").configure(strict_fp=True)).f(a_in, b_in)
    np.testing.assert_array_equal(strict, want)
    fused = ireec.compile_source(src, target="openmp").f(a_in, b_in)
    np.testing.assert_allclose(fused, want, rtol=1e-5, atol=1e-5)


def test_cli_target_cpu_host_and_strict_fp(tmp_path, capsys):
    src = tmp_path / "mm.mlir"
    src.write_text(_matmul_src(17, 19, 23, "nn"))
    lib = tmp_path / "libmm.so"
    rc, _, err = run_cli(["build", src, "-o", lib, "--target=openmp", "--target-cpu=host", "--strict-fp"], capsys)
    assert rc == 0, err
    a, b, _, _ = _operands(17, 19, 23, "nn")
    np.testing.assert_allclose(ireec.load(str(lib)).f(a, b), a.astype(np.float64) @ b, rtol=1e-5, atol=1e-5)


def test_kernels_carry_an_avx512_clone(tmp_path):
    out = compile_to_c(_matmul_src(64, 64, 64, "nn"), "t.mlir", target="openmp")
    text = out.files["t_kernels.c"]
    assert 'target_clones("arch=x86-64-v4", "avx2", "default")' in text
    header = out.files["ireec_ukernel_sgemm.h"]
    assert "ireec_uk_cpu_level()" in header and "ireec_uk_sgemm_tile_8x32" in header
    assert '__builtin_cpu_supports("avx512f")' in out.files["ireec_ukernel_common.h"]


def _conv_src(n, h, w, c, kh, kw, f, stride, dilation):
    oh = (h - dilation * (kh - 1) - 1) // stride + 1
    ow = (w - dilation * (kw - 1) - 1) // stride + 1
    x, flt, out = f"{n}x{h}x{w}x{c}xf32", f"{kh}x{kw}x{c}x{f}xf32", f"{n}x{oh}x{ow}x{f}xf32"
    src = f"""
func.func @f(%x: tensor<{x}>, %w: tensor<{flt}>) -> tensor<{out}> {{
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<{out}>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<{out}>) -> tensor<{out}>
  %c = linalg.conv_2d_nhwc_hwcf {{dilations = dense<{dilation}> : tensor<2xi64>, strides = dense<{stride}> : tensor<2xi64>}}
       ins(%x, %w : tensor<{x}>, tensor<{flt}>) outs(%z : tensor<{out}>) -> tensor<{out}>
  %r = arith.maximumf %c, %z : tensor<{out}>
  return %r : tensor<{out}>
}}
"""
    return src, oh, ow


@pytest.mark.parametrize("target", ["c", "openmp"])
@pytest.mark.parametrize("n,h,w,c,kh,kw,f,stride,dilation", [
    (2, 9, 11, 16, 3, 3, 40, 1, 1),
    (1, 13, 12, 24, 3, 2, 33, 2, 1),
    (1, 12, 12, 32, 3, 3, 8, 1, 2),
    (2, 7, 7, 64, 1, 1, 70, 1, 1),  # 1x1: one tap
    # Windows of 9 KiB a pixel, no 8-pixel chunk of which fits im2col's stack budget: one
    # call per output row and tap.
    (1, 6, 12, 256, 3, 3, 24, 1, 1),
    (1, 9, 23, 256, 3, 3, 16, 2, 1),
])
def test_conv_through_the_ukernel(target, n, h, w, c, kh, kw, f, stride, dilation):
    """NHWC/HWCF convolutions (with a fused relu) call the sgemm micro-kernel, by im2col or,
    for windows too long for its chunks, once per batch element, output row and filter tap
    (implicit GEMM), and match numpy."""
    src, oh, ow = _conv_src(n, h, w, c, kh, kw, f, stride, dilation)
    assert "ireec_uk_sgemm" in compile_to_c(src, "t.mlir", target=target).files["t_kernels.c"]
    im2col = c != 256 and kh * kw > 1  # a 1x1 window is a plain GEMM
    assert ("ireec.im2col" in compile_to_c(src, "t.mlir", target=target, compile_to="hal").ir_text) == im2col
    r = np.random.default_rng(5)
    x = r.standard_normal((n, h, w, c)).astype(np.float32)
    flt = r.standard_normal((kh, kw, c, f)).astype(np.float32)
    want = np.zeros((n, oh, ow, f))
    for a in range(kh):
        for b in range(kw):
            win = x[:, a * dilation: a * dilation + stride * (oh - 1) + 1: stride,
                    b * dilation: b * dilation + stride * (ow - 1) + 1: stride, :].astype(np.float64)
            want += win @ flt[a, b]
    got = ireec.compile_source(src, target=target).f(x, flt)
    np.testing.assert_allclose(got, np.maximum(want, 0), rtol=1e-4, atol=1e-4 * np.sqrt(c * kh * kw))


def test_conv_strict_fp_keeps_the_loop_nest_bits():
    """Under --strict-fp the implicit GEMM adds each output's products in the plain loop
    nest's order (taps outer, channels inner): bitwise what the cuda target's loops give."""
    src, oh, ow = _conv_src(1, 8, 9, 16, 3, 3, 20, 1, 1)
    r = np.random.default_rng(6)
    x = r.standard_normal((1, 8, 9, 16)).astype(np.float32)
    flt = r.standard_normal((3, 3, 16, 20)).astype(np.float32)
    want = np.zeros((1, oh, ow, 20), np.float32)
    for a in range(3):
        for b in range(3):
            for ch in range(16):
                want = want + x[:, a:a + oh, b:b + ow, ch:ch + 1] * flt[a, b, ch]
    strict = get_target("c").configure(strict_fp=True)
    np.testing.assert_array_equal(ireec.compile_source(src, target=strict).f(x, flt), np.maximum(want, 0))


def test_first_filter_tap_starts_from_zero():
    """The zero fill before an implicit-GEMM convolution is dropped: the call of the first
    filter tap overwrites the output row, the later taps add to it (at hal the call carries
    ``accumulate_after_first``); the strict-fp bits above and numpy still match. (256 input
    channels: a window too long for im2col's chunks, so the per-tap calls stay.)"""
    src, oh, ow = _conv_src(1, 8, 12, 256, 3, 3, 20, 1, 1)
    hal = compile_to_c(src, "t.mlir", target="c", compile_to="hal").ir_text
    assert "accumulate_after_first" in hal
    kernels = compile_to_c(src, "t.mlir", target="c").files["t_kernels.c"]
    assert "!= 0 ? IREEC_UK_FLAG_ACCUMULATE : 0)" in kernels
    assert not re.search(r"binding2\[[^\]]*\] = 0\.0f;", kernels)  # no zero fill of the output
    r = np.random.default_rng(7)
    x = r.standard_normal((1, 8, 12, 256)).astype(np.float32)
    flt = r.standard_normal((3, 3, 256, 20)).astype(np.float32)
    want = sum(x[:, a:a + oh, b:b + ow, :].astype(np.float64) @ flt[a, b] for a in range(3) for b in range(3))
    np.testing.assert_allclose(ireec.compile_source(src, target="openmp").f(x, flt), np.maximum(want, 0),
                               rtol=1e-4, atol=1e-4 * 48)


@pytest.mark.parametrize("target", ["c", "openmp"])
def test_bias_init_before_a_conv_with_filter_taps(target):
    """A bias broadcast into the output before a 3x3 convolution (torch-mlir's form) with one
    sgemm call per filter tap: the calls accumulate onto the bias (only a single call may
    start from it in registers), and the result matches numpy."""
    out = "1x8x8x20xf32"
    src = f"""
func.func @f(%x: tensor<1x10x10x16xf32>, %w: tensor<3x3x16x20xf32>, %b: tensor<20xf32>) -> tensor<{out}> {{
  %e = tensor.empty() : tensor<{out}>
  %init = linalg.generic {{indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel"]}} ins(%b : tensor<20xf32>) outs(%e : tensor<{out}>) {{
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }} -> tensor<{out}>
  %c = linalg.conv_2d_nhwc_hwcf {{dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}}
       ins(%x, %w : tensor<1x10x10x16xf32>, tensor<3x3x16x20xf32>) outs(%init : tensor<{out}>) -> tensor<{out}>
  return %c : tensor<{out}>
}}
"""
    kernels = compile_to_c(src, "t.mlir", target=target).files["t_kernels.c"]
    assert "ireec_uk_sgemm" in kernels and "IREEC_UK_FLAG_BIAS_INIT" not in kernels
    r = np.random.default_rng(8)
    x = r.standard_normal((1, 10, 10, 16)).astype(np.float32)
    flt = r.standard_normal((3, 3, 16, 20)).astype(np.float32)
    bias = r.standard_normal(20).astype(np.float32)
    want = sum(x[:, a:a + 8, b:b + 8, :].astype(np.float64) @ flt[a, b] for a in range(3) for b in range(3)) + bias
    np.testing.assert_allclose(ireec.compile_source(src, target=target).f(x, flt, bias), want,
                               rtol=1e-4, atol=1e-4 * 12)


def test_dense_layer_on_3d_activations_shares_the_weights():
    """[b, s, k] x [k, n] (B without the batch dims, as a dense layer over a sequence)."""
    src = """
func.func @f(%x: tensor<2x16x64xf32>, %w: tensor<64x48xf32>) -> tensor<2x16x48xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x16x48xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<2x16x48xf32>) -> tensor<2x16x48xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>,
                                        affine_map<(d0, d1, d2, d3) -> (d3, d2)>,
                                        affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<2x16x64xf32>, tensor<64x48xf32>) outs(%c : tensor<2x16x48xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<2x16x48xf32>
  return %r : tensor<2x16x48xf32>
}
"""
    assert "ireec_uk_sgemm" in compile_to_c(src, "t.mlir", target="openmp").files["t_kernels.c"]
    r = np.random.default_rng(7)
    x = r.standard_normal((2, 16, 64)).astype(np.float32)
    w = r.standard_normal((64, 48)).astype(np.float32)
    got = ireec.compile_source(src, target="openmp").f(x, w)
    np.testing.assert_allclose(got, x.astype(np.float64) @ w, rtol=1e-4, atol=1e-4)

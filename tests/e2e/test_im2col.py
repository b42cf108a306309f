"""Convolutions with few input channels through the sgemm micro-kernel by im2col
(ireec/passes/hal/im2col.py), or the direct convolution micro-kernel where the image can be
read in place (ireec/passes/hal/direct_conv.py), against numpy: NCHW/FCHW and NHWC/HWCF, named and generic,
strided, dilated, padded input, batch 2, the window length just above and below the
threshold, chunks of pixels under a small stack budget, and --strict-fp bitwise equal to the
plain loop nest's summation order."""
from __future__ import annotations

import numpy as np
import pytest

import ireec
from ireec.compiler import compile_source as compile_to_c
from ireec.passes.hal.direct_conv import MIN_K
from ireec.targets import get_target

from .common import run_cli


def _out_size(h, k, stride, dilation, pad):
    return (h + 2 * pad - dilation * (k - 1) - 1) // stride + 1


def _conv_src(layout, n, c, h, w, f, kh, kw, stride=1, dilation=1, pad=0):
    """A convolution (``layout`` "nchw" or "nhwc") plus a per-channel bias and a relu, the
    input zero-padded by ``pad`` on each spatial side first when ``pad`` > 0."""
    oh, ow = _out_size(h, kh, stride, dilation, pad), _out_size(w, kw, stride, dilation, pad)
    hp, wp = h + 2 * pad, w + 2 * pad
    if layout == "nchw":
        x, xp, flt, out = (f"{n}x{c}x{h}x{w}xf32", f"{n}x{c}x{hp}x{wp}xf32", f"{f}x{c}x{kh}x{kw}xf32",
                           f"{n}x{f}x{oh}x{ow}xf32")
        lo, op, bias_map = f"0, 0, {pad}, {pad}", "conv_2d_nchw_fchw", "(d1)"
    else:
        x, xp, flt, out = (f"{n}x{h}x{w}x{c}xf32", f"{n}x{hp}x{wp}x{c}xf32", f"{kh}x{kw}x{c}x{f}xf32",
                           f"{n}x{oh}x{ow}x{f}xf32")
        lo, op, bias_map = f"0, {pad}, {pad}, 0", "conv_2d_nhwc_hwcf", "(d3)"
    padded = "%x"
    pad_text = ""
    if pad:
        pad_text = f"""
  %pz = arith.constant 0.0 : f32
  %xp = tensor.pad %x low[{lo}] high[{lo}] {{
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %pz : f32
  }} : tensor<{x}> to tensor<{xp}>"""
        padded = "%xp"
    src = f"""
func.func @f(%x: tensor<{x}>, %w: tensor<{flt}>, %b: tensor<{f}xf32>) -> tensor<{out}> {{{pad_text}
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<{out}>
  %bb = linalg.generic {{indexing_maps = [affine_map<(d0, d1, d2, d3) -> {bias_map}>,
                                         affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>],
                        iterator_types = ["parallel", "parallel", "parallel", "parallel"]}}
      ins(%b : tensor<{f}xf32>) outs(%e : tensor<{out}>) {{
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  }} -> tensor<{out}>
  %c = linalg.{op} {{dilations = dense<{dilation}> : tensor<2xi64>, strides = dense<{stride}> : tensor<2xi64>}}
       ins({padded}, %w : tensor<{xp}>, tensor<{flt}>) outs(%bb : tensor<{out}>) -> tensor<{out}>
  %z = tensor.empty() : tensor<{out}>
  %zz = linalg.fill ins(%zero : f32) outs(%z : tensor<{out}>) -> tensor<{out}>
  %r = arith.maximumf %c, %zz : tensor<{out}>
  return %r : tensor<{out}>
}}
"""
    return src


def _operands(layout, n, c, h, w, f, kh, kw, seed=3):
    r = np.random.default_rng(seed)
    x = r.standard_normal((n, c, h, w) if layout == "nchw" else (n, h, w, c)).astype(np.float32)
    flt = r.standard_normal((f, c, kh, kw) if layout == "nchw" else (kh, kw, c, f)).astype(np.float32)
    b = r.standard_normal((f,)).astype(np.float32)
    return x, flt, b


def _reference(layout, x, flt, b, stride, dilation, pad, dtype=np.float64):
    """The convolution + bias + relu in the plain nest's summation order (NCHW: c, kh, kw;
    NHWC: kh, kw, c), each step one rounded multiply and add in ``dtype``."""
    if layout == "nchw":
        x = np.transpose(x, (0, 2, 3, 1))
        flt = np.transpose(flt, (2, 3, 1, 0))
    x = np.pad(x, ((0, 0), (pad, pad), (pad, pad), (0, 0))).astype(dtype)
    flt = flt.astype(dtype)
    n, h, w, c = x.shape
    kh, kw, _, f = flt.shape
    oh = (h - dilation * (kh - 1) - 1) // stride + 1
    ow = (w - dilation * (kw - 1) - 1) // stride + 1
    acc = np.broadcast_to(b.astype(dtype), (n, oh, ow, f)).copy()
    taps = [(a, bb, ch) for ch in range(c) for a in range(kh) for bb in range(kw)] if layout == "nchw" \
        else [(a, bb, ch) for a in range(kh) for bb in range(kw) for ch in range(c)]
    for a, bb, ch in taps:
        win = x[:, a * dilation: a * dilation + stride * (oh - 1) + 1: stride,
                bb * dilation: bb * dilation + stride * (ow - 1) + 1: stride, ch:ch + 1]
        acc = acc + win * flt[a, bb, ch]
    out = np.maximum(acc, 0)
    return np.transpose(out, (0, 3, 1, 2)) if layout == "nchw" else out


CASES = [  # layout, n, c, h, w, f, kh, kw, stride, dilation, pad
    ("nchw", 1, 6, 14, 14, 16, 5, 5, 1, 1, 0),   # LeNet's second convolution
    ("nchw", 1, 1, 32, 32, 6, 5, 5, 1, 1, 0),    # LeNet's first: one input channel
    ("nchw", 2, 3, 17, 13, 10, 3, 3, 2, 1, 1),   # batch 2, strided, padded
    ("nchw", 1, 2, 16, 15, 7, 3, 3, 1, 2, 0),    # dilated
    ("nchw", 1, 8, 18, 18, 16, 3, 3, 1, 1, 1),   # padded, K = 72: direct
    ("nchw", 1, 3, 33, 33, 12, 7, 7, 2, 1, 0),   # a stride-2 7x7 stem, K = 147: direct, in phases
    ("nchw", 2, 8, 21, 19, 16, 3, 3, 2, 1, 0),   # batch 2, odd sizes: phases zero-padded
    ("nchw", 1, 8, 26, 26, 8, 3, 3, 3, 1, 0),    # stride 3: 9 phases
    ("nhwc", 1, 12, 20, 18, 16, 3, 3, 1, 1, 1),  # padded
    ("nhwc", 2, 13, 12, 12, 16, 3, 3, 1, 1, 0),  # batch 2
    ("nhwc", 1, 14, 19, 23, 20, 3, 3, 2, 2, 0),  # strided and dilated
]


@pytest.mark.parametrize("target", ["c", "openmp"])
@pytest.mark.parametrize("layout,n,c,h,w,f,kh,kw,stride,dilation,pad", CASES)
def test_im2col_conv_matches_numpy(target, layout, n, c, h, w, f, kh, kw, stride, dilation, pad):
    src = _conv_src(layout, n, c, h, w, f, kh, kw, stride, dilation, pad)
    kernels = compile_to_c(src, "t.mlir", target=target).files["t_kernels.c"]
    # NCHW with K >= MIN_K: the image read in place, or in phases when strided and not a
    # fused pad (ireec/passes/hal/direct_conv.py) on c; on openmp a tile of few rows may waste
    # too many of the computed pixels and keep im2col.
    direct = layout == "nchw" and c * kh * kw >= MIN_K and (stride == 1 or (pad == 0 and dilation == 1))
    if not direct:
        assert "ireec_uk_sgemm" in kernels and "ireec_uk_conv(" not in kernels
    elif target == "c":
        assert "ireec_uk_conv(" in kernels
    else:
        assert "ireec_uk_conv(" in kernels or "ireec_uk_sgemm" in kernels
    x, flt, b = _operands(layout, n, c, h, w, f, kh, kw)
    got = ireec.compile_source(src, target=target).f(x, flt, b)
    want = _reference(layout, x, flt, b, stride, dilation, pad)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * np.sqrt(c * kh * kw))


@pytest.mark.parametrize("layout,c,kh,kw,uses", [
    ("nchw", 1, 4, 4, True), ("nchw", 1, 3, 5, False),  # one input channel
    ("nhwc", 12, 1, 2, True),  # below: a 1x1 window, a matmul
])
def test_window_threshold(layout, c, kh, kw, uses):
    """A window of K = 16 = CONV_MIN_K elements (NCHW 1x4x4, NHWC 12x1x2) takes im2col,
    one of 15 (NCHW 1x3x5) keeps the loop nest; all match numpy."""
    f = 16
    src = _conv_src(layout, 1, c, 12, 12, f, kh, kw)
    kernels = compile_to_c(src, "t.mlir", target="c").files["t_kernels.c"]
    assert ("ireec_uk_sgemm" in kernels or "ireec_uk_conv(" in kernels) == uses
    x, flt, b = _operands(layout, 1, c, 12, 12, f, kh, kw)
    got = ireec.compile_source(src, target="c").f(x, flt, b)
    np.testing.assert_allclose(got, _reference(layout, x, flt, b, 1, 1, 0), rtol=1e-4, atol=1e-4 * np.sqrt(c * kh * kw))


@pytest.mark.parametrize("layout", ["nchw", "nhwc"])
def test_strict_fp_keeps_the_loop_nest_bits(layout):
    """Under --strict-fp each output adds its products in the plain nest's order (the
    window as one flat axis in the filter's layout order): bitwise the f32 reference."""
    args = (layout, 1, 12, 11, 10, 16, 3, 3)
    src = _conv_src(*args, stride=1, dilation=1, pad=0)
    assert "ireec.im2col" in compile_to_c(src, "t.mlir", target="c", compile_to="hal").ir_text
    x, flt, b = _operands(*args)
    strict = get_target("c").configure(strict_fp=True)
    want = _reference(layout, x, flt, b, 1, 1, 0, dtype=np.float32)
    np.testing.assert_array_equal(ireec.compile_source(src, target=strict).f(x, flt, b), want)


@pytest.mark.parametrize("c,f,uses", [(12, 16, True), (8, 16, False), (8, 8, False), (12, 15, True),
                                      (4, 12, True), (3, 12, False), (8, 20, True), (3, 24, False)])
def test_nhwc_needs_enough_channels(c, f, uses):
    """NHWC takes im2col with 16+ output channels (the GEMM's contiguous columns) and 12+
    input channels per tap, or with more than 8 output channels that are no multiple of 16
    (the nest's vector has a remainder) and 4+ input channels per tap (im2col.profitable);
    the loop nest otherwise."""
    src = _conv_src("nhwc", 1, c, 12, 12, f, 5, 5)
    assert ("ireec.im2col" in compile_to_c(src, "t.mlir", target="c", compile_to="hal").ir_text) == uses
    x, flt, b = _operands("nhwc", 1, c, 12, 12, f, 5, 5)
    got = ireec.compile_source(src, target="openmp").f(x, flt, b)
    np.testing.assert_allclose(got, _reference("nhwc", x, flt, b, 1, 1, 0), rtol=1e-4, atol=1e-3)


def test_phases_stay_within_the_stack_budget():
    """A strided convolution's phases array may exceed im2col's arrays only without
    --max-stack-bytes: a 7x7 stride-2 convolution of 8 channels on 64x64 reads its image in
    phases by default (a 128 KiB array), keeps im2col under a 64 KiB budget, and matches numpy
    either way."""
    args = ("nchw", 1, 8, 64, 64, 16, 7, 7)
    src = _conv_src(*args, stride=2)
    x, flt, b = _operands(*args)
    want = _reference("nchw", x, flt, b, 2, 1, 0)
    for options, direct in (({}, True), ({"max_stack_bytes": 65536}, False)):
        kernels = compile_to_c(src, "t.mlir", target="c", options=options).files["t_kernels.c"]
        assert ("ireec_uk_conv(" in kernels) == direct, options
        got = ireec.compile_source(src, target="c", options=options).f(x, flt, b)
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-3)


def test_small_stack_budget_packs_chunks(tmp_path, capsys):
    """Under --max-stack-bytes the patches are packed in chunks of whole output rows (the
    marker's pixel count shrinks), and the results still match numpy."""
    args = ("nchw", 1, 6, 14, 14, 16, 5, 5)
    src = _conv_src(*args)
    path = tmp_path / "conv.mlir"
    path.write_text(src)
    rc, out, _ = run_cli(["compile", str(path), "--compile-to=hal", "--max-stack-bytes=40000"], capsys)
    assert rc == 0
    assert "ireec.im2col = array<i64: 150, 10>" in out  # 10000 bytes of Col: one row of 10
    rc, out, _ = run_cli(["compile", str(path), "--compile-to=hal"], capsys)
    assert "ireec.im2col = array<i64: 150, 100>" in out  # WIDE_COL_BYTES (54 px fit 32 KB): all 10 rows
    x, flt, b = _operands(*args)
    m = ireec.compile_source(src, target="c", options={"max_stack_bytes": 40000})
    np.testing.assert_allclose(m.f(x, flt, b), _reference("nchw", x, flt, b, 1, 1, 0), rtol=1e-4, atol=1e-3)


def test_generic_convolution_and_long_windows_keep_their_forms():
    """A convolution written as a linalg.generic (NCHW, 2 channels) takes im2col; so does an
    NHWC one with 16 input channels, which the per-tap implicit GEMM also takes (one GEMM over
    the whole window is faster); one whose window (256 channels x 3 x 3 = 9 KiB a pixel)
    leaves no chunk of 8 pixels within the stack budget keeps the per-tap calls."""
    src = """
func.func @f(%x: tensor<1x2x9x9xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x4x7x7xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x7x7xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x7x7xf32>) -> tensor<1x4x7x7xf32>
  %r = linalg.generic {indexing_maps = [
        affine_map<(n, f, oh, ow, c, kh, kw) -> (n, c, oh + kh, ow + kw)>,
        affine_map<(n, f, oh, ow, c, kh, kw) -> (f, c, kh, kw)>,
        affine_map<(n, f, oh, ow, c, kh, kw) -> (n, f, oh, ow)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : tensor<1x2x9x9xf32>, tensor<4x2x3x3xf32>) outs(%z : tensor<1x4x7x7xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x4x7x7xf32>
  return %r : tensor<1x4x7x7xf32>
}
"""
    hal = compile_to_c(src, "t.mlir", target="c", compile_to="hal").ir_text
    assert "ireec.im2col" in hal
    r = np.random.default_rng(1)
    x = r.standard_normal((1, 2, 9, 9)).astype(np.float32)
    flt = r.standard_normal((4, 2, 3, 3)).astype(np.float32)
    want = _reference("nchw", x, flt, np.zeros(4, np.float32), 1, 1, 0)
    got = ireec.compile_source(src, target="c").f(x, flt)
    np.testing.assert_allclose(np.maximum(got, 0), want, rtol=1e-4, atol=1e-4)
    wide = _conv_src("nhwc", 1, 16, 12, 12, 20, 3, 3)
    assert "ireec.im2col" in compile_to_c(wide, "t.mlir", target="c", compile_to="hal").ir_text
    long = _conv_src("nhwc", 1, 256, 12, 12, 16, 3, 3)
    assert "ireec.im2col" not in compile_to_c(long, "t.mlir", target="c", compile_to="hal").ir_text
    assert "ireec_uk_sgemm" in compile_to_c(long, "t.mlir", target="c").files["t_kernels.c"]
    x, flt, b = _operands("nhwc", 1, 256, 12, 12, 16, 3, 3)
    got = ireec.compile_source(long, target="c").f(x, flt, b)
    np.testing.assert_allclose(got, _reference("nhwc", x, flt, b, 1, 1, 0), rtol=1e-4, atol=1e-3)


def test_image_prologue_is_applied_while_packing():
    """A convolution whose body scales the image first (an average pool's ``/ 4`` fused
    into the next convolution, as in JAX's LeNet) packs ``x / 4`` into the patches; under
    --strict-fp the result is bitwise the plain nest's (kh, kw, c order)."""
    src = """
func.func @f(%x: tensor<1x9x8x3xf32>, %w: tensor<3x3x3x16xf32>) -> tensor<1x7x6x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x7x6x16xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x7x6x16xf32>) -> tensor<1x7x6x16xf32>
  %r = linalg.generic {indexing_maps = [
        affine_map<(n, f, oh, ow, c, kh, kw) -> (n, oh + kh, ow + kw, c)>,
        affine_map<(n, f, oh, ow, c, kh, kw) -> (kh, kw, c, f)>,
        affine_map<(n, f, oh, ow, c, kh, kw) -> (n, oh, ow, f)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : tensor<1x9x8x3xf32>, tensor<3x3x3x16xf32>) outs(%z : tensor<1x7x6x16xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %four = arith.constant 4.0 : f32
    %q = arith.divf %a, %four : f32
    %p = arith.mulf %q, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x7x6x16xf32>
  return %r : tensor<1x7x6x16xf32>
}
"""
    assert "ireec.im2col" in compile_to_c(src, "t.mlir", target="c", compile_to="hal").ir_text
    r = np.random.default_rng(2)
    x = r.standard_normal((1, 9, 8, 3)).astype(np.float32)
    flt = r.standard_normal((3, 3, 3, 16)).astype(np.float32)
    want = np.zeros((1, 7, 6, 16), np.float32)
    for a in range(3):
        for b in range(3):
            for ch in range(3):
                want = want + (x[:, a:a + 7, b:b + 6, ch:ch + 1] / np.float32(4)) * flt[a, b, ch]
    np.testing.assert_allclose(ireec.compile_source(src, target="openmp").f(x, flt), want, rtol=1e-4, atol=1e-4)
    strict = get_target("c").configure(strict_fp=True)
    np.testing.assert_array_equal(ireec.compile_source(src, target=strict).f(x, flt), want)


FHWC_CONV = """
func.func @f(%x: tensor<1x12x12x8xf32>, %w: tensor<16x3x3x8xf32>) -> tensor<1x10x10x16xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x10x10x16xf32>
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<1x10x10x16xf32>) -> tensor<1x10x10x16xf32>
  %r = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
       ins(%x, %w : tensor<1x12x12x8xf32>, tensor<16x3x3x8xf32>) outs(%i : tensor<1x10x10x16xf32>) -> tensor<1x10x10x16xf32>
  return %r : tensor<1x10x10x16xf32>
}
"""


def test_fhwc_filter_takes_im2col():
    """An NHWC convolution whose filter keeps the output channels apart (FHWC, TOSA's layout)
    takes im2col even with 8 input channels per tap (the HWCF loop nest's threshold does not
    apply: that nest cannot vectorize along f); the result matches numpy."""
    assert "ireec.im2col" in compile_to_c(FHWC_CONV, "t.mlir", target="c", compile_to="hal").ir_text
    rng = np.random.default_rng(11)
    x = rng.standard_normal((1, 12, 12, 8)).astype(np.float32)
    w = rng.standard_normal((16, 3, 3, 8)).astype(np.float32)
    got = ireec.compile_source(FHWC_CONV, target="c").f(x, w)
    win = np.lib.stride_tricks.sliding_window_view(x[0], (3, 3), axis=(0, 1))  # oh, ow, c, kh, kw
    want = np.einsum("hwcij,fijc->hwf", win.astype(np.float64), w.astype(np.float64))[None]
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def _constant_filter(src: str, flt: np.ndarray) -> str:
    """``src`` (from :func:`_conv_src`) with its filter argument ``%w`` a constant of
    ``flt``'s values instead (exact: each f32 written as its shortest decimal)."""
    import json

    ty = "x".join(str(d) for d in flt.shape) + "xf32"
    src = src.replace(f"%w: tensor<{ty}>, ", "")
    head, body = src.split("{", 1)
    return f"{head}{{\n  %w = arith.constant dense<{json.dumps(flt.tolist())}> : tensor<{ty}>{body}"


@pytest.mark.parametrize("target", ["c", "openmp"])
@pytest.mark.parametrize("n,c,h,f,k,stride,pad", [
    (1, 16, 5, 40, 3, 1, 0),   # a 3x3 image of 40 channels
    (2, 12, 5, 48, 3, 2, 1),   # batch 2, strided, padded: two 3x3 images
    (1, 8, 6, 200, 3, 1, 1),   # more output channels than one workgroup tile
    (1, 24, 2, 96, 1, 1, 0),   # pointwise (1x1) on a 2x2 image: not a matmul
])
def test_few_pixels_take_a_channels_last_filter(target, n, c, h, f, k, stride, pad):
    """An NCHW convolution with few output pixels and a constant filter reads the filter
    transposed to [c, kh, kw, f] (flow: convert-conv-filter-to-channels-last, folded by
    constant evaluation) and im2col computes the GEMM with the pixels as rows into a stack
    tile stored back transposed; the bias start and the relu after it stay right."""
    _, flt, b = _operands("nchw", n, c, h, h, f, k, k)
    x = _operands("nchw", n, c, h, h, f, k, k, seed=5)[0]
    src = _constant_filter(_conv_src("nchw", n, c, h, h, f, k, k, stride, 1, pad), flt)
    flow = compile_to_c(src, "t.mlir", target=target, compile_to="flow").ir_text
    assert "linalg.conv_2d_nchw_fchw" not in flow and "linalg.transpose" not in flow
    oh = _out_size(h, k, stride, 1, pad)
    assert f"tensor<{c}x{k}x{k}x{f}xf32>" in flow
    hal = compile_to_c(src, "t.mlir", target=target, compile_to="hal").ir_text
    assert "ireec.im2col" in hal
    got = ireec.compile_source(src, target=target).f(x, b)
    want = _reference("nchw", x, flt, b, stride, 1, pad)
    assert got.shape == (n, f, oh, oh)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * np.sqrt(c * k * k))


def test_many_pixels_keep_the_filter_layout():
    """With many output pixels (a 12x12 image of 16 channels) the NCHW GEMM is kept: the
    filter stays [f, c, kh, kw] (no transposed copy of it)."""
    _, flt, b = _operands("nchw", 1, 8, 14, 14, 16, 3, 3)
    src = _constant_filter(_conv_src("nchw", 1, 8, 14, 14, 16, 3, 3), flt)
    flow = compile_to_c(src, "t.mlir", target="c", compile_to="flow").ir_text
    assert "linalg.conv_2d_nchw_fchw" in flow and "tensor<8x3x3x16xf32>" not in flow


def test_channels_last_filter_keeps_the_loop_nest_bits():
    """The pixels x channels form sums each output's window in the loop nest's order (c, kh,
    kw) from its bias: under --strict-fp bitwise the f32 reference."""
    _, flt, b = _operands("nchw", 1, 16, 5, 5, 40, 3, 3)
    x = _operands("nchw", 1, 16, 5, 5, 40, 3, 3, seed=7)[0]
    src = _constant_filter(_conv_src("nchw", 1, 16, 5, 5, 40, 3, 3), flt)
    assert "tensor<16x3x3x40xf32>" in compile_to_c(src, "t.mlir", target="c", compile_to="flow").ir_text
    strict = get_target("c").configure(strict_fp=True)
    want = _reference("nchw", x, flt, b, 1, 1, 0, dtype=np.float32)
    np.testing.assert_array_equal(ireec.compile_source(src, target=strict).f(x, b), want)

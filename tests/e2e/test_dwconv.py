"""Depthwise convolutions through the ireec_uk_dwconv micro-kernel (runtime_c/ireec_ukernel.h)
against numpy: NCHW (the named op runs channels-last on target c since
convert-conv-to-channels-last; the ``nchwg`` cases are its generic form, which keeps the
layout: vectors along output rows: contiguous, stride-2 and gathered image reads) and NHWC
(vectors along channels), NCHW images of 2x2 to 4x3 output pixels (repacked channels-last), strides 1, 2 and 3, dilation 2, odd sizes, channel counts
and widths that are not multiples of the vector width, batches, a channel multiplier; on c
and openmp. All cases are functions of one module, so each target compiles once."""
from __future__ import annotations

import numpy as np
import pytest

import ireec
from ireec.compiler import compile_source as compile_to_c

from .common import nchw_depthwise_generic

#: (layout, N, C, H, W, K, stride, dilation): input N x C x H x W (NCHW) or N x H x W x C
#: (NHWC), a K x K window.
CASES = [
    ("nchw", 1, 5, 11, 13, 3, 1, 1),
    ("nchw", 2, 7, 21, 37, 3, 2, 1),
    ("nchw", 1, 3, 17, 19, 3, 1, 2),
    ("nchw", 1, 6, 15, 52, 5, 3, 1),
    ("nchw", 1, 70, 9, 9, 3, 2, 1),
    # Small images (rows shorter than four: repacked channels-last in blocks of 16).
    ("nchw", 1, 40, 4, 4, 3, 1, 1),
    ("nchw", 2, 37, 5, 5, 3, 2, 1),
    ("nchw", 1, 24, 6, 5, 3, 1, 1),
    # The generic form of the NCHW op (not converted to channels-last): the row kernels.
    ("nchwg", 1, 5, 11, 13, 3, 1, 1),
    ("nchwg", 2, 7, 21, 37, 3, 2, 1),
    ("nchwg", 1, 6, 15, 52, 5, 3, 1),
    ("nchwg", 1, 40, 4, 4, 3, 1, 1),
    ("nhwc", 1, 9, 13, 11, 3, 1, 1),
    ("nhwc", 2, 37, 10, 12, 3, 2, 1),
    ("nhwc", 1, 21, 16, 16, 3, 1, 2),
    ("nhwc", 1, 70, 9, 9, 3, 2, 1),
]


def _out(size: int, k: int, s: int, d: int) -> int:
    return (size - d * (k - 1) - 1) // s + 1


def _func(idx: int, layout: str, n: int, c: int, h: int, w: int, k: int, s: int, d: int) -> str:
    oh, ow = _out(h, k, s, d), _out(w, k, s, d)
    if layout.startswith("nchw"):
        x_t, w_t, o_t, op = f"{n}x{c}x{h}x{w}", f"{c}x{k}x{k}", f"{n}x{c}x{oh}x{ow}", "depthwise_conv_2d_nchw_chw"
    else:
        x_t, w_t, o_t, op = f"{n}x{h}x{w}x{c}", f"{k}x{k}x{c}", f"{n}x{oh}x{ow}x{c}", "depthwise_conv_2d_nhwc_hwc"
    conv = f"""linalg.{op} {{dilations = dense<{d}> : tensor<2xi64>, strides = dense<{s}> : tensor<2xi64>}}
      ins(%x, %w : tensor<{x_t}xf32>, tensor<{w_t}xf32>) outs(%z : tensor<{o_t}xf32>) -> tensor<{o_t}xf32>"""
    if layout == "nchwg":
        conv = nchw_depthwise_generic("%x", "%w", "%z", f"tensor<{x_t}xf32>", f"tensor<{w_t}xf32>",
                                      f"tensor<{o_t}xf32>", s, d)
    return f"""
func.func @f{idx}(%x: tensor<{x_t}xf32>, %w: tensor<{w_t}xf32>) -> tensor<{o_t}xf32> {{
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<{o_t}xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<{o_t}xf32>) -> tensor<{o_t}xf32>
  %r = {conv}
  return %r : tensor<{o_t}xf32>
}}
"""


SRC = "".join(_func(i, *case) for i, case in enumerate(CASES))


def _reference(layout, x, w, k, s, d):
    """The depthwise convolution in float64, NCHW / CHW (NHWC / HWC transposed to it)."""
    if layout == "nhwc":
        x, w = x.transpose(0, 3, 1, 2), w.transpose(2, 0, 1)
    n, c, h, wd = x.shape
    oh, ow = _out(h, k, s, d), _out(wd, k, s, d)
    out = np.zeros((n, c, oh, ow))
    for ty in range(k):
        for tx in range(k):
            patch = x[:, :, ty * d: ty * d + s * (oh - 1) + 1: s, tx * d: tx * d + s * (ow - 1) + 1: s]
            out += patch.astype(np.float64) * w[None, :, ty, tx, None, None]
    return out if layout != "nhwc" else out.transpose(0, 2, 3, 1)


def test_dwconv_lowered_to_ukernel():
    """Every case calls the micro-kernel (no plain loop nest), recorded at --compile-to=hal;
    the zero fill before it is dropped (the micro-kernel starts from zero: `_fused` without
    IREEC_UK_FLAG_ACCUMULATE)."""
    kernels = compile_to_c(SRC, "t.mlir", target="c").files["t_kernels.c"]
    calls = [ln for ln in kernels.splitlines() if "ireec_uk_dwconv_fused(" in ln]
    assert len(calls) == len(CASES) and not any("ACCUMULATE" in c for c in calls)
    assert "= 0.0f;" not in kernels
    hal = compile_to_c(SRC, "t.mlir", target="c", compile_to="hal").ir_text
    assert hal.count('#iree_codegen.ukernel_descriptor<"ireec_uk_dwconv", memref>') >= len(CASES)


@pytest.mark.parametrize("target", ["c", "openmp"])
def test_dwconv_matches_numpy(target):
    m = ireec.compile_source(SRC, target=target)
    rng = np.random.default_rng(0)
    for i, (layout, n, c, h, w, k, s, d) in enumerate(CASES):
        x_shape = (n, c, h, w) if layout != "nhwc" else (n, h, w, c)
        w_shape = (c, k, k) if layout != "nhwc" else (k, k, c)
        x = rng.standard_normal(x_shape).astype(np.float32)
        f = rng.standard_normal(w_shape).astype(np.float32)
        got = getattr(m, f"f{i}")(x, f)
        np.testing.assert_allclose(got, _reference(layout, x, f, k, s, d), rtol=1e-5, atol=1e-5,
                                   err_msg=f"case {CASES[i]}")


def test_dwconv_channel_multiplier():
    """``depthwise_conv_2d_nhwc_hwcm`` (2 outputs per channel): the multiplier is a batch dim
    of the call, the filter's and output's channels are strided (the kernel's scalar path)."""
    src = """
func.func @f(%x: tensor<1x9x10x5xf32>, %w: tensor<3x3x5x2xf32>) -> tensor<1x7x8x5x2xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x7x8x5x2xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x7x8x5x2xf32>) -> tensor<1x7x8x5x2xf32>
  %r = linalg.depthwise_conv_2d_nhwc_hwcm {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x9x10x5xf32>, tensor<3x3x5x2xf32>) outs(%z : tensor<1x7x8x5x2xf32>) -> tensor<1x7x8x5x2xf32>
  return %r : tensor<1x7x8x5x2xf32>
}
"""
    assert "ireec_uk_dwconv_fused(" in compile_to_c(src, "t.mlir", target="c").files["t_kernels.c"]
    rng = np.random.default_rng(1)
    x = rng.standard_normal((1, 9, 10, 5)).astype(np.float32)
    w = rng.standard_normal((3, 3, 5, 2)).astype(np.float32)
    want = np.zeros((1, 7, 8, 5, 2))
    for ty in range(3):
        for tx in range(3):
            want += x[:, ty:ty + 7, tx:tx + 8, :, None].astype(np.float64) * w[ty, tx]
    np.testing.assert_allclose(ireec.compile_source(src, target="c").f(x, w), want, rtol=1e-5, atol=1e-5)


def test_other_windows_not_matched():
    """A sum pool (no filter: not a multiply-accumulate) and a regular convolution (input
    channels reduced) keep their own lowerings."""
    src = """
func.func @pool(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x7x7xf32> {
  %zero = arith.constant 0.0 : f32
  %win = tensor.empty() : tensor<2x2xf32>
  %e = tensor.empty() : tensor<1x4x7x7xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x7x7xf32>) -> tensor<1x4x7x7xf32>
  %r = linalg.pooling_nchw_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %win : tensor<1x4x8x8xf32>, tensor<2x2xf32>) outs(%z : tensor<1x4x7x7xf32>) -> tensor<1x4x7x7xf32>
  return %r : tensor<1x4x7x7xf32>
}
func.func @conv(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x4x5xf32>) -> tensor<1x6x6x5xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x6x6x5xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x6x6x5xf32>) -> tensor<1x6x6x5xf32>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x8x8x4xf32>, tensor<3x3x4x5xf32>) outs(%z : tensor<1x6x6x5xf32>) -> tensor<1x6x6x5xf32>
  return %r : tensor<1x6x6x5xf32>
}
"""
    out = compile_to_c(src, "t.mlir", target="c")
    assert "ireec_uk_dwconv" not in out.files["t_kernels.c"]
    m = ireec.compile_source(src, target="c")
    rng = np.random.default_rng(2)
    x = rng.standard_normal((1, 4, 8, 8)).astype(np.float32)
    want = x[:, :, :-1, :-1] + x[:, :, 1:, :-1] + x[:, :, :-1, 1:] + x[:, :, 1:, 1:]
    np.testing.assert_allclose(m.pool(x), want, rtol=1e-5, atol=1e-5)


def test_multiply_add_of_three_inputs_is_not_a_depthwise_convolution():
    """A generic whose body is ``mulf`` then ``addf`` over three inputs (x * y + z, nothing
    accumulated) is no convolution: the micro-kernel matchers leave it to the loops."""
    src = """
#id = affine_map<(d0) -> (d0)>
func.func @fma(%x: tensor<9xf32>, %y: tensor<9xf32>, %z: tensor<9xf32>) -> tensor<9xf32> {
  %e = tensor.empty() : tensor<9xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel"]}
      ins(%x, %y, %z : tensor<9xf32>, tensor<9xf32>, tensor<9xf32>) outs(%e : tensor<9xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %m, %c : f32
    linalg.yield %s : f32
  } -> tensor<9xf32>
  return %r : tensor<9xf32>
}
"""
    r = np.random.default_rng(9)
    x, y, z = (r.standard_normal(9).astype(np.float32) for _ in range(3))
    got = ireec.compile_source(src, target="c").fma(x, y, z)
    np.testing.assert_allclose(got, x * y + z, rtol=1e-6, atol=1e-6)

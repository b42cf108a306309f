"""convert-linalg-to-loops merges the two innermost loops of a plain nest when every operand
reads them as one row-major block (ireec/passes/hal/convert_linalg_to_loops.py
``_coalescible``): an NHWC convolution of 8 output channels whose epilogue quantizes to
int8 writes its rows of 32 x 8 elements in one loop of 256 (GCC 12 does not vectorize an
8-step loop mixing f32 and int8); a per-channel operand (a bias read by the channel only)
keeps the two loops. Compiled for c and checked against numpy exactly."""
from __future__ import annotations

import numpy as np

import ireec
from ireec.compiler import compile_source as compile_to_c

H = W = 32
F = 8


def _src(bias: bool) -> str:
    b_in = ", %b" if bias else ""
    b_ty = ", tensor<8xf32>" if bias else ""
    b_map = ", affine_map<(d0, d1, d2, d3) -> (d3)>" if bias else ""
    b_arg = "%bv: f32, " if bias else ""
    b_use = "%y0 = arith.addf %in, %bv : f32" if bias else "%y0 = arith.addf %in, %in : f32"
    return f"""
func.func @conv_q(%x: tensor<1x34x34x1xf32>, %w: tensor<3x3x1x8xf32>{', %b: tensor<8xf32>' if bias else ''}) -> tensor<1x32x32x8xi8> {{
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x32x32x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x32x32x8xf32>) -> tensor<1x32x32x8xf32>
  %c = linalg.conv_2d_nhwc_hwcf {{dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}} ins(%x, %w : tensor<1x34x34x1xf32>, tensor<3x3x1x8xf32>) outs(%f : tensor<1x32x32x8xf32>) -> tensor<1x32x32x8xf32>
  %eq = tensor.empty() : tensor<1x32x32x8xi8>
  %q = linalg.generic {{indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>{b_map}, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}} ins(%c{b_in} : tensor<1x32x32x8xf32>{b_ty}) outs(%eq : tensor<1x32x32x8xi8>) {{
  ^bb0(%in: f32, {b_arg}%out: i8):
    {b_use}
    %s = arith.constant 4.0 : f32
    %lo = arith.constant -128.0 : f32
    %hi = arith.constant 127.0 : f32
    %y1 = arith.mulf %y0, %s : f32
    %y2 = math.roundeven %y1 : f32
    %y3 = arith.maximumf %y2, %lo : f32
    %y4 = arith.minimumf %y3, %hi : f32
    %y5 = arith.fptosi %y4 : f32 to i8
    linalg.yield %y5 : i8
  }} -> tensor<1x32x32x8xi8>
  return %q : tensor<1x32x32x8xi8>
}}
"""


def _reference(x, w, b=None):
    acc = np.zeros((1, H, W, F), np.float32)
    for kh in range(3):
        for kw in range(3):
            acc += x[:, kh:kh + H, kw:kw + W, :1] * w[kh, kw, 0][None, None, None, :]
    y0 = acc + (b if b is not None else acc)
    y = np.round(y0 * np.float32(4.0))
    return np.clip(y, -128, 127).astype(np.int8)


def test_epilogue_rows_run_as_one_loop():
    def merged_loops(src):  # loops over a whole row of 32 x 8 elements
        kernels = compile_to_c(src, "c.mlir", target="c").files["c_kernels.c"]
        return kernels.count("< 256; ++")

    # The accumulator's zero fill and the epilogue; with a bias, read by the channel alone,
    # the epilogue keeps its two loops.
    assert merged_loops(_src(False)) == 2
    assert merged_loops(_src(True)) == 1


def test_matches_numpy():
    rng = np.random.default_rng(3)
    x = np.round(rng.standard_normal((1, H + 2, W + 2, 1)) * 8).astype(np.float32) / 8
    w = np.round(rng.standard_normal((3, 3, 1, F)) * 8).astype(np.float32) / 8
    b = np.round(rng.standard_normal(F) * 8).astype(np.float32) / 8
    m = ireec.compile_source(_src(False), target="c")
    np.testing.assert_array_equal(m.conv_q(x, w), _reference(x, w))
    mb = ireec.compile_source(_src(True), target="c")
    np.testing.assert_array_equal(mb.conv_q(x, w, b), _reference(x, w, b))

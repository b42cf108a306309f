"""arith.maximumf / minimumf against a constant (ireec/emitc/arith_to_c.py ``_CLAMP``): one
compare and a select when the constant is neither NaN nor a zero, the IEEE-754-2019 helper
otherwise. Compiled for c and compared with numpy's maximum/minimum (NaN-propagating) bit
for bit, NaN, signed zeros, infinities and values equal to the constant included."""
from __future__ import annotations

import numpy as np

import ireec
from ireec.compiler import compile_source as compile_to_c

N = 32
SRC = f"""
#id = affine_map<(d0) -> (d0)>
func.func @clamps(%x: tensor<{N}xf32>) -> (tensor<{N}xf32>, tensor<{N}xf32>) {{
  %e = tensor.empty() : tensor<{N}xf32>
  %0:2 = linalg.generic {{indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}} ins(%x : tensor<{N}xf32>) outs(%e, %e : tensor<{N}xf32>, tensor<{N}xf32>) {{
  ^bb0(%in: f32, %o0: f32, %o1: f32):
    %lo = arith.constant -2.5 : f32
    %hi = arith.constant 6.0 : f32
    %z = arith.constant 0.0 : f32
    %1 = arith.maximumf %lo, %in : f32
    %2 = arith.minimumf %1, %hi : f32
    %3 = arith.maximumf %in, %z : f32
    %4 = arith.minimumf %z, %3 : f32
    %5 = arith.addf %4, %2 : f32
    linalg.yield %2, %3 : f32, f32
  }} -> (tensor<{N}xf32>, tensor<{N}xf32>)
  return %0#0, %0#1 : tensor<{N}xf32>, tensor<{N}xf32>
}}
"""


def test_clamps_match_numpy_bitwise():
    kernels = compile_to_c(SRC, "c.mlir", target="c").files["c_kernels.c"]
    assert "? (-2.5f) :" in kernels and "? 6.0f :" in kernels  # compare + select
    assert "ireec_maximumf" in kernels  # against 0.0: the helper (signed zeros)
    m = ireec.compile_source(SRC, target="c")
    x = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, -2.5, 6.0, 5.999999, -2.5000002,
                  1e30, -1e30, 1e-45, -1e-45] + list(np.linspace(-8, 8, N - 14)), np.float32)
    clamp, relu = m.clamps(x)
    with np.errstate(invalid="ignore"):
        want_clamp = np.minimum(np.maximum(np.float32(-2.5), x), np.float32(6.0))
        want_relu = np.maximum(x, np.float32(0.0))
    for got, want in ((clamp, want_clamp), (relu, want_relu)):
        nan = np.isnan(want)
        assert np.array_equal(np.isnan(got), nan)
        np.testing.assert_array_equal(got[~nan].view(np.uint32), want[~nan].view(np.uint32))

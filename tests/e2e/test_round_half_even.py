"""fold-round-half-even (ireec/passes/flow/fold_round_half_even.py) keeps every value: TOSA's
round-half-to-even expansion (floor, ceil, compares, select), compiled for c, against
numpy's ``np.round`` (half to even) bit for bit, signed zeros, ties, |x| >= 2^23,
infinities and NaN included; the compiled kernel calls no floor/ceil."""
from __future__ import annotations

import numpy as np

import ireec
from ireec.compiler import compile_source as compile_to_c

N = 64
SRC = f"""
#id = affine_map<(d0) -> (d0)>
func.func @round(%x: tensor<{N}xf32>) -> tensor<{N}xf32> {{
  %e = tensor.empty() : tensor<{N}xf32>
  %0 = linalg.generic {{indexing_maps = [#id, #id], iterator_types = ["parallel"]}} ins(%x : tensor<{N}xf32>) outs(%e : tensor<{N}xf32>) {{
  ^bb0(%in: f32, %out: f32):
    %2 = math.ceil %in : f32
    %3 = math.floor %in : f32
    %half = arith.constant 0.5 : f32
    %4 = arith.mulf %3, %half : f32
    %5 = math.floor %4 : f32
    %two = arith.constant 2.0 : f32
    %6 = arith.mulf %5, %two : f32
    %7 = arith.cmpf oeq, %3, %6 : f32
    %8 = arith.subf %in, %3 : f32
    %9 = arith.cmpf oeq, %8, %half : f32
    %10 = arith.andi %9, %7 : i1
    %11 = arith.cmpf ogt, %half, %8 : f32
    %12 = arith.ori %11, %10 : i1
    %13 = arith.select %12, %3, %2 : f32
    linalg.yield %13 : f32
  }} -> tensor<{N}xf32>
  return %0 : tensor<{N}xf32>
}}
"""


def _inputs() -> np.ndarray:
    special = [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, -0.3, 0.3, -0.0, 0.0, 0.49999997, -0.49999997,
               8388607.5, -8388607.5, 8388609.0, 1e30, -1e30, np.inf, -np.inf, np.nan, 126.5, 127.5,
               -127.5, -128.5, 3.0000002, 1e-45]
    rng = np.random.default_rng(0)
    rest = (rng.integers(-600, 600, N - len(special)) / 4).astype(np.float32)  # quarters: ties
    return np.array(special + list(rest), np.float32)


def test_matches_numpy_round_half_even_bitwise():
    kernels = compile_to_c(SRC, "r.mlir", target="c").files["r_kernels.c"]
    assert "floorf" not in kernels and "ceilf" not in kernels
    m = ireec.compile_source(SRC, target="c")
    x = _inputs()
    got, want = m.round(x), np.round(x)
    nan = np.isnan(want)
    assert np.array_equal(np.isnan(got), nan)
    np.testing.assert_array_equal(got[~nan].view(np.uint32), want[~nan].view(np.uint32))

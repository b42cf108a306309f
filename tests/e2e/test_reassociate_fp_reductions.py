"""Float reductions of CPU kernels: vectorized partial sums by default, program order under
--strict-fp (``iree-llvmcpu-reassociate-fp-reductions`` and ``IREEC_SIMD_REDUCTION``)."""
from __future__ import annotations

import numpy as np
import pytest

import ireec
from ireec.compiler import compile_source
from ireec.targets import get_target

TARGETS = ["c", "openmp"]

SRC = """
func.func @softmax_sum(%a: tensor<32x1000xf32>) -> tensor<32xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<32xf32>) -> tensor<32xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%a : tensor<32x1000xf32>) outs(%f : tensor<32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = math.exp %x : f32
    %r = arith.addf %s, %o : f32
    linalg.yield %r : f32
  } -> tensor<32xf32>
  return %0 : tensor<32xf32>
}
"""


def _inputs():
    return np.random.default_rng(3).standard_normal((32, 1000)).astype(np.float32)


def test_reduction_loop_carries_the_simd_pragma():
    kernels = "".join(v for k, v in compile_source(SRC, "r.mlir").files.items() if k.endswith("_kernels.c"))
    assert "IREEC_SIMD_REDUCTION(+, s" in kernels
    assert "-DIREEC_REASSOCIATE_REDUCTIONS" in get_target("c").compile_flags()
    assert "-DIREEC_REASSOCIATE_REDUCTIONS" not in get_target("c").configure(strict_fp=True).compile_flags()
    cuda = compile_source(SRC, "r.mlir", target="cuda").files
    assert not any("IREEC_SIMD_REDUCTION(+" in v for v in cuda.values())


@pytest.mark.parametrize("target", TARGETS)
def test_default_build_sums_within_rounding(target):
    x = _inputs()
    got = ireec.compile_source(SRC, target=target).softmax_sum(x)
    np.testing.assert_allclose(got, np.exp(x.astype(np.float64)).sum(1), rtol=2e-6)


@pytest.mark.parametrize("target", TARGETS)
def test_strict_fp_sums_in_program_order(target):
    """Under --strict-fp the sum is the sequential f32 one, bit for bit (the exp is the
    kernel's own approximation, so the terms come from a default build's elementwise exp)."""
    x = _inputs()
    terms_src = """
func.func @e(%a: tensor<32x1000xf32>) -> tensor<32x1000xf32> {
  %r = math.exp %a : tensor<32x1000xf32>
  return %r : tensor<32x1000xf32>
}
"""
    strict = get_target(target).configure(strict_fp=True)
    terms = ireec.compile_source(terms_src, target=strict).e(x)
    want = np.cumsum(terms, axis=1, dtype=np.float32)[:, -1]
    np.testing.assert_array_equal(ireec.compile_source(SRC, target=strict).softmax_sum(x), want)

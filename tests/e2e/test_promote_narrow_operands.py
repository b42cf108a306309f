"""i1 masks read next to f32 data are widened once into an i32 stack copy
(ireec/passes/hal/promote_narrow_operands.py): a masked softmax in the shape torch-mlir
writes attention (a causal i1 mask selecting scaled scores, then max, exp-sum and divide in
one dispatch), with the mask an argument and a constant, on c and openmp, against numpy; the
kernel reads the copy, and without stack room for it (``--max-stack-bytes``) the mask is read
as it is with the same results."""
from __future__ import annotations

import re

import numpy as np
import pytest

import ireec
from ireec.compiler import compile_source as compile_to_c

B, H, S = 2, 4, 16

_MAPS4 = "affine_map<(a, b, i, j) -> (i, j)>, affine_map<(a, b, i, j) -> (a, b, i, j)>"
#: Payload lines every softmax step repeats (torch-mlir recomputes them in each generic):
#: the masked, scaled score %w, and its exponential %ex after subtracting the row max %mm.
_SCORE = """    %s = arith.mulf %v, %scale : f32
    %w = arith.select %m, %s, %ninf : f32
"""
_EXP = """    %d = arith.subf %w, %mm : f32
    %ex = math.exp %d : f32
"""


def _softmax(mask_value: str, mask_arg: str) -> str:
    t = f"tensor<{B}x{H}x{S}x{S}xf32>"
    r = f"tensor<{B}x{H}x{S}xf32>"
    return f"""
func.func @masked_softmax({mask_arg}%x: {t}) -> {t} {{
  {mask_value}
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %scale = arith.constant 0.25 : f32
  %e0 = tensor.empty() : {r}
  %i0 = linalg.fill ins(%ninf : f32) outs(%e0 : {r}) -> {r}
  %mx = linalg.generic {{indexing_maps = [{_MAPS4}, affine_map<(a, b, i, j) -> (a, b, i)>],
      iterator_types = ["parallel", "parallel", "parallel", "reduction"]}}
      ins(%mask, %x : tensor<{S}x{S}xi1>, {t}) outs(%i0 : {r}) {{
  ^bb0(%m: i1, %v: f32, %acc: f32):
{_SCORE}    %y = arith.maximumf %w, %acc : f32
    linalg.yield %y : f32
  }} -> {r}
  %i1 = linalg.fill ins(%zero : f32) outs(%e0 : {r}) -> {r}
  %sum = linalg.generic {{indexing_maps = [{_MAPS4}, affine_map<(a, b, i, j) -> (a, b, i)>,
      affine_map<(a, b, i, j) -> (a, b, i)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}}
      ins(%mask, %x, %mx : tensor<{S}x{S}xi1>, {t}, {r}) outs(%i1 : {r}) {{
  ^bb0(%m: i1, %v: f32, %mm: f32, %acc: f32):
{_SCORE}{_EXP}    %y = arith.addf %ex, %acc : f32
    linalg.yield %y : f32
  }} -> {r}
  %e1 = tensor.empty() : {t}
  %out = linalg.generic {{indexing_maps = [{_MAPS4}, affine_map<(a, b, i, j) -> (a, b, i)>,
      affine_map<(a, b, i, j) -> (a, b, i)>, affine_map<(a, b, i, j) -> (a, b, i, j)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel"]}}
      ins(%mask, %x, %mx, %sum : tensor<{S}x{S}xi1>, {t}, {r}, {r}) outs(%e1 : {t}) {{
  ^bb0(%m: i1, %v: f32, %mm: f32, %ss: f32, %o: f32):
{_SCORE}{_EXP}    %y = arith.divf %ex, %ss : f32
    linalg.yield %y : f32
  }} -> {t}
  return %out : {t}
}}
"""


CAUSAL = np.tril(np.ones((S, S), dtype=bool))
_CONST = ", ".join("[" + ", ".join("true" if v else "false" for v in row) + "]" for row in CAUSAL)
SRC_ARG = _softmax("", f"%mask: tensor<{S}x{S}xi1>, ")
SRC_CONST = _softmax(f"%mask = arith.constant dense<[{_CONST}]> : tensor<{S}x{S}xi1>", "")


def _reference(mask, x):
    s = np.where(mask[None, None], x.astype(np.float64) * 0.25, -np.inf)
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _x(seed=0):
    return np.random.default_rng(seed).standard_normal((B, H, S, S)).astype(np.float32)


def test_kernel_reads_a_widened_copy_of_the_mask():
    """The softmax kernel fills an int32_t stack array from the byte mask once, and its
    three loop nests read that array, not the mask binding."""
    kernels = compile_to_c(SRC_ARG, "t.mlir", target="c").files["t_kernels.c"]
    copy = re.search(r"int32_t (t\d+)\[256\];", kernels)
    assert copy, kernels
    assert len(re.findall(rf"= {copy.group(1)}\[", kernels)) == 3
    assert len(re.findall(r"binding0\[", kernels)) == 1  # only the copy loop reads the mask


@pytest.mark.parametrize("target", ["c", "openmp"])
def test_masked_softmax_matches_numpy(target):
    m_arg = ireec.compile_source(SRC_ARG, target=target)
    m_const = ireec.compile_source(SRC_CONST, target=target)
    x = _x()
    rng = np.random.default_rng(1)
    for mask in (CAUSAL, (rng.random((S, S)) < 0.7) | np.eye(S, dtype=bool)):
        np.testing.assert_allclose(m_arg.masked_softmax(mask, x), _reference(mask, x), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(m_const.masked_softmax(x), _reference(CAUSAL, x), rtol=1e-5, atol=1e-6)


def test_no_stack_room_reads_the_mask_as_it_is():
    """With --max-stack-bytes too small for the 1 KiB copy the kernel reads the byte mask in
    each loop, and the results stay the same."""
    opts = {"max_stack_bytes": 2560}
    kernels = compile_to_c(SRC_ARG, "t.mlir", target="c", options=opts).files["t_kernels.c"]
    assert "int32_t t" not in kernels and len(re.findall(r"binding0\[", kernels)) == 3
    m = ireec.compile_source(SRC_ARG, target="c", options=opts)
    x = _x(3)
    np.testing.assert_allclose(m.masked_softmax(CAUSAL, x), _reference(CAUSAL, x), rtol=1e-5, atol=1e-6)

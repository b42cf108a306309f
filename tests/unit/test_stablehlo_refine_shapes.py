"""stablehlo-refine-shapes (IR in -> IR out, structural asserts) and, end to end against
numpy, programs whose StableHLO ops see static values through dynamic types; plus the
``@ProductOfElementaryHouseholderReflectors`` custom call against a numpy orgqr."""
from __future__ import annotations

import numpy as np
import pytest

import ireec
from ireec.frontend.parser import parse_source
from ireec.ir import types as T
from ireec.ir.diagnostics import CompileError
from ireec.passes.input.stablehlo_refine_shapes import StableHloRefineShapesPass
from ireec.passes.pass_base import PassContext


def _refine(src: str):
    m = parse_source(src, "t.mlir")
    StableHloRefineShapesPass().run(m, PassContext())
    return m


def _ops(m, name=None):
    return [o for o in m.walk() if name is None or o.name == name]


def test_cast_folds_into_chain_and_one_cast_back_remains():
    m = _refine("""
func.func @f(%a: tensor<2x3xf32>) -> tensor<?x?xf32> {
  %d = tensor.cast %a : tensor<2x3xf32> to tensor<?x?xf32>
  %b = stablehlo.abs %d : tensor<?x?xf32>
  %c = stablehlo.add %b, %d : tensor<?x?xf32>
  return %c : tensor<?x?xf32>
}""")
    f = _ops(m, "func.func")[0]
    arg = f.body.args[0]
    (absop,) = _ops(m, "stablehlo.abs")
    (add,) = _ops(m, "stablehlo.add")
    assert absop.operands[0] is arg
    assert absop.results[0].type == T.TensorType((2, 3), T.f32)
    assert add.operands[0] is absop.results[0] and add.operands[1] is arg
    assert add.results[0].type == T.TensorType((2, 3), T.f32)
    # only the cast feeding func.return (which keeps its declared type) is still used;
    # the input cast is dead (canonicalize erases it)
    casts = [c for c in _ops(m, "tensor.cast") if c.results[0].uses]
    assert [c.operands[0] for c in casts] == [add.results[0]]
    assert casts[0].results[0].type == T.TensorType((None, None), T.f32)
    assert _ops(m, "func.return")[0].operands[0] is casts[0].results[0]


def test_dot_general_reduce_transpose_broadcast_shapes():
    m = _refine("""
func.func @f(%a: tensor<2x4x3xf32>, %b: tensor<2x3x5xf32>, %i: tensor<f32>) -> tensor<?xf32> {
  %da = tensor.cast %a : tensor<2x4x3xf32> to tensor<?x?x?xf32>
  %db = tensor.cast %b : tensor<2x3x5xf32> to tensor<?x?x?xf32>
  %p = stablehlo.dot_general %da, %db, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<?x?x?xf32>, tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %t = stablehlo.transpose %p, dims = [2, 0, 1] : (tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %r = stablehlo.reduce(%t init: %i) applies stablehlo.add across dimensions = [1] : (tensor<?x?x?xf32>, tensor<f32>) -> tensor<?x?xf32>
  %bc = stablehlo.broadcast_in_dim %r, dims = [0, 2] : (tensor<?x?xf32>) -> tensor<?x7x?xf32>
  %s = stablehlo.get_dimension_size %bc, dim = 2 : (tensor<?x7x?xf32>) -> tensor<i32>
  %o = stablehlo.reshape %bc : (tensor<?x7x?xf32>) -> tensor<?xf32>
  return %o : tensor<?xf32>
}""")
    types = {o.name: o.results[0].type for o in _ops(m)
             if o.name.startswith("stablehlo.") and o.results}
    assert types["stablehlo.dot_general"] == T.TensorType((2, 4, 5), T.f32)
    assert types["stablehlo.transpose"] == T.TensorType((5, 2, 4), T.f32)
    assert types["stablehlo.reduce"] == T.TensorType((5, 4), T.f32)
    assert types["stablehlo.broadcast_in_dim"] == T.TensorType((5, 7, 4), T.f32)
    assert types["stablehlo.reshape"] == T.TensorType((140,), T.f32)
    assert not _ops(m, "stablehlo.get_dimension_size")
    (c,) = _ops(m, "stablehlo.constant")
    assert c.attributes["value"].array.tolist() == 4


def test_dynamic_function_argument_is_left_alone():
    src = """
func.func @f(%a: tensor<?xf32>) -> tensor<?xf32> {
  %b = stablehlo.abs %a : tensor<?xf32>
  return %b : tensor<?xf32>
}"""
    m = _refine(src)
    assert _ops(m, "stablehlo.abs")[0].results[0].type == T.TensorType((None,), T.f32)
    assert not _ops(m, "tensor.cast")


def test_conflicting_static_shape_is_a_compile_error():
    with pytest.raises(CompileError, match="incompatible"):
        _refine("""
func.func @f(%a: tensor<2x3xf32>) -> tensor<4x?xf32> {
  %d = tensor.cast %a : tensor<2x3xf32> to tensor<?x?xf32>
  %b = "stablehlo.abs"(%d) : (tensor<?x?xf32>) -> tensor<4x?xf32>
  return %b : tensor<4x?xf32>
}""")


def test_end_to_end_dynamic_types_against_numpy():
    src = """
func.func @f(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> (tensor<4x2xf32>, tensor<2xf32>, tensor<i32>) {
  %da = tensor.cast %a : tensor<2x3xf32> to tensor<?x?xf32>
  %db = tensor.cast %b : tensor<3x4xf32> to tensor<?x?xf32>
  %p = "stablehlo.dot"(%da, %db) : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %n = stablehlo.negate %p : tensor<?x?xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %cmp = stablehlo.compare GT, %p, %n : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xi1>
  %sel = stablehlo.select %cmp, %p, %n : tensor<?x?xi1>, tensor<?x?xf32>
  %t = stablehlo.transpose %sel, dims = [1, 0] : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %mx = stablehlo.reduce(%da init: %z) applies stablehlo.maximum across dimensions = [1] : (tensor<?x?xf32>, tensor<f32>) -> tensor<?xf32>
  %sz = stablehlo.get_dimension_size %db, dim = 1 : (tensor<?x?xf32>) -> tensor<i32>
  %r0 = tensor.cast %t : tensor<?x?xf32> to tensor<4x2xf32>
  %r1 = tensor.cast %mx : tensor<?xf32> to tensor<2xf32>
  return %r0, %r1, %sz : tensor<4x2xf32>, tensor<2xf32>, tensor<i32>
}"""
    mod = ireec.compile_source(src, target="c")
    rng = np.random.default_rng(0)
    a = rng.standard_normal((2, 3)).astype(np.float32)
    b = rng.standard_normal((3, 4)).astype(np.float32)
    t, mx, sz = mod.f(a, b)
    np.testing.assert_allclose(t, np.abs(a @ b).T, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(mx, np.maximum(a.max(axis=1), 0), rtol=1e-6)
    assert int(sz) == 4


def _orgqr(a: np.ndarray, taus: np.ndarray) -> np.ndarray:
    """numpy reference: first n columns of H_0 ... H_{k-1} (LAPACK orgqr), per batch."""
    out = np.empty_like(a)
    for idx in np.ndindex(*a.shape[:-2]):
        x, t = a[idx].astype(np.float64), taus[idx].astype(np.float64)
        m, n = x.shape
        q = np.eye(m)[:, :n]
        for i in reversed(range(t.shape[0])):
            v = np.zeros(m)
            v[i] = 1.0
            v[i + 1:] = x[i + 1:, i]
            q = q - t[i] * np.outer(v, v @ q)
        out[idx] = q
    return out


@pytest.mark.parametrize("shape,k,dtype", [((5, 3), 3, "f32"), ((2, 4, 4), 2, "f64"),
                                           ((3, 2), 0, "f32")])
def test_householder_product_against_numpy(shape, k, dtype):
    batch = "x".join(str(d) for d in shape[:-2])
    ashape = "x".join(str(d) for d in shape)
    tshape = (batch + "x" if batch else "") + str(k)
    src = f"""
func.func @f(%a: tensor<{ashape}x{dtype}>, %t: tensor<{tshape}x{dtype}>) -> tensor<{ashape}x{dtype}> {{
  %q = stablehlo.custom_call @ProductOfElementaryHouseholderReflectors(%a, %t) : (tensor<{ashape}x{dtype}>, tensor<{tshape}x{dtype}>) -> tensor<{ashape}x{dtype}>
  return %q : tensor<{ashape}x{dtype}>
}}"""
    mod = ireec.compile_source(src, target="c")
    np_t = np.float32 if dtype == "f32" else np.float64
    rng = np.random.default_rng(1)
    a = rng.standard_normal(shape).astype(np_t)
    taus = rng.uniform(0.5, 1.5, shape[:-2] + (k,)).astype(np_t)
    got = mod.f(a, taus)
    np.testing.assert_allclose(got, _orgqr(a, taus), rtol=1e-5, atol=1e-5)


def test_householder_product_rejects_k_greater_than_n():
    src = """
func.func @f(%a: tensor<4x2xf32>, %t: tensor<3xf32>) -> tensor<4x2xf32> {
  %q = stablehlo.custom_call @ProductOfElementaryHouseholderReflectors(%a, %t) : (tensor<4x2xf32>, tensor<3xf32>) -> tensor<4x2xf32>
  return %q : tensor<4x2xf32>
}"""
    with pytest.raises(CompileError, match="m >= n >= k"):
        ireec.compile_source(src, target="c")

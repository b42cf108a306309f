"""The compile-time evaluator of constant-only ops (``iree-consteval-jit-globals``) against numpy:
each case is a function returning an op on constants; after the pass the function returns one
``arith.constant`` whose value must equal numpy's result exactly (same element type)."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from ireec.frontend.parser import parse_source
from ireec.ir import types as T
from ireec.ir.attributes import DenseElementsAttr
from ireec.ir.core import Operation
from ireec.ir.verifier import verify
from ireec.passes.common import constant_evaluator as CE
from ireec.passes.flow.consteval_jit_globals import ConstEvalJitGlobalsPass
from ireec.passes.pass_base import PassContext

RNG = np.random.default_rng(0)
MLIR_TYPES = {np.float32: "f32", np.float16: "f16", np.int8: "i8", np.int32: "i32", np.int64: "i64",
              np.bool_: "i1", ml_dtypes.bfloat16: "bf16", np.uint8: "ui8"}


def dense(a: np.ndarray) -> str:
    """``dense<...> : tensor<...>`` text for numpy array ``a``."""
    et = MLIR_TYPES[a.dtype.type]
    t = T.TensorType(tuple(a.shape), parse_type(et))
    stored = a.view(np.uint16) if a.dtype == ml_dtypes.bfloat16 else a
    return str(DenseElementsAttr(stored, t))


def parse_type(s: str) -> T.Type:
    m = parse_source(f"func.func private @f(%a: {s})")
    return m.body.ops[0].attributes["function_type"].value.inputs[0]


def fold(body: str, result_type: str):
    """Run the pass on ``func @f() -> result_type { body; return %r }``; returns (the folded
    value in its evaluation dtype, the ops left in the function, the report)."""
    m = parse_source(f"func.func @f() -> {result_type} {{\n{body}\n  return %r : {result_type}\n}}")
    ctx = PassContext()
    ConstEvalJitGlobalsPass().run(m, ctx)
    verify(m)
    f = m.body.ops[0]
    ops = f.body.ops
    ret = ops[-1].operands[0].owner
    assert isinstance(ret, Operation) and ret.name == "arith.constant", [o.name for o in ops]
    attr = ret.attributes["value"]
    return CE.attr_array(attr, attr.type, {}), [o.name for o in ops], ctx.report


def assert_same(got: np.ndarray, want: np.ndarray) -> None:
    assert got.dtype == want.dtype and got.shape == want.shape
    got, want = np.ascontiguousarray(got), np.ascontiguousarray(want)
    if got.dtype != np.bool_:  # bit-exact (NaN payloads, signed zeros)
        got, want = got.view(np.uint8), want.view(np.uint8)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dt", [np.float32, np.int8, np.float16, ml_dtypes.bfloat16, np.bool_])
def test_transpose(dt):
    a = (RNG.standard_normal((3, 5, 4)) * 50).astype(dt)
    et = MLIR_TYPES[dt]
    got, ops, rep = fold(f"""
  %w = arith.constant {dense(a)}
  %e = tensor.empty() : tensor<4x3x5x{et}>
  %r = linalg.transpose ins(%w : tensor<3x5x4x{et}>) outs(%e : tensor<4x3x5x{et}>) permutation = [2, 0, 1]""",
                         f"tensor<4x3x5x{et}>")
    assert_same(got, a.transpose(2, 0, 1))
    assert ops == ["arith.constant", "func.return"] and rep["consteval_folded_ops"] == 1


def test_broadcast_of_a_dense_constant():
    a = RNG.standard_normal(6).astype(np.float32)
    got, _, _ = fold(f"""
  %w = arith.constant {dense(a)}
  %e = tensor.empty() : tensor<2x6x3xf32>
  %r = linalg.broadcast ins(%w : tensor<6xf32>) outs(%e : tensor<2x6x3xf32>) dimensions = [0, 2]""",
                     "tensor<2x6x3xf32>")
    assert_same(got, np.broadcast_to(a[None, :, None], (2, 6, 3)).copy())


@pytest.mark.parametrize("dt", [np.float32, np.float16, ml_dtypes.bfloat16])
def test_generic_elementwise_float(dt):
    """x * y + exp(x) - y / x with one rounding per op in the element type, the bias
    broadcast through a projected-permutation map."""
    x = RNG.standard_normal((4, 6)).astype(dt)
    y = RNG.standard_normal(6).astype(dt)
    et = MLIR_TYPES[dt]
    got, _, _ = fold(f"""
  %x = arith.constant {dense(x)}
  %y = arith.constant {dense(y)}
  %e = tensor.empty() : tensor<4x6x{et}>
  %r = linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>,
      affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}}
      ins(%x, %y : tensor<4x6x{et}>, tensor<6x{et}>) outs(%e : tensor<4x6x{et}>) {{
  ^bb0(%a: {et}, %b: {et}, %o: {et}):
    %m = arith.mulf %a, %b : {et}
    %x1 = math.exp %a : {et}
    %s = arith.addf %m, %x1 : {et}
    %d = arith.divf %b, %a : {et}
    %t = arith.subf %s, %d : {et}
    linalg.yield %t : {et}
  }} -> tensor<4x6x{et}>""", f"tensor<4x6x{et}>")
    yb = np.broadcast_to(y, x.shape)
    want = ((x * yb).astype(dt) + np.exp(x).astype(dt)).astype(dt) - (yb / x).astype(dt)
    assert_same(got, want.astype(dt))


def test_generic_i8_wraps_and_divides_like_the_c():
    """Signless i8 add wraps (two's complement); divsi truncates toward zero and a zero
    divisor divides by 1, as the generated C does."""
    a = np.array([127, -128, -7, 7, 100, -100], np.int8)
    b = np.array([1, -1, 2, -2, 0, 0], np.int8)
    got, _, _ = fold(f"""
  %a = arith.constant {dense(a)}
  %b = arith.constant {dense(b)}
  %e = tensor.empty() : tensor<6xi8>
  %r = linalg.generic {{indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>,
      affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}}
      ins(%a, %b : tensor<6xi8>, tensor<6xi8>) outs(%e : tensor<6xi8>) {{
  ^bb0(%x: i8, %y: i8, %o: i8):
    %s = arith.addi %x, %y : i8
    %q = arith.divsi %s, %y : i8
    linalg.yield %q : i8
  }} -> tensor<6xi8>""", "tensor<6xi8>")
    s = (a.astype(np.int32) + b).astype(np.int8)  # wraps: 127 + 1 = -128
    div = np.where(b == 0, 1, b)
    want = np.trunc(s.astype(np.float64) / div).astype(np.int8)
    assert list(want) == [-128, -127, -2, -2, 100, -100]
    assert_same(got, want)


def test_reduction_with_fill_init_sums_in_loop_order():
    """A row sum over a fill(1.0) init: f32 adds in the order of the C loop (k ascending)."""
    a = (RNG.standard_normal((3, 300)) * 1e3).astype(np.float32)
    got, _, _ = fold(f"""
  %a = arith.constant {dense(a)}
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<3xf32>
  %f = linalg.fill ins(%one : f32) outs(%e : tensor<3xf32>) -> tensor<3xf32>
  %r = linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
      iterator_types = ["parallel", "reduction"]}} ins(%a : tensor<3x300xf32>) outs(%f : tensor<3xf32>) {{
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  }} -> tensor<3xf32>""", "tensor<3xf32>")
    want = np.ones(3, np.float32)
    for k in range(300):
        want = (want + a[:, k]).astype(np.float32)
    assert_same(got, want)


def test_matmul_of_constants():
    a = RNG.standard_normal((4, 8)).astype(np.float32)
    b = RNG.standard_normal((8, 5)).astype(np.float32)
    got, _, _ = fold(f"""
  %a = arith.constant {dense(a)}
  %b = arith.constant {dense(b)}
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x5xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x5xf32>) -> tensor<4x5xf32>
  %r = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x5xf32>) outs(%f : tensor<4x5xf32>) -> tensor<4x5xf32>""",
                     "tensor<4x5xf32>")
    want = np.zeros((4, 5), np.float32)
    for k in range(8):
        want = (want + (a[:, k:k + 1] * b[k:k + 1, :]).astype(np.float32)).astype(np.float32)
    assert_same(got, want)


def test_collapse_then_expand():
    a = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    got, ops, rep = fold(f"""
  %a = arith.constant {dense(a)}
  %c = tensor.collapse_shape %a [[0, 1], [2]] : tensor<2x3x4xi32> into tensor<6x4xi32>
  %x = tensor.expand_shape %c [[0], [1, 2]] output_shape [6, 2, 2] : tensor<6x4xi32> into tensor<6x2x2xi32>
  %e = tensor.empty() : tensor<6x2x2xi32>
  %r = linalg.add ins(%x, %x : tensor<6x2x2xi32>, tensor<6x2x2xi32>) outs(%e : tensor<6x2x2xi32>) -> tensor<6x2x2xi32>""",
                         "tensor<6x2x2xi32>")
    assert_same(got, a.reshape(6, 2, 2) * 2)
    assert ops == ["arith.constant", "func.return"] and rep["consteval_folded_ops"] == 3


def test_extract_slice_and_pad():
    a = np.arange(20, dtype=np.float32).reshape(4, 5)
    got, _, _ = fold(f"""
  %a = arith.constant {dense(a)}
  %s = tensor.extract_slice %a[1, 0] [2, 5] [2, 1] : tensor<4x5xf32> to tensor<2x5xf32>
  %p0 = arith.constant -1.0 : f32
  %r = tensor.pad %s low[0, 1] high[1, 0] {{
  ^bb0(%i: index, %j: index):
    tensor.yield %p0 : f32
  }} : tensor<2x5xf32> to tensor<3x6xf32>""", "tensor<3x6xf32>")
    want = np.full((3, 6), -1.0, np.float32)
    want[:2, 1:] = a[1::2]
    assert_same(got, want)


def test_splat_stays_splat():
    """A huge splat is never expanded: the broadcast of a splat gives a splat attribute."""
    got, ops, _ = fold("""
  %a = arith.constant dense<3> : tensor<16xi32>
  %e = tensor.empty() : tensor<16x16xi32>
  %r = linalg.broadcast ins(%a : tensor<16xi32>) outs(%e : tensor<16x16xi32>) dimensions = [1]""",
                       "tensor<16x16xi32>")
    assert CE.is_splat(got) and int(got.reshape(-1)[0]) == 3 and ops == ["arith.constant", "func.return"]


def test_reshapes_and_broadcasts_fused_by_their_readers_stay():
    """IREE's leaf policy: a reshape or a pure broadcast of a constant read by an elementwise
    op is not stored expanded (fusion folds it); read as a matmul operand it is."""
    m = parse_source("""
func.func @f(%x: tensor<4x8xf32>, %y: tensor<2x4xf32>) -> (tensor<4x8xf32>, tensor<2x8xf32>) {
  %c = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  %b = linalg.broadcast ins(%c : tensor<4xf32>) outs(%e : tensor<4x8xf32>) dimensions = [1]
  %a = linalg.add ins(%x, %b : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %z = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<2x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e2 : tensor<2x8xf32>) -> tensor<2x8xf32>
  %m = linalg.matmul ins(%y, %b : tensor<2x4xf32>, tensor<4x8xf32>) outs(%f : tensor<2x8xf32>) -> tensor<2x8xf32>
  return %a, %m : tensor<4x8xf32>, tensor<2x8xf32>
}""")
    ConstEvalJitGlobalsPass().run(m, PassContext())
    ops = m.body.ops[0].body.ops
    b = ops[[o.name for o in ops].index("linalg.matmul")].operands[1].owner
    assert b.name == "arith.constant" and b.results[0].type.shape == (4, 8)
    m2 = parse_source("""
func.func @f(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %c = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  %b = linalg.broadcast ins(%c : tensor<4xf32>) outs(%e : tensor<4x8xf32>) dimensions = [1]
  %a = linalg.add ins(%x, %b : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %a : tensor<4x8xf32>
}""")
    ConstEvalJitGlobalsPass().run(m2, PassContext())
    assert "linalg.broadcast" in [o.name for o in m2.body.ops[0].body.ops]


def test_non_constant_and_unsupported_ops_stay():
    m = parse_source("""
func.func @f(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %c = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %e = tensor.empty() : tensor<4xf32>
  %a = linalg.add ins(%x, %c : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %u = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%c : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%v: f32, %o: f32):
    %w = math.erf %v : f32
    linalg.yield %w : f32
  } -> tensor<4xf32>
  return %a, %u : tensor<4xf32>, tensor<4xf32>
}""")
    ctx = PassContext()
    ConstEvalJitGlobalsPass().run(m, ctx)
    names = [o.name for o in m.body.ops[0].body.ops]
    assert names.count("linalg.add") == 1 and names.count("linalg.generic") == 1
    assert ctx.report["consteval_folded_ops"] == 0


def test_scalar_op_table_matches_c_semantics():
    """A few ops whose C templates differ from numpy's defaults."""
    m = parse_source("""
func.func @f(%a: i32, %b: i32, %x: f32) -> (i32, i32, i32, f32) {
  %0 = arith.shli %a, %b : i32
  %1 = arith.shrsi %a, %b : i32
  %2 = arith.remsi %a, %b : i32
  %3 = math.round %x : f32
  return %0, %1, %2, %3 : i32, i32, i32, f32
}""")
    ops = m.body.ops[0].body.ops
    a = np.array([-9, 5, 1, -8], np.int32)
    b = np.array([40, 1, 0, 3], np.int32)
    x = np.array([2.5, -2.5, 0.49999997, -0.5], np.float32)
    assert list(CE.eval_scalar_op(ops[0], [a, b])) == [0, 10, 1, -64]
    assert list(CE.eval_scalar_op(ops[1], [a, b])) == [-1, 2, 1, -1]
    assert list(CE.eval_scalar_op(ops[2], [a, b])) == [-9, 0, 0, -2]
    assert list(CE.eval_scalar_op(ops[3], [x])) == [3.0, -3.0, 0.0, -1.0]


def test_sliding_window_map_and_transposed_output():
    """A non-permutation input map (d0 + d1, a 1-D convolution window) is gathered; the
    output map (d1, d0) writes the transpose."""
    a = RNG.standard_normal(8).astype(np.float32)
    got, _, _ = fold(f"""
  %a = arith.constant {dense(a)}
  %e = tensor.empty() : tensor<3x6xf32>
  %r = linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0 + d1)>, affine_map<(d0, d1) -> (d1, d0)>],
      iterator_types = ["parallel", "parallel"]}} ins(%a : tensor<8xf32>) outs(%e : tensor<3x6xf32>) {{
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  }} -> tensor<3x6xf32>""", "tensor<3x6xf32>")
    want = np.array([[a[i + j] for i in range(6)] for j in range(3)], np.float32)
    assert_same(got, want)


def test_argmax_two_results_with_reduction_index():
    """torch-mlir's argmax: max and index of the first maximum along the reduction dim."""
    a = np.array([[1.0, 5.0, 5.0, 2.0], [-3.0, -1.0, -2.0, -1.0]], np.float32)
    m = parse_source(f"""
func.func @f() -> (tensor<2xf32>, tensor<2xi64>) {{
  %a = arith.constant {dense(a)}
  %ninf = arith.constant 0xFF800000 : f32
  %z = arith.constant 0 : i64
  %e0 = tensor.empty() : tensor<2xf32>
  %e1 = tensor.empty() : tensor<2xi64>
  %f0 = linalg.fill ins(%ninf : f32) outs(%e0 : tensor<2xf32>) -> tensor<2xf32>
  %f1 = linalg.fill ins(%z : i64) outs(%e1 : tensor<2xi64>) -> tensor<2xi64>
  %r:2 = linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>,
      affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}}
      ins(%a : tensor<2x4xf32>) outs(%f0, %f1 : tensor<2xf32>, tensor<2xi64>) {{
  ^bb0(%in: f32, %mx: f32, %ix: i64):
    %i = linalg.index 1 : index
    %i64 = arith.index_cast %i : index to i64
    %m = arith.maximumf %in, %mx : f32
    %gt = arith.cmpf ogt, %in, %mx : f32
    %s = arith.select %gt, %i64, %ix : i64
    linalg.yield %m, %s : f32, i64
  }} -> (tensor<2xf32>, tensor<2xi64>)
  return %r#0, %r#1 : tensor<2xf32>, tensor<2xi64>
}}""")
    ConstEvalJitGlobalsPass().run(m, PassContext())
    verify(m)
    ret = m.body.ops[0].body.ops[-1]
    vals = [CE.attr_array(v.owner.attributes["value"], v.type, {}) for v in ret.operands]
    assert_same(vals[0], np.array([5.0, -1.0], np.float32))
    assert_same(vals[1], np.array([1, 1], np.int64))

"""canonicalize: folds and static-shape refinement (IR in -> IR out, structural asserts),
plus the input-phase decompositions of this area (pack/unpack, concat, softmax) run
end to end against numpy."""
from __future__ import annotations

import numpy as np

import ireec
from ireec.frontend.parser import parse_source
from ireec.ir import types as T
from ireec.ir.printer import print_module
from ireec.passes.input.canonicalize import CanonicalizePass, join_types
from ireec.passes.pass_base import PassContext


def _canon(src: str):
    m = parse_source(src, "t.mlir")
    CanonicalizePass().run(m, PassContext())
    return m


def _ops(m, name=None):
    return [o for o in m.walk() if name is None or o.name == name]


def test_cast_round_trip_folds_away():
    m = _canon("""
func.func @f(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %c = tensor.cast %a : tensor<2x3xf32> to tensor<2x?xf32>
  %r = tensor.cast %c : tensor<2x?xf32> to tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}""")
    assert not _ops(m, "tensor.cast")
    ret = _ops(m, "func.return")[0]
    assert ret.operands[0] is _ops(m, "func.func")[0].body.args[0]


def test_dim_of_constant_refines_empty_fill_and_generic():
    m = _canon("""
func.func @f() -> tensor<?x?xi32> {
  %cst = arith.constant dense<1> : tensor<4x6xi32>
  %d = tensor.cast %cst : tensor<4x6xi32> to tensor<?x?xi32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %d0 = tensor.dim %d, %c0 : tensor<?x?xi32>
  %d1 = tensor.dim %d, %c1 : tensor<?x?xi32>
  %h = arith.ceildivui %d1, %c2 : index
  %e = tensor.empty(%d0, %h) : tensor<?x?xi32>
  %z = arith.constant 0 : i32
  %f = linalg.fill ins(%z : i32) outs(%e : tensor<?x?xi32>) -> tensor<?x?xi32>
  return %f : tensor<?x?xi32>
}""")
    assert not _ops(m, "tensor.dim") and not _ops(m, "tensor.cast")
    assert not _ops(m, "arith.ceildivui")
    (e,) = _ops(m, "tensor.empty")
    assert e.results[0].type == T.TensorType((4, 3), T.i32) and not e.operands
    assert _ops(m, "linalg.fill")[0].results[0].type == T.TensorType((4, 3), T.i32)
    # the function's result type follows what it returns
    assert "-> tensor<4x3xi32>" in print_module(m)


def test_dim_of_dynamic_empty_forwards_the_size():
    m = _canon("""
func.func @f(%n: index) -> index {
  %e = tensor.empty(%n) : tensor<?x8xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d0 = tensor.dim %e, %c0 : tensor<?x8xf32>
  %d1 = tensor.dim %e, %c1 : tensor<?x8xf32>
  %s = arith.addi %d0, %d1 : index
  return %s : index
}""")
    add = _ops(m, "arith.addi")[0]
    f = _ops(m, "func.func")[0]
    assert add.operands[0] is f.body.args[0]
    assert add.operands[1].owner.attributes["value"].value == 8


def test_index_arithmetic_folds():
    m = _canon("""
func.func @f() -> (index, index, index, i32) {
  %a = arith.constant 7 : index
  %b = arith.constant -2 : index
  %q = arith.floordivsi %a, %b : index
  %r = arith.remsi %a, %b : index
  %c = arith.ceildivsi %a, %b : index
  %i = arith.index_cast %q : index to i32
  return %q, %r, %c, %i : index, index, index, i32
}""")
    vals = [o.operands for o in _ops(m, "func.return")][0]
    got = [v.owner.attributes["value"].value for v in vals]
    assert got == [-4, 1, -3, -4]
    inner = [o.name for o in _ops(m)[2:]]  # after the module and the func
    assert inner == ["arith.constant"] * 4 + ["func.return"]  # operands 7, -2 erased as dead

def test_slices_pad_reshape_refine():
    m = _canon("""
func.func @f(%x: tensor<8x6xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>) {
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %s = tensor.extract_slice %x[%c2, 0] [%c3, 4] [1, 1] : tensor<8x6xf32> to tensor<?x?xf32>
  %z = arith.constant 0.0 : f32
  %p = tensor.pad %x low[%c2, 0] high[1, %c3] {
  ^bb0(%i: index, %j: index):
    tensor.yield %z : f32
  } : tensor<8x6xf32> to tensor<?x?xf32>
  %e = tensor.expand_shape %x [[0, 1], [2]] output_shape [%c2, 4, 6] : tensor<8x6xf32> into tensor<?x4x6xf32>
  %c = tensor.collapse_shape %e [[0, 1], [2]] : tensor<?x4x6xf32> into tensor<?x6xf32>
  %cc = tensor.cast %c : tensor<?x6xf32> to tensor<?x?xf32>
  %k = tensor.collapse_shape %x [[0, 1]] : tensor<8x6xf32> into tensor<?xf32>
  return %s, %p, %cc, %k : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>
}""")
    sl = _ops(m, "tensor.extract_slice")[0]
    assert sl.results[0].type.shape == (3, 4) and len(sl.operands) == 1
    assert list(sl.attributes["static_offsets"].value) == [2, 0]
    assert _ops(m, "tensor.pad")[0].results[0].type.shape == (11, 9)
    assert _ops(m, "tensor.expand_shape")[0].results[0].type.shape == (2, 4, 6)
    assert _ops(m, "tensor.collapse_shape")[0].results[0].type.shape == (8, 6)
    assert _ops(m, "tensor.collapse_shape")[1].results[0].type.shape == (48,)
    assert "-> (tensor<3x4xf32>, tensor<11x9xf32>, tensor<8x6xf32>, tensor<48xf32>)" in print_module(m)


def test_unknown_users_keep_their_type_through_a_cast():
    m = _canon("""
func.func @f(%b: i1) -> tensor<?xf32> {
  %cst = arith.constant dense<1.0> : tensor<4xf32>
  %d = tensor.cast %cst : tensor<4xf32> to tensor<?xf32>
  %r = scf.if %b -> (tensor<?xf32>) {
    scf.yield %d : tensor<?xf32>
  } else {
    scf.yield %d : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}""")
    y = _ops(m, "scf.yield")[0]
    assert y.operands[0].type == T.TensorType((None,), T.f32)


def test_join_types():
    a = T.TensorType((None, 4), T.f32)
    assert join_types(a, T.TensorType((3, None), T.f32)) == T.TensorType((3, 4), T.f32)
    assert join_types(a, T.TensorType((3, 5), T.f32)) is None


def test_corpus_style_dynamic_program_runs():
    """A dynamic program built from constants (as IREE's e2e tests write them) compiles to
    static shapes and computes the right values."""
    mod = ireec.compile_source("""
func.func @f() -> tensor<?x?xf32> {
  %cst = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %d = tensor.cast %cst : tensor<2x3xf32> to tensor<?x?xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d0 = tensor.dim %d, %c0 : tensor<?x?xf32>
  %d1 = tensor.dim %d, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%d0, %d1) : tensor<?x?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%d : tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %a : f32
    linalg.yield %m : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}""", source_name="canon_dynamic.mlir")
    np.testing.assert_array_equal(mod.f(), np.array([[1, 4, 9], [16, 25, 36]], np.float32))


def _np_pack(x, tiles, perm=None, pad=0):
    """Reference linalg.pack of a 2-D array with inner_dims_pos = [0, 1]."""
    t0, t1 = tiles
    n0, n1 = -(-x.shape[0] // t0), -(-x.shape[1] // t1)
    p = np.full((n0 * t0, n1 * t1), pad, x.dtype)
    p[: x.shape[0], : x.shape[1]] = x
    out = p.reshape(n0, t0, n1, t1).transpose(0, 2, 1, 3)
    return out.transpose(1, 0, 2, 3) if perm == [1, 0] else out


def test_pack_unpack_concat_softmax_run():
    mod = ireec.compile_source("""
func.func @pack(%x: tensor<5x7xi32>) -> tensor<2x3x3x3xi32> {
  %pad = arith.constant -1 : i32
  %e = tensor.empty() : tensor<2x3x3x3xi32>
  %p = linalg.pack %x padding_value(%pad : i32) inner_dims_pos = [0, 1] inner_tiles = [3, 3] into %e
      : tensor<5x7xi32> -> tensor<2x3x3x3xi32>
  return %p : tensor<2x3x3x3xi32>
}
func.func @pack_perm(%x: tensor<4x6xi32>) -> tensor<3x2x2x2xi32> {
  %e = tensor.empty() : tensor<3x2x2x2xi32>
  %p = linalg.pack %x outer_dims_perm = [1, 0] inner_dims_pos = [0, 1] inner_tiles = [2, 2] into %e
      : tensor<4x6xi32> -> tensor<3x2x2x2xi32>
  return %p : tensor<3x2x2x2xi32>
}
func.func @unpack(%x: tensor<2x3x3x3xi32>) -> tensor<5x7xi32> {
  %e = tensor.empty() : tensor<5x7xi32>
  %u = linalg.unpack %x inner_dims_pos = [0, 1] inner_tiles = [3, 3] into %e
      : tensor<2x3x3x3xi32> -> tensor<5x7xi32>
  return %u : tensor<5x7xi32>
}
func.func @concat(%a: tensor<2x3xf32>, %b: tensor<2x2xf32>) -> tensor<2x5xf32> {
  %c = tensor.concat dim(1) %a, %b : (tensor<2x3xf32>, tensor<2x2xf32>) -> tensor<2x5xf32>
  return %c : tensor<2x5xf32>
}
""", source_name="decompositions.mlir")
    x = np.arange(35, dtype=np.int32).reshape(5, 7)
    packed = _np_pack(x, (3, 3), pad=-1)
    np.testing.assert_array_equal(mod.pack(x), packed)
    y = np.arange(24, dtype=np.int32).reshape(4, 6)
    np.testing.assert_array_equal(mod.pack_perm(y), _np_pack(y, (2, 2), perm=[1, 0]))
    np.testing.assert_array_equal(mod.unpack(packed), x)
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = -np.arange(4, dtype=np.float32).reshape(2, 2)
    np.testing.assert_array_equal(mod.concat(a, b), np.concatenate([a, b], axis=1))


def test_softmax_decomposes_into_generics():
    from ireec.passes.input.decompose_softmax import DecomposeSoftmaxPass

    m = parse_source("""
func.func @s(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %e = tensor.empty() : tensor<2x8xf32>
  %r = linalg.softmax dimension(1) ins(%x : tensor<2x8xf32>) outs(%e : tensor<2x8xf32>) -> tensor<2x8xf32>
  return %r : tensor<2x8xf32>
}""", "s.mlir")
    DecomposeSoftmaxPass().run(m, PassContext())
    assert not _ops(m, "linalg.softmax")
    gens = _ops(m, "linalg.generic")
    assert len(gens) == 4
    bodies = [[o.name for o in g.body.ops] for g in gens]
    assert bodies == [["arith.maxnumf", "linalg.yield"], ["arith.subf", "math.exp", "linalg.yield"],
                      ["arith.addf", "linalg.yield"], ["arith.divf", "linalg.yield"]]
    assert gens[0].results[0].type == T.TensorType((2,), T.f32)


def test_constant_compares_and_selects_fold_into_a_static_slice():
    m = _canon("""
func.func @f(%t: tensor<4xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : i64
  %c2 = arith.constant 2 : i64
  %c6 = arith.constant 6 : i64
  %ge = arith.cmpi sge, %c2, %c0 : i64
  %s = arith.select %ge, %c2, %c6 : i64
  %u = arith.cmpi ugt, %c0, %c2 : i64
  %s2 = arith.select %u, %c6, %s : i64
  %i = arith.index_cast %s2 : i64 to index
  %r = tensor.extract_slice %t[%i] [2] [1] : tensor<4xf32> to tensor<?xf32>
  return %r : tensor<?xf32>
}""")
    assert not _ops(m, "arith.cmpi") and not _ops(m, "arith.select")
    sl = _ops(m, "tensor.extract_slice")[0]
    assert list(sl.attributes["static_offsets"].value) == [2]

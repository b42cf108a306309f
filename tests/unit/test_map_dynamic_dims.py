"""ireec-map-dynamic-dims: which programs map over their dynamic dimensions (IR in, the
static slice program and its ``ireec.dynamic_dims`` out) and which are refused, each refusal
located at the op that uses the dimension (the line marked ``// error: <text>``)."""
from __future__ import annotations

import pytest

from ireec.frontend.parser import parse_source
from ireec.ir import types as T
from ireec.ir.diagnostics import CompileError
from ireec.passes.input.map_dynamic_dims import MapDynamicDimsPass, dynamic_dims_of
from ireec.passes.pass_base import PassContext


def _map(src: str):
    m = parse_source(src, "t.mlir")
    MapDynamicDimsPass().run(m, PassContext())
    f = next(o for o in m.walk() if o.name == "func.func")
    return m, f


def test_elementwise_unifies_the_two_arguments_batch():
    m, f = _map("""
func.func @f(%a: tensor<?x4xf32>, %b: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %c = stablehlo.add %a, %b : tensor<?x4xf32>
  return %c : tensor<?x4xf32>
}""")
    dd = dynamic_dims_of(f)
    assert dd["symbols"] == [(0, 0)]
    assert dd["arg_dims"] == [(0, 0, 0), (1, 0, 0)]
    assert dd["args"] == [[0], [0]] and dd["results"] == [[0]]
    assert [a.type for a in f.body.args] == [T.TensorType((1, 4), T.f32)] * 2
    assert str(f.attributes["function_type"].value) == "(tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>"


def test_two_symbols_and_jax_shape_plumbing():
    """get_dimension_size → reshape → concatenate → dynamic_broadcast_in_dim: the shape
    operand becomes a constant of the slice; the assertion becomes an entry check."""
    m, f = _map("""
func.func @f(%x: tensor<?x4xf32>, %y: tensor<?x4xf32>) -> tensor<?x?x4xf32> {
  %c4 = stablehlo.constant dense<4> : tensor<1xi32>
  %c1 = stablehlo.constant dense<1> : tensor<i32>
  %n = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?x4xf32>) -> tensor<i32>
  %m = stablehlo.get_dimension_size %y, dim = 0 : (tensor<?x4xf32>) -> tensor<i32>
  %ok = stablehlo.compare GE, %n, %c1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
  stablehlo.custom_call @shape_assertion(%ok, %n) {error_message = "b >= 1", has_side_effect = true} : (tensor<i1>, tensor<i32>) -> ()
  %n1 = stablehlo.reshape %n : (tensor<i32>) -> tensor<1xi32>
  %m1 = stablehlo.reshape %m : (tensor<i32>) -> tensor<1xi32>
  %s = stablehlo.concatenate %n1, %m1, %c4, dim = 0 : (tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<3xi32>
  %bx = stablehlo.dynamic_broadcast_in_dim %x, %s, dims = [0, 2] : (tensor<?x4xf32>, tensor<3xi32>) -> tensor<?x?x4xf32>
  %by = stablehlo.dynamic_broadcast_in_dim %y, %s, dims = [1, 2] : (tensor<?x4xf32>, tensor<3xi32>) -> tensor<?x?x4xf32>
  %z = stablehlo.add %bx, %by : tensor<?x?x4xf32>
  return %z : tensor<?x?x4xf32>
}""")
    dd = dynamic_dims_of(f)
    assert dd["symbols"] == [(0, 0), (1, 0)]
    assert dd["args"] == [[0], [1]] and dd["results"] == [[0, 1]]
    assert dd["checks"] == [(0, ">=", 1)]
    names = [o.name for o in f.walk()]
    assert "stablehlo.custom_call" not in names and "stablehlo.get_dimension_size" not in names
    bcast = [o for o in f.walk() if o.name == "stablehlo.dynamic_broadcast_in_dim"]
    assert all(o.operands[1].owner.name == "stablehlo.constant" for o in bcast)
    assert bcast[0].operands[1].owner.attributes["value"].int_list() == [1, 1, 4]


def test_torch_style_linalg_matmul_rows():
    m, f = _map("""
func.func @f(%x: tensor<?x8xf32>, %w: tensor<8x3xf32>) -> tensor<?x3xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %d = tensor.dim %x, %c0 : tensor<?x8xf32>
  %e = tensor.empty(%d) : tensor<?x3xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x3xf32>) -> tensor<?x3xf32>
  %y = linalg.matmul ins(%x, %w : tensor<?x8xf32>, tensor<8x3xf32>) outs(%z : tensor<?x3xf32>) -> tensor<?x3xf32>
  return %y : tensor<?x3xf32>
}""")
    dd = dynamic_dims_of(f)
    assert dd["results"] == [[0]]
    (empty,) = [o for o in f.walk() if o.name == "tensor.empty"]
    assert not empty.operands and empty.results[0].type == T.TensorType((1, 3), T.f32)


def test_static_functions_are_left_alone():
    m, f = _map("""
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}""")
    assert dynamic_dims_of(f) is None


REFUSED = {
    "reduction over the batch": ("""
func.func @f(%a: tensor<?x4xf32>) -> tensor<4xf32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [0] : (tensor<?x4xf32>, tensor<f32>) -> tensor<4xf32> // error: dynamic dimension 0 of this operand is reduced
  return %r : tensor<4xf32>
}""", "cannot reduce one"),
    "contracted batch": ("""
func.func @f(%a: tensor<?x4xf32>, %b: tensor<?x3xf32>) -> tensor<4x3xf32> {
  %r = stablehlo.dot_general %a, %b, contracting_dims = [0] x [0] : (tensor<?x4xf32>, tensor<?x3xf32>) -> tensor<4x3xf32> // error: is contracted
  return %r : tensor<4x3xf32>
}""", "contracted"),
    "batch merged by a reshape": ("""
func.func @f(%a: tensor<?x4xf32>) -> tensor<?xf32> {
  %c = stablehlo.constant dense<-1> : tensor<1xi32>
  %r = stablehlo.dynamic_reshape %a, %c : (tensor<?x4xf32>, tensor<1xi32>) -> tensor<?xf32> // error: moves, merges or splits
  return %r : tensor<?xf32>
}""", "keeps them in place"),
    "batch not leading": ("""
func.func @f(%a: tensor<?x4xf32>) -> tensor<4x?xf32> {
  %r = stablehlo.transpose %a, dims = [1, 0] : (tensor<?x4xf32>) -> tensor<4x?xf32> // error: is not in the leading prefix
  return %r : tensor<4x?xf32>
}""", "needs them leading"),
    "shape scalar used as data": ("""
func.func @f(%a: tensor<?x4xf32>) -> tensor<i32> {
  %n = stablehlo.get_dimension_size %a, dim = 0 : (tensor<?x4xf32>) -> tensor<i32>
  %m = stablehlo.maximum %n, %n : tensor<i32> // error: used as data
  return %m : tensor<i32>
}""", "shape values may only give shapes"),
    "concatenation along the batch": ("""
func.func @f(%a: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %r = stablehlo.concatenate %a, %a, dim = 0 : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32> // error: concatenation along dynamic dimension 0
  return %r : tensor<?x4xf32>
}""", "maps programs over dynamic dimensions"),
    "window over the batch": ("""
func.func @f(%a: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r = "stablehlo.reduce_window"(%a, %z) <{window_dimensions = array<i64: 2, 1>}> ({ // error: the window spans dynamic dimension 0
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<?x4xf32>, tensor<f32>) -> tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}""", "needs window 1 there"),
    "linalg reduction over the batch": ("""
#id = affine_map<(d0, d1) -> (d0, d1)>
#red = affine_map<(d0, d1) -> (d1)>
func.func @f(%a: tensor<?x4xf32>, %o: tensor<4xf32>) -> tensor<4xf32> {
  %r = linalg.generic {indexing_maps = [#id, #red], iterator_types = ["reduction", "parallel"]} ins(%a : tensor<?x4xf32>) outs(%o : tensor<4xf32>) { // error: is not indexed by a parallel loop alone
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}""", "cannot reduce or window one"),
    "tosa reduction over the batch": ("""
func.func @f(%a: tensor<?x4xf32>) -> tensor<1x4xf32> {
  %r = tosa.reduce_sum %a {axis = 0 : i32} : (tensor<?x4xf32>) -> tensor<1x4xf32> // error: dynamic dimension 0 of this operand is reduced
  return %r : tensor<1x4xf32>
}""", "cannot reduce one"),
    "op without a rule": ("""
func.func @f(%a: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %r = stablehlo.reverse %a, dims = [0] : tensor<?x4xf32> // error: 'stablehlo.reverse' on dynamic dimension 0
  return %r : tensor<?x4xf32>
}""", "knows no rule for this op"),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_refused_programs_are_located_errors(case):
    src, why = REFUSED[case]
    lines = src.split("\n")
    line = next(i for i, text in enumerate(lines, 1) if "// error:" in text)
    expected = lines[line - 1].split("// error:")[1].strip()
    with pytest.raises(CompileError) as e:
        _map(src)
    assert e.value.loc.line == line, e.value.render()
    assert expected in e.value.message and why in e.value.message, e.value.message

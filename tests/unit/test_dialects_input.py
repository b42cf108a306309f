"""Input dialects (stablehlo, chlo, tosa, util, check, ml_program): parse, print, accessors.

* every corpus / model file using these dialects parses, and parse → print → parse → print
  is a fixed point (pretty and generic), with the IR unchanged by the round trip;
* pretty forms print exactly as upstream (JAX / torch-mlir / IREE) prints them;
* a pretty form and upstream's generic form of the same op give identical IR;
* accessors decode ``#stablehlo.dot`` / ``#stablehlo.conv`` / compare / gather / scatter.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from ireec.dialects import check as chk
from ireec.dialects import stablehlo as shlo
from ireec.dialects import tosa, util
from ireec.dialects.registry import has_trait
from ireec.frontend.parser import parse_source
from ireec.ir import types as T
from ireec.ir.attributes import (ArrayAttr, BoolAttr, DenseArrayAttr, DenseElementsAttr,
                                 FloatAttr, IntegerAttr, OpaqueAttr, TypeAttr)
from ireec.ir.diagnostics import CompileError
from ireec.ir.printer import Printer, print_module

SHARED = Path(__file__).parents[2].parent / "shared"
MINE = ("stablehlo", "chlo", "tosa", "util", "check", "ml_program")
_USES_MINE = re.compile(r"^(?!\s*//).*\b(" + "|".join(MINE) + r")\.[a-z_]", re.M)

# Corpus files that fail for reasons outside these dialect modules (xfail while they do).
KNOWN = {
    "corpus/iree_e2e/tests/e2e/linalg/small_float_arith.mlir":
        "core parser (make_dense): decimal dense<> literals of f8/f4 element types "
        "(dense<[0.0, 1.0]> : tensor<4xf8E5M2FNUZ>) are not encoded to their bit patterns",
}


def _corpus_files():
    if not SHARED.is_dir():
        return [pytest.param(None, marks=pytest.mark.skip(
            reason=f"shared corpus not found at {SHARED}"))]
    out = []
    roots = [SHARED / "corpus" / "iree_e2e", SHARED / "models"]
    for root in roots:
        for f in sorted(root.rglob("*.mlir")):
            if _USES_MINE.search(f.read_text(encoding="utf-8")):
                out.append(pytest.param(f, id=str(f.relative_to(SHARED))))
    return out


def _canonical_generic(module) -> str:
    """Generic text with every op's attributes sorted (IR identity, attribute order aside).

    A function's all-empty ``arg_attrs``/``res_attrs`` (``[{}, {}]``, as JAX's generic export
    has them) are dropped: the pretty signature cannot show them, in MLIR as here."""
    for op in module.walk():
        attrs = dict(sorted(op.attributes.items()))
        for k in ("arg_attrs", "res_attrs"):
            a = attrs.get(k)
            if isinstance(a, ArrayAttr) and all(not len(d.value) for d in a.value):
                del attrs[k]
        op.attributes = attrs
    return print_module(module, generic=True)


def _roundtrip(text: str, name: str = "<test>"):
    m1 = parse_source(text, name)
    p1 = print_module(m1)
    m2 = parse_source(p1, name + ".1")
    p2 = print_module(m2)
    assert p1 == p2, _first_diff(p1, p2)
    g1 = print_module(m1, generic=True)
    m3 = parse_source(g1, name + ".g")
    assert print_module(m3, generic=True) == g1
    assert print_module(m3) == p1
    assert _canonical_generic(m1) == _canonical_generic(m2)
    return m1, p1


def _first_diff(a: str, b: str) -> str:
    for x, y in zip(a.splitlines(), b.splitlines()):
        if x != y:
            return f"first print:  {x}\nsecond print: {y}"
    return "prints differ in length"


@pytest.mark.parametrize("path", _corpus_files())
def test_corpus_roundtrip(path):
    rel = str(path.relative_to(SHARED))
    try:
        _roundtrip(path.read_text(encoding="utf-8"), str(path))
    except Exception as e:  # noqa: BLE001 - classified below
        if rel in KNOWN:
            pytest.xfail(KNOWN[rel])
        m = re.search(r"custom op '([\w.]+)' is unknown", str(e)) if isinstance(
            e, CompileError) else None
        if m and m.group(1).split(".", 1)[0] not in MINE:
            pytest.skip(f"needs a parser for {m.group(1)} (not an input dialect)")
        raise


def test_corpus_found_when_shared_present():
    if not SHARED.is_dir():
        pytest.skip(f"shared corpus not found at {SHARED}")
    assert len(_corpus_files()) >= 100


# --------------------------------------------------------------------------------------
# Exact text: ops print as upstream prints them
# --------------------------------------------------------------------------------------

PRETTY_LINES = [
    # JAX 0.10 (models/jax)
    "%0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = "
    "[DEFAULT, DEFAULT] : (tensor<8x784xf32>, tensor<784x256xf32>) -> tensor<8x256xf32>",
    "%1 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<256xf32>) -> tensor<1x256xf32>",
    "%2 = stablehlo.add %arg4, %arg4 : tensor<1x256xf32>",
    "%3 = stablehlo.constant dense<0xFF800000> : tensor<f32>",
    "%4 = stablehlo.reduce(%0 init: %3) applies stablehlo.maximum across dimensions = [1] : "
    "(tensor<8x256xf32>, tensor<f32>) -> tensor<8xf32>",
    "%5 = stablehlo.convolution(%arg5, %arg6) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->"
    "[b, 0, 1, f], window = {stride = [1, 1], pad = [[2, 2], [2, 2]], lhs_dilate = [1, 1], "
    "rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, "
    "feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, "
    "#stablehlo<precision DEFAULT>]} : (tensor<1x28x28x1xf32>, tensor<5x5x1x6xf32>) -> "
    "tensor<1x28x28x6xf32>",
    # torch-mlir (models/torch_mlir/*.stablehlo.mlir)
    "%6 = stablehlo.transpose %arg1, dims = [1, 0] : (tensor<784x256xf32>) -> tensor<256x784xf32>",
    "%7 = stablehlo.convert %arg7 : (tensor<1xi64>) -> tensor<1xf32>",
    "%8 = stablehlo.reshape %7 : (tensor<1xf32>) -> tensor<f32>",
    "%9 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : "
    "(tensor<8x784xf32>, tensor<784x256xf32>) -> tensor<8x256xf32>",
    # IREE tests
    "%10 = stablehlo.compare  GT, %8, %8 : (tensor<f32>, tensor<f32>) -> tensor<i1>",
    "%11 = stablehlo.compare  EQ, %8, %8,  NOTYPE : (tensor<f32>, tensor<f32>) -> tensor<i1>",
    "%12 = stablehlo.select %10, %8, %8 : tensor<i1>, tensor<f32>",
    "%13 = stablehlo.exponential %arg8 : (tensor<4xf16>) -> tensor<4xf32>",
    "%14 = stablehlo.fft %arg9, type = RFFT, length = [32] : (tensor<32xf32>) -> "
    "tensor<17xcomplex<f32>>",
    "stablehlo.custom_call @shape_assertion(%10) {error_message = \"Shape assertion failed\", "
    "has_side_effect = true} : (tensor<i1>) -> ()",
    "%15 = stablehlo.slice %arg2 [1:3, 0:256:2] : (tensor<256xf32>) -> tensor<2x128xf32>",
    "%16 = stablehlo.pad %arg2, %8, low = [0], high = [1], interior = [0] : "
    "(tensor<256xf32>, tensor<f32>) -> tensor<257xf32>",
    "%17 = stablehlo.iota dim = 0 : tensor<4xf32>",
    "%18 = stablehlo.dot %arg0, %arg1, precision = [DEFAULT, DEFAULT] {name = \"dot.86\"} : "
    "(tensor<8x784xf32>, tensor<784x256xf32>) -> tensor<8x256xf32>",
    "%19 = chlo.broadcast_add %arg2, %8 : (tensor<256xf32>, tensor<f32>) -> tensor<256xf32>",
    # TOSA as torch-mlir prints it
    "%20 = tosa.transpose %arg0 {perms = array<i32: 1, 0>} : (tensor<8x784xf32>) -> "
    "tensor<784x8xf32>",
    "%21 = tosa.reduce_max %arg0 {axis = 1 : i32} : (tensor<8x784xf32>) -> tensor<8x1xf32>",
    "%22 = tosa.const_shape {values = dense<[1, 8, 784]> : tensor<3xindex>} : () -> "
    "!tosa.shape<3>",
    "%23 = tosa.reshape %arg0, %22 : (tensor<8x784xf32>, !tosa.shape<3>) -> tensor<1x8x784xf32>",
    # util / check / flow
    "%24 = util.unfoldable_constant dense<[1, 2]> : tensor<2xi32>",
    "%25 = util.unfoldable_constant 42 : i32",
    "%26 = util.optimization_barrier %24 : tensor<2xi32>",
    "check.expect_eq(%24, %26) : tensor<2xi32>",
    "check.expect_eq_const(%24, dense<[1, 2]> : tensor<2xi32>) : tensor<2xi32>",
    "check.expect_almost_eq_const(%arg2, dense<1.0e+00> : tensor<256xf32>, atol 1.0e-02, "
    "rtol 1.2e-07) : tensor<256xf32>",
    "check.expect_true(%25) : i32",
    "%27 = flow.tensor.dynamic_constant dense<1.0e+00> : tensor<2x3xf32> -> tensor<?x?xf32>",
]

_ARGS = ("%arg0: tensor<8x784xf32>, %arg1: tensor<784x256xf32>, %arg2: tensor<256xf32>, "
         "%arg3: tensor<8x10xf32>, %arg4: tensor<1x256xf32>, %arg5: tensor<1x28x28x1xf32>, "
         "%arg6: tensor<5x5x1x6xf32>, %arg7: tensor<1xi64>, %arg8: tensor<4xf16>, "
         "%arg9: tensor<32xf32>")


def test_pretty_forms_print_exactly_as_upstream():
    body = "\n".join("    " + line for line in PRETTY_LINES)
    text = f"module {{\n  func.func @f({_ARGS}) {{\n{body}\n    return\n  }}\n}}\n"
    _, printed = _roundtrip(text)
    got = [line.strip() for line in printed.splitlines()[2:-3]]
    # Integer attributes of type i64 print without their type, as MLIR prints them.
    want = [line.replace(" : i64", "") for line in PRETTY_LINES]
    assert got == want


def test_spellings_normalize_to_upstream_print():
    text = """
func.func @f(%lhs: tensor<1x2x3xf32>, %rhs: tensor<1x3x4xf32>, %x: tensor<1x4x4x2xf32>, %w: tensor<3x2x2x1xf32>, %r: tensor<2xf32>) {
  %0 = "stablehlo.dot_general"(%lhs, %rhs) {
    dot_dimension_numbers = #stablehlo.dot<
      lhs_batching_dimensions = [0],
      lhs_contracting_dimensions = [2],
      rhs_batching_dimensions = [0],
      rhs_contracting_dimensions = [1],
    >,
    precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]
  } : (tensor<1x2x3xf32>, tensor<1x3x4xf32>) -> tensor<1x2x4xf32>
  %1 = "stablehlo.convolution"(%x, %w) {
        batch_group_count = 1 : i64,
        dimension_numbers = #stablehlo.conv<raw
          input_batch_dimension = 0,
          input_feature_dimension = 3,
          input_spatial_dimensions = [1, 2],
          kernel_input_feature_dimension = 2,
          kernel_output_feature_dimension = 3,
          kernel_spatial_dimensions = [0, 1],
          output_batch_dimension = 0,
          output_feature_dimension = 3,
          output_spatial_dimensions = [1, 2]
        >,
        feature_group_count = 1 : i64,
        rhs_dilation = array<i64: 1, 1>,
        window_strides = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>, tensor<3x2x2x1xf32>) -> tensor<1x2x3x1xf32>
  %2 = stablehlo.reduce(%r init: %r) across dimensions = [0] : (tensor<2xf32>, tensor<2xf32>) -> tensor<f32>
   reducer(%a: tensor<f32>, %b: tensor<f32>)  {
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }
  return
}
"""
    _, printed = _roundtrip(text)
    lines = [line.strip() for line in printed.splitlines()]
    assert ("%0 = stablehlo.dot_general %arg0, %arg1, batching_dims = [0] x [0], "
            "contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : "
            "(tensor<1x2x3xf32>, tensor<1x3x4xf32>) -> tensor<1x2x4xf32>") in lines
    assert ("%1 = stablehlo.convolution(%arg2, %arg3) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->"
            "[b, 0, 1, f], window = {stride = [1, 1], rhs_dilate = [1, 1]} "
            "{batch_group_count = 1, feature_group_count = 1} : (tensor<1x4x4x2xf32>, "
            "tensor<3x2x2x1xf32>) -> tensor<1x2x3x1xf32>") in lines
    # A one-op commutative reducer prints compact, as upstream does.
    assert ("%2 = stablehlo.reduce(%arg4 init: %arg4) applies stablehlo.add across "
            "dimensions = [0] : (tensor<2xf32>, tensor<2xf32>) -> tensor<f32>") in lines


def test_non_compact_reduce_and_while_print_with_regions():
    text = """
func.func @f(%x: tensor<4x8xf32>, %s: tensor<f32>, %i: tensor<i64>) {
  %0 = stablehlo.reduce(%x init: %s) across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
   reducer(%a: tensor<f32>, %b: tensor<f32>) {
    %z = stablehlo.add %a, %b : tensor<f32>
    %w = stablehlo.multiply %z, %z : tensor<f32>
    stablehlo.return %w : tensor<f32>
  }
  %1:2 = stablehlo.while(%it = %s, %it2 = %i) : tensor<f32>, tensor<i64>
   cond {
    %c = stablehlo.compare  LT, %it, %it : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %y = stablehlo.add %it, %it : tensor<f32>
    stablehlo.return %y, %it2 : tensor<f32>, tensor<i64>
  }
  return
}
"""
    m, printed = _roundtrip(text)
    assert " reducer(%arg3: tensor<f32>, %arg4: tensor<f32>)  {" in printed
    assert "%3:2 = stablehlo.while(%arg5 = %arg1, %arg6 = %arg2) : tensor<f32>, tensor<i64>" \
        in printed
    wh = [op for op in m.walk() if op.name == "stablehlo.while"][0]
    assert len(wh.regions) == 2
    scalars = [T.TensorType((), T.f32), T.TensorType((), T.i64)]
    assert [a.type for a in wh.regions[0].blocks[0].args] == scalars
    assert [a.type for a in wh.regions[1].blocks[0].args] == scalars
    red = [op for op in m.walk() if op.name == "stablehlo.reduce"][0]
    assert [op.name for op in red.regions[0].blocks[0].ops] == [
        "stablehlo.add", "stablehlo.multiply", "stablehlo.return"]


# --------------------------------------------------------------------------------------
# Representation: compact reduce, attribute kinds, generic == pretty
# --------------------------------------------------------------------------------------

def test_compact_reduce_builds_region_with_one_add():
    m = parse_source("""
func.func @f(%x: tensor<8x10xf32>, %init: tensor<f32>) -> tensor<8xf32> {
  %0 = stablehlo.reduce(%x init: %init) applies stablehlo.add across dimensions = [1] : (tensor<8x10xf32>, tensor<f32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}""")
    red = [op for op in m.walk() if op.name == "stablehlo.reduce"][0]
    assert red.attributes["dimensions"] == DenseArrayAttr(T.i64, (1,))
    assert len(red.regions) == 1 and len(red.regions[0].blocks) == 1
    blk = red.regions[0].blocks[0]
    scalar = T.TensorType((), T.f32)
    assert [a.type for a in blk.args] == [scalar, scalar]
    assert [op.name for op in blk.ops] == ["stablehlo.add", "stablehlo.return"]
    add, ret = blk.ops
    assert list(add.operands) == list(blk.args)
    assert add.result_types == [scalar]
    assert list(ret.operands) == [add.result]
    assert [v.type for v in red.operands] == [T.TensorType((8, 10), T.f32), scalar]


def test_pretty_attribute_kinds_match_ods():
    m = parse_source("""
func.func @f(%a: tensor<4x8xf32>, %s: tensor<f32>) {
  %0 = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
  %1 = stablehlo.transpose %a, dims = [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %2 = stablehlo.compare  GT, %a, %a,  FLOAT : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
  %3 = stablehlo.slice %a [0:4:2, 1:8] : (tensor<4x8xf32>) -> tensor<2x7xf32>
  %4 = stablehlo.constant dense<1.0> : tensor<f32>
  %5 = stablehlo.concatenate %a, %a, dim = 0 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<8x8xf32>
  %6 = stablehlo.convolution(%a, %a) dim_numbers = [b, f]x[o, i]->[b, f], window = {pad = [], reverse = []} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x4xf32>
  return
}""")
    ops = {op.name.split(".")[-1]: op for op in m.walk() if op.dialect == "stablehlo"}
    assert ops["broadcast_in_dim"].attributes == {
        "broadcast_dimensions": DenseArrayAttr(T.i64, ())}
    assert ops["transpose"].attributes == {"permutation": DenseArrayAttr(T.i64, (1, 0))}
    assert ops["compare"].attributes == {
        "comparison_direction": OpaqueAttr("#stablehlo<comparison_direction GT>"),
        "compare_type": OpaqueAttr("#stablehlo<comparison_type FLOAT>")}
    sl = ops["slice"].attributes
    assert (sl["start_indices"], sl["limit_indices"], sl["strides"]) == (
        DenseArrayAttr(T.i64, (0, 1)), DenseArrayAttr(T.i64, (4, 8)), DenseArrayAttr(T.i64, (2, 1)))
    assert isinstance(ops["constant"].attributes["value"], DenseElementsAttr)
    assert ops["concatenate"].attributes == {"dimension": IntegerAttr(0, T.i64)}
    conv = ops["convolution"].attributes
    assert conv["dimension_numbers"] == OpaqueAttr("#stablehlo.conv<[b, f]x[o, i]->[b, f]>")
    assert conv["window_reversal"] == DenseArrayAttr(T.i1, ())
    assert conv["padding"].type == T.TensorType((0, 2), T.i64)


# Pairs (pretty, generic as upstream prints it): both must give the same IR.
PAIRS = [
    ("%0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1] "
     ": (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>",
     '%0 = "stablehlo.dot_general"(%a, %b) <{dot_dimension_numbers = #stablehlo.dot<'
     'lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions '
     '= [2], rhs_contracting_dimensions = [1]>}> : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> '
     'tensor<2x3x5xf32>'),
    ("%0 = stablehlo.compare  LT, %a, %a,  TOTALORDER : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) "
     "-> tensor<2x3x4xi1>",
     '%0 = "stablehlo.compare"(%a, %a) <{compare_type = #stablehlo<comparison_type TOTALORDER>, '
     'comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<2x3x4xf32>, '
     'tensor<2x3x4xf32>) -> tensor<2x3x4xi1>'),
    ("%0 = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<2x3xf32>",
     '%0 = "stablehlo.broadcast_in_dim"(%s) <{broadcast_dimensions = array<i64>}> : '
     '(tensor<f32>) -> tensor<2x3xf32>'),
    ("%0 = stablehlo.slice %a [0:2, 1:3, 0:4:2] : (tensor<2x3x4xf32>) -> tensor<2x2x2xf32>",
     '%0 = "stablehlo.slice"(%a) <{limit_indices = array<i64: 2, 3, 4>, start_indices = '
     'array<i64: 0, 1, 0>, strides = array<i64: 1, 1, 2>}> : (tensor<2x3x4xf32>) -> '
     'tensor<2x2x2xf32>'),
    ("%0 = stablehlo.reduce(%a init: %s) applies stablehlo.add across dimensions = [0, 2] : "
     "(tensor<2x3x4xf32>, tensor<f32>) -> tensor<3xf32>",
     '%0 = "stablehlo.reduce"(%a, %s) <{dimensions = array<i64: 0, 2>}> ({\n'
     '^bb0(%x: tensor<f32>, %y: tensor<f32>):\n'
     '  %1 = "stablehlo.add"(%x, %y) : (tensor<f32>, tensor<f32>) -> tensor<f32>\n'
     '  "stablehlo.return"(%1) : (tensor<f32>) -> ()\n'
     '}) : (tensor<2x3x4xf32>, tensor<f32>) -> tensor<3xf32>'),
    ("%0 = stablehlo.convolution(%img, %ker) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->"
     "[b, f, 0, 1], window = {stride = [1, 1], pad = [[2, 2], [2, 2]], rhs_dilate = [1, 1]} "
     "{batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x1x28x28xf32>, "
     "tensor<6x1x5x5xf32>) -> tensor<1x6x28x28xf32>",
     '%0 = "stablehlo.convolution"(%img, %ker) <{batch_group_count = 1 : i64, dimension_numbers '
     '= #stablehlo.conv<[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]>, feature_group_count = 1 : i64, '
     'padding = dense<2> : tensor<2x2xi64>, rhs_dilation = array<i64: 1, 1>, window_strides = '
     'array<i64: 1, 1>}> : (tensor<1x1x28x28xf32>, tensor<6x1x5x5xf32>) -> '
     'tensor<1x6x28x28xf32>'),
    ("%0:2 = stablehlo.while(%it = %s, %k = %i) : tensor<f32>, tensor<i64>\n cond {\n"
     "  %c = stablehlo.compare  LT, %it, %it : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
     "  stablehlo.return %c : tensor<i1>\n} do {\n"
     "  stablehlo.return %it, %k : tensor<f32>, tensor<i64>\n}",
     '%0:2 = "stablehlo.while"(%s, %i) ({\n^bb0(%p: tensor<f32>, %q: tensor<i64>):\n'
     '  %c = "stablehlo.compare"(%p, %p) <{comparison_direction = #stablehlo<comparison_direction'
     ' LT>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>\n'
     '  "stablehlo.return"(%c) : (tensor<i1>) -> ()\n}, {\n^bb0(%p: tensor<f32>, %q: tensor<i64>):'
     '\n  "stablehlo.return"(%p, %q) : (tensor<f32>, tensor<i64>) -> ()\n}) : '
     '(tensor<f32>, tensor<i64>) -> (tensor<f32>, tensor<i64>)'),
    ("%0 = stablehlo.fft %c, type = IFFT, length = [4] : (tensor<4xcomplex<f32>>) -> "
     "tensor<4xcomplex<f32>>",
     '%0 = "stablehlo.fft"(%c) <{fft_length = array<i64: 4>, fft_type = #stablehlo<fft_type '
     'IFFT>}> : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>'),
    ("%0 = stablehlo.custom_call @foo(%s) {has_side_effect = true} : (tensor<f32>) -> tensor<f32>",
     '%0 = "stablehlo.custom_call"(%s) <{call_target_name = "foo", has_side_effect = true}> : '
     '(tensor<f32>) -> tensor<f32>'),
    ("%0 = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>",
     '%0 = "stablehlo.constant"() <{value = dense<[1.0, 2.0]> : tensor<2xf32>}> : () -> '
     'tensor<2xf32>'),
    ("%0 = stablehlo.iota dim = 1 : tensor<2x3xi32>",
     '%0 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<2x3xi32>'),
    ("%0 = stablehlo.pad %a, %s, low = [0, 1, 0], high = [1, 0, 0], interior = [0, 0, 1] : "
     "(tensor<2x3x4xf32>, tensor<f32>) -> tensor<3x4x7xf32>",
     '%0 = "stablehlo.pad"(%a, %s) <{edge_padding_high = array<i64: 1, 0, 0>, edge_padding_low = '
     'array<i64: 0, 1, 0>, interior_padding = array<i64: 0, 0, 1>}> : (tensor<2x3x4xf32>, '
     'tensor<f32>) -> tensor<3x4x7xf32>'),
    # TOSA: newer (IREE 3.13) and older (torch-mlir) syntax, and the generic form
    ("%0 = tosa.transpose %a perms([2, 0, 1]) : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>",
     '%0 = "tosa.transpose"(%a) <{perms = array<i32: 2, 0, 1>}> : (tensor<2x3x4xf32>) -> '
     'tensor<4x2x3xf32>'),
    ("%0 = tosa.transpose %a {perms = array<i32: 2, 0, 1>} : (tensor<2x3x4xf32>) -> "
     "tensor<4x2x3xf32>",
     '%0 = "tosa.transpose"(%a) <{perms = array<i32: 2, 0, 1>}> : (tensor<2x3x4xf32>) -> '
     'tensor<4x2x3xf32>'),
    ("%0 = tosa.reduce_sum %a axis(1) : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>",
     '%0 = "tosa.reduce_sum"(%a) <{axis = 1 : i32}> : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>'),
    ("%0 = tosa.clamp %a min_val(0.000000e+00 : f32) max_val(3.40282347E+38 : f32) : "
     "(tensor<2x3x4xf32>) -> tensor<2x3x4xf32>",
     '%0 = "tosa.clamp"(%a) <{max_val = 3.40282347E+38 : f32, min_val = 0.000000e+00 : f32}> : '
     '(tensor<2x3x4xf32>) -> tensor<2x3x4xf32>'),
    ("%0 = tosa.max_pool2d %img kernel([2, 2]) stride([2, 2]) pad([0, 0, 0, 0]) : "
     "(tensor<1x1x28x28xf32>) -> tensor<1x1x14x14xf32>",
     '%0 = "tosa.max_pool2d"(%img) <{kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, '
     'stride = array<i64: 2, 2>}> : (tensor<1x1x28x28xf32>) -> tensor<1x1x14x14xf32>'),
    ("%0 = tosa.avg_pool2d %img, %z, %z kernel([2, 2]) stride([2, 2]) pad([0, 0, 0, 0]) "
     "acc_type(f32) : (tensor<1x1x28x28xf32>, tensor<1xf32>, tensor<1xf32>) -> "
     "tensor<1x1x14x14xf32>",
     '%0 = "tosa.avg_pool2d"(%img, %z, %z) <{acc_type = f32, kernel = array<i64: 2, 2>, pad = '
     'array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>}> : (tensor<1x1x28x28xf32>, '
     'tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x14x14xf32>'),
    ("%0 = tosa.const values(dense<0> : tensor<1xi8>) : () -> tensor<1xi8>",
     '%0 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>'),
    # check / util / ml_program
    ("check.expect_almost_eq(%a, %a, atol 1.0e-02) : tensor<2x3x4xf32>",
     '"check.expect_almost_eq"(%a, %a) <{atol = 1.000000e-02 : f32}> : (tensor<2x3x4xf32>, '
     'tensor<2x3x4xf32>) -> ()'),
    ("check.expect_eq_const(%s, dense<1.0> : tensor<f32>) : tensor<f32>",
     '"check.expect_eq_const"(%s) <{value = dense<1.0> : tensor<f32>}> : (tensor<f32>) -> ()'),
    ("%0 = util.unfoldable_constant dense<3> : tensor<i32>",
     '%0 = "util.unfoldable_constant"() <{value = dense<3> : tensor<i32>}> : () -> tensor<i32>'),
    ("%0 = util.optimization_barrier %s : tensor<f32>",
     '%0 = "util.optimization_barrier"(%s) : (tensor<f32>) -> tensor<f32>'),
    ("%0 = chlo.broadcast_multiply %a, %s {broadcast_dimensions = array<i64>} : "
     "(tensor<2x3x4xf32>, tensor<f32>) -> tensor<2x3x4xf32>",
     '%0 = "chlo.broadcast_multiply"(%a, %s) <{broadcast_dimensions = array<i64>}> : '
     '(tensor<2x3x4xf32>, tensor<f32>) -> tensor<2x3x4xf32>'),
]

_PAIR_ARGS = ("%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>, %s: tensor<f32>, %i: tensor<i64>, "
              "%img: tensor<1x1x28x28xf32>, %ker: tensor<6x1x5x5xf32>, %c: tensor<4xcomplex<f32>>, "
              "%z: tensor<1xf32>")


def _generic_body(op_text: str) -> str:
    m = parse_source(f"func.func @f({_PAIR_ARGS}) {{\n{op_text}\n  return\n}}")
    func = m.body.ops[0]
    for op in func.walk():
        op.attributes = dict(sorted(op.attributes.items()))
    pr = Printer(generic=True)
    pr.print_region(func.regions[0])
    return pr.text()


@pytest.mark.parametrize("pretty,generic", PAIRS, ids=[p[0].split()[2] if "=" in p[0].split()[1]
                                                       else p[0].split()[0] for p in PAIRS])
def test_pretty_and_generic_give_identical_ir(pretty, generic):
    assert _generic_body(pretty) == _generic_body(generic)


def test_util_and_ml_program_globals_pretty_equals_generic():
    pretty = """
util.global private mutable @counter = dense<2.0> : tensor<f32>
util.global private @w {inlining_policy = #util.inline.never} = #util.byte_pattern<1> : tensor<4xf32>
ml_program.global private mutable @c2(dense<2.0> : tensor<f32>) : tensor<f32>
func.func @f() {
  %0 = util.global.load @counter : tensor<f32>
  util.global.store %0, @counter : tensor<f32>
  %1 = ml_program.global_load @c2 : tensor<f32>
  ml_program.global_store @c2 = %1 : tensor<f32>
  return
}"""
    generic = """
"util.global"() <{initial_value = dense<2.0> : tensor<f32>, is_mutable, sym_name = "counter", sym_visibility = "private", type = tensor<f32>}> : () -> ()
"util.global"() <{inlining_policy = #util.inline.never, initial_value = #util.byte_pattern<1> : tensor<4xf32>, sym_name = "w", sym_visibility = "private", type = tensor<4xf32>}> : () -> ()
"ml_program.global"() <{is_mutable, sym_name = "c2", sym_visibility = "private", type = tensor<f32>, value = dense<2.0> : tensor<f32>}> : () -> ()
func.func @f() {
  %0 = "util.global.load"() <{global = @counter}> : () -> tensor<f32>
  "util.global.store"(%0) <{global = @counter}> : (tensor<f32>) -> ()
  %1 = "ml_program.global_load"() <{global = @c2}> : () -> tensor<f32>
  "ml_program.global_store"(%1) <{global = @c2}> : (tensor<f32>) -> ()
  return
}"""
    a, b = parse_source(pretty), parse_source(generic)
    assert _canonical_generic(a) == _canonical_generic(b)
    w = a.body.ops[1]
    assert isinstance(w.attributes["initial_value"], util.TypedOpaqueAttr)
    assert util.global_type(w) == T.TensorType((4,), T.f32)
    assert util.is_mutable(a.body.ops[0]) and not util.is_mutable(w)


def _shared(rel):
    p = SHARED / rel
    if not p.is_file():
        pytest.skip(f"{p} not found")
    return p


def test_jax_pretty_and_generic_files_give_identical_ir():
    """models/jax/mlp: mlp.args.mlir (pretty) and mlp.args.generic.mlir (generic)."""
    def bodies(path):
        out = {}
        for f in parse_source(path.read_text(), str(path)).body.ops:
            pr = Printer(generic=True)
            pr.print_region(f.regions[0])
            out[f.attributes["sym_name"].value] = pr.text()
        return out

    pretty = bodies(_shared("models/jax/mlp/mlp.args.mlir"))
    generic = bodies(_shared("models/jax/mlp/mlp.args.generic.mlir"))
    assert pretty == generic


def test_tosa_old_and_new_syntax_files_give_identical_ir():
    """torch-mlir's print and IREE 3.13's re-print of the same TOSA program."""
    old = parse_source(_shared("models/torch_mlir/mlp/mlp.args.tosa.mlir").read_text())
    new = parse_source(_shared("models/torch_mlir/mlp/mlp.args.tosa.ireeopt.mlir").read_text())
    assert print_module(old, generic=True) == print_module(new, generic=True)


# --------------------------------------------------------------------------------------
# Accessors
# --------------------------------------------------------------------------------------

def _ops(text, name):
    return [op for op in parse_source(text).walk() if op.name == name]


def test_dot_dimension_numbers_accessor():
    (op,) = _ops("""func.func @f(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>) {
  %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  return
}""", "stablehlo.dot_general")
    assert shlo.dot_dimension_numbers(op) == {
        "lhs_batching_dimensions": [0], "rhs_batching_dimensions": [0],
        "lhs_contracting_dimensions": [2], "rhs_contracting_dimensions": [1]}
    assert shlo.precision_config(op) == []
    # Also from an attribute directly, with empty fields left out of the text.
    assert shlo.dot_dimension_numbers(shlo.dot_attr([], [], [1], [0])) == {
        "lhs_batching_dimensions": [], "rhs_batching_dimensions": [],
        "lhs_contracting_dimensions": [1], "rhs_contracting_dimensions": [0]}


def test_conv_dimension_numbers_accessor():
    nhwc = {"input_batch_dimension": 0, "input_feature_dimension": 3,
            "input_spatial_dimensions": [1, 2], "kernel_input_feature_dimension": 2,
            "kernel_output_feature_dimension": 3, "kernel_spatial_dimensions": [0, 1],
            "output_batch_dimension": 0, "output_feature_dimension": 3,
            "output_spatial_dimensions": [1, 2]}
    assert shlo.conv_dimension_numbers(
        OpaqueAttr("#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>")) == nhwc
    nchw = shlo.conv_dimension_numbers(
        OpaqueAttr("#stablehlo.conv<[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]>"))
    assert nchw == {"input_batch_dimension": 0, "input_feature_dimension": 1,
                    "input_spatial_dimensions": [2, 3], "kernel_input_feature_dimension": 1,
                    "kernel_output_feature_dimension": 0, "kernel_spatial_dimensions": [2, 3],
                    "output_batch_dimension": 0, "output_feature_dimension": 1,
                    "output_spatial_dimensions": [2, 3]}
    # Spatial dims out of order: [b, 1, 0, f] means spatial dim 0 is tensor dim 2.
    odd = shlo.conv_dimension_numbers(
        OpaqueAttr("#stablehlo.conv<[b, 1, 0, f]x[0, 1, i, o]->[b, 0, 1, f]>"))
    assert odd["input_spatial_dimensions"] == [2, 1]
    # The raw spelling is normalized at parse time to the same attribute.
    (op,) = _ops("""func.func @f(%x: tensor<1x4x4x2xf32>, %w: tensor<3x2x2x1xf32>) {
  %0 = "stablehlo.convolution"(%x, %w) {batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<raw input_batch_dimension = 0, input_feature_dimension = 3, input_spatial_dimensions = [1, 2], kernel_input_feature_dimension = 2, kernel_output_feature_dimension = 3, kernel_spatial_dimensions = [0, 1], output_batch_dimension = 0, output_feature_dimension = 3, output_spatial_dimensions = [1, 2]>, feature_group_count = 1 : i64, window_strides = array<i64: 2, 1>} : (tensor<1x4x4x2xf32>, tensor<3x2x2x1xf32>) -> tensor<1x2x3x1xf32>
  return
}""", "stablehlo.convolution")
    assert op.attributes["dimension_numbers"] == OpaqueAttr(
        "#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>")
    assert shlo.conv_dimension_numbers(op) == nhwc
    win = shlo.conv_window(op)
    assert win["window_strides"] == [2, 1] and win["padding"] == [(0, 0), (0, 0)]
    assert win["lhs_dilation"] == [1, 1] and win["window_reversal"] == [False, False]
    assert win["feature_group_count"] == 1
    assert shlo.conv_attr(nhwc) == op.attributes["dimension_numbers"]


def test_compare_accessors():
    ops = _ops("""func.func @f(%a: tensor<3xf32>) {
  %0 = stablehlo.compare  GE, %a, %a,  FLOAT : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  %1 = "stablehlo.compare"(%a, %a) {comparison_direction = #stablehlo<comparison_direction NE>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  return
}""", "stablehlo.compare")
    assert [shlo.comparison_direction(o) for o in ops] == ["GE", "NE"]
    assert [shlo.comparison_type(o) for o in ops] == ["FLOAT", None]
    (cc,) = _ops("""func.func @f(%a: tensor<3xf32>) {
  %0 = chlo.broadcast_compare %a, %a {comparison_direction = #chlo<comparison_direction LT>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  return
}""", "chlo.broadcast_compare")
    assert shlo.comparison_direction(cc) == "LT"


def test_gather_and_scatter_accessors():
    text = """func.func @f(%x: tensor<5x1x5xi32>, %i: tensor<i64>, %t: tensor<8xi32>, %ix: tensor<4x1xi32>, %u: tensor<4xi32>) {
  %0 = "stablehlo.gather"(%x, %i) {
    dimension_numbers = #stablehlo.gather<
      collapsed_slice_dims = [0],
      index_vector_dim = 0,
      offset_dims = [0, 1],
      start_index_map = [0],
    >,
    slice_sizes = array<i64: 1, 1, 5>
  } : (tensor<5x1x5xi32>, tensor<i64>) -> tensor<1x5xi32>
  %1 = "stablehlo.scatter"(%t, %ix, %u) ({
  ^bb0(%a: tensor<i32>, %b: tensor<i32>):
    "stablehlo.return"(%b) : (tensor<i32>) -> ()
  }) {indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = true} : (tensor<8xi32>, tensor<4x1xi32>, tensor<4xi32>) -> tensor<8xi32>
  return
}"""
    m = parse_source(text)
    g = [o for o in m.walk() if o.name == "stablehlo.gather"][0]
    s = [o for o in m.walk() if o.name == "stablehlo.scatter"][0]
    assert g.attributes["dimension_numbers"] == OpaqueAttr(
        "#stablehlo.gather<offset_dims = [0, 1], collapsed_slice_dims = [0], "
        "start_index_map = [0]>")
    assert shlo.gather_dimension_numbers(g) == {
        "offset_dims": [0, 1], "collapsed_slice_dims": [0], "operand_batching_dims": [],
        "start_indices_batching_dims": [], "start_index_map": [0], "index_vector_dim": 0}
    assert shlo.scatter_dimension_numbers(s) == {
        "update_window_dims": [], "inserted_window_dims": [0], "input_batching_dims": [],
        "scatter_indices_batching_dims": [], "scatter_dims_to_operand_dims": [0],
        "index_vector_dim": 1}
    assert s.attributes["unique_indices"] == BoolAttr(True)


def test_check_tolerances_and_tosa_kinds():
    m = parse_source("""func.func @f(%a: tensor<4xf32>, %b: tensor<2x3xi32>) {
  check.expect_almost_eq_const(%a, dense<1.0> : tensor<4xf32>, atol 1.200e-07, rtol 1.000e-02) : tensor<4xf32>
  check.expect_almost_eq(%a, %a) : tensor<4xf32>
  %0 = tosa.conv2d %a, %a, %a, %a, %a pad([2, 2, 2, 2]) stride([1, 1]) dilation([1, 1]) acc_type(f32) : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}""")
    c1, c2 = [o for o in m.walk() if o.dialect == "check"]
    atol, rtol = chk.tolerances(c1)
    assert atol == pytest.approx(1.2e-7) and rtol == pytest.approx(1e-2)
    assert isinstance(c1.attributes["atol"], FloatAttr) and c1.attributes["atol"].type == T.f32
    assert chk.tolerances(c2) == (1e-4, 0.0)
    assert isinstance(chk.expected_value(c1), DenseElementsAttr)
    conv = [o for o in m.walk() if o.name == "tosa.conv2d"][0]
    assert conv.attributes["acc_type"] == TypeAttr(T.f32)
    assert conv.attributes["pad"] == DenseArrayAttr(T.i64, (2, 2, 2, 2))
    assert tosa.int_list_attr(conv, "stride") == [1, 1]
    assert len(conv.operands) == 5


def test_traits():
    for name in ("stablehlo.add", "stablehlo.maximum", "stablehlo.exponential",
                 "stablehlo.compare", "stablehlo.select", "chlo.broadcast_add", "tosa.add",
                 "tosa.exp", "tosa.clamp"):
        assert has_trait(name, "elementwise"), name
        assert has_trait(name, "pure"), name
    for name in ("stablehlo.return", "tosa.yield", "util.return"):
        assert has_trait(name, "terminator"), name
    for name in ("stablehlo.dot_general", "stablehlo.constant", "stablehlo.broadcast_in_dim",
                 "tosa.matmul", "tosa.reshape"):
        assert has_trait(name, "pure") and not has_trait(name, "elementwise"), name
    for name in ("stablehlo.custom_call", "check.expect_eq", "util.unfoldable_constant",
                 "util.optimization_barrier", "util.global.store"):
        assert not has_trait(name, "pure"), name


def test_errors_are_located():
    with pytest.raises(CompileError) as e:
        parse_source("func.func @f(%a: tensor<4xf32>) {\n"
                     "  %0 = stablehlo.reduce(%a init: %a) applies stablehlo.subtract across "
                     "dimensions = [0] : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>\n  return\n}",
                     "bad.mlir")
    assert e.value.loc.line == 2 and "commutative" in e.value.message
    with pytest.raises(CompileError) as e:
        parse_source('func.func @f(%a: tensor<4xf32>) {\n  %0 = "stablehlo.convolution"(%a, %a) '
                     '{dimension_numbers = #stablehlo.conv<[b, 0, f]x[0, q, o]->[b, 0, f]>} : '
                     '(tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>\n  return\n}', "bad.mlir")
    assert e.value.loc.line == 2 and "stablehlo.conv" in e.value.message


def test_pretty_printer_falls_back_to_generic_for_odd_ir():
    m = parse_source("""func.func @f(%a: tensor<4xf32>) {
  %0 = stablehlo.broadcast_in_dim %a, dims = [1] : (tensor<4xf32>) -> tensor<1x4xf32>
  return
}""")
    (op,) = [o for o in m.walk() if o.name == "stablehlo.broadcast_in_dim"]
    del op.attributes["broadcast_dimensions"]
    text = print_module(m)
    assert '"stablehlo.broadcast_in_dim"(%arg0) : (tensor<4xf32>) -> (tensor<1x4xf32>)' in text
    assert print_module(parse_source(text)) == text


def test_accessor_types():
    # i64_list reads both array<i64> and the older dense<...> spelling
    assert shlo.i64_list(DenseArrayAttr(T.i64, (1, 2))) == [1, 2]
    assert shlo.i64_list(ArrayAttr((IntegerAttr(3, T.i64),))) == [3]


def test_util_func_call_print_as_iree():
    text = """module {
  util.func public @abs(%arg0: tensor<f32>) -> tensor<f32> {
    %0 = util.call @helper(%arg0) : (tensor<f32>) -> tensor<f32>
    util.return %0 : tensor<f32>
  }
  util.func private @helper(%arg0: tensor<f32>) -> %arg0 attributes {inlining_policy = #util.inline.never} {
    %0 = util.cmp.eq %arg0, %arg0 : tensor<f32>
    util.return %arg0 : tensor<f32>
  }
  util.func private @two(%arg0: tensor<4xf32> {foo}) -> (%arg0 as tensor<2x2xf32>, i32 {bar})
}
"""
    m, printed = _roundtrip(text)
    assert printed == text
    fa, fh, ft = m.body.ops
    assert fa.attributes["tied_operands"] == ArrayAttr((IntegerAttr(-1, T.index),))
    assert fh.attributes["tied_operands"] == ArrayAttr((IntegerAttr(0, T.index),))
    assert ft.attributes["function_type"] == TypeAttr(T.FunctionType(
        (T.TensorType((4,), T.f32),), (T.TensorType((2, 2), T.f32), T.i32)))
    call = [o for o in m.walk() if o.name == "util.call"][0]
    assert call.attributes["callee"].root == "helper"
    assert has_trait("util.func", "isolated")


def test_flow_helpers_from_e2e_inputs():
    text = """module {
  func.func @f(%arg0: tensor<2x3xi32>, %arg1: index) {
    %0 = flow.tensor.dynamic_constant dense<1> : tensor<2x3xi32> -> tensor<?x?xi32>
    %1 = flow.tensor.tie_shape %0 : tensor<?x?xi32>{%arg1, %arg1}
    %2 = flow.tensor.bitcast %1 : tensor<?x?xi32>{%arg1, %arg1} -> tensor<?x?xf32>{%arg1, %arg1}
    return
  }
}
"""
    m, printed = _roundtrip(text)
    assert printed == text
    bc = [o for o in m.walk() if o.name == "flow.tensor.bitcast"][0]
    assert bc.attributes["operandSegmentSizes"] == DenseArrayAttr(T.i32, (1, 2, 2))

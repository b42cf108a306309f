"""linalg-generalize-named-ops: named ops become linalg.generic with upstream maps.

The expected maps are those mlir-opt --linalg-generalize-named-ops prints. A small numpy
interpreter of linalg.generic (payloads of arith add/mul/max) checks that the generalized
matmul and strided convolution compute what numpy computes.
"""
import itertools

import numpy as np
import pytest

from ireec.dialects.linalg import indexing_maps, iterator_types, loop_ranges
from ireec.frontend.parser import parse_source
from ireec.ir.attributes import OpaqueAttr
from ireec.ir.printer import print_module
from ireec.passes.common.linalg_generalize_named_ops import (LinalgGeneralizeNamedOpsPass,
                                                              generalize)
from ireec.passes.pass_base import PASSES, PassContext


def one_op(args: str, op_text: str):
    """Parse ``op_text`` inside a function; return (module, the op)."""
    m = parse_source(f"func.func @f({args}) {{\n  {op_text}\n  return\n}}\n")
    return m, m.body.ops[0].body.ops[0]


def generalized(args: str, op_text: str):
    m, op = one_op(args, op_text)
    g = generalize(op)
    assert g.name == "linalg.generic" and m.body.ops[0].body.ops[0] is g
    text = print_module(m)
    assert print_module(parse_source(text)) == text
    return g


def maps_str(op):
    return [str(m) for m in indexing_maps(op)]


def test_pass_is_registered():
    assert PASSES["linalg-generalize-named-ops"] is LinalgGeneralizeNamedOpsPass
    assert "linalg-generalize-named-ops" in LinalgGeneralizeNamedOpsPass.__doc__


def test_matmul():
    g = generalized("%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<4x16xf32>",
                    "%0 = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) "
                    "outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>")
    assert maps_str(g) == ["(d0, d1, d2) -> (d0, d2)", "(d0, d1, d2) -> (d2, d1)",
                           "(d0, d1, d2) -> (d0, d1)"]
    assert iterator_types(g) == ["parallel", "parallel", "reduction"]
    assert g.attributes["iterator_types"][2] == OpaqueAttr("#linalg.iterator_type<reduction>")
    assert loop_ranges(g) == [4, 16, 8]
    assert [o.name for o in g.body.ops] == ["arith.mulf", "arith.addf", "linalg.yield"]
    assert g.result_types == [g.operands[2].type]


def test_conv_2d_nchw_fchw_stride_2():
    g = generalized(
        "%i: tensor<1x3x9x9xf32>, %w: tensor<5x3x3x3xf32>, %o: tensor<1x5x4x4xf32>",
        "%0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = "
        "dense<2> : vector<2xi64>} ins(%i, %w : tensor<1x3x9x9xf32>, tensor<5x3x3x3xf32>) "
        "outs(%o : tensor<1x5x4x4xf32>) -> tensor<1x5x4x4xf32>")
    assert maps_str(g) == [
        "(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 * 2 + d5, d3 * 2 + d6)",
        "(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)",
        "(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)"]
    assert iterator_types(g) == ["parallel"] * 4 + ["reduction"] * 3
    assert loop_ranges(g) == [1, 5, 4, 4, 3, 3, 3]
    assert "strides" not in g.attributes


def test_conv_dilation_and_nhwc():
    g = generalized(
        "%i: tensor<1x9x9x3xf32>, %w: tensor<3x3x3x5xf32>, %o: tensor<1x5x5x5xf32>",
        "%0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<2> : tensor<2xi64>, strides = "
        "dense<1> : tensor<2xi64>} ins(%i, %w : tensor<1x9x9x3xf32>, tensor<3x3x3x5xf32>) "
        "outs(%o : tensor<1x5x5x5xf32>) -> tensor<1x5x5x5xf32>")
    assert maps_str(g)[0] == "(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 + d4 * 2, d2 + d5 * 2, d6)"
    assert maps_str(g)[1] == "(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d3)"


def test_pooling_nchw_max():
    g = generalized(
        "%i: tensor<1x3x8x8xf32>, %k: tensor<2x2xf32>, %o: tensor<1x3x4x4xf32>",
        "%0 = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = "
        "dense<2> : vector<2xi64>} ins(%i, %k : tensor<1x3x8x8xf32>, tensor<2x2xf32>) "
        "outs(%o : tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>")
    assert maps_str(g) == ["(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 * 2 + d4, d3 * 2 + d5)",
                           "(d0, d1, d2, d3, d4, d5) -> (d4, d5)",
                           "(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)"]
    assert iterator_types(g) == ["parallel"] * 4 + ["reduction"] * 2
    body = g.body
    assert body.ops[0].name == "arith.maximumf"
    assert list(body.ops[0].operands) == [body.args[2], body.args[0]]


#: Every quantized named op of upstream's OpDSL (core_named_ops.py): operand types (input,
#: filter, output; the zero points are i32 scalars), window attributes and the indexing maps of
#: input, filter and output mlir-opt --linalg-generalize-named-ops prints (the zero points'
#: maps are ``() -> ()`` over the loops).
_WIN2 = "{dilations = dense<[1, 2]> : vector<2xi64>, strides = dense<[2, 1]> : vector<2xi64>}"
QUANTIZED = {
    "quantized_matmul": ("4x8", "8x16", "4x16", "", 2,
                         ["(d0, d2)", "(d2, d1)", "(d0, d1)"]),
    "quantized_batch_matmul": ("2x4x8", "2x8x16", "2x4x16", "", 3,
                               ["(d0, d1, d3)", "(d0, d3, d2)", "(d0, d1, d2)"]),
    "conv_2d_nhwc_hwcf_q": ("1x9x9x3", "3x2x3x5", "1x4x7x5", _WIN2, 4,
                            ["(d0, d1 * 2 + d4, d2 + d5 * 2, d6)", "(d4, d5, d6, d3)",
                             "(d0, d1, d2, d3)"]),
    "conv_2d_nhwc_fhwc_q": ("1x9x9x3", "5x3x2x3", "1x4x7x5", _WIN2, 4,
                            ["(d0, d1 * 2 + d4, d2 + d5 * 2, d6)", "(d3, d4, d5, d6)",
                             "(d0, d1, d2, d3)"]),
    "conv_2d_nchw_fchw_q": ("1x3x9x9", "5x3x3x2", "1x5x4x7", _WIN2, 4,
                            ["(d0, d4, d2 * 2 + d5, d3 + d6 * 2)", "(d1, d4, d5, d6)",
                             "(d0, d1, d2, d3)"]),
    "conv_2d_ngchw_gfchw_q": ("1x2x3x9x9", "2x4x3x3x2", "1x2x4x4x7", _WIN2, 5,
                              ["(d0, d1, d5, d3 * 2 + d6, d4 + d7 * 2)", "(d1, d2, d5, d6, d7)",
                               "(d0, d1, d2, d3, d4)"]),
    "conv_2d_nhwgc_gfhwc_q": ("1x9x9x2x3", "2x4x3x2x3", "1x4x7x2x4", _WIN2, 5,
                              ["(d0, d1 * 2 + d5, d2 + d6 * 2, d3, d7)", "(d3, d4, d5, d6, d7)",
                               "(d0, d1, d2, d3, d4)"]),
    "conv_3d_ndhwc_dhwcf_q": ("1x9x9x9x3", "3x2x2x3x5", "1x4x7x8x5",
                              "{dilations = dense<[1, 2, 1]> : vector<3xi64>, "
                              "strides = dense<[2, 1, 1]> : vector<3xi64>}", 5,
                              ["(d0, d1 * 2 + d5, d2 + d6 * 2, d3 + d7, d8)",
                               "(d5, d6, d7, d8, d4)", "(d0, d1, d2, d3, d4)"]),
    "depthwise_conv_2d_nhwc_hwc_q": ("1x9x9x3", "3x2x3", "1x4x7x3", _WIN2, 4,
                                     ["(d0, d1 * 2 + d4, d2 + d5 * 2, d3)", "(d4, d5, d3)",
                                      "(d0, d1, d2, d3)"]),
    "depthwise_conv_2d_nhwc_hwcm_q": ("1x9x9x3", "3x2x3x2", "1x4x7x3x2", _WIN2, 5,
                                      ["(d0, d1 * 2 + d5, d2 + d6 * 2, d3)", "(d5, d6, d3, d4)",
                                       "(d0, d1, d2, d3, d4)"]),
}


def _quantized_op(name: str) -> tuple:
    i, k, o, attrs, _, _ = QUANTIZED[name]
    it, kt, ot = f"tensor<{i}xi8>", f"tensor<{k}xi8>", f"tensor<{o}xi32>"
    return (f"%i: {it}, %k: {kt}, %izp: i32, %kzp: i32, %o: {ot}",
            f"%0 = linalg.{name} {attrs} ins(%i, %k, %izp, %kzp : {it}, {kt}, i32, i32) "
            f"outs(%o : {ot}) -> {ot}")


@pytest.mark.parametrize("name,it,kt,ot,maps", [
    ("conv_2d_ngchw_gfchw", "1x2x3x9x9", "2x4x3x3x2", "1x2x4x4x7",
     ["(d0, d1, d5, d3 * 2 + d6, d4 + d7 * 2)", "(d1, d2, d5, d6, d7)", "(d0, d1, d2, d3, d4)"]),
    ("conv_2d_nhwgc_gfhwc", "1x9x9x2x3", "2x4x3x2x3", "1x4x7x2x4",
     ["(d0, d1 * 2 + d5, d2 + d6 * 2, d3, d7)", "(d3, d4, d5, d6, d7)", "(d0, d1, d2, d3, d4)"]),
])
def test_grouped_conv(name, it, kt, ot, maps):
    """The grouped layouts whose filter leads with the group (upstream OpDSL)."""
    it, kt, ot = (f"tensor<{t}xf32>" for t in (it, kt, ot))
    g = generalized(f"%i: {it}, %k: {kt}, %o: {ot}",
                    f"%0 = linalg.{name} {_WIN2} ins(%i, %k : {it}, {kt}) outs(%o : {ot}) -> {ot}")
    dims = ", ".join(f"d{i}" for i in range(8))
    assert maps_str(g) == [f"({dims}) -> {m}" for m in maps]
    assert iterator_types(g) == ["parallel"] * 5 + ["reduction"] * 3
    assert [o.name for o in g.body.ops] == ["arith.mulf", "arith.addf", "linalg.yield"]


def test_every_quantized_named_op_is_listed():
    from ireec.dialects.linalg import NAMED_SPECS
    assert set(QUANTIZED) == {n for n, s in NAMED_SPECS.items() if s.body == "qmac"}


@pytest.mark.parametrize("name", sorted(QUANTIZED))
def test_quantized_named_op(name):
    """Upstream's maps and iterators; the payload subtracts each zero point from its
    sign-extended operand, multiplies and accumulates: extsi, subi, extsi, subi, muli, addi."""
    _, _, _, _, n_par, maps = QUANTIZED[name]
    g = generalized(*_quantized_op(name))
    got = maps_str(g)
    n = len(iterator_types(g))
    dims = ", ".join(f"d{i}" for i in range(n))
    assert got == [f"({dims}) -> {m}" for m in maps[:2]] + [f"({dims}) -> ()"] * 2 + [
        f"({dims}) -> {maps[2]}"]
    assert iterator_types(g) == ["parallel"] * n_par + ["reduction"] * (n - n_par)
    body = g.body
    assert [o.name for o in body.ops] == ["arith.extsi", "arith.subi", "arith.extsi", "arith.subi",
                                          "arith.muli", "arith.addi", "linalg.yield"]
    a, b, azp, bzp, acc = body.args
    ext_a, sub_a, ext_b, sub_b, mul, add, _ = body.ops
    assert list(sub_a.operands) == [ext_a.results[0], azp]
    assert list(sub_b.operands) == [ext_b.results[0], bzp]
    assert list(add.operands) == [acc, mul.results[0]]
    assert "strides" not in g.attributes and "dilations" not in g.attributes


@pytest.mark.parametrize("name", ["conv_2d_nchw_fchw_q", "quantized_matmul"])
def test_quantized_named_op_in_generic_form(name):
    """The generic form (``"linalg.conv_2d_nchw_fchw_q"(...) ({...})``, as exporters may print
    it) is the same structured op: it verifies, and generalizes to the same generic."""
    from ireec.dialects.linalg import is_named_structured
    from ireec.ir.verifier import verify
    m, _ = one_op(*_quantized_op(name))
    text = print_module(m, generic=True)
    assert f'"linalg.{name}"(' in text
    m2 = parse_source(text)
    verify(m2)
    op = m2.body.ops[0].body.ops[0]
    assert op.name == f"linalg.{name}" and is_named_structured(op)
    assert maps_str(generalize(op)) == maps_str(generalized(*_quantized_op(name)))


def test_transpose_broadcast_fill_memref():
    g = generalized("%a: tensor<2x3x4xf32>, %b: tensor<4x2x3xf32>",
                    "%0 = linalg.transpose ins(%a : tensor<2x3x4xf32>) outs(%b : tensor<4x2x3xf32>) "
                    "permutation = [2, 0, 1]")
    assert maps_str(g) == ["(d0, d1, d2) -> (d1, d2, d0)", "(d0, d1, d2) -> (d0, d1, d2)"]
    assert iterator_types(g) == ["parallel"] * 3
    g = generalized("%a: tensor<3xf32>, %b: tensor<2x3x4xf32>",
                    "%0 = linalg.broadcast ins(%a : tensor<3xf32>) outs(%b : tensor<2x3x4xf32>) "
                    "dimensions = [0, 2]")
    assert maps_str(g) == ["(d0, d1, d2) -> (d1)", "(d0, d1, d2) -> (d0, d1, d2)"]
    g = generalized("%v: f32, %b: memref<2x3xf32>",
                    "linalg.fill ins(%v : f32) outs(%b : memref<2x3xf32>)")
    assert maps_str(g) == ["(d0, d1) -> ()", "(d0, d1) -> (d0, d1)"]
    assert g.results == [] and [o.name for o in g.body.ops] == ["linalg.yield"]
    assert g.attributes["operandSegmentSizes"].value == (1, 1)


def test_reduce_map_and_elementwise():
    g = generalized("%a: tensor<4x8xf32>, %r: tensor<4xf32>",
                    "%0 = linalg.reduce { arith.addf } ins(%a : tensor<4x8xf32>) "
                    "outs(%r : tensor<4xf32>) dimensions = [1]")
    assert maps_str(g) == ["(d0, d1) -> (d0, d1)", "(d0, d1) -> (d0)"]
    assert iterator_types(g) == ["parallel", "reduction"]
    g = generalized("%a: tensor<4x8xf32>",
                    "%0 = linalg.map { math.exp } ins(%a : tensor<4x8xf32>) outs(%a : tensor<4x8xf32>)")
    assert len(g.body.args) == 2 and g.body.ops[0].name == "math.exp"
    g = generalized("%a: tensor<4x8xi32>",
                    "%0 = linalg.max ins(%a, %a : tensor<4x8xi32>, tensor<4x8xi32>) "
                    "outs(%a : tensor<4x8xi32>) -> tensor<4x8xi32>")
    assert g.body.ops[0].name == "arith.maxsi" and len(maps_str(g)) == 3


def test_pass_rewrites_every_named_op_and_keeps_uses():
    m = parse_source("""
func.func @f(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>, %c: tensor<4x4xf32>, %v: f32) -> tensor<4x4xf32> {
  %0 = linalg.fill ins(%v : f32) outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
  %1 = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x4xf32>) outs(%0 : tensor<4x4xf32>) -> tensor<4x4xf32>
  %2 = scf.execute_region -> tensor<4x4xf32> {
    %3 = linalg.add ins(%1, %1 : tensor<4x4xf32>, tensor<4x4xf32>) outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
    scf.yield %3 : tensor<4x4xf32>
  }
  return %2 : tensor<4x4xf32>
}
""")
    LinalgGeneralizeNamedOpsPass().run(m, PassContext())
    linalg_ops = [op.name for op in m.walk() if op.name.startswith("linalg.") and op.name != "linalg.yield"]
    assert linalg_ops == ["linalg.generic"] * 3
    fill, mm = m.body.ops[0].body.ops[:2]
    assert mm.operands[2] is fill.results[0]
    text = print_module(m)
    assert print_module(parse_source(text)) == text


# ------------------------------------------------------------- numpy interpreter
_SCALAR_OPS = {"arith.addf": np.add, "arith.addi": np.add, "arith.mulf": np.multiply,
               "arith.muli": np.multiply, "arith.maximumf": np.maximum, "arith.maxsi": np.maximum}


def run_generic(op, arrays):
    """Evaluate a linalg.generic on numpy ``arrays`` (one per operand; outputs are copied
    and updated) by visiting every point of the iteration domain in order."""
    maps = indexing_maps(op)
    n_in = op.attributes["operandSegmentSizes"].value[0]
    bufs = [np.array(a, copy=True) for a in arrays]
    body = op.body
    for point in itertools.product(*(range(r) for r in loop_ranges(op))):
        idx = [m.evaluate(point) for m in maps]
        env = {arg: bufs[i][idx[i]] for i, arg in enumerate(body.args)}
        for inner in body.ops:
            if inner.name == "linalg.yield":
                for k, v in enumerate(inner.operands):
                    bufs[n_in + k][idx[n_in + k]] = env[v]
                break
            env[inner.results[0]] = _SCALAR_OPS[inner.name](*(env[v] for v in inner.operands))
    return bufs[n_in:]


def test_generalized_matmul_matches_numpy():
    rng = np.random.default_rng(0)
    a, b, c = (rng.standard_normal(s).astype(np.float32) for s in ((3, 5), (5, 4), (3, 4)))
    g = generalized("%a: tensor<3x5xf32>, %b: tensor<5x4xf32>, %c: tensor<3x4xf32>",
                    "%0 = linalg.matmul ins(%a, %b : tensor<3x5xf32>, tensor<5x4xf32>) "
                    "outs(%c : tensor<3x4xf32>) -> tensor<3x4xf32>")
    (out,) = run_generic(g, [a, b, c])
    np.testing.assert_allclose(out, c + a @ b, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("stride,dilation", [(1, 1), (2, 1), (2, 2)])
def test_generalized_conv_matches_numpy(stride, dilation):
    rng = np.random.default_rng(stride * 10 + dilation)
    n, c, h, f, k = 2, 3, 9, 4, 3
    oh = (h - dilation * (k - 1) - 1) // stride + 1
    x = rng.standard_normal((n, c, h, h)).astype(np.float32)
    w = rng.standard_normal((f, c, k, k)).astype(np.float32)
    init = rng.standard_normal((n, f, oh, oh)).astype(np.float32)
    it, wt, ot = f"tensor<{n}x{c}x{h}x{h}xf32>", f"tensor<{f}x{c}x{k}x{k}xf32>", f"tensor<{n}x{f}x{oh}x{oh}xf32>"
    g = generalized(f"%i: {it}, %w: {wt}, %o: {ot}",
                    f"%0 = linalg.conv_2d_nchw_fchw {{dilations = dense<{dilation}> : vector<2xi64>, "
                    f"strides = dense<{stride}> : vector<2xi64>}} ins(%i, %w : {it}, {wt}) "
                    f"outs(%o : {ot}) -> {ot}")
    (out,) = run_generic(g, [x, w, init])
    ref = init.copy()
    for kh, kw in itertools.product(range(k), range(k)):
        patch = x[:, :, kh * dilation: kh * dilation + stride * (oh - 1) + 1: stride,
                  kw * dilation: kw * dilation + stride * (oh - 1) + 1: stride]
        ref += np.einsum("nchw,fc->nfhw", patch, w[:, :, kh, kw])
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-4)


def test_generalized_pooling_max_matches_numpy():
    rng = np.random.default_rng(7)
    x = rng.standard_normal((1, 2, 6, 6)).astype(np.float32)
    init = np.full((1, 2, 3, 3), -np.inf, np.float32)
    g = generalized("%i: tensor<1x2x6x6xf32>, %k: tensor<2x2xf32>, %o: tensor<1x2x3x3xf32>",
                    "%0 = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = "
                    "dense<2> : vector<2xi64>} ins(%i, %k : tensor<1x2x6x6xf32>, tensor<2x2xf32>) "
                    "outs(%o : tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>")
    (out,) = run_generic(g, [x, np.zeros((2, 2), np.float32), init])
    np.testing.assert_array_equal(out, x.reshape(1, 2, 3, 2, 3, 2).max(axis=(3, 5)))


def test_build_generic_with_a_body_function():
    from ireec.dialects.linalg import build_generic
    from ireec.ir.affine import AffineMap
    from ireec.ir.core import Builder

    m, op = one_op("%a: tensor<4x8xf32>, %b: tensor<4xf32>",
                   "%0 = tensor.empty() : tensor<4x8xf32>")
    func = m.body.ops[0]
    args = func.body.args
    g = build_generic([args[0], args[1]], [op.results[0]],
                      [AffineMap.identity(2), AffineMap.from_dims(2, [0]), AffineMap.identity(2)],
                      ["parallel", "parallel"],
                      lambda sb, xs: [sb.binary("max_signed", sb.binary("add", xs[0], xs[1]), xs[2])],
                      builder=Builder.after(op))
    assert func.body.ops[1] is g and g.result_types == [op.results[0].type]
    assert [o.name for o in g.body.ops] == ["arith.addf", "arith.maximumf", "linalg.yield"]
    text = print_module(m)
    assert ("linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) "
            "-> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = [\"parallel\", \"parallel\"]}"
            in text)
    assert print_module(parse_source(text)) == text
    a = np.arange(32, dtype=np.float32).reshape(4, 8) - 16
    (out,) = run_generic(g, [a, np.ones(4, np.float32), np.zeros((4, 8), np.float32)])
    np.testing.assert_array_equal(out, np.maximum(a + 1, 0))

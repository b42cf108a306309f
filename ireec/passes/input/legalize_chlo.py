"""CHLO → StableHLO.

Mirrors ``chlo-legalize-to-stablehlo`` (stablehlo/transforms/ChloLegalizeToStablehlo.cpp),
written from the CHLO op definitions (ChloOps.td):

* ``chlo.broadcast_<op>`` (and ``broadcast_select``): each operand whose shape differs from
  the result's is broadcast with ``stablehlo.broadcast_in_dim`` (along
  ``broadcast_dimensions`` when given, else numpy-style trailing alignment), then the plain
  StableHLO op (``compare`` keeps its direction and compare type).
* composite math as StableHLO expressions: ``square`` (x*x), ``tan``, ``sinh``
  ((expm1(x) - expm1(-x)) / 2), ``cosh`` ((e^x + e^-x) / 2), ``asin`` (2 atan2(x, 1 +
  sqrt(1 - x²))), ``acos`` (atan2(sqrt((1 - x)(1 + x)), x)), ``atan`` (atan2(x, 1)),
  ``asinh`` (sign(x) log(|x| + sqrt(x² + 1))), ``acosh`` (log(x + sqrt((x + 1)(x - 1)))),
  ``atanh`` ((log1p(x) - log1p(-x)) / 2), ``is_inf``/``is_pos_inf``/``is_neg_inf``
  (compares with ±inf), ``next_after`` (bit stepping as in C's nextafter).
* ``erf``/``erfc``: a ``linalg.generic`` applying ``math.erf``/``math.erfc`` (libm's
  functions are exact to an ulp; upstream expands them into rational approximations).

* ``top_k``: as upstream's ``TopKOpConversion``: an ``iota`` of indices along the last
  dimension, a stable ``stablehlo.sort`` of (values, indices) by ``GT`` on the values (ties
  keep the lower index first), then ``slice`` of the first ``k`` along that dimension.

Other CHLO ops (lgamma, digamma, erf_inv, polygamma, zeta, bessel_i1e...) raise
CompileError at their location.
"""
from __future__ import annotations

import math
from typing import List, Sequence


from ...dialects import stablehlo as shlo
from ...ir import types as T
from ...ir.affine import AffineMap
from ...ir.attributes import BoolAttr, DenseArrayAttr, DenseElementsAttr, IntegerAttr
from ...ir.core import Block, Builder, Operation, Region, Value
from ...ir.diagnostics import CompileError
from ..pass_base import Pass, PassContext, is_attached, register_pass


def _tt(v: Value) -> T.TensorType:
    return v.type


def _broadcast_to(b: Builder, v: Value, rt: T.TensorType, dims: Sequence[int] = None) -> Value:
    """``v`` broadcast to shape of ``rt`` (element type kept)."""
    vt = _tt(v)
    if list(vt.shape) == list(rt.shape):
        return v
    if dims is None:
        dims = list(range(rt.rank - vt.rank, rt.rank))
    t = T.TensorType(tuple(rt.shape), vt.element_type)
    return b.create("stablehlo.broadcast_in_dim", [v], [t], {
        "broadcast_dimensions": DenseArrayAttr(T.i64, tuple(int(d) for d in dims))}).result


class _E:
    """Builds StableHLO ops on tensors of one type at a builder."""

    def __init__(self, b: Builder, t: T.TensorType):
        self.b, self.t = b, t

    def op(self, name: str, *args: Value, t: T.Type = None, attrs=None) -> Value:
        return self.b.create(f"stablehlo.{name}", list(args), [t or self.t], attrs or {}).result

    def const(self, x: float, t: T.TensorType = None) -> Value:
        t = t or self.t
        return self.b.create("stablehlo.constant", [], [t], {"value": DenseElementsAttr.splat(x, t)}).result

    def cmp(self, a: Value, c: Value, direction: str) -> Value:
        bt = T.TensorType(tuple(self.t.shape), T.i1)
        return self.op("compare", a, c, t=bt, attrs={
            "comparison_direction": shlo.enum_attr("comparison_direction", direction)})


def _unary(op: Operation, b: Builder) -> List[Value]:
    x = op.operands[0]
    t = _tt(op.results[0])
    e = _E(b, _tt(x))
    n = op.name.split(".", 1)[1]
    if n == "square":
        return [e.op("multiply", x, x)]
    if n == "tan":
        return [e.op("tan", x)]
    if n == "sinh":
        d = e.op("subtract", e.op("exponential_minus_one", x),
                 e.op("exponential_minus_one", e.op("negate", x)))
        return [e.op("multiply", d, e.const(0.5))]
    if n == "cosh":
        s = e.op("add", e.op("exponential", x), e.op("exponential", e.op("negate", x)))
        return [e.op("multiply", s, e.const(0.5))]
    if n == "asin":
        one = e.const(1.0)
        r = e.op("sqrt", e.op("subtract", one, e.op("multiply", x, x)))
        return [e.op("multiply", e.const(2.0), e.op("atan2", x, e.op("add", one, r)))]
    if n == "acos":
        one = e.const(1.0)
        r = e.op("sqrt", e.op("multiply", e.op("subtract", one, x), e.op("add", one, x)))
        return [e.op("atan2", r, x)]
    if n == "atan":
        return [e.op("atan2", x, e.const(1.0))]
    if n == "asinh":
        ax = e.op("abs", x)
        r = e.op("sqrt", e.op("add", e.op("multiply", ax, ax), e.const(1.0)))
        return [e.op("multiply", e.op("sign", x), e.op("log", e.op("add", ax, r)))]
    if n == "acosh":
        one = e.const(1.0)
        r = e.op("sqrt", e.op("multiply", e.op("add", x, one), e.op("subtract", x, one)))
        return [e.op("log", e.op("add", x, r))]
    if n == "atanh":
        d = e.op("subtract", e.op("log_plus_one", x), e.op("log_plus_one", e.op("negate", x)))
        return [e.op("multiply", d, e.const(0.5))]
    if n in ("is_inf", "is_pos_inf", "is_neg_inf"):
        if n == "is_inf":
            return [e.cmp(e.op("abs", x), e.const(math.inf), "EQ")]
        return [e.cmp(x, e.const(math.inf if n == "is_pos_inf" else -math.inf), "EQ")]
    if n in ("erf", "erfc"):
        from ...dialects.linalg import build_generic
        rank = t.rank
        out = b.create("tensor.empty", [], [t]).result
        g = build_generic([x], [out], [AffineMap.identity(rank)] * 2, ["parallel"] * rank,
                          lambda sb, a: [sb.op(f"math.{n}", [a[0]], t.element_type)], builder=b)
        return g.results
    raise CompileError(f"'{op.name}' is not supported by the CHLO legalization", op.loc)


def _next_after(op: Operation, b: Builder) -> List[Value]:
    """C's nextafter(x, y) elementwise: step x's bit pattern by one ulp toward y."""
    x, y = op.operands
    t = _tt(x)
    et = t.element_type
    it = T.TensorType(tuple(t.shape), T.IntegerType(et.width))
    e = _E(b, t)
    ei = _E(b, it)
    xi = e.op("bitcast_convert", x, t=it)
    yi = e.op("bitcast_convert", y, t=it)
    nan = e.op("or", e.cmp(x, x, "NE"), e.cmp(y, y, "NE"), t=T.TensorType(tuple(t.shape), T.i1))
    eq = e.cmp(x, y, "EQ")
    zero = e.cmp(x, e.const(0.0), "EQ")
    sign_mask = 1 << (et.width - 1)
    # From ±0 the step is the smallest subnormal with y's sign.
    tiny = ei.op("or", ei.op("and", yi, ei.const(-sign_mask)), ei.const(1))
    away = e.op("xor", e.cmp(x, e.const(0.0), "LT"), e.cmp(x, y, "GT"),
                t=T.TensorType(tuple(t.shape), T.i1))  # |x| shrinks ⇔ exactly one holds
    step = ei.op("select", away, ei.const(-1), ei.const(1))
    r = ei.op("add", xi, step)
    r = ei.op("select", zero, tiny, r)
    rf = e.op("bitcast_convert", r, t=t)
    rf = e.op("select", eq, y, rf)
    return [e.op("select", nan, e.op("add", x, y), rf)]


def _broadcast_op(op: Operation, b: Builder) -> List[Value]:
    rt = _tt(op.results[0])
    if not isinstance(rt, T.TensorType) or rt.shape is None or not rt.has_static_shape:
        raise CompileError(f"'{op.name}' with a dynamic result shape is not supported", op.loc)
    n = op.name.split(".", 1)[1]
    dims_attr = op.attributes.get("broadcast_dimensions")
    ins = []
    for v in op.operands:
        vt = _tt(v)
        dims = shlo.i64_list(dims_attr) if dims_attr is not None and vt.rank < rt.rank else None
        ins.append(_broadcast_to(b, v, rt, dims))
    base = n[len("broadcast_"):]
    attrs = {k: a for k, a in op.attributes.items() if k in ("comparison_direction", "compare_type")}
    if base == "next_after":
        tmp = Operation("chlo.next_after", ins, [rt], loc=op.loc)
        return _next_after(tmp, b)
    if base in ("polygamma", "zeta"):
        raise CompileError(f"'{op.name}' is not supported by the CHLO legalization", op.loc)
    return b.create(f"stablehlo.{base}", ins, [rt], attrs).results


def _top_k(op: Operation, b: Builder) -> List[Value]:
    x = op.operands[0]
    xt = _tt(x)
    if not isinstance(xt, T.TensorType) or xt.shape is None or not xt.has_static_shape or xt.rank == 0:
        raise CompileError(f"'chlo.top_k' needs a static operand of rank >= 1, got {xt}", op.loc)
    k = int(op.attributes["k"].value)
    last = xt.rank - 1
    if not 0 <= k <= xt.shape[last]:
        raise CompileError(f"'chlo.top_k': k = {k} is not within the last dimension ({xt.shape[last]})", op.loc)
    it = op.results[1].type.element_type
    idx_t = T.TensorType(tuple(xt.shape), it)
    iota = b.create("stablehlo.iota", [], [idx_t], {"iota_dimension": IntegerAttr(last, T.i64)}).result
    s_et, s_it = T.TensorType((), xt.element_type), T.TensorType((), it)
    cmp_blk = Block([s_et, s_et, s_it, s_it])
    cb = Builder.at_end(cmp_blk)
    gt = cb.create("stablehlo.compare", [cmp_blk.args[0], cmp_blk.args[1]], [T.TensorType((), T.i1)], {
        "comparison_direction": shlo.enum_attr("comparison_direction", "GT")}).result
    cb.create("stablehlo.return", [gt], [])
    srt = b.create("stablehlo.sort", [x, iota], [xt, idx_t], {
        "dimension": IntegerAttr(last, T.i64), "is_stable": BoolAttr(True)}, regions=[Region([cmp_blk])])
    outs = []
    for v, rt in zip(srt.results, op.result_types):
        limits = tuple(k if d == last else n for d, n in enumerate(xt.shape))
        outs.append(b.create("stablehlo.slice", [v], [rt], {
            "start_indices": DenseArrayAttr(T.i64, (0,) * xt.rank),
            "limit_indices": DenseArrayAttr(T.i64, limits),
            "strides": DenseArrayAttr(T.i64, (1,) * xt.rank)}).result)
    return outs


@register_pass
class LegalizeChloPass(Pass):
    """``chlo-legalize-to-stablehlo``: CHLO ops become StableHLO (see the module docstring)."""

    name = "chlo-legalize-to-stablehlo"

    def run(self, module: Operation, ctx: PassContext) -> None:
        for op in list(module.walk()):
            if not op.name.startswith("chlo.") or not is_attached(op, module):
                continue
            b = Builder.before(op)
            if op.name.startswith("chlo.broadcast_"):
                new = _broadcast_op(op, b)
            elif op.name == "chlo.next_after":
                new = _next_after(op, b)
            elif op.name == "chlo.top_k":
                new = _top_k(op, b)
            elif op.name == "chlo.constant":
                new = b.create("stablehlo.constant", [], op.result_types,
                               {"value": op.attributes["value"]}).results
            else:
                new = _unary(op, b)
            op.replace_with(new)

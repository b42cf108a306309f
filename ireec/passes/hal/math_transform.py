"""Transcendental math ops of kernels become polynomial arithmetic the C compiler vectorizes.

Mirrors IREE's ``iree-codegen-math-transform`` (MathTransformPass.cpp), which applies MLIR's
polynomial approximations (``mlir/lib/Dialect/Math/Transforms/PolynomialApproximation.cpp``,
``populateMathPolynomialApproximationPatterns``) to the kernels of CPU targets: a libm call
in a loop (``tanhf``) keeps the loop scalar, about 27 cycles per element on x86-64 (the GELU
epilogue of a transformer block's MLP spent 85 of the block's 110 us in it), while the
branch-free approximation below is a few multiply-adds and one division per element, across
all SIMD lanes.

Approximated (f32 only; other widths keep their libm call):

``math.tanh``: MLIR's ``TanhApproximation``: the operand clamped to [-7.99881172, 7.99881172]
(where f32 tanh is +-1), then the rational function ``x * P(x^2) / Q(x^2)`` with P of degree
6 (odd numerator of degree 13) and Q of degree 3 (Eigen's ``generic_fast_tanh_float``
coefficients); operands with ``|x| < 0.0004`` give ``x`` itself. NaN stays NaN (the
comparisons of the clamp are false for it). Measured against numpy's float64 tanh over
[-10, 10] in f32 arithmetic: absolute and relative error below 4e-7.

``math.exp``: MLIR's ``ExpApproximation`` (Cephes' ``expf``): ``k = floor(x * log2(e) + 0.5)``,
``r = x - k * ln2`` (ln2 in two parts, C1 + C2, so the product is exact), ``exp(r)`` by a
degree-7 polynomial, scaled by ``2^k`` built from exponent bits. The scale is applied as
``2^(k >> 1) * 2^(k - (k >> 1))`` so that results down to the smallest subnormal and up to
FLT_MAX come out right (one power of two would overflow the exponent field at both ends);
``x > 88.7228394`` gives +inf, ``x < -103.972077`` gives 0 (so a softmax's masked -inf
gives exactly 0), NaN stays NaN. Measured against numpy's float64 exp over [-110, 90] in
f32 arithmetic: relative error below 1e-7 on normal results.
"""
from __future__ import annotations

from typing import Callable, Dict, List

from ...dialects.arith import CMPF_PREDICATES
from ...ir import types as T
from ...ir.attributes import FloatAttr, IntegerAttr
from ...ir.core import Operation, Value
from ..pass_base import Pass, PassContext, register_pass

#: |x| from which f32 tanh rounds to +-1 (MLIR's TanhApproximation clamp).
TANH_CLAMP = 7.99881172180175781
#: |x| below which tanh(x) is x in f32.
TANH_TINY = 0.0004
#: Numerator coefficients alpha_1, alpha_3, ..., alpha_13 (odd powers) and denominator
#: coefficients beta_0, beta_2, beta_4, beta_6 (even powers), from MLIR / Eigen.
TANH_ALPHA = (4.89352455891786e-03, 6.37261928875436e-04, 1.48572235717979e-05,
              5.12229709037114e-08, -8.60467152213735e-11, 2.00018790482477e-13,
              -2.76076847742355e-16)
TANH_BETA = (4.89352518554385e-03, 2.26843463243900e-03, 1.18534705686654e-04,
             1.19825839466702e-06)


class ScalarEmitter:
    """Creates scalar ops before ``anchor`` in its block (same location; result type the
    anchor's unless given), as the math rewrites of kernels build their replacements."""

    def __init__(self, anchor: Operation):
        self.anchor = anchor
        self.block = anchor.parent
        self.t = anchor.results[0].type

    def op(self, name: str, operands: List[Value], rtype=None, attrs=None) -> Value:
        """Insert op ``name`` before the anchor (result type ``rtype``, default the anchor's
        type); its result. The other methods are one arith op each."""
        o = Operation(name, operands, [rtype or self.t], attrs or {}, loc=self.anchor.loc)
        self.block.insert_before(self.anchor, o)
        return o.results[0]

    def const(self, v: float) -> Value:
        return self.op("arith.constant", [], attrs={"value": FloatAttr(float(v), self.t)})

    def cmp(self, pred: str, a: Value, b: Value) -> Value:
        return self.op("arith.cmpf", [a, b], T.i1,
                       {"predicate": IntegerAttr(CMPF_PREDICATES.index(pred), T.i64)})

    def select(self, c: Value, a: Value, b: Value) -> Value:
        return self.op("arith.select", [c, a, b])

    def mul(self, a: Value, b: Value) -> Value:
        return self.op("arith.mulf", [a, b])

    def add(self, a: Value, b: Value) -> Value:
        return self.op("arith.addf", [a, b])

    def horner(self, x: Value, coeffs) -> Value:
        """``c[0] + x * (c[1] + x * (...))``: multiply-adds the C compiler contracts."""
        acc = self.const(coeffs[-1])
        for c in reversed(coeffs[:-1]):
            acc = self.add(self.mul(x, acc), self.const(c))
        return acc


def approximate_tanh(op: Operation) -> Value:
    """The value replacing f32 ``math.tanh`` ``op``: MLIR's TanhApproximation (see the module
    docstring), built before ``op``."""
    e = ScalarEmitter(op)
    x0 = op.operands[0]
    lo, hi = e.const(-TANH_CLAMP), e.const(TANH_CLAMP)
    x = e.select(e.cmp("olt", x0, lo), lo, x0)
    x = e.select(e.cmp("ogt", x, hi), hi, x)
    x2 = e.mul(x, x)
    p = e.mul(x, e.horner(x2, TANH_ALPHA))
    q = e.horner(x2, TANH_BETA)
    r = e.op("arith.divf", [p, q])
    tiny = e.cmp("olt", e.op("math.absf", [x0]), e.const(TANH_TINY))
    return e.select(tiny, x0, r)


#: exp: the clamp range (+inf above, 0 below), log2(e), ln2 = C1 + C2 and the polynomial
#: coefficients of exp(r) - 1 - r over r^2 (Cephes / MLIR ExpApproximation).
EXP_HI = 88.72283935546875
EXP_LO = -103.972076416015625
EXP_LOG2E = 1.44269504088896341
EXP_C1 = 0.693359375
EXP_C2 = -2.12194440e-4
EXP_P = (1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2,
         1.6666665459e-1, 5.0000001201e-1)


def approximate_exp(op: Operation) -> Value:
    """The value replacing f32 ``math.exp`` ``op``: Cephes' / MLIR's exp approximation with
    a two-step power-of-two scale (see the module docstring), built before ``op``."""
    e = ScalarEmitter(op)
    i32 = T.i32
    x0 = op.operands[0]
    lo, hi = e.const(EXP_LO), e.const(EXP_HI)
    x = e.select(e.cmp("olt", x0, lo), lo, x0)
    x = e.select(e.cmp("ogt", x, hi), hi, x)
    fx = e.op("math.floor", [e.add(e.mul(x, e.const(EXP_LOG2E)), e.const(0.5))])
    r = e.op("arith.subf", [x, e.mul(fx, e.const(EXP_C1))])
    r = e.op("arith.subf", [r, e.mul(fx, e.const(EXP_C2))])
    y = e.const(EXP_P[0])
    for c in EXP_P[1:]:
        y = e.add(e.mul(y, r), e.const(c))
    y = e.add(e.add(e.mul(y, e.mul(r, r)), r), e.const(1.0))

    def icst(v: int) -> Value:
        return e.op("arith.constant", [], i32, {"value": IntegerAttr(v, i32)})

    k = e.op("arith.fptosi", [fx], i32)
    k1 = e.op("arith.shrsi", [k, icst(1)], i32)
    k2 = e.op("arith.subi", [k, k1], i32)
    scale = [e.op("arith.bitcast", [e.op("arith.shli", [e.op("arith.addi", [h, icst(127)], i32),
                                                        icst(23)], i32)])
             for h in (k1, k2)]
    res = e.mul(e.mul(y, scale[0]), scale[1])
    res = e.select(e.cmp("olt", x0, lo), e.const(0.0), res)
    return e.select(e.cmp("ogt", x0, hi), e.const(float("inf")), res)


#: Approximations by op name.
APPROXIMATIONS: Dict[str, Callable[[Operation], Value]] = {
    "math.tanh": approximate_tanh,
    "math.exp": approximate_exp,
}


def _is_f32(op: Operation) -> bool:
    t = op.results[0].type if op.results else None
    return isinstance(t, T.FloatType) and t.name == "f32"


@register_pass
class MathTransformPass(Pass):
    """IREE's ``iree-codegen-math-transform``: see the module docstring."""

    name = "iree-codegen-math-transform"

    def run(self, module: Operation, ctx: PassContext) -> None:
        for exe in [o for o in module.body.ops if o.name == "hal.executable"]:
            for op in [o for o in exe.walk() if o.name in APPROXIMATIONS and _is_f32(o)]:
                op.replace_with([APPROXIMATIONS[op.name](op)])

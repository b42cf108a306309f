"""Powers with a small constant integer exponent become multiplications.

Mirrors the strength reductions of MLIR's math algebraic simplification
(``mlir/lib/Dialect/Math/Transforms/AlgebraicSimplification.cpp``,
``populateMathAlgebraicSimplificationPatterns``, exercised by mlir-opt's
``-test-math-algebraic-simplification``): ``PowFStrengthReduction`` and
``PowIStrengthReduction``. In a kernel, ``math.fpowi %x, %c3`` or ``math.powf %x, %c3.0``
prints as a libm ``powf`` call per element, which keeps the loop scalar: the GELU of a
torch-mlir transformer block (``0.5 x (1 + tanh(0.79788 (x + 0.044715 x^3)))``) and the
variance of its layer norms (``(x - mean)^2``) spent most of their time in it. Squaring by
multiplication is a few multiplies across all SIMD lanes.

Rewritten, in the executables' kernels (f32 and f64; f16/bf16 keep their single rounding of
the libm result):

- ``math.fpowi x, n`` with a constant ``n``, ``|n| <= MAX_EXPONENT``: ``x^|n|`` by binary
  exponentiation (square and multiply: ``x^2 = x*x``, ``x^3 = x*x * x``, ``x^4 = (x*x)*(x*x)``),
  ``1 / x^|n|`` for negative ``n``, ``1.0`` for ``n = 0`` (C's ``pow(x, 0)`` is 1 for every x,
  NaN included);
- ``math.powf x, y`` with a constant ``y`` that is such an integer (``2.0``, ``3.0``, ``-1.0``;
  the constant may reach the op through ``arith.truncf`` / ``extf`` / ``sitofp``, as torch-mlir
  writes its f64 literals): the same.

Exponents like 0.5 are left to libm: ``sqrt`` differs from ``pow(x, 0.5)`` at ``-0`` and
``-inf``. Accuracy: ``x*x`` is correctly rounded; ``x^3`` and beyond round once per multiply
(at most about 1 ulp per multiply more than a correctly rounded ``pow``), as in MLIR.
"""
from __future__ import annotations

import math
from typing import Callable, Dict, Optional

from ...dialects.arith import constant_value
from ...ir import types as T
from ...ir.attributes import FloatAttr, IntegerAttr
from ...ir.core import Operation, Value
from ..pass_base import Pass, PassContext, register_pass
from .math_transform import ScalarEmitter

#: Largest |exponent| expanded (MLIR's PowIStrengthReduction default ``exponentValueThreshold``).
MAX_EXPONENT = 8

#: Casts a constant exponent may pass through on its way to the op.
_CASTS = ("arith.truncf", "arith.extf", "arith.sitofp", "arith.uitofp", "arith.extsi", "arith.trunci")


def constant_number(v: Value) -> Optional[float]:
    """The numeric value of ``v`` when it is an ``arith.constant`` scalar, possibly behind
    float/int casts (:data:`_CASTS`); None otherwise."""
    o = v.owner
    while isinstance(o, Operation) and o.name in _CASTS:
        o = o.operands[0].owner
    a = constant_value(o) if isinstance(o, Operation) else None
    return float(a.value) if isinstance(a, (FloatAttr, IntegerAttr)) else None


def _integer_exponent(op: Operation) -> Optional[int]:
    n = constant_number(op.operands[1])
    if n is None or not math.isfinite(n) or abs(n) > MAX_EXPONENT or n != int(n):
        return None
    return int(n)


def expand_power(op: Operation, n: int) -> Value:
    """``op.operands[0] ** n`` as ``arith.mulf`` (square and multiply) and, for ``n < 0``, one
    ``arith.divf``; built before ``op``, with its location and result type."""
    e = ScalarEmitter(op)
    result: Optional[Value] = None
    base = op.operands[0]
    k = abs(n)
    while k:
        if k & 1:
            result = base if result is None else e.mul(result, base)
        k >>= 1
        if k:
            base = e.mul(base, base)
    if result is None:
        return e.const(1.0)
    return e.op("arith.divf", [e.const(1.0), result]) if n < 0 else result


#: The ops rewritten, by name: each gives the exponent to expand, or None to leave the op.
EXPONENTS: Dict[str, Callable[[Operation], Optional[int]]] = {
    "math.fpowi": _integer_exponent,
    "math.powf": _integer_exponent,
}


def _is_float_scalar(op: Operation) -> bool:
    t = op.results[0].type if op.results else None
    return isinstance(t, T.FloatType) and t.name in ("f32", "f64")


@register_pass
class MathAlgebraicSimplificationPass(Pass):
    """MLIR's math algebraic simplification (power strength reduction): see the module
    docstring."""

    name = "math-algebraic-simplification"

    def run(self, module: Operation, ctx: PassContext) -> None:
        for exe in [o for o in module.body.ops if o.name == "hal.executable"]:
            for op in [o for o in exe.walk() if o.name in EXPONENTS and _is_float_scalar(o)]:
                n = EXPONENTS[op.name](op)
                if n is not None:
                    op.replace_with([expand_power(op, n)])

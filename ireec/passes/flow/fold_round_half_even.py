"""Round-half-to-even written out with floor, ceil and compares becomes ``math.roundeven``.

TOSA has no round op: its legalizations (TensorFlow's ``convertRoundOp`` in
``legalize_common.cc``, the ONNX-to-TOSA lowering of ``QuantizeLinear`` an ONNX QDQ export
goes through) spell round-half-to-even out of ``floor``, ``ceil``, ``equal``,
``greater``, ``logical_and/or`` and ``select``. After elementwise fusion and the payload CSE
of :func:`.elementwise_op_fusion.deduplicate_inputs` each quantization step of such an export
is, in its generic's payload (``x`` any f32 value)::

    fl = floor(x)   ce = ceil(x)   d = x - fl
    even = fl == floor(fl * 0.5) * 2.0
    r = select((0.5 > d) | ((d == 0.5) & even), fl, ce)

which is ``roundeven(x)`` for every ``x``: ``d < 0.5`` rounds down, ``d == 0.5`` to the even
neighbour, otherwise up; for ``|x| >= 2^23`` (integral), infinities and NaN ``d`` is 0 or
NaN and ``fl`` or ``ce`` is ``x`` itself, as ``roundeven`` gives; signed zeros match too
(``ceil(-0.3)`` and ``roundeven(-0.3)`` are both -0.0). About 12 vector ops per element become
one ``vrndscaleps``. A ``math.roundeven`` of a value that is already integral (a rounded
value plus an integral constant, clamped between integral bounds: the TOSA cast that
follows) is that value, and goes too; so do the saturation checks of the float-to-int cast
after it (``select(y >= 128.0, 127, fptosi(y))`` where ``y`` was clamped to at most 127.0:
an ordered compare, false for NaN as well).

Mirrors the peephole folds of MLIR's arith canonicalization (it has none for this idiom) and
runs on the payloads of every ``linalg.generic`` in the flow phase, after elementwise fusion.
"""
from __future__ import annotations

from typing import Optional

from ...dialects.arith import CMPF_PREDICATES, constant_value
from ...ir.attributes import FloatAttr
from ...ir.core import Block, Operation, Value
from ..pass_base import Pass, PassContext, register_pass


def _def(v: Value, name: str, blk: Block) -> Optional[Operation]:
    o = v.owner
    return o if isinstance(o, Operation) and o.name == name and o.parent is blk else None


def _const(v: Value) -> Optional[float]:
    o = v.owner
    a = constant_value(o) if isinstance(o, Operation) and o.name == "arith.constant" else None
    return float(a.value) if isinstance(a, FloatAttr) else None


def _pred(op: Operation) -> str:
    """The predicate of ``arith.cmpf`` ``op`` by name (``oeq``, ``ogt``...)."""
    return CMPF_PREDICATES[op.attributes["predicate"].value]


def _either(v: Value, name: str, blk: Block, f, g) -> bool:
    o = _def(v, name, blk)
    if o is None or len(o.operands) != 2:
        return False
    a, b = o.operands
    return (f(a) and g(b)) or (f(b) and g(a))


def _is(c: float):
    return lambda v: _const(v) == c


def _round_half_even(sel: Operation, blk: Block) -> Optional[Value]:
    """``x`` when ``sel`` is the expansion of ``roundeven(x)`` (module docstring)."""
    cond, fl_v, ce_v = sel.operands
    fl, ce = _def(fl_v, "math.floor", blk), _def(ce_v, "math.ceil", blk)
    if fl is None or ce is None or fl.operands[0] is not ce.operands[0]:
        return None
    x = fl.operands[0]
    d = None
    for u in x.users:
        if u.name == "arith.subf" and u.parent is blk and u.operands[0] is x and u.operands[1] is fl_v:
            d = u.results[0]
    if d is None:
        return None

    def is_d(v):
        return v is d

    def below_half(v):  # 0.5 > d, or d < 0.5
        c = _def(v, "arith.cmpf", blk)
        if c is None:
            return False
        p, (a, b) = _pred(c), c.operands
        return (p == "ogt" and _const(a) == 0.5 and b is d) or (p == "olt" and a is d and _const(b) == 0.5)

    def half(v):  # d == 0.5
        c = _def(v, "arith.cmpf", blk)
        return c is not None and _pred(c) == "oeq" and (
            (c.operands[0] is d and _const(c.operands[1]) == 0.5)
            or (c.operands[1] is d and _const(c.operands[0]) == 0.5))

    def twice_half_floor(v):  # floor(fl * 0.5) * 2.0
        m = _def(v, "arith.mulf", blk)
        if m is None:
            return False
        for a, b in (m.operands, m.operands[::-1]):
            f2 = _def(a, "math.floor", blk)
            if f2 is not None and _const(b) == 2.0 and _either(f2.operands[0], "arith.mulf", blk,
                                                                lambda y: y is fl_v, _is(0.5)):
                return True
        return False

    def even(v):  # fl == floor(fl * 0.5) * 2.0
        c = _def(v, "arith.cmpf", blk)
        return c is not None and _pred(c) == "oeq" and (
            (c.operands[0] is fl_v and twice_half_floor(c.operands[1]))
            or (c.operands[1] is fl_v and twice_half_floor(c.operands[0])))

    def tie_even(v):
        return _either(v, "arith.andi", blk, half, even)

    return x if _either(cond, "arith.ori", blk, below_half, tie_even) else None


#: Ops whose result is integral when their operands are (f32: a sum, product, extreme or
#: choice of integers is an integer or an integral float of magnitude >= 2^23, inf or NaN).
_KEEPS_INTEGRAL = ("arith.addf", "arith.subf", "arith.mulf", "arith.maximumf", "arith.minimumf",
                   "arith.maxnumf", "arith.minnumf", "arith.negf")
_ROUNDING = ("math.roundeven", "math.round", "math.floor", "math.ceil", "math.trunc",
             "arith.sitofp", "arith.uitofp")


def _integral(v: Value, blk: Block, depth: int = 0) -> bool:
    """Whether f32 ``v`` always holds an integral value (or +-inf, NaN)."""
    c = _const(v)
    if c is not None:
        return c == int(c) if c == c and abs(c) != float("inf") else True
    o = v.owner
    if not isinstance(o, Operation) or o.parent is not blk or depth > 16:
        return False
    if o.name in _ROUNDING:
        return True
    if o.name in _KEEPS_INTEGRAL:
        return all(_integral(x, blk, depth + 1) for x in o.operands)
    if o.name == "arith.select":
        return all(_integral(x, blk, depth + 1) for x in o.operands[1:])
    return False


_MAX = ("arith.maximumf", "arith.maxnumf")
_MIN = ("arith.minimumf", "arith.minnumf")


def _bounds(v: Value, blk: Block, depth: int = 0):
    """``(lo, hi)`` with ``lo <= v <= hi`` whenever ``v`` is not NaN (clamps by constants)."""
    c = _const(v)
    if c is not None:
        return c, c
    o = v.owner
    lo, hi = float("-inf"), float("inf")
    if not isinstance(o, Operation) or o.parent is not blk or depth > 8:
        return lo, hi
    if o.name in _MAX + _MIN:
        (alo, ahi), (blo, bhi) = (_bounds(x, blk, depth + 1) for x in o.operands)
        return (max(alo, blo), max(ahi, bhi)) if o.name in _MAX else (min(alo, blo), min(ahi, bhi))
    return lo, hi


def _never(v: Value, blk: Block) -> bool:
    """Whether i1 ``v`` is an ordered compare the clamps of its operand make false (NaN
    compares false too): ``y >= 128`` after ``min(y, 127)``, ``y < -128`` after
    ``max(y, -128)``: the saturation checks of a float-to-int cast after a clamp."""
    c = _def(v, "arith.cmpf", blk)
    if c is None:
        return False
    (alo, ahi), (blo, bhi) = (_bounds(x, blk) for x in c.operands)
    p = _pred(c)
    return ((p == "oge" and ahi < blo) or (p == "ogt" and ahi <= blo)
            or (p == "olt" and alo >= bhi) or (p == "ole" and alo > bhi))


def simplify_payload(blk: Block) -> int:
    """Fold the idioms of the module docstring in payload block ``blk``; how many."""
    n = 0
    for op in list(blk.ops):
        if op.parent is not blk:
            continue
        if op.name == "arith.select" and _never(op.operands[0], blk):
            op.replace_with([op.operands[2]])
            n += 1
        elif op.name == "arith.select":
            x = _round_half_even(op, blk)
            if x is not None:
                r = Operation("math.roundeven", [x], [x.type], loc=op.loc)
                blk.insert_before(op, r)
                op.replace_with(r.results)
                n += 1
        elif op.name == "math.roundeven" and _integral(op.operands[0], blk):
            op.replace_with([op.operands[0]])
            n += 1
    if n:
        _erase_dead(blk)
    return n


def _erase_dead(blk: Block) -> None:
    changed = True
    while changed:
        changed = False
        for op in reversed(list(blk.ops)):
            if op.name != "linalg.yield" and op.results and not any(r.uses for r in op.results) \
                    and not op.regions:
                op.erase()
                changed = True


@register_pass
class FoldRoundHalfEvenPass(Pass):
    """Round-half-to-even expansions (TOSA legalizations) become ``math.roundeven`` and
    roundings of integral values go: see the module docstring."""

    name = "fold-round-half-even"

    def run(self, module: Operation, ctx: PassContext) -> None:
        for op in module.walk():
            if op.name == "linalg.generic" and op.regions and op.regions[0].blocks:
                simplify_payload(op.regions[0].blocks[0])

"""TOSA elementwise ops → parallel ``linalg.generic`` with arith/math payloads.

Mirrors MLIR's ``tosa-to-linalg`` elementwise patterns (TosaToLinalg.cpp,
``createLinalgBodyCalculationForElementwiseOp``): size-1 dims broadcast through constant-0
indexing map results. Semantics follow the TOSA 1.0 specification
(https://www.mlplatform.org/tosa/tosa_spec.html): integer add/sub/mul wrap, ``mul`` with a
``shift`` rounds ``(a*b + 2^(shift-1)) >> shift`` in 64 bits, ``arithmetic_right_shift``
with ``round`` adds the last bit shifted out, ``rescale`` is ``apply_scale_32/16``, ``cast`` float→int rounds half to even and
saturates, bool→int is 0/1, ``clamp``/``maximum``/``minimum`` honour ``nan_mode``,
``table`` uses the spec's i8 lookup and i16 interpolated lookup.
"""
from __future__ import annotations

from typing import Dict

import numpy as np

from ....dialects import linalg as L
from ....dialects.arith import ScalarBuilder
from ....ir import types as T
from ....ir.affine import AffineConst, AffineDim, AffineMap
from ....ir.attributes import DenseElementsAttr, FloatAttr, IntegerAttr
from ....ir.core import Builder, Operation, Value
from .utils import (I1, I32, I64, INDEX, const_ints, elementwise, empty, enum_attr, extract,
                    fail, highest, int_array_attr, int_attr, is_bool, is_float, is_unsigned, lowest,
                    ranked)

PATTERNS: Dict = {}


def _c(sb: ScalarBuilder, value, t: T.Type) -> Value:
    if is_float(t):
        return sb.constant(FloatAttr(float(value), t))
    return sb.constant(IntegerAttr(int(value), t))


def _cmp(sb: ScalarBuilder, pred_f: str, pred_i: str, a: Value, b: Value) -> Value:
    from ....dialects.arith import CMPF_PREDICATES, CMPI_PREDICATES

    if is_float(a.type):
        return sb.op("arith.cmpf", [a, b], I1,
                     {"predicate": IntegerAttr(CMPF_PREDICATES.index(pred_f), I64)})
    if is_unsigned(a.type) and pred_i[0] == "s":  # uiN compares without sign
        pred_i = "u" + pred_i[1:]
    return sb.op("arith.cmpi", [a, b], I1,
                 {"predicate": IntegerAttr(CMPI_PREDICATES.index(pred_i), I64)})


def _simple(fname: str, iname: str = None):
    """Binary op mapped to one arith op (float / integer flavour)."""
    def lower(op: Operation, b: Builder):
        rt = ranked(op, op.results[0])

        def body(sb, args):
            t = args[0].type
            name = fname if is_float(t) else iname
            if name is None:
                raise fail(op, f"is not defined for {t}")
            return [sb.op(name, args[:2], rt.element_type)]

        return [elementwise(op, b, op.operands[:2], rt, body)]
    return lower


def _unary(fn):
    """Unary op whose scalar body is ``fn(sb, x, op)``."""
    def lower(op: Operation, b: Builder):
        rt = ranked(op, op.results[0])
        return [elementwise(op, b, op.operands[:1], rt, lambda sb, args: [fn(sb, args[0], op)])]
    return lower


def _float_only(name: str):
    def fn(sb, x, op):
        if not is_float(x.type):
            raise fail(op, f"is only supported on floats, got {x.type}")
        return sb.op(name, [x], x.type)
    return fn


def _abs(sb, x, op):
    if is_float(x.type):
        return sb.op("math.absf", [x], x.type)
    return sb.op("math.absi", [x], x.type)


def _reciprocal(sb, x, op):
    if not is_float(x.type):
        raise fail(op, f"is only supported on floats, got {x.type}")
    return sb.op("arith.divf", [_c(sb, 1.0, x.type), x], x.type)


def _sigmoid(sb, x, op):
    if not is_float(x.type):
        raise fail(op, f"is only supported on floats, got {x.type}")
    t = x.type
    e = sb.op("math.exp", [sb.op("arith.negf", [x], t)], t)
    return sb.op("arith.divf", [_c(sb, 1.0, t), sb.op("arith.addf", [_c(sb, 1.0, t), e], t)], t)


def _bitwise_not(sb, x, op):
    return sb.op("arith.xori", [x, _c(sb, -1 if not is_bool(x.type) else 1, x.type)], x.type)


def _clz(sb, x, op):
    """Leading zero bits of an integer (TOSA ``CLZ``; 32 for 0 in i32)."""
    if is_float(x.type) or is_bool(x.type):
        raise fail(op, f"is only defined on integers, got {x.type}")
    from ..stablehlo.common import _clz as clz_bits
    return clz_bits(sb, x)


for _name, _fn in {
    "abs": _abs, "clz": _clz, "exp": _float_only("math.exp"), "log": _float_only("math.log"),
    "floor": _float_only("math.floor"), "ceil": _float_only("math.ceil"),
    "tanh": _float_only("math.tanh"), "rsqrt": _float_only("math.rsqrt"),
    "sin": _float_only("math.sin"), "cos": _float_only("math.cos"),
    "erf": _float_only("math.erf"), "reciprocal": _reciprocal, "sigmoid": _sigmoid,
    "bitwise_not": _bitwise_not, "logical_not": _bitwise_not,
}.items():
    PATTERNS[f"tosa.{_name}"] = _unary(_fn)

PATTERNS.update({
    "tosa.add": _simple("arith.addf", "arith.addi"),
    "tosa.sub": _simple("arith.subf", "arith.subi"),
    "tosa.pow": _simple("math.powf"),
    "tosa.bitwise_and": _simple(None, "arith.andi"),
    "tosa.bitwise_or": _simple(None, "arith.ori"),
    "tosa.bitwise_xor": _simple(None, "arith.xori"),
    "tosa.logical_and": _simple(None, "arith.andi"),
    "tosa.logical_or": _simple(None, "arith.ori"),
    "tosa.logical_xor": _simple(None, "arith.xori"),
    "tosa.logical_left_shift": _simple(None, "arith.shli"),
    "tosa.logical_right_shift": _simple(None, "arith.shrui"),
    "tosa.intdiv": _simple(None, "arith.divsi"),
})


def _compare(pred_f: str, pred_i: str):
    def lower(op: Operation, b: Builder):
        rt = ranked(op, op.results[0])
        return [elementwise(op, b, op.operands[:2], rt,
                            lambda sb, args: [_cmp(sb, pred_f, pred_i, args[0], args[1])])]
    return lower


PATTERNS["tosa.equal"] = _compare("oeq", "eq")
PATTERNS["tosa.greater"] = _compare("ogt", "sgt")
PATTERNS["tosa.greater_equal"] = _compare("oge", "sge")


def _select(op: Operation, b: Builder):
    rt = ranked(op, op.results[0])
    return [elementwise(op, b, op.operands[:3], rt,
                        lambda sb, args: [sb.op("arith.select", args[:3], rt.element_type)])]


PATTERNS["tosa.select"] = _select


def _min_max(kind: str):
    """maximum / minimum: NaN-propagating (maximumf) or NaN-ignoring (maxnumf) per nan_mode."""
    def lower(op: Operation, b: Builder):
        rt = ranked(op, op.results[0])
        ignore = enum_attr(op, "nan_mode", "PROPAGATE") == "IGNORE"

        def body(sb, args):
            t = args[0].type
            if is_float(t):
                name = f"arith.{kind}{'numf' if ignore else 'imumf'}"
            else:
                name = f"arith.{kind}{'ui' if is_unsigned(t) else 'si'}"
            return [sb.op(name, args[:2], t)]

        return [elementwise(op, b, op.operands[:2], rt, body)]
    return lower


PATTERNS["tosa.maximum"] = _min_max("max")
PATTERNS["tosa.minimum"] = _min_max("min")


def _clamp(op: Operation, b: Builder):
    rt = ranked(op, op.results[0])
    et = rt.element_type
    ignore = enum_attr(op, "nan_mode", "PROPAGATE") == "IGNORE"
    lo_a, hi_a = op.attributes.get("min_val"), op.attributes.get("max_val")
    if is_float(et):
        # Older TOSA carried min_fp/max_fp next to min_int/max_int.
        lo_a = lo_a if lo_a is not None else op.attributes.get("min_fp")
        hi_a = hi_a if hi_a is not None else op.attributes.get("max_fp")
    else:
        lo_a = lo_a if lo_a is not None else op.attributes.get("min_int")
        hi_a = hi_a if hi_a is not None else op.attributes.get("max_int")
    if lo_a is None or hi_a is None:
        raise fail(op, "needs min_val and max_val attributes")
    lo, hi = lo_a.value, hi_a.value

    def body(sb, args):
        x = args[0]
        if is_float(et):
            lo_v, hi_v = _c(sb, float(lo), et), _c(sb, float(hi), et)
            if ignore:  # NaN → min_val (fmax ignores the NaN)
                return [sb.op("arith.minnumf", [sb.op("arith.maxnumf", [x, lo_v], et), hi_v], et)]
            return [sb.op("arith.minimumf", [sb.op("arith.maximumf", [x, lo_v], et), hi_v], et)]
        # Integer bounds are clamped to the element type's range first.
        lo_i = max(int(lo), lowest(et))
        hi_i = min(int(hi), highest(et))
        mx = "arith.maxui" if is_bool(et) else "arith.maxsi"
        mn = "arith.minui" if is_bool(et) else "arith.minsi"
        return [sb.op(mn, [sb.op(mx, [x, _c(sb, lo_i, et)], et), _c(sb, hi_i, et)], et)]

    return [elementwise(op, b, op.operands[:1], rt, body)]


PATTERNS["tosa.clamp"] = _clamp


def _mul(op: Operation, b: Builder):
    """``tosa.mul a, b [, shift]``: float product, or integer product widened to the result
    type with the rounding right shift of TOSA 1.0 (int32 only)."""
    rt = ranked(op, op.results[0])
    et = rt.element_type
    shift = 0
    if len(op.operands) > 2:
        shift = const_ints(op, op.operands[2], "shift")[0]
    elif "shift" in op.attributes:  # older TOSA: shift attribute
        shift = int_attr(op, "shift", 0)

    def body(sb, args):
        a, c = args[0], args[1]
        if is_float(et):
            return [sb.op("arith.mulf", [a, c], et)]
        if shift == 0:
            a, c = sb.cast(a, et), sb.cast(c, et)
            return [sb.op("arith.muli", [a, c], et)]
        a64, c64 = sb.cast(a, I64), sb.cast(c, I64)
        p = sb.op("arith.muli", [a64, c64], I64)
        p = sb.op("arith.addi", [p, _c(sb, 1 << (shift - 1), I64)], I64)
        p = sb.op("arith.shrsi", [p, _c(sb, shift, I64)], I64)
        return [sb.op("arith.trunci", [p], et) if et.width < 64 else p]

    return [elementwise(op, b, op.operands[:2], rt, body)]


PATTERNS["tosa.mul"] = _mul


def _arithmetic_right_shift(op: Operation, b: Builder):
    rt = ranked(op, op.results[0])
    et = rt.element_type
    rnd = int_attr(op, "round", 0)

    def body(sb, args):
        x, s = args[0], args[1]
        r = sb.op("arith.shrsi", [x, s], et)
        if not rnd:
            return [r]
        # round: add the last bit shifted out, when the shift is positive.
        one = _c(sb, 1, et)
        s1 = sb.op("arith.subi", [s, one], et)
        zero = _c(sb, 0, et)
        pos = _cmp(sb, "ogt", "sgt", s, zero)
        safe = sb.op("arith.select", [pos, s1, zero], et)
        bit = sb.op("arith.andi", [sb.op("arith.shrsi", [x, safe], et), one], et)
        bit = sb.op("arith.select", [pos, bit, zero], et)
        return [sb.op("arith.addi", [r, bit], et)]

    return [elementwise(op, b, op.operands[:2], rt, body)]


PATTERNS["tosa.arithmetic_right_shift"] = _arithmetic_right_shift


def _negate(op: Operation, b: Builder):
    """``-x``; for integers ``clamp(-(x - in_zp) + out_zp)`` computed in 64 bits."""
    rt = ranked(op, op.results[0])
    et = rt.element_type
    in_zp = out_zp = 0
    if not is_float(et):
        if len(op.operands) >= 3:
            in_zp = const_ints(op, op.operands[1], "input zero point")[0]
            out_zp = const_ints(op, op.operands[2], "output zero point")[0]
        else:
            in_zp = int_attr(op, "input1_zp", 0)
            out_zp = int_attr(op, "output_zp", 0)

    def body(sb, args):
        x = args[0]
        if is_float(et):
            return [sb.op("arith.negf", [x], et)]
        if in_zp == 0 and out_zp == 0:
            return [sb.op("arith.subi", [_c(sb, 0, et), x], et)]
        w = sb.cast(x, I64)
        v = sb.op("arith.subi", [_c(sb, in_zp, I64), w], I64)
        v = sb.op("arith.addi", [v, _c(sb, out_zp, I64)], I64)
        v = sb.op("arith.maxsi", [v, _c(sb, lowest(et), I64)], I64)
        v = sb.op("arith.minsi", [v, _c(sb, highest(et), I64)], I64)
        return [sb.op("arith.trunci", [v], et)]

    return [elementwise(op, b, op.operands[:1], rt, body)]


PATTERNS["tosa.negate"] = _negate


def cast_scalar(sb: ScalarBuilder, x: Value, to: T.Type) -> Value:
    """TOSA ``cast`` of one scalar: bool→int zero-extends, int/float→bool tests ``!= 0``,
    float→int rounds half to even and saturates (NaN → 0), others convert exactly or
    round to nearest."""
    src = x.type
    if src == to:
        return x
    if is_bool(to):
        return _cmp(sb, "une", "ne", x, _c(sb, 0, src))
    if is_bool(src):
        if is_float(to):
            return sb.op("arith.uitofp", [x], to)
        return sb.op("arith.extui", [x], to)
    if is_float(src) and isinstance(to, T.IntegerType):
        r = sb.op("math.roundeven", [x], src)
        lo, hi = lowest(to), highest(to)
        conv = sb.op("arith.fptosi", [r], to)
        too_big = _cmp(sb, "oge", "sge", r, _c(sb, float(-lo), src))  # >= 2^(w-1)
        too_small = _cmp(sb, "olt", "slt", r, _c(sb, float(lo), src))
        nan = sb.op("arith.cmpf", [x, x], I1, {"predicate": IntegerAttr(14, I64)})  # uno
        v = sb.op("arith.select", [too_big, _c(sb, hi, to), conv], to)
        v = sb.op("arith.select", [too_small, _c(sb, lo, to), v], to)
        return sb.op("arith.select", [nan, _c(sb, 0, to), v], to)
    return sb.cast(x, to)


def _cast(op: Operation, b: Builder):
    rt = ranked(op, op.results[0])
    return [elementwise(op, b, op.operands[:1], rt,
                        lambda sb, args: [cast_scalar(sb, args[0], rt.element_type)])]


PATTERNS["tosa.cast"] = _cast


def _table(op: Operation, b: Builder):
    """``tosa.table``: i8 input reads ``table[x + 128]`` (256 entries); i16 input with a
    513-entry i16 table gives i32 ``(t[b] << 7) + (t[b+1] - t[b]) * frac`` where
    ``b = (x + 32768) >> 7``, ``frac = (x + 32768) & 127`` (TOSA spec, TABLE)."""
    rt = ranked(op, op.results[0])
    it = ranked(op, op.operands[0]).element_type
    table = op.operands[1]
    tt = ranked(op, table)
    if not isinstance(it, T.IntegerType) or it.width not in (8, 16) or tt.rank != 1:
        raise fail(op, f"supports i8 and i16 inputs with a rank-1 table, got {it}")

    def body(sb, args):
        x = args[0]
        if it.width == 8:
            i = sb.op("arith.addi", [sb.cast(x, I32), _c(sb, 128, I32)], I32)
            v = extract(sb, table, [sb.op("arith.index_cast", [i], INDEX)])
            return [sb.cast(v, rt.element_type)]
        i = sb.op("arith.addi", [sb.cast(x, I32), _c(sb, 32768, I32)], I32)
        base = sb.op("arith.shrsi", [i, _c(sb, 7, I32)], I32)
        frac = sb.op("arith.andi", [i, _c(sb, 127, I32)], I32)
        idx0 = sb.op("arith.index_cast", [base], INDEX)
        idx1 = sb.op("arith.index_cast", [sb.op("arith.addi", [base, _c(sb, 1, I32)], I32)],
                     INDEX)
        v0 = sb.cast(extract(sb, table, [idx0]), I32)
        v1 = sb.cast(extract(sb, table, [idx1]), I32)
        hi = sb.op("arith.shli", [v0, _c(sb, 7, I32)], I32)
        diff = sb.op("arith.muli", [sb.op("arith.subi", [v1, v0], I32), frac], I32)
        return [sb.cast(sb.op("arith.addi", [hi, diff], I32), rt.element_type)]

    return [elementwise(op, b, op.operands[:1], rt, body)]


PATTERNS["tosa.table"] = _table


def _identity(op: Operation, b: Builder):
    return list(op.operands[: len(op.results)])


PATTERNS["tosa.identity"] = _identity


def _rescale(op: Operation, b: Builder):
    """``tosa.rescale``: ``clamp(apply_scale(x - in_zp, multiplier[c], shift[c]) + out_zp)``
    with TOSA's ``apply_scale_32`` (64-bit product, ``round = 1 << (shift - 1)``, plus
    ``±(1 << 30)`` under DOUBLE_ROUND when ``shift > 31``) or ``apply_scale_16``; ``c`` is the
    last index when ``per_channel``. TOSA 1.0 takes multiplier/shift/zero points as operands
    (multiplier and shift may be runtime tensors); older TOSA as attributes."""
    x = op.operands[0]
    xt = ranked(op, x)
    rt = ranked(op, op.results[0])
    it, et = xt.element_type, rt.element_type
    if not isinstance(it, T.IntegerType) or not isinstance(et, T.IntegerType):
        raise fail(op, f"supports integer types only, got {it} -> {et}")
    per_channel = bool(int_attr(op, "per_channel", 0))
    scale32 = bool(int_attr(op, "scale32", 1))
    double = enum_attr(op, "rounding_mode", "SINGLE_ROUND") == "DOUBLE_ROUND" or bool(
        int_attr(op, "double_round", 0))
    in_unsigned = bool(int_attr(op, "input_unsigned", 0)) or it.signedness == "u"
    out_unsigned = bool(int_attr(op, "output_unsigned", 0)) or et.signedness == "u"
    rank = rt.rank
    ins = [x]
    maps = [AffineMap.identity(rank)]
    if len(op.operands) >= 5:
        mult, shift = op.operands[1], op.operands[2]
        in_zp = const_ints(op, op.operands[3], "input zero point")[0]
        out_zp = const_ints(op, op.operands[4], "output zero point")[0]
    else:
        ma, sa = int_array_attr(op, "multiplier"), int_array_attr(op, "shift")
        if ma is None or sa is None:
            raise fail(op, "needs multiplier and shift")
        mult = b.create("arith.constant", [], [T.TensorType((len(ma),), I32)], {
            "value": _dense(ma, T.TensorType((len(ma),), I32))}).result
        shift = b.create("arith.constant", [], [T.TensorType((len(sa),), I32)], {
            "value": _dense(sa, T.TensorType((len(sa),), I32))}).result
        in_zp, out_zp = int_attr(op, "input_zp", 0), int_attr(op, "output_zp", 0)
    chan = AffineDim(rank - 1) if per_channel and rank > 0 else AffineConst(0)
    for v in (mult, shift):
        ins.append(v)
        maps.append(AffineMap(rank, 0, (chan,)))
    maps.append(AffineMap.identity(rank))
    w = et.width
    lo, hi = (0, (1 << w) - 1) if out_unsigned else (-(1 << (w - 1)), (1 << (w - 1)) - 1)

    def body(sb, args):
        v, m, s = args[0], args[1], args[2]
        v64 = (sb.op("arith.extui", [v], I64) if in_unsigned and it.width < 64
               else sb.cast(v, I64))
        v64 = sb.op("arith.subi", [v64, _c(sb, in_zp, I64)], I64)
        m64, s64 = sb.cast(m, I64), sb.cast(s, I64)
        one = _c(sb, 1, I64)
        rnd = sb.op("arith.shli", [one, sb.op("arith.subi", [s64, one], I64)], I64)
        if scale32 and double:
            big = _cmp(sb, "ogt", "sgt", s64, _c(sb, 31, I64))
            nonneg = _cmp(sb, "oge", "sge", v64, _c(sb, 0, I64))
            adj = sb.op("arith.select", [nonneg, _c(sb, 1 << 30, I64), _c(sb, -(1 << 30), I64)], I64)
            adj = sb.op("arith.select", [big, adj, _c(sb, 0, I64)], I64)
            rnd = sb.op("arith.addi", [rnd, adj], I64)
        r = sb.op("arith.addi", [sb.op("arith.muli", [v64, m64], I64), rnd], I64)
        r = sb.op("arith.shrsi", [r, s64], I64)
        r = sb.op("arith.addi", [r, _c(sb, out_zp, I64)], I64)
        r = sb.op("arith.maxsi", [r, _c(sb, lo, I64)], I64)
        r = sb.op("arith.minsi", [r, _c(sb, hi, I64)], I64)
        return [sb.op("arith.trunci", [r], et) if w < 64 else r]

    g = L.build_generic(ins, [empty(b, rt, [x])], maps, ["parallel"] * rank, body, builder=b)
    return [g.results[0]]


def _dense(vals, t):
    return DenseElementsAttr(np.array(vals, np.int64), t)


PATTERNS["tosa.rescale"] = _rescale

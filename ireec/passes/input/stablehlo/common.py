"""Helpers shared by the StableHLO → linalg patterns.

Two halves:

* tensor-level builders (``tensor.empty``, ``linalg.generic``, slices, pads, reshapes) that
  insert at a :class:`Builder` and return the new tensor value;
* :func:`scalar_op`, the per-element semantics of every elementwise StableHLO op on scalars
  (IREE's ``MapStablehloOpToScalarOp``, StableHLOToLinalgPointwise / MapStablehloToScalarOp.h),
  written from the StableHLO spec (https://openxla.org/stablehlo/spec): integer division and
  remainder truncate toward zero and are defined for a zero divisor (x / 0 = -1, all ones
  unsigned; x % 0 = x) and for INT_MIN / -1 (= INT_MIN, remainder 0), shifts by at least the
  bit width give 0 (logical) or the sign fill (arithmetic); signed vs unsigned integer
  semantics come from the element type (``ui32`` is unsigned, ``i32``/``si32`` signed).
  :func:`translate_region` uses it to turn a StableHLO body on rank-0 tensors (reduce, map,
  reduce_window, sort comparators...) into scalar arith/math ops inside a linalg payload.

Other pattern modules may import these helpers (read-only use).
"""
from __future__ import annotations

from typing import Callable, Dict, List, Optional, Sequence

from ....dialects import linalg as L
from ....dialects import stablehlo as shlo
from ....dialects.arith import CMPF_PREDICATES, CMPI_PREDICATES, ScalarBuilder
from ....ir import types as T
from ....ir.affine import AffineConst, AffineDim, AffineMap
from ....ir.attributes import (ArrayAttr, DenseArrayAttr, DenseElementsAttr, FloatAttr,
                               IntegerAttr)
from ....ir.core import Block, Builder, Operation, Region, Value
from ....ir.diagnostics import CompileError

# ------------------------------------------------------------------------ type queries


def elem(v_or_t) -> T.Type:
    """Element type of a value or type (scalars are their own element type)."""
    t = v_or_t.type if isinstance(v_or_t, Value) else v_or_t
    return T.element_type(t)


def is_float(t: T.Type) -> bool:
    return isinstance(t, T.FloatType)


def is_bool(t: T.Type) -> bool:
    return isinstance(t, T.IntegerType) and t.width == 1


def is_unsigned(t: T.Type) -> bool:
    """Unsigned integer semantics: ``uiN`` types and booleans (i1)."""
    return isinstance(t, T.IntegerType) and (t.signedness == "u" or t.width == 1)


def is_int(t: T.Type) -> bool:
    return isinstance(t, T.IntegerType)


def ranked(v: Value, op: Operation) -> T.TensorType:
    """The static ranked tensor type of ``v``; CompileError (at ``op``) otherwise."""
    t = v.type
    if not isinstance(t, T.TensorType) or t.shape is None or not t.has_static_shape:
        raise CompileError(f"'{op.name}' with dynamic or unranked shape {t} is not supported", op.loc)
    return t


def tensor_of(shape: Sequence[int], et: T.Type) -> T.TensorType:
    return T.TensorType(tuple(int(d) for d in shape), et)


# --------------------------------------------------------------------- tensor builders


def i64_array(vals: Sequence[int]) -> DenseArrayAttr:
    return DenseArrayAttr(T.i64, tuple(int(v) for v in vals))


def empty(b: Builder, shape: Sequence[int], et: T.Type) -> Value:
    """``tensor.empty() : tensor<shape x et>``."""
    return b.create("tensor.empty", [], [tensor_of(shape, et)]).result


def scalar_const(sb: ScalarBuilder, value, t: T.Type) -> Value:
    """An ``arith.constant`` of Python number ``value`` with scalar type ``t``."""
    if is_float(t):
        return sb.constant(FloatAttr(float(value), t))
    if isinstance(t, T.IntegerType) and t.width == 1:
        return sb.constant(IntegerAttr(1 if value else 0, t))
    return sb.constant(IntegerAttr(int(value), t))


def generic(b: Builder, ins: Sequence[Value], outs: Sequence[Value], maps: Sequence[AffineMap],
            iterators: Sequence[str], body: Callable[[ScalarBuilder, List[Value]], Sequence[Value]]
            ) -> Operation:
    """``linalg.generic`` at ``b`` (see :func:`ireec.dialects.linalg.build_generic`)."""
    return L.build_generic(list(ins), list(outs), list(maps), list(iterators), body, builder=b)


def broadcast_scalar_tensor(b: Builder, v: Value, shape: Sequence[int]) -> Value:
    """A tensor of ``shape`` filled with the single element of rank-0 tensor ``v``."""
    rank = len(shape)
    out = empty(b, shape, elem(v))
    return generic(b, [v], [out], [AffineMap(rank, 0, ()), AffineMap.identity(rank)],
                   ["parallel"] * rank, lambda sb, a: [a[0]]).result


def fill(b: Builder, value: Value, shape: Sequence[int]) -> Value:
    """``linalg.fill`` of scalar ``value`` into a new tensor of ``shape``."""
    out = empty(b, shape, value.type)
    region = L.build_named_region("fill", [value.type], [out.type], {})
    return b.create("linalg.fill", [value, out], [out.type],
                    {"operandSegmentSizes": DenseArrayAttr(T.i32, (1, 1))}, regions=[region]).result


def constant_splat(v: Value):
    """The splat element (numpy scalar) of a constant tensor ``v``, else None."""
    o = v.owner
    if isinstance(o, Operation) and o.name in ("stablehlo.constant", "arith.constant"):
        a = o.attributes.get("value")
        if isinstance(a, DenseElementsAttr) and a.array.size >= 1 and (a.array.size == 1 or a.is_splat):
            return a.array.reshape(-1)[0]
    return None


def scalar_in_block(b: Builder, v: Value) -> Value:
    """The scalar element of rank-0 tensor ``v`` at ``b``: an ``arith.constant`` when ``v``
    is a constant, else ``tensor.extract``."""
    c = constant_splat(v)
    if c is not None:
        t = elem(v)
        attr = FloatAttr(float(c), t) if is_float(t) else IntegerAttr(int(c), t)
        return b.create("arith.constant", [], [t], {"value": attr}).result
    return b.create("tensor.extract", [v], [elem(v)]).result


def extract_slice(b: Builder, src: Value, offsets, sizes, strides) -> Value:
    """``tensor.extract_slice`` with static offsets, sizes, strides."""
    if list(offsets) == [0] * len(sizes) and list(sizes) == list(src.type.shape) \
            and all(s == 1 for s in strides):
        return src
    return b.create("tensor.extract_slice", [src], [tensor_of(sizes, elem(src))], {
        "static_offsets": i64_array(offsets), "static_sizes": i64_array(sizes),
        "static_strides": i64_array(strides),
        "operandSegmentSizes": DenseArrayAttr(T.i32, (1, 0, 0, 0))}).result


def insert_slice(b: Builder, src: Value, dest: Value, offsets, strides=None) -> Value:
    """``tensor.insert_slice src into dest[offsets][src shape][strides]``."""
    sizes = list(src.type.shape)
    strides = list(strides) if strides is not None else [1] * len(sizes)
    return b.create("tensor.insert_slice", [src, dest], [dest.type], {
        "static_offsets": i64_array(offsets), "static_sizes": i64_array(sizes),
        "static_strides": i64_array(strides),
        "operandSegmentSizes": DenseArrayAttr(T.i32, (1, 1, 0, 0, 0))}).result


def pad_scalar(b: Builder, src: Value, low: Sequence[int], high: Sequence[int],
               interior: Sequence[int], pad: Value) -> Value:
    """Pad ``src`` per StableHLO ``pad`` semantics with scalar ``pad`` (an SSA scalar).

    ``low``/``high`` may be negative (cropping), ``interior`` ≥ 0 inserts that many pad
    elements between neighbours. No interior padding and no negative edges gives one
    ``tensor.pad``; otherwise a filled tensor with the (strided) source inserted, then an
    ``extract_slice`` for negative edges.
    """
    shape = list(src.type.shape)
    rank = len(shape)
    if all(x == 0 for x in list(low) + list(high) + list(interior)):
        return src
    dil = [(d - 1) * (i + 1) + 1 if d > 0 else 0 for d, i in zip(shape, interior)]
    plo = [max(0, x) for x in low]
    phi = [max(0, x) for x in high]
    padded_shape = [lo + d + hi for lo, d, hi in zip(plo, dil, phi)]
    pad_is_const = isinstance(pad.owner, Operation) and pad.owner.name == "arith.constant"
    if all(i == 0 for i in interior) and pad_is_const:
        blk = Block([T.index] * rank)
        Builder.at_end(blk).create("tensor.yield", [pad])
        padded = b.create("tensor.pad", [src], [tensor_of(padded_shape, elem(src))], {
            "static_low": i64_array(plo), "static_high": i64_array(phi),
            "operandSegmentSizes": DenseArrayAttr(T.i32, (1, 0, 0))},
            regions=[Region([blk])]).result
    else:
        base = fill(b, pad, padded_shape)
        padded = insert_slice(b, src, base, plo, [i + 1 for i in interior]) if all(shape) else base
    # Negative edges crop.
    offs = [max(0, -x) for x in low]
    sizes = [p - o - max(0, -h) for p, o, h in zip(padded_shape, offs, high)]
    if any(s < 0 for s in sizes):
        raise ValueError("pad gives a negative dimension")
    return extract_slice(b, padded, offs, sizes, [1] * rank)


def reshape(b: Builder, src: Value, shape: Sequence[int]) -> Value:
    """Reshape (row-major) ``src`` to ``shape`` with collapse_shape/expand_shape: collapse
    to 1-D (or rank 0) and expand back, skipping identity steps."""
    st = src.type
    shape = list(shape)
    if list(st.shape) == shape:
        return src
    v = src
    if st.rank != 1:
        n = st.num_elements
        flat = [n] if shape else []
        if st.rank == 0:
            reassoc = ArrayAttr(())
        else:
            reassoc = ArrayAttr((ArrayAttr(tuple(IntegerAttr(i, T.i64) for i in range(st.rank))),))
        if st.rank == 0:
            v = b.create("tensor.expand_shape", [v], [tensor_of(flat, elem(v))], {
                "reassociation": reassoc, "static_output_shape": i64_array(flat)}).result
        else:
            v = b.create("tensor.collapse_shape", [v], [tensor_of(flat, elem(v))],
                         {"reassociation": reassoc if shape else ArrayAttr(())}).result
    if list(v.type.shape) == shape:
        return v
    if not shape:
        return b.create("tensor.collapse_shape", [v], [tensor_of([], elem(v))],
                        {"reassociation": ArrayAttr(())}).result
    reassoc = ArrayAttr((ArrayAttr(tuple(IntegerAttr(i, T.i64) for i in range(len(shape)))),))
    return b.create("tensor.expand_shape", [v], [tensor_of(shape, elem(v))], {
        "reassociation": reassoc, "static_output_shape": i64_array(shape)}).result


def transpose(b: Builder, src: Value, perm: Sequence[int]) -> Value:
    """``result[i...] = src[...]`` with ``result.shape[k] = src.shape[perm[k]]`` (a generic)."""
    perm = list(perm)
    if perm == list(range(len(perm))):
        return src
    shape = [src.type.shape[p] for p in perm]
    out = empty(b, shape, elem(src))
    rank = len(perm)
    # result dim k indexes src dim perm[k]: src map sends d_k to position perm[k].
    inv = [0] * rank
    for k, p in enumerate(perm):
        inv[p] = k
    return generic(b, [src], [out], [AffineMap.from_dims(rank, inv), AffineMap.identity(rank)],
                   ["parallel"] * rank, lambda sb, a: [a[0]]).result


# ----------------------------------------------------------------------- scalar semantics


def _cmp(sb: ScalarBuilder, pred: str, a: Value, c: Value) -> Value:
    if is_float(a.type):
        return sb.op("arith.cmpf", [a, c], T.i1,
                     {"predicate": IntegerAttr(CMPF_PREDICATES.index(pred), T.i64)})
    return sb.op("arith.cmpi", [a, c], T.i1,
                 {"predicate": IntegerAttr(CMPI_PREDICATES.index(pred), T.i64)})


def _all_ones(t: T.IntegerType) -> int:
    return (1 << t.width) - 1 if t.signedness == "u" else -1


def _int_min(t: T.IntegerType) -> int:
    return 0 if t.signedness == "u" else -(1 << (t.width - 1))


def convert_scalar(sb: ScalarBuilder, v: Value, to: T.Type) -> Value:
    """StableHLO ``convert`` of one scalar: bool targets are ``x != 0``; bools widen as 0/1;
    integers sign- or zero-extend by the source's signedness and truncate; int↔float use
    the source/target signedness (float→int truncates toward zero, as arith.fptosi)."""
    src = v.type
    if src == to:
        return v
    if is_bool(to):
        return _cmp(sb, "une" if is_float(src) else "ne", v, scalar_const(sb, 0, src))
    if is_int(to) and is_int(src):
        if to.width > src.width:
            return sb.op("arith.extui" if is_unsigned(src) else "arith.extsi", [v], to)
        if to.width < src.width:
            return sb.op("arith.trunci", [v], to)
        return sb.op("arith.bitcast", [v], to)
    if is_float(to) and is_int(src):
        return sb.op("arith.uitofp" if is_unsigned(src) else "arith.sitofp", [v], to)
    if is_int(to) and is_float(src):
        return sb.op("arith.fptoui" if is_unsigned(to) else "arith.fptosi", [v], to)
    if is_float(to) and is_float(src):
        if to.width > src.width or (to.width == src.width and src.name == "bf16"):
            return sb.op("arith.extf", [v], to)
        return sb.op("arith.truncf", [v], to)
    raise ValueError(f"cannot convert {src} to {to}")


def _float_total_order_key(sb: ScalarBuilder, x: Value) -> Value:
    """Signed integer whose order is IEEE totalOrder of float ``x`` (spec: compare with
    compare_type TOTALORDER): negative floats get their magnitude bits flipped."""
    it = T.IntegerType(x.type.width)
    i = sb.op("arith.bitcast", [x], it)
    sign = sb.op("arith.shrsi", [i, scalar_const(sb, it.width - 1, it)], it)
    mask = sb.op("arith.shrui", [sign, scalar_const(sb, 1, it)], it)
    return sb.op("arith.xori", [i, mask], it)


_FLOAT_DIR = {"EQ": "oeq", "NE": "une", "LT": "olt", "LE": "ole", "GT": "ogt", "GE": "oge"}
_SINT_DIR = {"EQ": "eq", "NE": "ne", "LT": "slt", "LE": "sle", "GT": "sgt", "GE": "sge"}
_UINT_DIR = {"EQ": "eq", "NE": "ne", "LT": "ult", "LE": "ule", "GT": "ugt", "GE": "uge"}


def compare_scalar(sb: ScalarBuilder, direction: str, ctype: Optional[str], a: Value,
                   c: Value) -> Value:
    """StableHLO ``compare`` of two scalars → i1. Floats: ordered predicates except NE
    (unordered, so NaN != NaN); TOTALORDER compares totalOrder keys. Integers: signedness
    of the element type, or ``compare_type`` SIGNED/UNSIGNED when given."""
    t = a.type
    if is_float(t):
        if ctype == "TOTALORDER":
            return _cmp(sb, _SINT_DIR[direction], _float_total_order_key(sb, a),
                        _float_total_order_key(sb, c))
        return _cmp(sb, _FLOAT_DIR[direction], a, c)
    unsigned = is_unsigned(t) if ctype not in ("SIGNED", "UNSIGNED") else ctype == "UNSIGNED"
    if is_bool(t):
        unsigned = True
    return _cmp(sb, (_UINT_DIR if unsigned else _SINT_DIR)[direction], a, c)


def _minmax(sb: ScalarBuilder, kind: str, a: Value, c: Value) -> Value:
    t = a.type
    if is_float(t):
        return sb.op("arith.maximumf" if kind == "max" else "arith.minimumf", [a, c], t)
    if is_bool(t):
        return sb.op("arith.ori" if kind == "max" else "arith.andi", [a, c], t)
    u = "u" if is_unsigned(t) else "s"
    return sb.op(f"arith.{kind}{u}i", [a, c], t)


def _int_div_rem(sb: ScalarBuilder, kind: str, a: Value, c: Value) -> Value:
    """Integer divide/remainder with the divide-by-zero and overflow cases defined."""
    t = a.type
    zero = scalar_const(sb, 0, t)
    one = scalar_const(sb, 1, t)
    is_zero = _cmp(sb, "eq", c, zero)
    bad = is_zero
    if not is_unsigned(t):
        ovf = sb.op("arith.andi", [_cmp(sb, "eq", a, scalar_const(sb, _int_min(t), t)),
                                   _cmp(sb, "eq", c, scalar_const(sb, -1, t))], T.i1)
        bad = sb.op("arith.ori", [is_zero, ovf], T.i1)
    safe = sb.select(bad, one, c)
    u = "u" if is_unsigned(t) else "s"
    if kind == "div":
        # INT_MIN / 1 = INT_MIN, the defined overflow result.
        q = sb.op(f"arith.div{u}i", [a, safe], t)
        return sb.select(is_zero, scalar_const(sb, _all_ones(t), t), q)
    r = sb.op(f"arith.rem{u}i", [a, safe], t)   # INT_MIN % 1 = 0, the defined result
    return sb.select(is_zero, a, r)


def _shift(sb: ScalarBuilder, kind: str, a: Value, c: Value) -> Value:
    t = a.type
    w = scalar_const(sb, t.width, t)
    in_range = _cmp(sb, "ult", c, w)
    zero = scalar_const(sb, 0, t)
    if kind == "shift_right_arithmetic":
        amt = sb.select(in_range, c, scalar_const(sb, t.width - 1, t))
        return sb.op("arith.shrsi", [a, amt], t)
    amt = sb.select(in_range, c, zero)
    r = sb.op("arith.shli" if kind == "shift_left" else "arith.shrui", [a, amt], t)
    return sb.select(in_range, r, zero)


def _int_pow(sb: ScalarBuilder, a: Value, e: Value) -> Value:
    """Integer power by square-and-multiply over the exponent's bits (unrolled). A negative
    exponent gives 1 for base 1, ±1 for base -1, else 0 (XLA's integer pow)."""
    t = a.type
    one = scalar_const(sb, 1, t)
    zero = scalar_const(sb, 0, t)
    acc, base = one, a
    for i in range(t.width if is_unsigned(t) else t.width - 1):
        bit = sb.op("arith.andi", [sb.op("arith.shrui", [e, scalar_const(sb, i, t)], t), one], t)
        take = _cmp(sb, "ne", bit, zero)
        acc = sb.select(take, sb.op("arith.muli", [acc, base], t), acc)
        base = sb.op("arith.muli", [base, base], t)
    if is_unsigned(t):
        return acc
    neg = _cmp(sb, "slt", e, zero)
    m1 = scalar_const(sb, -1, t)
    odd = _cmp(sb, "ne", sb.op("arith.andi", [e, one], t), zero)
    neg_val = sb.select(_cmp(sb, "eq", a, one), one,
                        sb.select(_cmp(sb, "eq", a, m1), sb.select(odd, m1, one), zero))
    return sb.select(neg, neg_val, acc)


def _clz(sb: ScalarBuilder, a: Value) -> Value:
    """Count leading zeros: smear the highest set bit right, then width - popcount."""
    t = a.type
    x = a
    s = 1
    while s < t.width:
        x = sb.op("arith.ori", [x, sb.op("arith.shrui", [x, scalar_const(sb, s, t)], t)], t)
        s *= 2
    return sb.op("arith.subi", [scalar_const(sb, t.width, t), _popcount(sb, x)], t)


def _bits_const(sb: ScalarBuilder, v: int, t: T.IntegerType) -> Value:
    """Constant with bit pattern ``v`` (two's complement for signless/signed types)."""
    v &= (1 << t.width) - 1
    if t.signedness != "u" and v >> (t.width - 1):
        v -= 1 << t.width
    return scalar_const(sb, v, t)


def _popcount(sb: ScalarBuilder, x: Value) -> Value:
    """Set bits of integer ``x`` with the SWAR bit-slice sum (Hacker's Delight, 5-2)."""
    t = x.type
    w = t.width
    rep = sum(1 << (8 * i) for i in range(w // 8))  # 0x0101...

    def c(v):
        return _bits_const(sb, v, t)

    def shr(v, k):
        return sb.op("arith.shrui", [v, c(k)], t)

    def band(a, m):
        return sb.op("arith.andi", [a, c(m)], t)
    x = sb.op("arith.subi", [x, band(shr(x, 1), 0x55 * rep)], t)
    x = sb.op("arith.addi", [band(x, 0x33 * rep), band(shr(x, 2), 0x33 * rep)], t)
    x = band(sb.op("arith.addi", [x, shr(x, 4)], t), 0x0F * rep)
    if w > 8:
        x = shr(sb.op("arith.muli", [x, c(rep)], t), w - 8)
    return x


_FLOAT_UNARY = {
    "stablehlo.exponential": "math.exp", "stablehlo.exponential_minus_one": "math.expm1",
    "stablehlo.log": "math.log", "stablehlo.log_plus_one": "math.log1p",
    "stablehlo.sqrt": "math.sqrt", "stablehlo.rsqrt": "math.rsqrt", "stablehlo.cbrt": "math.cbrt",
    "stablehlo.tanh": "math.tanh", "stablehlo.sine": "math.sin", "stablehlo.cosine": "math.cos",
    "stablehlo.tan": "math.tan", "stablehlo.floor": "math.floor", "stablehlo.ceil": "math.ceil",
    "stablehlo.round_nearest_afz": "math.round", "stablehlo.round_nearest_even": "math.roundeven",
    "stablehlo.abs": "math.absf", "stablehlo.negate": "arith.negf",
}
_FLOAT_BINARY = {
    "stablehlo.add": "arith.addf", "stablehlo.subtract": "arith.subf",
    "stablehlo.multiply": "arith.mulf", "stablehlo.divide": "arith.divf",
    "stablehlo.remainder": "arith.remf", "stablehlo.power": "math.powf",
    "stablehlo.atan2": "math.atan2",
}
_INT_BINARY = {"stablehlo.add": "arith.addi", "stablehlo.subtract": "arith.subi",
               "stablehlo.multiply": "arith.muli", "stablehlo.and": "arith.andi",
               "stablehlo.or": "arith.ori", "stablehlo.xor": "arith.xori"}
_BOOL_BINARY = {"stablehlo.add": "arith.ori", "stablehlo.subtract": "arith.xori",
                "stablehlo.multiply": "arith.andi", "stablehlo.and": "arith.andi",
                "stablehlo.or": "arith.ori", "stablehlo.xor": "arith.xori"}

ELEMENTWISE_OPS = frozenset(
    list(_FLOAT_UNARY) + list(_FLOAT_BINARY) + list(_INT_BINARY) + [
        "stablehlo.maximum", "stablehlo.minimum", "stablehlo.sign", "stablehlo.logistic",
        "stablehlo.not", "stablehlo.shift_left", "stablehlo.shift_right_arithmetic",
        "stablehlo.shift_right_logical", "stablehlo.popcnt", "stablehlo.count_leading_zeros",
        "stablehlo.is_finite", "stablehlo.compare", "stablehlo.select", "stablehlo.clamp",
        "stablehlo.convert", "stablehlo.bitcast_convert", "stablehlo.reduce_precision"])


def _reduce_precision(sb: ScalarBuilder, x: Value, exp_bits: int, man_bits: int) -> Value:
    """Round ``x`` to a float with ``exp_bits``/``man_bits`` (round to nearest even,
    overflow to ±inf, NaN kept), as the spec's reduce_precision; computed on the bits."""
    t = x.type
    w = t.width
    src_man = {16: 10, 32: 23, 64: 52}[w] if t.name != "bf16" else 7
    src_exp = w - 1 - src_man
    it = T.IntegerType(w)

    def c(v):
        v &= (1 << w) - 1
        return scalar_const(sb, v - (1 << w) if v >> (w - 1) else v, it)
    bits = sb.op("arith.bitcast", [x], it)
    if man_bits < src_man:
        drop = src_man - man_bits
        last = sb.op("arith.andi", [sb.op("arith.shrui", [bits, c(drop)], it), c(1)], it)
        bias = sb.op("arith.addi", [c((1 << (drop - 1)) - 1), last], it)
        bits = sb.op("arith.addi", [bits, bias], it)
        bits = sb.op("arith.andi", [bits, c(~((1 << drop) - 1))], it)
    if exp_bits < src_exp:
        src_bias = (1 << (src_exp - 1)) - 1
        dst_bias = (1 << (exp_bits - 1)) - 1
        exp_mask = ((1 << src_exp) - 1) << src_man
        e = sb.op("arith.andi", [bits, c(exp_mask)], it)
        hi = c((src_bias + dst_bias) << src_man)
        lo = c((src_bias - dst_bias) << src_man)
        sign_mask = 1 << (w - 1)
        sign = sb.op("arith.andi", [bits, c(sign_mask)], it)
        inf = sb.op("arith.ori", [sign, c(exp_mask)], it)
        over = _cmp(sb, "ugt", e, hi)
        under = _cmp(sb, "ule", e, lo)
        bits = sb.select(over, inf, sb.select(under, sign, bits))
    y = sb.op("arith.bitcast", [bits], t)
    nan = _cmp(sb, "uno", x, x)
    return sb.select(nan, x, y)


def scalar_op(sb: ScalarBuilder, op: Operation, args: Sequence[Value], result_type: T.Type
              ) -> Value:
    """Scalar semantics of elementwise StableHLO ``op`` applied to scalars ``args`` (same
    order as the op's operands), giving a ``result_type`` scalar. Raises CompileError for
    element types the op does not support."""
    name = op.name
    t = args[0].type
    try:
        if name == "stablehlo.convert":
            return convert_scalar(sb, args[0], result_type)
        if name == "stablehlo.bitcast_convert":
            if T.bit_width(t) != T.bit_width(result_type):
                raise CompileError("bitcast_convert between different bit widths is not supported",
                                   op.loc)
            return args[0] if t == result_type else sb.op("arith.bitcast", [args[0]], result_type)
        if name == "stablehlo.compare":
            return compare_scalar(sb, shlo.comparison_direction(op), shlo.comparison_type(op),
                                  args[0], args[1])
        if name == "stablehlo.select":
            return sb.select(args[0], args[1], args[2])
        if name == "stablehlo.clamp":
            lo, x, hi = args
            return _minmax(sb, "min", _minmax(sb, "max", x, lo), hi)
        if name in ("stablehlo.maximum", "stablehlo.minimum"):
            return _minmax(sb, "max" if name.endswith("maximum") else "min", args[0], args[1])
        if is_float(t):
            if name in _FLOAT_UNARY:
                return sb.op(_FLOAT_UNARY[name], [args[0]], t)
            if name in _FLOAT_BINARY:
                return sb.op(_FLOAT_BINARY[name], list(args), t)
            if name == "stablehlo.logistic":
                neg = sb.op("arith.negf", [args[0]], t)
                den = sb.op("arith.addf", [scalar_const(sb, 1.0, t), sb.op("math.exp", [neg], t)], t)
                return sb.op("arith.divf", [scalar_const(sb, 1.0, t), den], t)
            if name == "stablehlo.sign":
                x = args[0]
                zero = scalar_const(sb, 0.0, t)
                r = sb.select(_cmp(sb, "olt", x, zero), scalar_const(sb, -1.0, t), x)
                return sb.select(_cmp(sb, "ogt", x, zero), scalar_const(sb, 1.0, t), r)
            if name == "stablehlo.is_finite":
                return sb.op("math.isfinite", [args[0]], T.i1)
            if name == "stablehlo.reduce_precision":
                return _reduce_precision(sb, args[0], int(op.attributes["exponent_bits"].value),
                                         int(op.attributes["mantissa_bits"].value))
        elif is_int(t):
            if is_bool(t) and name in _BOOL_BINARY:
                return sb.op(_BOOL_BINARY[name], list(args), t)
            if name in _INT_BINARY:
                return sb.op(_INT_BINARY[name], list(args), t)
            if name in ("stablehlo.divide", "stablehlo.remainder") and not is_bool(t):
                return _int_div_rem(sb, "div" if name.endswith("divide") else "rem", args[0], args[1])
            if name == "stablehlo.not":
                return sb.op("arith.xori", [args[0], scalar_const(sb, _all_ones(t) if not is_bool(t)
                                                                  else 1, t)], t)
            if name in ("stablehlo.shift_left", "stablehlo.shift_right_logical",
                        "stablehlo.shift_right_arithmetic") and not is_bool(t):
                return _shift(sb, name.split(".")[1], args[0], args[1])
            if name == "stablehlo.abs":
                return args[0] if is_unsigned(t) else sb.op("math.absi", [args[0]], t)
            if name == "stablehlo.negate":
                return sb.op("arith.subi", [scalar_const(sb, 0, t), args[0]], t)
            if name == "stablehlo.sign" and not is_bool(t):
                x = args[0]
                zero = scalar_const(sb, 0, t)
                pos = sb.select(_cmp(sb, "ne", x, zero), scalar_const(sb, 1, t), zero)
                if is_unsigned(t):
                    return pos
                return sb.select(_cmp(sb, "slt", x, zero), scalar_const(sb, -1, t), pos)
            if name == "stablehlo.popcnt" and not is_bool(t):
                return _popcount(sb, args[0])
            if name == "stablehlo.count_leading_zeros":
                return _clz(sb, args[0])
            if name == "stablehlo.power" and not is_bool(t):
                return _int_pow(sb, args[0], args[1])
    except KeyError as e:
        if isinstance(e, CompileError):
            raise
        raise CompileError(f"'{name}': unsupported attribute value {e}", op.loc) from None
    raise CompileError(f"'{name}' on element type {t} is not supported", op.loc)


# --------------------------------------------------------------------- region bodies


def translate_region(sb: ScalarBuilder, region: Region, args: Sequence[Value],
                     terminator: str = "stablehlo.return") -> List[Value]:
    """Emit the scalar form of a StableHLO body whose block arguments are rank-0 tensors
    (or scalars), with ``args`` bound to them; returns the values its return yields.
    Handles the elementwise ops of :func:`scalar_op`, ``constant``, and shape-only ops on
    rank-0 tensors (reshape, broadcast_in_dim, convert...). CompileError otherwise."""
    if len(region.blocks) != 1:
        raise CompileError("multi-block StableHLO bodies are not supported", region.parent.loc)
    blk = region.blocks[0]
    env: Dict[Value, Value] = dict(zip(blk.args, args))
    for op in blk.ops:
        if op.name in (terminator, "func.return"):
            return [env[v] if v in env else _outer_scalar(sb, v, op) for v in op.operands]
        for r in op.results:
            if isinstance(r.type, T.TensorType) and r.type.rank != 0:
                raise CompileError(f"'{op.name}' on non-scalar tensors inside a body is not "
                                   "supported", op.loc)
        sb.loc = op.loc
        ins = [env[v] if v in env else _outer_scalar(sb, v, op) for v in op.operands]
        if op.name in ("stablehlo.constant", "arith.constant"):
            a = op.attributes["value"]
            et = elem(op.results[0])
            val = a.array.reshape(-1)[0] if isinstance(a, DenseElementsAttr) else a.value
            env[op.results[0]] = scalar_const(sb, val.item() if hasattr(val, "item") else val, et)
        elif op.name in ("stablehlo.reshape", "stablehlo.broadcast_in_dim", "stablehlo.broadcast",
                         "stablehlo.transpose", "stablehlo.optimization_barrier"):
            for r, v in zip(op.results, ins):
                env[r] = v
        elif op.name in ELEMENTWISE_OPS:
            env[op.results[0]] = scalar_op(sb, op, ins, elem(op.results[0]))
        elif op.dialect in ("arith", "math") and all(not isinstance(r.type, T.ShapedType)
                                                      for r in op.results):
            new = sb.create(op.name, ins, [r.type for r in op.results], dict(op.attributes))
            for r, n in zip(op.results, new.results):
                env[r] = n
        else:
            raise CompileError(f"'{op.name}' inside a StableHLO body is not supported", op.loc)
    raise CompileError("StableHLO body has no terminator", region.parent.loc)


def _outer_scalar(sb: ScalarBuilder, v: Value, op: Operation) -> Value:
    """A body operand defined outside the body: rank-0 tensors are read with tensor.extract
    (inside the payload), scalars are used directly."""
    if isinstance(v.type, T.TensorType):
        if v.type.rank != 0:
            raise CompileError("a body uses a non-scalar tensor from outside", op.loc)
        return sb.op("tensor.extract", [v], elem(v))
    return v


def is_signed_int(t: T.Type) -> bool:
    return is_int(t) and not is_unsigned(t)


def dims_map(num_dims: int, exprs) -> AffineMap:
    """AffineMap over ``num_dims`` dims from a list of ints (dims) / AffineExprs."""
    res = tuple(AffineDim(e) if isinstance(e, int) else e for e in exprs)
    return AffineMap(num_dims, 0, res)


ZERO = AffineConst(0)

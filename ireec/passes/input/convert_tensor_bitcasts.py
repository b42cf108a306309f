"""Bitcasts between packed sub-byte tensors and byte tensors become unpack/pack generics.

IREE stores tensors of 2- and 4-bit element types (i2, i4, f4E2M1FN...) packed, several
elements per byte with the first element in the lowest bits (IREE's sub-byte packing, as
``iree_hal_buffer_view`` and ``flow.tensor.bitcast`` see it: ``tensor<4xi8>`` holding
``0x20`` is ``tensor<8xf4E2M1FN>`` ``[0x0, 0x2, ...]``, low nibble first). ireec keeps them
unpacked instead, one element per byte (``ireec.emitc.ctypes``), so a ``flow.tensor.bitcast``
whose two sides are stored in different byte counts cannot alias its source: it becomes a
``linalg.generic`` that reads the source with ``tensor.extract`` and takes apart (unpacks) or
puts together (packs) the bit fields with arith shifts and bitcasts. Bitcasts between two
sub-byte types of the same width (``i4`` <-> ``f4E2M1FN``) also become a generic, because
their one-per-byte forms differ (sign-extended integer vs. float bit pattern); the others
stay (the stream phase aliases them).

Mirrors what IREE's type propagation / ``iree-codegen-emulate-narrow-type`` do to reach its
packed memory layout, the other way around: here the packed view is materialized at the
bitcast, not in every load and store.
"""
from __future__ import annotations

from typing import List, Sequence

from ...dialects.arith import ScalarBuilder
from ...dialects.linalg import build_generic
from ...ir import types as T
from ...ir.affine import AffineMap
from ...ir.attributes import IntegerAttr
from ...ir.core import Builder, Operation, Value
from ...ir.diagnostics import CompileError
from ..pass_base import Pass, PassContext, register_pass, walk_ops

_BITCASTS = ("flow.tensor.bitcast", "tensor.bitcast")


def packed_bits(t: T.Type) -> int:
    """Bits one element of scalar type ``t`` takes in IREE's packed memory layout: its bit
    width for 2- and 4-bit types (packed), otherwise its storage bytes times 8 (i1 takes a
    byte, as IREE stores it by default)."""
    w = T.bit_width(t)
    if 1 < w < 8:
        return w
    return 8 * T.storage_bytes(t)


def _is_packed(t: T.Type) -> bool:
    return 1 < T.bit_width(t) < 8


def _index(sb: ScalarBuilder, v: int) -> Value:
    """``arith.constant v : index`` in the payload, one per value (cached on the block)."""
    for op in sb.block.ops:
        if op.name == "arith.constant" and op.results[0].type == T.index and op.attributes["value"].value == v:
            return op.results[0]
    return sb.constant(IntegerAttr(v, T.index))


def _flat_index(sb: ScalarBuilder, shape: Sequence[int]) -> Value:
    """Row-major linear index of the current iteration point of a generic over ``shape``."""
    flat = None
    for d, n in enumerate(shape):
        i = sb.op("linalg.index", [], T.index, {"dim": IntegerAttr(d, T.i64)})
        if flat is None:
            flat = i
        else:
            flat = sb.op("arith.addi", [sb.op("arith.muli", [flat, _index(sb, n)], T.index), i], T.index)
    return flat if flat is not None else _index(sb, 0)


def _unflatten(sb: ScalarBuilder, flat: Value, shape: Sequence[int]) -> List[Value]:
    """Indices into ``shape`` of row-major linear index ``flat``."""
    idx: List[Value] = []
    for n in reversed(shape[1:]):
        c = _index(sb, n)
        idx.append(sb.op("arith.remui", [flat, c], T.index))
        flat = sb.op("arith.divui", [flat, c], T.index)
    if shape:
        idx.append(flat)
    return list(reversed(idx))


def _to_bits(sb: ScalarBuilder, v: Value, width: int) -> Value:
    """``v`` as the signless integer of its bit pattern (``i<width>``)."""
    it = T.IntegerType(width)
    return v if v.type == it else sb.op("arith.bitcast", [v], it)


def _from_bits(sb: ScalarBuilder, v: Value, t: T.Type) -> Value:
    return v if v.type == t else sb.op("arith.bitcast", [v], t)


def _unpack_body(src: Value, st: T.TensorType, rt: T.TensorType):
    """Payload of result element k = bits [k*w, (k+1)*w) of the source's bit stream, for a
    packed result type of w bits and a source of sw >= 8 bits (sw a multiple of w)."""
    sw, w = packed_bits(st.element_type), T.bit_width(rt.element_type)
    per = sw // w

    def body(sb: ScalarBuilder, args):
        k = _flat_index(sb, rt.shape)
        j = sb.op("arith.divui", [k, _index(sb, per)], T.index)
        e = sb.op("tensor.extract", [src] + _unflatten(sb, j, st.shape), st.element_type)
        bits = _to_bits(sb, e, sw)
        lane = sb.op("arith.remui", [k, _index(sb, per)], T.index)
        shift = sb.op("arith.muli", [lane, _index(sb, w)], T.index)
        shift = sb.op("arith.index_cast", [shift], bits.type)
        field = sb.op("arith.shrui", [bits, shift], bits.type)
        field = sb.op("arith.trunci", [field], T.IntegerType(w))
        return [_from_bits(sb, field, rt.element_type)]
    return body


def _pack_body(src: Value, st: T.TensorType, rt: T.TensorType):
    """Payload of result element k (dw >= 8 bits) = source elements k*per .. k*per+per-1
    (w bits each, per = dw / w) side by side, the first in the lowest bits."""
    w, dw = T.bit_width(st.element_type), packed_bits(rt.element_type)
    per = dw // w
    acc_t = T.IntegerType(dw)

    def body(sb: ScalarBuilder, args):
        base = sb.op("arith.muli", [_flat_index(sb, rt.shape), _index(sb, per)], T.index)
        acc = None
        for lane in range(per):
            j = sb.op("arith.addi", [base, _index(sb, lane)], T.index) if lane else base
            e = sb.op("tensor.extract", [src] + _unflatten(sb, j, st.shape), st.element_type)
            field = sb.op("arith.extui", [_to_bits(sb, e, w)], acc_t)
            if lane:
                field = sb.op("arith.shli", [field, sb.constant(IntegerAttr(lane * w, acc_t))], acc_t)
            acc = field if acc is None else sb.op("arith.ori", [acc, field], acc_t)
        return [_from_bits(sb, acc, rt.element_type)]
    return body


def _same_width_body(src: Value, st: T.TensorType, rt: T.TensorType):
    """Payload of an element-for-element bitcast between two w-bit types."""
    w = T.bit_width(st.element_type)

    def body(sb: ScalarBuilder, args):
        idx = _unflatten(sb, _flat_index(sb, rt.shape), st.shape)
        e = sb.op("tensor.extract", [src] + idx, st.element_type)
        return [_from_bits(sb, _to_bits(sb, e, w), rt.element_type)]
    return body


def lower_bitcast(op: Operation) -> bool:
    """Replace bitcast ``op`` by a ``linalg.generic`` when one side has a packed sub-byte
    element type; returns whether it did. Shapes must be static and both sides must hold
    the same number of bits in IREE's packed layout. Raises CompileError (at the op) for
    packed types of widths other than 2 and 4, for two packed types of different widths,
    for a dynamic shape, and for element types that have no integer bit pattern."""
    src = op.operands[0]
    st, rt = src.type, op.results[0].type
    if not (isinstance(st, T.TensorType) and isinstance(rt, T.TensorType)):
        return False
    se, re_ = st.element_type, rt.element_type
    if not (isinstance(se, (T.IntegerType, T.FloatType)) and isinstance(re_, (T.IntegerType, T.FloatType))):
        return False
    if not (_is_packed(se) or _is_packed(re_)):
        return False
    if _is_packed(se) and _is_packed(re_) and T.bit_width(se) == T.bit_width(re_) and (
            isinstance(se, T.IntegerType) == isinstance(re_, T.IntegerType)
            and (not isinstance(se, T.IntegerType) or (se.signedness == "u") == (re_.signedness == "u"))):
        return False  # same register form: the stream phase aliases it
    where = f"{op.name} from {st} to {rt}"
    if not (st.has_static_shape and rt.has_static_shape):
        raise CompileError(f"{where}: packed sub-byte bitcasts need static shapes", op.loc)
    for t in (se, re_):
        if _is_packed(t) and T.bit_width(t) not in (2, 4):
            raise CompileError(f"{where}: {t} elements cannot be packed into bytes", op.loc)
    if st.num_elements * packed_bits(se) != rt.num_elements * packed_bits(re_):
        raise CompileError(f"{where}: the two sides hold different numbers of bits", op.loc)
    if _is_packed(se) and _is_packed(re_):
        if T.bit_width(se) != T.bit_width(re_):
            raise CompileError(f"{where}: bitcasts between different sub-byte widths are not supported",
                               op.loc)
        body = _same_width_body(src, st, rt)
    elif _is_packed(re_):
        body = _unpack_body(src, st, rt)
    else:
        body = _pack_body(src, st, rt)
    b = Builder.before(op)
    empty = b.create("tensor.empty", [], [rt]).result
    gen = build_generic([], [empty], [AffineMap.identity(rt.rank)], ["parallel"] * rt.rank, body,
                        loc=op.loc, builder=b)
    op.replace_with([gen.results[0]])
    return True


@register_pass
class ConvertTensorBitcastsPass(Pass):
    """Lowers ``flow.tensor.bitcast`` / ``tensor.bitcast`` to or from packed sub-byte element
    types into unpack/pack ``linalg.generic`` ops (see the module docstring)."""

    name = "iree-convert-tensor-bitcasts"

    def run(self, module: Operation, ctx: PassContext) -> None:
        for name in _BITCASTS:
            for op in walk_ops(module, name):
                lower_bitcast(op)

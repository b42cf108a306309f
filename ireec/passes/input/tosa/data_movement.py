"""TOSA data movement → tensor ops and index-computing ``linalg.generic`` ops.

Mirrors MLIR's ``tosa-to-tensor`` (reshape → ``tensor.collapse_shape``/``expand_shape``,
slice → ``tensor.extract_slice``, pad → ``tensor.pad``, concat → ``tensor.insert_slice``
chain) and ``tosa-to-linalg`` (transpose → ``linalg.transpose``, tile → broadcasting generic
plus collapse, reverse and gather → generics reading the source with ``tensor.extract``),
and ``tosa-to-arith`` (const → ``arith.constant``). Shape operands (``!tosa.shape<N>`` from
``tosa.const_shape``) must be constants; attribute forms of older TOSA are accepted too.
"""
from __future__ import annotations

from typing import Dict, List

import numpy as np

from ....dialects import linalg as L
from ....ir import types as T
from ....ir.affine import AffineDim, AffineMap
from ....ir.attributes import DenseElementsAttr
from ....ir.core import Block, Builder, Operation, Region
from ....dialects.tensor import i64_array, segment_sizes
from .utils import (INDEX, collapse, const_array, const_ints, constant, empty, expand, extract,
                    fail, index_const, int_array_attr, int_attr, linalg_index, ranked,
                    reassociation, static)

PATTERNS: Dict = {}


def _const(op: Operation, b: Builder):
    a = op.attributes.get("values", op.attributes.get("value"))
    if a is None:
        raise fail(op, "needs a 'values' attribute")
    if isinstance(a, DenseElementsAttr) and a.type != op.results[0].type:
        a = DenseElementsAttr(a.array, op.results[0].type)
    return [b.create("arith.constant", [], [op.results[0].type], {"value": a}).result]


PATTERNS["tosa.const"] = _const


def reshape_value(op: Operation, b: Builder, src, rt: T.TensorType):
    """``src`` reshaped (row-major) to static ``rt``: one collapse or expand where the shapes
    allow it, else a collapse to 1-D followed by an expand."""
    st = static(op, src)
    if st.shape == rt.shape:
        return src
    if st.rank > rt.rank:
        g = reassociation(st.shape, rt.shape)
        if g is not None:
            return collapse(b, src, g, rt)
    elif st.rank < rt.rank:
        g = reassociation(rt.shape, st.shape)
        if g is not None:
            return expand(b, src, g, rt)
    flat_t = T.TensorType((st.num_elements,), st.element_type)
    flat = src if st.rank == 1 else (
        expand(b, src, [], flat_t) if st.rank == 0 else collapse(b, src, [list(range(st.rank))],
                                                                  flat_t))
    if rt.rank == 1:
        return flat
    if rt.rank == 0:
        return collapse(b, flat, [], rt)
    return expand(b, flat, [list(range(rt.rank))], rt)


def _reshape(op: Operation, b: Builder):
    rt = static(op, op.results[0])
    return [reshape_value(op, b, op.operands[0], rt)]


PATTERNS["tosa.reshape"] = _reshape


def _perms(op: Operation) -> List[int]:
    perms = int_array_attr(op, "perms")
    if perms is None and len(op.operands) > 1:  # older TOSA: perms as a constant operand
        perms = const_ints(op, op.operands[1], "perms")
    if perms is None:
        raise fail(op, "needs 'perms'")
    return perms


def _transpose(op: Operation, b: Builder):
    src = op.operands[0]
    st = ranked(op, src)
    rt = ranked(op, op.results[0])
    perms = _perms(op)
    if sorted(perms) != list(range(st.rank)):
        raise fail(op, f"has invalid perms {perms}")
    init = empty(b, rt)
    t = b.create("linalg.transpose", [src, init], [rt], {"permutation": i64_array(perms)},
                 regions=[L.identity_region([st, rt])])
    return [t.result]


PATTERNS["tosa.transpose"] = _transpose


def _shape_operand(op: Operation, i: int, attr: str, what: str) -> List[int]:
    """A shape from operand ``i`` (tosa.const_shape) or, in older TOSA, attribute ``attr``."""
    vals = int_array_attr(op, attr)
    if vals is not None:
        return vals
    if len(op.operands) <= i:
        raise fail(op, f"needs {what}")
    return const_ints(op, op.operands[i], what)


def extract_slice(b: Builder, src, offsets, sizes, strides, rt):
    """``tensor.extract_slice`` with static offsets/sizes/strides."""
    return b.create("tensor.extract_slice", [src], [rt], {
        "static_offsets": i64_array(offsets), "static_sizes": i64_array(sizes),
        "static_strides": i64_array(strides),
        "operandSegmentSizes": segment_sizes(1, 0, 0, 0)}).result


def insert_slice(b: Builder, src, dest, offsets, sizes, strides):
    """``tensor.insert_slice`` with static offsets/sizes/strides."""
    return b.create("tensor.insert_slice", [src, dest], [dest.type], {
        "static_offsets": i64_array(offsets), "static_sizes": i64_array(sizes),
        "static_strides": i64_array(strides),
        "operandSegmentSizes": segment_sizes(1, 1, 0, 0, 0)}).result


def _slice(op: Operation, b: Builder):
    st = static(op, op.operands[0])
    rt = static(op, op.results[0])
    start = _shape_operand(op, 1, "start", "start")
    if len(start) != st.rank:
        raise fail(op, f"start {start} does not match rank {st.rank}")
    for s, n, d in zip(start, rt.shape, st.shape):
        if s < 0 or s + n > d:
            raise fail(op, f"slice [{start}] x {list(rt.shape)} is out of bounds of {st}")
    return [extract_slice(b, op.operands[0], start, list(rt.shape), [1] * st.rank, rt)]


PATTERNS["tosa.slice"] = _slice


def _concat(op: Operation, b: Builder):
    rt = static(op, op.results[0])
    axis = int_attr(op, "axis", 0)
    if axis < 0:
        axis += rt.rank
    acc = empty(b, rt)
    off = 0
    for v in op.operands:
        t = static(op, v)
        offsets = [0] * rt.rank
        offsets[axis] = off
        acc = insert_slice(b, v, acc, offsets, list(t.shape), [1] * rt.rank)
        off += t.shape[axis]
    if off != rt.shape[axis]:
        raise fail(op, f"operands do not add up to {rt} along axis {axis}")
    return [acc]


PATTERNS["tosa.concat"] = _concat


def _pad(op: Operation, b: Builder):
    """``tosa.pad``: padding ``[lo0, hi0, lo1, hi1, ...]`` from a const_shape (or an older
    Nx2 constant tensor); the pad value from the ``pad_const`` operand (constant: tensor.pad;
    runtime: a generic filling with ``tensor.extract`` then ``tensor.insert_slice``) or the
    older ``pad_const_fp``/``pad_const_int`` attributes (default 0)."""
    src = op.operands[0]
    st = static(op, src)
    rt = static(op, op.results[0])
    et = rt.element_type
    padding = const_ints(op, op.operands[1], "padding")
    if len(padding) != 2 * st.rank:
        raise fail(op, f"padding {padding} does not have 2 values per dim of {st}")
    low, high = padding[0::2], padding[1::2]
    pad_const = op.operands[2] if len(op.operands) > 2 else None
    value = None
    if pad_const is None:
        attr = op.attributes.get("pad_const_fp" if isinstance(et, T.FloatType) else "pad_const_int")
        value = 0 if attr is None else attr.value
    else:
        arr = const_array(pad_const)
        if arr is not None:
            value = np.asarray(arr).reshape(-1)[0].item()
    if value is not None:
        pv = constant(b, value, et)
        blk = Block([INDEX] * st.rank)
        blk.append(Operation("tensor.yield", [pv]))
        return [b.create("tensor.pad", [src], [rt], {
            "static_low": i64_array(low), "static_high": i64_array(high),
            "operandSegmentSizes": segment_sizes(1, 0, 0)}, regions=[Region([blk])]).result]
    ct = ranked(op, pad_const)
    init = empty(b, rt)

    def body(sb, args):
        return [extract(sb, pad_const, [index_const(sb, 0) for _ in range(ct.rank)])]

    g = L.build_generic([], [init], [AffineMap.identity(rt.rank)], ["parallel"] * rt.rank,
                        body, builder=b)
    return [insert_slice(b, src, g.results[0], low, list(st.shape), [1] * st.rank)]


PATTERNS["tosa.pad"] = _pad


def _tile(op: Operation, b: Builder):
    """Broadcast to ``[m0, s0, m1, s1, ...]`` with a generic, then collapse pairs."""
    src = op.operands[0]
    st = static(op, src)
    rt = static(op, op.results[0])
    mult = int_array_attr(op, "multiples")
    if mult is None:
        mult = const_ints(op, op.operands[1], "multiples")
    if len(mult) != st.rank:
        raise fail(op, f"multiples {mult} do not match rank {st.rank}")
    wide = []
    for m, s in zip(mult, st.shape):
        wide += [m, s]
    wt = T.TensorType(tuple(wide), st.element_type)
    n = len(wide)
    in_map = AffineMap(n, 0, tuple(AffineDim(2 * i + 1) for i in range(st.rank)))
    g = L.build_generic([src], [empty(b, wt)], [in_map, AffineMap.identity(n)],
                        ["parallel"] * n, lambda sb, args: [args[0]], builder=b)
    if st.rank == 0:
        return [src]
    return [collapse(b, g.results[0], [[2 * i, 2 * i + 1] for i in range(st.rank)], rt)]


PATTERNS["tosa.tile"] = _tile


def _reverse(op: Operation, b: Builder):
    src = op.operands[0]
    st = static(op, src)
    axis = int_attr(op, "axis", 0)
    rank = st.rank

    def body(sb, args):
        idx = [linalg_index(sb, i) for i in range(rank)]
        last = index_const(sb, st.shape[axis] - 1)
        idx[axis] = sb.op("arith.subi", [last, idx[axis]], INDEX)
        return [extract(sb, src, idx)]

    g = L.build_generic([], [empty(b, st)], [AffineMap.identity(rank)], ["parallel"] * rank,
                        body, builder=b)
    return [g.results[0]]


PATTERNS["tosa.reverse"] = _reverse


def _gather(op: Operation, b: Builder):
    """``out[n, w, c] = values[n, indices[n, w], c]`` (values N×K×C, indices N×W)."""
    values, indices = op.operands[0], op.operands[1]
    static(op, values)
    static(op, indices)
    rt = static(op, op.results[0])
    m_idx = AffineMap(3, 0, (AffineDim(0), AffineDim(1)))

    def body(sb, args):
        n = linalg_index(sb, 0)
        c = linalg_index(sb, 2)
        k = sb.op("arith.index_cast", [args[0]], INDEX)
        return [extract(sb, values, [n, k, c])]

    g = L.build_generic([indices], [empty(b, rt)], [m_idx, AffineMap.identity(3)],
                        ["parallel"] * 3, body, builder=b)
    return [g.results[0]]


PATTERNS["tosa.gather"] = _gather

"""StableHLO → linalg patterns: data movement and shape ops.

Mirrors IREE's StableHLOToLinalg.cpp / StableHLOToLinalgPointwise.cpp conversions:
``broadcast_in_dim``/``broadcast``/``transpose``/``reverse``/``iota`` become
``linalg.generic`` ops (broadcast input maps drop the expanded dims, reverse maps
``d -> n-1-d``, iota reads ``linalg.index``), ``reshape`` collapse/expand shape ops,
``slice`` ``tensor.extract_slice``, ``concatenate`` a chain of ``tensor.insert_slice``
into a ``tensor.empty``, ``pad`` ``tensor.pad`` (interior/negative padding: fill +
strided insert + slice). ``batch_norm_inference`` and ``map`` are elementwise generics.
"""
from __future__ import annotations

import numpy as np

from ....dialects import stablehlo as shlo
from ....ir import types as T
from ....ir.affine import AffineConst, AffineDim, AffineMap
from ....ir.attributes import DenseElementsAttr, IntegerAttr
from ....ir.core import Builder, Operation
from ....ir.diagnostics import CompileError
from .common import (convert_scalar, empty, extract_slice, generic, insert_slice,
                     pad_scalar, ranked, reshape, scalar_const, scalar_in_block, transpose,
                     translate_region)


def lower_broadcast_in_dim(op: Operation, b: Builder):
    """``result[i...] = operand[i[dims[0]], ...]`` (size-1 operand dims read index 0)."""
    src = op.operands[0]
    st, rt = ranked(src, op), ranked(op.results[0], op)
    dims = shlo.i64_list(op.attributes["broadcast_dimensions"])
    rank = rt.rank
    exprs = []
    for k, d in enumerate(dims):
        if st.shape[k] == 1 and rt.shape[d] != 1:
            exprs.append(AffineConst(0))
        else:
            exprs.append(AffineDim(d))
    if dims == list(range(rank)) and list(st.shape) == list(rt.shape):
        return [src]
    out = empty(b, rt.shape, rt.element_type)
    return generic(b, [src], [out], [AffineMap(rank, 0, tuple(exprs)), AffineMap.identity(rank)],
                   ["parallel"] * rank, lambda sb, a: [a[0]]).results


def lower_broadcast(op: Operation, b: Builder):
    """``broadcast`` prepends ``broadcast_sizes`` dims."""
    st, rt = ranked(op.operands[0], op), ranked(op.results[0], op)
    n = rt.rank - st.rank
    out = empty(b, rt.shape, rt.element_type)
    m = AffineMap(rt.rank, 0, tuple(AffineDim(n + i) for i in range(st.rank)))
    return generic(b, [op.operands[0]], [out], [m, AffineMap.identity(rt.rank)],
                   ["parallel"] * rt.rank, lambda sb, a: [a[0]]).results


def lower_reshape(op: Operation, b: Builder):
    ranked(op.operands[0], op)
    return [reshape(b, op.operands[0], ranked(op.results[0], op).shape)]


def lower_transpose(op: Operation, b: Builder):
    ranked(op.operands[0], op)
    return [transpose(b, op.operands[0], shlo.i64_list(op.attributes["permutation"]))]


def lower_slice(op: Operation, b: Builder):
    """``slice`` → ``tensor.extract_slice`` (size = ceil((limit - start) / stride))."""
    ranked(op.operands[0], op)
    a = op.attributes
    start = shlo.i64_list(a["start_indices"])
    limit = shlo.i64_list(a["limit_indices"])
    strides = shlo.i64_list(a["strides"]) if "strides" in a else [1] * len(start)
    sizes = [max(0, -(-(hi - lo) // s)) for lo, hi, s in zip(start, limit, strides)]
    return [extract_slice(b, op.operands[0], start, sizes, strides)]


def lower_concatenate(op: Operation, b: Builder):
    """Each operand inserted at its running offset along ``dimension``."""
    rt = ranked(op.results[0], op)
    dim = int(op.attributes["dimension"].value)
    out = empty(b, rt.shape, rt.element_type)
    off = 0
    for v in op.operands:
        vt = ranked(v, op)
        if vt.shape[dim] == 0:
            continue
        offs = [0] * rt.rank
        offs[dim] = off
        out = insert_slice(b, v, out, offs)
        off += vt.shape[dim]
    return [out]


def lower_pad(op: Operation, b: Builder):
    src, pv = op.operands
    ranked(src, op)
    a = op.attributes
    low = shlo.i64_list(a["edge_padding_low"])
    high = shlo.i64_list(a["edge_padding_high"])
    interior = shlo.i64_list(a["interior_padding"]) if "interior_padding" in a else [0] * len(low)
    if any(i < 0 for i in interior):
        raise CompileError("negative interior padding", op.loc)
    return [pad_scalar(b, src, low, high, interior, scalar_in_block(b, pv))]


def lower_iota(op: Operation, b: Builder):
    """``result[i...] = i[iota_dimension]`` converted to the element type. Also
    ``dynamic_iota`` once its result type is static (its ``output_shape`` operand then only
    restates that shape)."""
    rt = ranked(op.results[0], op)
    dim = int(op.attributes["iota_dimension"].value)
    out = empty(b, rt.shape, rt.element_type)
    et = rt.element_type

    def body(sb, args):
        i = sb.op("linalg.index", [], T.index, {"dim": _i64(dim)})
        i64 = sb.op("arith.index_cast", [i], T.i64)
        return [convert_scalar(sb, i64, et)]
    return generic(b, [], [out], [AffineMap.identity(rt.rank)], ["parallel"] * rt.rank,
                   body).results


def _i64(v):
    return IntegerAttr(v, T.i64)


def lower_reverse(op: Operation, b: Builder):
    """``result[.., i_d, ..] = operand[.., n_d - 1 - i_d, ..]`` for the reversed dims."""
    rt = ranked(op.results[0], op)
    dims = set(shlo.i64_list(op.attributes["dimensions"]))
    rank = rt.rank
    exprs = tuple(AffineDim(d) * -1 + (rt.shape[d] - 1) if d in dims else AffineDim(d)
                  for d in range(rank))
    out = empty(b, rt.shape, rt.element_type)
    return generic(b, [op.operands[0]], [out], [AffineMap(rank, 0, exprs),
                                                AffineMap.identity(rank)],
                   ["parallel"] * rank, lambda sb, a: [a[0]]).results


def lower_get_dimension_size(op: Operation, b: Builder):
    st = ranked(op.operands[0], op)
    d = int(op.attributes["dimension"].value)
    rt = op.results[0].type
    attr = DenseElementsAttr(np.array(st.shape[d]), rt)
    return b.create("arith.constant", [], [rt], {"value": attr}).results


def lower_batch_norm_inference(op: Operation, b: Builder):
    """``(x - mean) * scale / sqrt(variance + epsilon) + offset`` with the 1-D statistics
    broadcast along ``feature_index``."""
    x, scale, offset, mean, var = op.operands
    rt = ranked(op.results[0], op)
    fi = int(op.attributes["feature_index"].value)
    eps = float(op.attributes["epsilon"].value)
    rank = rt.rank
    fmap = AffineMap(rank, 0, (AffineDim(fi),))
    ident = AffineMap.identity(rank)
    out = empty(b, rt.shape, rt.element_type)
    et = rt.element_type

    def body(sb, a):
        xv, s, o, m, v = a[:5]
        e = scalar_const(sb, eps, et)
        den = sb.op("math.sqrt", [sb.op("arith.addf", [v, e], et)], et)
        c = sb.op("arith.subf", [xv, m], et)
        c = sb.op("arith.mulf", [c, s], et)
        c = sb.op("arith.divf", [c, den], et)
        return [sb.op("arith.addf", [c, o], et)]
    return generic(b, [x, scale, offset, mean, var], [out], [ident, fmap, fmap, fmap, fmap, ident],
                   ["parallel"] * rank, body).results


def lower_map(op: Operation, b: Builder):
    """``map`` over all dims (its ``dimensions`` must be 0..rank-1) → generic whose payload
    is the translated body."""
    rt = ranked(op.results[0], op)
    rank = rt.rank
    dims = shlo.i64_list(op.attributes.get("dimensions")) if "dimensions" in op.attributes \
        else list(range(rank))
    if dims != list(range(rank)):
        raise CompileError("stablehlo.map over a subset of dimensions is not supported", op.loc)
    out = empty(b, rt.shape, rt.element_type)
    n = len(op.operands)
    return generic(b, list(op.operands), [out], [AffineMap.identity(rank)] * (n + 1),
                   ["parallel"] * rank,
                   lambda sb, a: translate_region(sb, op.regions[0], a[:n])).results


PATTERNS = {
    "stablehlo.broadcast_in_dim": lower_broadcast_in_dim,
    "stablehlo.broadcast": lower_broadcast,
    "stablehlo.reshape": lower_reshape,
    "stablehlo.transpose": lower_transpose,
    "stablehlo.slice": lower_slice,
    "stablehlo.concatenate": lower_concatenate,
    "stablehlo.pad": lower_pad,
    "stablehlo.iota": lower_iota,
    "stablehlo.dynamic_iota": lower_iota,
    "stablehlo.reverse": lower_reverse,
    "stablehlo.get_dimension_size": lower_get_dimension_size,
    "stablehlo.batch_norm_inference": lower_batch_norm_inference,
    "stablehlo.map": lower_map,
}

"""StableHLO → linalg patterns: reduce and reduce_window.

Mirrors IREE's StableHLOToLinalgReduce.cpp (``ReduceOpToGenericConverter``,
``ReduceWindowOpConversion``): the init values fill the output tensors, one
``linalg.generic`` reads every input (identity map) and accumulates into the outputs (map
without the reduced dims, those iterators are ``reduction``); its payload is the op's body
translated to scalar arith/math (:func:`.common.translate_region`), body arguments
(accumulators..., elements...) bound to (output args..., input args...).

``reduce_window``: padding and base dilation pad every input with its init value (interior
pad = dilation - 1); the generic iterates (output dims | window dims) with input maps
``o * stride + w * window_dilation`` and a shape-only window operand (a ``tensor.empty`` of
the window shape, like linalg's pooling ops) giving the window loops their range.
"""
from __future__ import annotations

from typing import List

from ....dialects import stablehlo as shlo
from ....ir.affine import AffineDim, AffineMap
from ....ir.core import Builder, Operation, Value
from ....ir.diagnostics import CompileError
from .common import (broadcast_scalar_tensor, constant_splat, elem, empty, fill, generic,
                     pad_scalar, ranked, scalar_in_block, translate_region)


def _init_tensor(b: Builder, init: Value, shape) -> Value:
    """Output tensor of ``shape`` holding the rank-0 ``init`` everywhere."""
    if constant_splat(init) is not None:
        return fill(b, scalar_in_block(b, init), shape)
    return broadcast_scalar_tensor(b, init, shape)


def lower_reduce(op: Operation, b: Builder):
    n = len(op.operands) // 2
    ins, inits = list(op.operands[:n]), list(op.operands[n:])
    it = ranked(ins[0], op)
    dims = sorted(shlo.i64_list(op.attributes["dimensions"]))
    rank = it.rank
    kept = [d for d in range(rank) if d not in dims]
    outs = []
    for init, r in zip(inits, op.results):
        rt = ranked(r, op)
        outs.append(_init_tensor(b, init, rt.shape))
    maps = [AffineMap.identity(rank)] * n + [AffineMap.from_dims(rank, kept)] * n
    iters = ["reduction" if d in dims else "parallel" for d in range(rank)]
    g = generic(b, ins, outs, maps, iters,
                lambda sb, a: translate_region(sb, op.regions[0], a[n:] + a[:n]))
    return g.results


def _pairs(attr, n) -> List[tuple]:
    if attr is None:
        return [(0, 0)] * n
    flat = shlo.i64_list(attr)
    return [(flat[2 * i], flat[2 * i + 1]) for i in range(n)]


def lower_reduce_window(op: Operation, b: Builder):
    n = len(op.operands) // 2
    ins, inits = list(op.operands[:n]), list(op.operands[n:])
    it = ranked(ins[0], op)
    rank = it.rank
    a = op.attributes

    def lst(name, default=1):
        return shlo.i64_list(a[name]) if name in a else [default] * rank
    wdims = lst("window_dimensions")
    strides = lst("window_strides")
    base = lst("base_dilations")
    wdil = lst("window_dilations")
    pads = _pairs(a.get("padding"), rank)
    padded = []
    for v, init in zip(ins, inits):
        if any(p != (0, 0) for p in pads) or any(x != 1 for x in base):
            v = pad_scalar(b, v, [p[0] for p in pads], [p[1] for p in pads],
                           [x - 1 for x in base], scalar_in_block(b, init))
        padded.append(v)
    outs = [_init_tensor(b, init, ranked(r, op).shape) for init, r in zip(inits, op.results)]
    window = empty(b, wdims, elem(ins[0]))
    nd = 2 * rank
    in_exprs = tuple((AffineDim(i) * strides[i] if strides[i] != 1 else AffineDim(i))
                     + (AffineDim(rank + i) * wdil[i] if wdil[i] != 1 else AffineDim(rank + i))
                     for i in range(rank))
    maps = [AffineMap(nd, 0, in_exprs)] * n + [AffineMap.from_dims(nd, range(rank, nd))] \
        + [AffineMap.from_dims(nd, range(rank))] * n
    iters = ["parallel"] * rank + ["reduction"] * rank
    if any(ranked(r, op).rank != rank for r in op.results):
        raise CompileError("reduce_window result rank differs from the input rank", op.loc)
    g = generic(b, padded + [window], outs, maps, iters,
                lambda sb, args: translate_region(sb, op.regions[0],
                                                  args[n + 1:] + args[:n]))
    return g.results


PATTERNS = {
    "stablehlo.reduce": lower_reduce,
    "stablehlo.reduce_window": lower_reduce_window,
}

"""StableHLO → linalg pattern: ``select_and_scatter`` (JAX emits it for the gradient of
max-pooling), in two ``linalg.generic``s following the spec's definition:

1. **select**: over (window position ``w`` | offset ``k`` in the window), the element of
   ``operand`` each window selects: ``reduce_window`` without init values of the ``select``
   body (``select(cur, x) ? cur : x``), visiting the window in row-major order and skipping
   padding positions; it yields the selected element's flat (row-major) index into
   ``operand`` (-1 for a window that covers only padding).
2. **scatter**: over (operand position ``r`` | candidate window ``j``), starting from
   ``init_value``, ``result[r] = scatter(result[r], source[w])`` for every window ``w`` that
   selected ``r``, in increasing ``w``. Only the ``ceil(window / stride)`` windows per
   dimension that can contain ``r`` are visited, so the cost is
   ``size(operand) * prod(ceil(window / stride))``, not ``size(operand) * size(source)``.

Both bodies (``select`` and ``scatter``) are translated to scalar code like any reduction body.
"""
from __future__ import annotations

from typing import List

from ....dialects import linalg
from ....dialects import stablehlo as shlo
from ....ir import types as T
from ....ir.affine import AffineMap
from ....ir.attributes import IntegerAttr
from ....ir.core import Builder, Operation, Value
from ....ir.diagnostics import CompileError
from ._indexing import Payload, cast_to, empty, static_shape, tensor_of
from .common import fill, translate_region
from .reduce import _init_tensor, _pairs


def lower_select_and_scatter(op: Operation, b: Builder) -> List[Value]:
    """``select_and_scatter`` (see the module docstring); static shapes only."""
    operand, source, init = op.operands
    shape = static_shape(operand, op, "the operand")
    sshape = static_shape(source, op, "the source")
    rank = len(shape)
    et = operand.type.element_type
    a = op.attributes
    win = shlo.i64_list(a["window_dimensions"]) if "window_dimensions" in a else [1] * rank
    strides = shlo.i64_list(a["window_strides"]) if "window_strides" in a else [1] * rank
    pads = _pairs(a.get("padding"), rank)
    if len(op.regions) != 2:
        raise CompileError("'stablehlo.select_and_scatter' needs select and scatter bodies", op.loc)
    select_body, scatter_body = op.regions
    flat_strides = [1] * rank
    for d in reversed(range(rank - 1)):
        flat_strides[d] = flat_strides[d + 1] * shape[d + 1]

    # 1. select: flat index of the chosen element per window.
    nd = 2 * rank
    sel_v = empty(b, tensor_of(sshape, et))
    sel_i = fill(b, b.create("arith.constant", [], [T.i64], {"value": IntegerAttr(-1, T.i64)}).result, sshape)
    window = empty(b, tensor_of(win, et))

    def select_fn(sb, args):
        p = Payload(sb)
        cur, cur_i = args[1], args[2]
        valid = None
        pos, flat = [], p.const(0)
        for d in range(rank):
            q = p.sub(p.add(p.mul(p.loop(d), p.const(strides[d])), p.loop(rank + d)), p.const(pads[d][0]))
            valid = p.and_(valid, p.in_range(q, 0, shape[d]))
            q = p.clamp(q, 0, shape[d] - 1)
            pos.append(q)
            flat = p.add(flat, p.mul(q, p.const(flat_strides[d])))
        x = p.extract(operand, pos)
        first = p.cmp("eq", cur_i, p.const(-1, T.i64))
        keep = translate_region(sb, select_body, [cur, x])[0]
        take = p.and_(valid, p.or_(first, p.not_(keep)))
        fi = sb.op("arith.index_cast", [flat], T.i64)
        return [p.select(take, x, cur), p.select(take, fi, cur_i)]

    out_map = AffineMap.from_dims(nd, range(rank))
    g1 = linalg.build_generic([window], [sel_v, sel_i], [AffineMap.from_dims(nd, range(rank, nd)), out_map, out_map],
                              ["parallel"] * rank + ["reduction"] * rank, select_fn, builder=b)
    chosen = g1.results[1]

    # 2. scatter: each operand position gathers the source values of the windows choosing it.
    reach = [-(-w // s) for w, s in zip(win, strides)]  # ceil(window / stride)
    result = _init_tensor(b, init, shape)
    cands = empty(b, tensor_of(reach, T.i64))

    def scatter_fn(sb, args):
        p = Payload(sb)
        acc = args[1]
        valid = None
        wpos, flat = [], p.const(0)
        for d in range(rank):
            r = p.loop(d)
            rp = p.add(r, p.const(pads[d][0]))
            hi = sb.op("arith.floordivsi", [rp, p.const(strides[d])], T.index)
            w = p.add(p.sub(hi, p.const(reach[d] - 1)), p.loop(rank + d))
            off = p.sub(rp, p.mul(w, p.const(strides[d])))
            valid = p.and_(valid, p.and_(p.in_range(w, 0, sshape[d]), p.cmp("slt", off, p.const(win[d]))))
            wpos.append(p.clamp(w, 0, sshape[d] - 1))
            flat = p.add(flat, p.mul(r, p.const(flat_strides[d])))
        hit = p.and_(valid, p.cmp("eq", p.extract(chosen, wpos), sb.op("arith.index_cast", [flat], T.i64)))
        s = p.extract(source, wpos)
        new = translate_region(sb, scatter_body, [acc, s])[0]
        return [p.select(hit, new, acc)]

    g2 = linalg.build_generic([cands], [result], [AffineMap.from_dims(nd, range(rank, nd)), out_map],
                              ["parallel"] * rank + ["reduction"] * rank, scatter_fn, builder=b)
    return [cast_to(b, g2.results[0], op.results[0].type)]


PATTERNS = {"stablehlo.select_and_scatter": lower_select_and_scatter}

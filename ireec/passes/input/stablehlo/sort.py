"""StableHLO → linalg patterns: sort.

``stablehlo.sort`` with any comparator region, any number of operands and any sort
dimension becomes two ``linalg.generic`` ops (a rank sort, O(n²) comparator evaluations
per sorted row, which keeps every loop a plain parallel/reduction loop the backend
handles; IREE instead lowers sort to ``iree_linalg_ext.sort``):

1. rank: for each element i of a row, ``rank[i] = #{j : comp(x_j, x_i)} +
   #{j < i : !comp(x_i, x_j) && !comp(x_j, x_i)}`` — the number of elements the comparator
   puts strictly before it, plus the equivalent ones earlier in the row. For a strict weak
   order this is a permutation and the placement is stable (so it also serves
   ``is_stable = false``).
2. placement: ``result[p] = x_i`` for the i with ``rank[i] == p`` (a reduction over i).
"""
from __future__ import annotations

from typing import List

from ....dialects import linalg
from ....ir import types as T
from ....ir.attributes import IntegerAttr
from ....ir.core import Builder, Operation, Value
from ....ir.diagnostics import CompileError
from ._indexing import Payload, empty, map_of, static_shape, tensor_of
from .common import translate_region


def lower_sort(op: Operation, b: Builder) -> List[Value]:
    """``stablehlo.sort`` → rank generic + placement generic (see the module docstring).

    Comparator block arguments are (lhs_0, rhs_0, lhs_1, rhs_1, ...) per the spec; the
    comparator is inlined twice per pair (comp(x_j, x_i) and comp(x_i, x_j)).
    """
    operands = list(op.operands)
    shape = static_shape(operands[0], op, "the operand")
    rank_n = len(shape)
    dim_attr = op.attributes.get("dimension")
    dim = int(dim_attr.value) if dim_attr is not None else -1
    if dim < 0:
        dim += rank_n
    if not 0 <= dim < rank_n:
        raise CompileError(f"'stablehlo.sort': dimension {dim} out of range", op.loc)
    region = op.regions[0]
    n_ops = len(operands)

    # Loops of both generics: the operand dims (dim = position i / p) then one reduction
    # loop j over the sort dimension.
    loops = rank_n + 1
    j = rank_n
    own = map_of(loops, range(rank_n))
    other = map_of(loops, [j if d == dim else d for d in range(rank_n)])

    def comp(sb, lhs: List[Value], rhs: List[Value]) -> Value:
        args: List[Value] = []
        for a, c in zip(lhs, rhs):
            args += [a, c]
        res = translate_region(sb, region, args)
        r = res[0]
        if r.type != T.i1:
            raise CompileError("'stablehlo.sort': the comparator must return tensor<i1>", op.loc)
        return r

    def rank_body(sb, args):
        p = Payload(sb)
        xi, xj, acc = args[:n_ops], args[n_ops:2 * n_ops], args[-1]
        before = comp(sb, xj, xi)
        after = comp(sb, xi, xj)
        tie = p.and_(p.not_(before), p.not_(after))
        earlier = p.cmp("ult", p.loop(j), p.loop(dim))
        counts = p.or_(before, p.and_(tie, earlier))
        inc = sb.op("arith.extui", [counts], T.i64)
        return [sb.op("arith.addi", [acc, inc], T.i64)]

    zero = b.create("arith.constant", [], [T.i64], {"value": IntegerAttr(0, T.i64)}).results[0]
    rank_init = empty(b, tensor_of(shape, T.i64))
    rank_fill = b.create("linalg.fill", [zero, rank_init], [rank_init.type], {
        "operandSegmentSizes": linalg.segment_sizes(1, 1)},
        regions=[linalg.build_named_region("fill", [T.i64], [rank_init.type], {}, op.loc)]).results[0]
    iters = ["parallel"] * rank_n + ["reduction"]
    ranks = linalg.build_generic(operands + operands, [rank_fill], [own] * n_ops + [other] * n_ops + [own],
                                 iters, rank_body, builder=b).results[0]

    def place_body(sb, args):
        p = Payload(sb)
        r, xs, cur = args[0], args[1:1 + n_ops], args[1 + n_ops:]
        pos = sb.op("arith.index_cast", [p.loop(dim)], T.i64)
        hit = p.cmp("eq", r, pos)
        return [p.select(hit, x, c) for x, c in zip(xs, cur)]

    inits = [empty(b, tensor_of(shape, T.element_type(v.type))) for v in operands]
    placed = linalg.build_generic([ranks] + operands, inits, [other] * (1 + n_ops) + [own] * n_ops,
                                  iters, place_body, builder=b)
    return list(placed.results)


PATTERNS = {"stablehlo.sort": lower_sort}

"""Collapse contiguous loop dims of the ops of a contraction or reduction dispatch region.

Mirrors IREE's DispatchCreation ``iree-dispatch-creation-collapse-dimensions``
(CollapseDimensions.cpp): inside a ``flow.dispatch.region``, consecutive loops ``a, a+1`` of
the same kind (both parallel or both reductions) of a ``linalg.generic`` are merged into one
loop when every operand indexes them the same way — both absent, or both plain dims at consecutive positions, ``a`` first — and
every tensor of the region agrees on the merge: a value produced and read by several ops of
the region (the root's result read by its fused consumers, a fill written by the root) gets
one reassociation, the intersection of what each op allows, iterated to a fixed point.
Captured tensors are collapsed on the host (``flow.tensor.reshape``, a view, as IREE moves
``tensor.collapse_shape`` out of the region) and results expanded back after the region, so
the dispatch reads and writes the same bytes.

Example (a 1x1 convolution after :mod:`.convert_1x1_filter_conv2d_to_matmul`, NCHW, with its
fused relu6): ``C[n, f, oh, ow] += W[f, c, 0, 0] * In[n, c, oh, ow]`` and the clamp over
``(n, f, oh, ow)`` become ``C[n, f, hw] += W[f, c, 0, 0] * In[n, c, hw]`` and a clamp over
``(n, f, hw)``: a matmul with ``M = F``, ``N = H*W`` and ``K = C``, which the sgemm
micro-kernel computes in one call per batch element. NHWC collapses ``n, oh, ow`` into
``M = N*H*W``; a dense layer on ``[batch, sequence, features]`` collapses batch and sequence.
A global average pool ``mean(x[n, c, h, w])`` over ``h, w`` reduces rows of ``H*W``
contiguous elements, one SIMD reduction per channel instead of one per image row (each row's
partial sums added across lanes, then stored and reloaded for the next row: torch-mlir
mobilenet_block's 24x16x16 pool went from 2.9 to 0.5 us); the merged loop visits the same
elements in the same order (under ``--strict-fp`` the sum is bit-identical).

Scope: regions holding a contraction (matmul- or convolution-shaped generic, see
:func:`..common.distribution.is_contraction_like`), where the merge decides how much one
micro-kernel call covers, or a reduction, where it decides how long the vectorized inner
loop is; every other op at the region's top level must be a generic, a ``linalg.fill``, a
``tensor.empty`` or a scalar constant, on static shapes, with payloads reading neither
``linalg.index`` nor tensors. Purely elementwise regions are left as they are.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Set, Tuple

from ...dialects import linalg as L
from ...ir import types as T
from ...ir.affine import AffineBinary, AffineDim, AffineExpr, AffineMap
from ...ir.attributes import ArrayAttr
from ...ir.core import Builder, Operation, Value
from ..common.distribution import dims_of, is_contraction_like
from ..common.union_find import UnionFind
from ..pass_base import Pass, PassContext, functions, register_pass
from .elementwise_op_fusion import blocks_of

_PASSIVE = ("tensor.empty", "arith.constant", "flow.return")


def _static_tensor(v: Value) -> bool:
    return not isinstance(v.type, T.ShapedType) or (
        isinstance(v.type, T.TensorType) and v.type.has_static_shape)


def _generic_ok(op: Operation) -> bool:
    if not all(_static_tensor(v) for v in op.operands):
        return False
    for o in op.walk():
        if o is op:
            continue
        if o.name == "linalg.index" or any(isinstance(v.type, T.ShapedType) for v in o.operands):
            return False
    return True


def _region_ops(region_op: Operation) -> Optional[List[Operation]]:
    """The generics of the region when it is in scope (module docstring), else None."""
    generics = []
    for op in region_op.body.ops:
        if op.name == "linalg.generic":
            if not _generic_ok(op):
                return None
            generics.append(op)
        elif op.name == "linalg.fill":
            if not all(_static_tensor(v) for v in op.operands):
                return None
        elif op.name not in _PASSIVE or (op.name == "arith.constant"
                                         and isinstance(op.results[0].type, T.ShapedType)):
            return None
        elif op.name == "tensor.empty" and (op.operands or not _static_tensor(op.results[0])):
            return None
    if not any(is_contraction_like(g) or L.REDUCTION in L.iterator_types(g) for g in generics):
        return None
    return generics


def _candidate_pairs(op: Operation) -> Set[int]:
    """Loops ``a`` of generic ``op`` that may merge with ``a + 1`` (both parallel or both
    reductions; in every operand map both absent or plain at consecutive positions, ``a``
    first)."""
    its = L.iterator_types(op)
    maps = L.indexing_maps(op)
    out = set()
    for a in range(len(its) - 1):
        if its[a] != its[a + 1]:
            continue
        ok = True
        for m in maps:
            pos = {e.pos: p for p, e in enumerate(m.results) if isinstance(e, AffineDim)}
            nonplain = set().union(*[dims_of(e) for e in m.results if not isinstance(e, AffineDim)])
            if a in nonplain or a + 1 in nonplain:
                ok = False
            elif a in pos or a + 1 in pos:
                ok = a in pos and pos.get(a + 1) == pos[a] + 1
            if not ok:
                break
        if ok:
            out.add(a)
    return out


class _Classes:
    """Union-find over values that must share one reassociation (an init and its result),
    keyed by the values' ``id``."""

    def __init__(self):
        self.sets = UnionFind()

    def find(self, v: Value) -> int:
        return self.sets.find(id(v))

    def union(self, a: Value, b: Value) -> int:
        return self.sets.union(id(a), id(b))


def _tensor_joins(m: AffineMap, pairs: Set[int]) -> Set[int]:
    """Positions ``t`` of an operand whose dims ``t, t+1`` merge, given merged loop pairs."""
    res = m.results
    return {t for t in range(len(res) - 1) if isinstance(res[t], AffineDim) and isinstance(res[t + 1], AffineDim)
            and res[t].pos in pairs and res[t + 1].pos == res[t].pos + 1}


def _plan(region_op: Operation, generics: List[Operation]):
    """Merged loop pairs per generic and merged positions per value class, at the fixed
    point; None when nothing merges."""
    cls = _Classes()
    for op in region_op.body.ops:
        if op.name == "linalg.fill":
            cls.union(op.operands[1], op.results[0])
        elif op.name == "linalg.generic":
            n_in = len(L.inputs(op))
            for k, r in enumerate(op.results):
                cls.union(op.operands[n_in + k], r)
    pairs = {id(g): _candidate_pairs(g) for g in generics}
    occurrences: Dict[int, List[Tuple[Operation, AffineMap]]] = {}
    for g in generics:
        for v, m in zip(g.operands, L.indexing_maps(g)):
            if isinstance(v.type, T.ShapedType):
                occurrences.setdefault(cls.find(v), []).append((g, m))
    while True:
        joins: Dict[int, Set[int]] = {}
        for c, occ in occurrences.items():
            sets = [_tensor_joins(m, pairs[id(g)]) for g, m in occ]
            joins[c] = set.intersection(*sets)
        changed = False
        for g in generics:
            for v, m in zip(g.operands, L.indexing_maps(g)):
                if not isinstance(v.type, T.ShapedType):
                    continue
                j = joins[cls.find(v)]
                res = m.results
                for t, e in enumerate(res):
                    if isinstance(e, AffineDim) and e.pos in pairs[id(g)] and t not in j:
                        pairs[id(g)].discard(e.pos)
                        changed = True
        if not changed:
            break
    if not any(pairs.values()):
        return None
    return cls, pairs, joins


def _groups(n: int, joined: Set[int]) -> List[List[int]]:
    """Indices ``0..n-1`` grouped: ``t`` and ``t+1`` together when ``t`` is in ``joined``."""
    out: List[List[int]] = []
    for t in range(n):
        if t > 0 and t - 1 in joined:
            out[-1].append(t)
        else:
            out.append([t])
    return out


def _collapsed_type(t: T.TensorType, joined: Set[int]) -> T.TensorType:
    shape = []
    for g in _groups(t.rank, joined):
        size = 1
        for d in g:
            size *= t.shape[d]
        shape.append(size)
    return T.TensorType(tuple(shape), t.element_type, t.encoding)


def _rename(e: AffineExpr, new_dim: Dict[int, int]) -> AffineExpr:
    if isinstance(e, AffineDim):
        return AffineDim(new_dim[e.pos])
    if isinstance(e, AffineBinary):
        return AffineBinary(e.kind, _rename(e.lhs, new_dim), _rename(e.rhs, new_dim))
    return e


def _collapse_generic(g: Operation, pairs: Set[int]) -> None:
    its = L.iterator_types(g)
    loop_groups = _groups(len(its), pairs)
    new_dim = {d: k for k, grp in enumerate(loop_groups) for d in grp}
    maps = []
    for m in L.indexing_maps(g):
        res = []
        for t, e in enumerate(m.results):
            if isinstance(e, AffineDim) and e.pos - 1 in pairs and t > 0 and m.results[t - 1] == AffineDim(e.pos - 1):
                continue  # merged into the previous result
            res.append(_rename(e, new_dim))
        maps.append(AffineMap(len(loop_groups), m.num_symbols, tuple(res)))
    g.attributes["indexing_maps"] = L.maps_attr(maps)
    g.attributes["iterator_types"] = ArrayAttr(tuple(L.iterator_attr(its[grp[0]]) for grp in loop_groups))


def collapse_region(region_op: Operation) -> bool:
    """Collapse the dims of the ops of ``region_op`` (module docstring); False when out of
    scope or nothing merges."""
    generics = _region_ops(region_op)
    if generics is None:
        return False
    plan = _plan(region_op, generics)
    if plan is None:
        return False
    cls, pairs, joins = plan
    inside = set(id(o) for o in region_op.walk())

    def joined_of(v: Value) -> Set[int]:
        return joins.get(cls.find(v), set())

    # Captured tensors: one host reshape per value, before the region.
    host = Builder.before(region_op)
    done: Set[int] = set()
    for op in list(region_op.body.ops):
        for v in list(op.operands):
            if (id(v) in done or not isinstance(v.type, T.TensorType) or op.name == "flow.return"
                    or (isinstance(v.owner, Operation) and id(v.owner) in inside)):
                continue
            done.add(id(v))
            j = joined_of(v)
            if not j:
                continue
            r = host.create("flow.tensor.reshape", [v], [_collapsed_type(v.type, j)])
            v.replace_uses_if(r.results[0], lambda u: id(u) in inside)
    # Values defined in the region: new types.
    for op in region_op.body.ops:
        for r in op.results:
            if isinstance(r.type, T.TensorType) and joined_of(r):
                r.type = _collapsed_type(r.type, joined_of(r))
    for g in generics:
        if pairs[id(g)]:
            _collapse_generic(g, pairs[id(g)])
    # Results: expanded back on the host.
    ret = list(region_op.body.ops)[-1]
    after = Builder.after(region_op)
    for k, (res, v) in enumerate(zip(region_op.results, ret.operands)):
        if res.type == v.type:
            continue
        old = res.type
        res.type = v.type
        e = after.create("flow.tensor.reshape", [res], [old])
        res.replace_uses_if(e.results[0], lambda u: u is not e)
    return True


@register_pass
class CollapseDimensionsPass(Pass):
    """IREE's ``iree-dispatch-creation-collapse-dimensions``: see the module docstring."""

    name = "iree-dispatch-creation-collapse-dimensions"

    def run(self, module: Operation, ctx: PassContext) -> None:
        for f in functions(module):
            for blk in blocks_of(f):
                for op in list(blk.ops):
                    if op.name == "flow.dispatch.region":
                        collapse_region(op)

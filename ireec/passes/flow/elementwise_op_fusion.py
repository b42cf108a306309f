"""Fuse elementwise producers into their consumers (``linalg.generic`` into ``linalg.generic``).

Mirrors IREE's ``iree-dispatch-creation-elementwise-op-fusion`` (upstream
``linalg::fuseElementwiseOps``, ElementwiseOpFusion.cpp) together with the multi-use case of
``iree-dispatch-creation-fuse-multi-use-elementwise-producer``, preceded by the two
clean-ups IREE's GlobalOptimization runs first:

* named ops that are not roots (transpose, broadcast, map, reduce, elementwise named ops, and
  fills read as an input) are generalized, so one fusion rule covers them;
* a splat ``arith.constant`` tensor read by a generic becomes a scalar constant inside its
  payload (no tensor constant is materialized for it).

A producer P (all loops parallel, one result, its output map a permutation, its init not read)
fuses into a consumer C reading P's result as an input: C's operand is replaced by P's inputs
with maps ``P.map_j ∘ P.out_map⁻¹ ∘ C.map_i`` and P's payload is cloned before C's
(``linalg.index`` of P re-expressed in C's loops). When P has other users it stays for them
and its payload is duplicated into C (recomputation, never a changed value); this is done only
for cheap producers (:data:`MAX_DUPLICATED_OPS` payload ops) and bounded consumer bodies.

A consumer whose map for P's result leaves out some of its loops (a contraction reading P as
its LHS: every P element is needed once per output column) would recompute each element of
P that many times; like IREE, which keeps such producers out of contraction dispatches, P
then fuses only when its payload is a few ops without calls to ``math`` functions
(:func:`_cheap_to_recompute`), e.g. a relu, not a tanh-GELU.
"""
from __future__ import annotations

from typing import Dict, List, Optional

from ...dialects import linalg as L
from ...ir import types as T
from ...ir.affine import AffineBinary, AffineConst, AffineDim, AffineExpr, AffineMap
from ...ir.attributes import DenseArrayAttr, DenseElementsAttr, FloatAttr, IntegerAttr
from ...ir.core import Block, Builder, Operation, Region, Value
from ..common.distribution import compose, inverse_permutation
from ..common.linalg_generalize_named_ops import generalize
from ..pass_base import Pass, PassContext, functions, register_pass

#: Payload size (ops) of a producer that may be recomputed in a second consumer.
MAX_DUPLICATED_OPS = 16
#: Payload size (ops) of a producer that may be recomputed once per element of the consumer's
#: loops its result is not indexed by.
MAX_RECOMPUTED_OPS = 4
#: Largest fused payload (ops) built by duplicating a producer.
MAX_FUSED_OPS = 256
#: Named ops that stay named: dispatch roots that keep their name (matmul, conv, pooling) and
#: fills written as destinations.
_KEEP_NAMED = set(L.NAMED_SPECS)


def _body_size(op: Operation) -> int:
    return sum(1 for _ in op.walk()) - 1


def _is_generic(op) -> bool:
    return isinstance(op, Operation) and op.name == "linalg.generic"


def _all_parallel(op: Operation) -> bool:
    return all(i == L.PARALLEL for i in L.iterator_types(op))


def _on_tensors(op: Operation) -> bool:
    return all(isinstance(v.type, T.TensorType) or not isinstance(v.type, T.ShapedType) for v in op.operands)


def generalize_non_roots(blocks: List[Block]) -> None:
    """Generalize named structured ops other than contractions/convolutions/pooling; a fill
    only when every user reads it as an input (not as a destination)."""
    for blk in blocks:
        for op in list(blk.ops):
            if not L.is_named_structured(op) or not _on_tensors(op):
                continue
            short = op.name[len("linalg."):]
            if short in _KEEP_NAMED or short in ("softmax", "pack", "unpack", "index", "yield"):
                continue
            if short == "fill":
                uses = op.results[0].uses
                if not uses or any(not _is_generic(u) or i >= len(L.inputs(u)) for u, i in uses):
                    continue
            try:
                generalize(op)
            except (ValueError, KeyError):
                continue


def fold_splat_inputs(op: Operation) -> bool:
    """Replace splat-constant tensor inputs of generic ``op`` by scalar constants in its body."""
    n_in = len(L.inputs(op))
    changed = False
    for i in reversed(range(n_in)):
        v = op.operands[i]
        c = v.owner
        if not (isinstance(c, Operation) and c.name == "arith.constant"):
            continue
        attr = c.attributes.get("value")
        if not (isinstance(attr, DenseElementsAttr) and attr.is_splat):
            continue
        et = v.type.element_type
        if isinstance(et, T.FloatType) and et.name in ("f16", "f32", "f64"):
            scalar = FloatAttr(float(attr.splat_value()), et)
        elif isinstance(et, (T.IntegerType, T.IndexType)):
            scalar = IntegerAttr(int(attr.splat_value()), et)
        else:
            continue
        if not _sizes_kept_without(op, i):
            continue
        _drop_input(op, i, lambda b: b.create("arith.constant", [], [et], {"value": scalar}).result)
        changed = True
    return changed


def _all_loops_sized(operands: List[Value], maps: List[AffineMap]) -> bool:
    """Whether every loop dim is a plain result of some operand map with a static size (what
    loop-range inference needs; upstream's folds keep this invariant too)."""
    sized = set()
    for v, m in zip(operands, maps):
        shape = getattr(v.type, "shape", None)
        if shape:
            sized.update(e.pos for e, d in zip(m.results, shape) if isinstance(e, AffineDim) and d is not None)
    return all(d in sized for d in range(maps[0].num_dims if maps else 0))


def _sizes_kept_without(op: Operation, i: int) -> bool:
    """Whether every loop of ``op`` still gets its size once operand ``i`` is gone."""
    operands, maps = list(op.operands), L.indexing_maps(op)
    return _all_loops_sized(operands[:i] + operands[i + 1:], maps[:i] + maps[i + 1:])


def _fused_operands_and_maps(producer: Operation, consumer: Operation, i: int):
    """The inputs and indexing maps (inputs then outputs) of ``consumer`` with ``producer``
    fused into its input ``i``."""
    p_in = L.inputs(producer)
    c_in = L.inputs(consumer)
    p_maps, c_maps = L.indexing_maps(producer), L.indexing_maps(consumer)
    to_p_loops = compose(inverse_permutation(p_maps[len(p_in)]), c_maps[i])
    new_ins = c_in[:i] + p_in + c_in[i + 1:]
    new_maps = (c_maps[:i] + [compose(m, to_p_loops) for m in p_maps[:len(p_in)]]
                + c_maps[i + 1:len(c_in)] + c_maps[len(c_in):])
    return new_ins, new_maps, to_p_loops


def _drop_input(op: Operation, i: int, make_value) -> None:
    """Remove input ``i`` of generic ``op``; its block argument becomes ``make_value(builder)``
    (built at the start of the payload)."""
    body = op.regions[0].blocks[0]
    arg = body.args[i]
    b = Builder(body, 0, op.loc)
    arg.replace_all_uses_with(make_value(b))
    body.erase_arg(i)
    maps = L.indexing_maps(op)
    n_in, n_out = len(L.inputs(op)), len(L.outputs(op))
    operands = list(op.operands)
    del operands[i]
    del maps[i]
    op.set_operands(operands)
    op.attributes["indexing_maps"] = L.maps_attr(maps)
    op.attributes["operandSegmentSizes"] = L.segment_sizes(n_in - 1, n_out)


_UNIT_RESHAPES = ("tensor.expand_shape", "tensor.collapse_shape")


def fold_unit_reshape_inputs(op: Operation) -> bool:
    """An input of generic ``op`` that is an expand/collapse_shape only adding or dropping
    unit dims is replaced by the reshape's source, the map adjusted (IREE's reshape
    propagation / ``FoldUnitExtentDims``): results at the unit dims of the reshaped value are
    dropped and constant 0 inserted at the unit dims of the source."""
    n_in = len(L.inputs(op))
    changed = False
    maps = L.indexing_maps(op)
    for i in range(n_in):
        v = op.operands[i]
        r = v.owner
        if not (isinstance(r, Operation) and r.name in _UNIT_RESHAPES):
            continue
        src = r.operands[0]
        if not (isinstance(src.type, T.TensorType) and isinstance(v.type, T.TensorType)):
            continue
        vs, ss = list(v.type.shape), list(src.type.shape)
        if [d for d in vs if d != 1] != [d for d in ss if d != 1] or None in vs + ss:
            continue
        kept = [e for e, d in zip(maps[i].results, vs) if d != 1]
        it = iter(kept)
        new_res = tuple(AffineConst(0) if d == 1 else next(it) for d in ss)
        maps[i] = AffineMap(maps[i].num_dims, maps[i].num_symbols, new_res)
        op.set_operand(i, src)
        changed = True
    if changed:
        op.attributes["indexing_maps"] = L.maps_attr(maps)
    return changed


def _producer_ok(p: Operation) -> bool:
    if not (_is_generic(p) and len(p.results) == 1 and _all_parallel(p) and _on_tensors(p)):
        return False
    n_in = len(L.inputs(p))
    if p.regions[0].blocks[0].args[n_in].uses:
        return False  # the init value is read
    return inverse_permutation(L.indexing_maps(p)[n_in]) is not None


def _index_value(b: Builder, e: AffineExpr, cache: Dict[int, Value]) -> Value:
    """Index value of affine expression ``e`` over the consumer's loops (linalg.index)."""
    from ...ir.attributes import IntegerAttr as IA

    if isinstance(e, AffineDim):
        if e.pos not in cache:
            cache[e.pos] = b.create("linalg.index", [], [T.index], {"dim": IA(e.pos, T.i64)}).result
        return cache[e.pos]
    if isinstance(e, AffineConst):
        return b.create("arith.constant", [], [T.index], {"value": IA(e.value, T.index)}).result
    if isinstance(e, AffineBinary) and e.kind in ("+", "*", "mod", "floordiv"):
        name = {"+": "arith.addi", "*": "arith.muli", "mod": "arith.remsi", "floordiv": "arith.floordivsi"}[e.kind]
        lhs, rhs = _index_value(b, e.lhs, cache), _index_value(b, e.rhs, cache)
        return b.create(name, [lhs, rhs], [T.index]).result
    raise ValueError(f"cannot express {e} with linalg.index")


def fuse(producer: Operation, consumer: Operation, i: int) -> Operation:
    """Fuse ``producer`` into input ``i`` of ``consumer``; return the new consumer (the old one
    is replaced; the producer is left in place for any other users)."""
    p_in = L.inputs(producer)
    c_in, c_out = L.inputs(consumer), L.outputs(consumer)
    new_ins, new_maps, to_p_loops = _fused_operands_and_maps(producer, consumer, i)
    c_body, p_body = consumer.regions[0].blocks[0], producer.regions[0].blocks[0]
    blk = Block([L.element_type(v.type) for v in new_ins + c_out])
    b = Builder.at_end(blk, consumer.loc)
    mapping: Dict[Value, Value] = {}
    for k in range(i):
        mapping[c_body.args[k]] = blk.args[k]
    for k in range(len(p_in)):
        mapping[p_body.args[k]] = blk.args[i + k]
    for k in range(i + 1, len(c_in)):
        mapping[c_body.args[k]] = blk.args[k - 1 + len(p_in)]
    for k in range(len(c_out)):
        mapping[c_body.args[len(c_in) + k]] = blk.args[len(new_ins) + k]
    idx_cache: Dict[int, Value] = {}
    for op in p_body.ops:
        if op.name == "linalg.yield":
            mapping[c_body.args[i]] = mapping.get(op.operands[0], op.operands[0])
        elif op.name == "linalg.index":
            e = to_p_loops.results[op.attributes["dim"].value]
            mapping[op.results[0]] = _index_value(b, e, idx_cache)
        else:
            b.insert(op.clone(mapping))
    for op in c_body.ops:
        b.insert(op.clone(mapping))
    attrs = {k: v for k, v in consumer.attributes.items()
             if k not in ("indexing_maps", "iterator_types", "operandSegmentSizes")}
    new = L.build_generic(new_ins, c_out, new_maps, L.iterator_types(consumer), Region([blk]),
                          result_types=consumer.result_types, attrs=attrs, loc=consumer.loc)
    consumer.parent.insert_before(consumer, new)
    consumer.replace_with(new.results)
    return new


def deduplicate_inputs(op: Operation) -> None:
    """Merge the inputs of generic ``op`` that are the same value read through the same map
    (a producer fused into several uses of a consumer brings its operand once per use), then
    replace payload ops that repeat an earlier op (same name, operands and attributes; no
    regions) by its results: upstream's ``DeduplicateAndRemoveDeadOperandsAndResults``
    canonicalization of ``linalg.generic``, then CSE. Values are unchanged."""
    body = op.regions[0].blocks[0]
    first: Dict[tuple, int] = {}
    k = 0
    while k < len(L.inputs(op)):
        key = (id(op.operands[k]), str(L.indexing_maps(op)[k]))
        j = first.setdefault(key, k)
        if j != k:
            arg = body.args[j]
            _drop_input(op, k, lambda b, arg=arg: arg)
        else:
            k += 1
    seen: Dict[tuple, Operation] = {}
    for inner in list(body.ops):
        if inner.regions or not inner.results or inner.name == "linalg.yield":
            continue
        key = (inner.name, tuple(id(v) for v in inner.operands),
               tuple(sorted((n, str(a)) for n, a in inner.attributes.items())),
               tuple(str(r.type) for r in inner.results))
        prev = seen.setdefault(key, inner)
        if prev is not inner:
            inner.replace_with(prev.results)


def _recomputation_factor(consumer: Operation, i: int) -> int:
    """How many times fusing into input ``i`` of ``consumer`` computes each producer element:
    the product of the sizes of the consumer loops that input's map leaves out (1 if none;
    unknown sizes count as 2)."""
    m = L.indexing_maps(consumer)[i]
    used = {e.pos for e in m.results if isinstance(e, AffineDim)}
    factor = 1
    for d, n in enumerate(L.loop_ranges(consumer)):
        if d not in used:
            factor *= n if n else 2
    return factor


def _cheap_to_recompute(p: Operation) -> bool:
    """A payload of at most :data:`MAX_RECOMPUTED_OPS` ops, none of them a ``math`` call."""
    body = p.regions[0].blocks[0].ops
    return _body_size(p) <= MAX_RECOMPUTED_OPS and not any(o.name.startswith("math.") for o in body)


def _fusable_input(op: Operation) -> Optional[int]:
    """First input of generic ``op`` whose producer may be fused into it."""
    n_in = len(L.inputs(op))
    size = _body_size(op)
    for i, v in enumerate(op.operands[:n_in]):
        p = v.owner
        if not (isinstance(p, Operation) and p.parent is op.parent and _producer_ok(p)):
            continue
        new_ins, new_maps, _ = _fused_operands_and_maps(p, op, i)
        if not _all_loops_sized(new_ins + L.outputs(op), new_maps):
            continue
        if _recomputation_factor(op, i) > 1 and not _cheap_to_recompute(p):
            continue
        if len(v.uses) > 1 or any(r.uses for r in p.results if r is not v):
            if _body_size(p) > MAX_DUPLICATED_OPS or size + _body_size(p) > MAX_FUSED_OPS:
                continue
        return i
    return None


def fuse_single_use_producer(op: Operation, i: int) -> Optional[Operation]:
    """Fuse the producer of input ``i`` of generic ``op`` into it when that producer is an
    elementwise generic used by ``op`` alone (what this pass would do later); the new
    consumer, or None when it does not apply. Lets a pattern that spans a chain of
    elementwise ops (TOSA's dequantize: cast, subtract, multiply) see one payload."""
    v = op.operands[i]
    p = v.owner
    if not (_is_generic(op) and isinstance(p, Operation) and p.parent is op.parent and _producer_ok(p)
            and len(v.uses) == 1):
        return None
    new_ins, new_maps, _ = _fused_operands_and_maps(p, op, i)
    if not _all_loops_sized(new_ins + L.outputs(op), new_maps) or _recomputation_factor(op, i) > 1:
        return None
    new = fuse(p, op, i)
    deduplicate_inputs(new)
    p.erase()
    return new


def fill_like_to_fill(op: Operation) -> bool:
    """Rewrite a generic ``op`` that writes one scalar everywhere (no inputs, an identity
    output map, its output not read, the body yielding a constant or a value from outside)
    as ``linalg.fill`` (MLIR's ``linalg::isaFillOpInterface``; what a broadcast of a splat
    becomes once :func:`fold_splat_inputs` took its input). A fill is what dispatch
    formation clones into its consumer's dispatch (a convolution's zero init from TOSA),
    not a dispatch of its own that reads nothing. Returns whether it rewrote ``op``."""
    if not (len(op.results) == 1 and not L.inputs(op) and _all_parallel(op) and _on_tensors(op)):
        return False
    if L.indexing_maps(op)[0] != AffineMap.identity(op.results[0].type.rank):
        return False
    body = op.regions[0].blocks[0]
    if body.args[0].uses:
        return False
    ops = list(body.ops)
    y = ops[-1].operands[0] if ops and ops[-1].name == "linalg.yield" else None
    if y is None:
        return False
    inner = [o for o in ops[:-1]]
    if inner and not (len(inner) == 1 and inner[0].name == "arith.constant" and y is inner[0].results[0]):
        return False
    if not inner and (not isinstance(y.owner, Operation) or y.owner.parent is body):
        return False
    b = Builder.before(op)
    scalar = b.create("arith.constant", [], [y.type], dict(inner[0].attributes)).result if inner else y
    fill = b.create("linalg.fill", [scalar, op.operands[0]], [op.results[0].type], {
        "operandSegmentSizes": DenseArrayAttr(T.i32, (1, 1))},
        regions=[L.build_named_region("fill", [y.type], [y.type], {})])
    op.results[0].replace_all_uses_with(fill.results[0])
    op.erase()
    return True


def fuse_in_block(blk: Block) -> None:
    """Fuse elementwise producers into consumers until nothing changes; dead producers go."""
    changed = True
    while changed:
        changed = False
        for op in list(blk.ops):
            if op.parent is not blk or not _is_generic(op) or not _on_tensors(op):
                continue
            if fold_splat_inputs(op):
                changed = True
            if fold_unit_reshape_inputs(op):
                changed = True
            cur = op
            while True:
                i = _fusable_input(cur)
                if i is None:
                    break
                producer = cur.operands[i].owner
                cur = fuse(producer, cur, i)
                deduplicate_inputs(cur)
                changed = True
                if not any(r.uses for r in producer.results):
                    producer.erase()
        # Dead pure ops, last first so that chains go: a reshape whose consumer now reads
        # its source, then the producer it read (fused as a copy while the reshape still
        # used it; left alone it would become a dispatch that stores nothing).
        for op in reversed(list(blk.ops)):
            if (op.name in _UNIT_RESHAPES or op.name == "arith.constant") \
                    and isinstance(op.results[0].type, T.TensorType) and not op.results[0].uses:
                op.erase()
            elif _is_generic(op) and _on_tensors(op) and not any(r.uses for r in op.results):
                op.erase()
        for op in list(blk.ops):
            if _is_generic(op):
                fill_like_to_fill(op)


def blocks_of(f: Operation) -> List[Block]:
    """Every host block of function ``f``: its own blocks and those of nested scf control flow."""
    out: List[Block] = []

    def visit(region: Region) -> None:
        for blk in region.blocks:
            out.append(blk)
            for op in blk.ops:
                if not op.name.startswith("scf."):
                    continue  # payloads of tensor/linalg ops and dispatches are not host code
                for r in op.regions:
                    visit(r)

    for r in f.regions:
        visit(r)
    return out


@register_pass
class ElementwiseOpFusionPass(Pass):
    """IREE's ``iree-dispatch-creation-elementwise-op-fusion``: see the module docstring."""

    name = "iree-dispatch-creation-elementwise-op-fusion"

    def run(self, module: Operation, ctx: PassContext) -> None:
        for f in functions(module):
            blocks = blocks_of(f)
            generalize_non_roots(blocks)
            for blk in blocks:
                fuse_in_block(blk)

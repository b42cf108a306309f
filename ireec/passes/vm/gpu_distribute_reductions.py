"""Reductions of a workgroup over a GPU block's threads, for ``iree-codegen-gpu-distribute``.

Mirrors the subgroup and workgroup reductions of IREE's ``LLVMGPUWarpReduction`` pipeline
(``iree-codegen-gpu-distribute`` with ``VectorReductionToGPU``: a reduction over a subgroup's
lanes by shuffles, then across subgroups through workgroup-shared memory), on emitc loops:

- matchers: :func:`fold_loop` (a loop folding values into one element), :func:`row_reduction`
  (rows, each folded by an inner loop reading the row contiguously), :func:`row_of_elements`
  (rows of independent contiguous elements);
- rewrites: :func:`distribute_rows_over_warps` (a subgroup per row, its lanes along the row,
  then a shuffle reduction), :func:`distribute_rows_of_elements` (a subgroup per row, no
  reduction), :func:`distribute_block_reduction` (a fold over the whole workgroup).

Every spelling comes from the target as data (``ireec.targets.base.Target``:
``subgroup_size``, ``thread_id``, ``barrier``, ``subgroup_shuffle_down``, ``shuffle_types``,
``workgroup_memory_qualifier``). Combiners are recognised by the ``source_op`` of their
``emitc.expression`` (:data:`ireec.emitc.analysis.REORDERABLE_COMBINERS`). The order of a fold
changes, so floating-point results may differ from a sequential loop's in the last bits.
"""
from __future__ import annotations

from ...emitc.analysis import (fold_into_element, iterations_independent, trip_count,
                               walks_contiguously)
from ...emitc.ctypes import storage_ctype
from ...ir import types as T
from ...ir.attributes import DenseArrayAttr, FloatAttr, IntegerAttr, StringAttr, TypeAttr
from ...ir.core import Block, Builder, Operation, Region


# --------------------------------------------------------------------------- matchers
def fold_loop(loop: Operation, target):
    """When the loop ``loop`` folds values into one element
    (:func:`ireec.emitc.analysis.fold_into_element`: ``out[i] = combine(out[i], z)``, the
    address invariant, ``combine`` reorderable) of a type the target shuffles
    (``target.shuffle_types``), return ``(load, store, combine, z)``; else None."""
    match = fold_into_element(loop)
    if match is None:
        return None
    t = match[0].results[0].type
    if not (isinstance(t, (T.FloatType, T.IntegerType)) and str(t) in target.shuffle_types):
        return None
    return match


def _trailing_inner_loop(loop: Operation):
    """The ``emitc.for`` that ends ``loop``'s body when only pure ops (constants,
    expressions, loads) come before it; else None."""
    ops = list(loop.body.ops)
    if not ops or ops[-1].name != "emitc.for":
        return None
    if any(o.name not in ("emitc.constant", "emitc.expression", "emitc.load") for o in ops[:-1]):
        return None
    return ops[-1]


def row_reduction(loop: Operation, target):
    """When ``loop`` (an ``emitc.for`` whose iterations are independent rows) ends with one
    inner loop folding values into one element per row (:func:`fold_loop`) that reads some
    input contiguously along the inner loop (a row of a row-major matrix), with only pure
    ops before it, return ``(inner, load, store, combine, z)``; else None."""
    inner = _trailing_inner_loop(loop)
    if inner is None:
        return None
    match = fold_loop(inner, target)
    if match is None or not walks_contiguously(inner, exclude=match[0]):
        return None  # a thread per row reads better when the row is not contiguous
    return (inner,) + match


def row_of_elements(loop: Operation):
    """When ``loop`` (independent rows) ends with an inner loop whose iterations are
    independent too and which walks memory contiguously, with only pure ops before it
    (e.g. the normalisation of a softmax), return that inner loop; else None."""
    inner = _trailing_inner_loop(loop)
    if inner is None:
        return None
    if not iterations_independent(inner) or not walks_contiguously(inner):
        return None
    return inner


def _every_iteration_count(loop: Operation, lanes: int) -> bool:
    """Whether ``loop`` has constant bounds and at least ``lanes`` iterations (so each of
    ``lanes`` threads striding over it gets one)."""
    n = trip_count(loop)
    return n is not None and n >= lanes


# --------------------------------------------------------------------------- building blocks
def expr(b: Builder, operands, c: str, ty: T.Type):
    """An ``emitc.expression`` with C template ``c`` over ``operands`` (``{i}``), built by ``b``."""
    return b.create("emitc.expression", list(operands), [ty], {"c": StringAttr(c)}).result


def thread_index(target) -> str:
    """The C expression of the thread's index in its block, as a signed ``int``."""
    return f"(int){target.thread_id}"


def spread_loop(b: Builder, loop: Operation, lane: str, count: int) -> None:
    """Make ``loop`` start at ``lb + <lane> * step`` and step by ``count * step``: its
    iterations spread over ``count`` workers numbered by the C expression ``lane``."""
    lb, _ub, step = loop.operands[:3]
    loop.set_operand(0, expr(b, [lb, step], f"{{0}} + {lane} * {{1}}", lb.type))
    loop.set_operand(2, expr(b, [step], f"{count} * {{0}}", step.type))


def _fold_into_partial(outer_block: Block, at_op: Operation, inner: Operation, match):
    """Declare ``part``/``have`` (a private partial and whether it holds a value) in
    ``outer_block`` before ``at_op`` and rewrite the fold of ``inner`` (:func:`fold_loop`)
    to ``part = have ? combine(part, z) : z; have = 1``. Returns ``(part, have, load
    operands, load attributes, store operands after the value, store attributes)``."""
    ld, st, comb, z = match
    x = ld.results[0]
    t = x.type
    saved = (list(ld.operands), dict(ld.attributes), list(st.operands[1:]), dict(st.attributes))
    rb = Builder(outer_block, outer_block.ops.index(at_op), at_op.loc)
    zero_attr = FloatAttr(0.0, t) if isinstance(t, T.FloatType) else IntegerAttr(0, t)
    part = rb.create("emitc.variable", [rb.create("emitc.constant", [], [t], {"value": zero_attr}).result], [t]).result
    no = rb.create("emitc.constant", [], [T.i32], {"value": IntegerAttr(0, T.i32)}).result
    have = rb.create("emitc.variable", [no], [T.i32]).result
    ib = Builder(inner.body, inner.body.ops.index(ld), ld.loc)
    x.replace_all_uses_with(ib.create("emitc.read", [part], [t]).result)
    ld.erase()
    ib = Builder(inner.body, inner.body.ops.index(st), st.loc)
    h = ib.create("emitc.read", [have], [T.i32]).result
    sel = ib.create("emitc.expression", [h, comb.results[0], z], [t], {"c": StringAttr("{0} ? {1} : {2}")}).result
    ib.create("emitc.assign", [part, sel], [])
    yes = ib.create("emitc.constant", [], [T.i32], {"value": IntegerAttr(1, T.i32)}).result
    ib.create("emitc.assign", [have, yes], [])
    st.erase()
    return (part, have) + saved


def _warp_combine(b: Builder, part, have, comb_of, every_lane: bool, target) -> None:
    """Fold a subgroup's partials into lane 0's (shuffles down by half the subgroup, then
    half again... down to 1: 16, 8, 4, 2, 1 for a warp of 32); ``have`` flags travel along
    unless ``every_lane`` holds a value."""
    t = part.type
    off = target.subgroup_size // 2
    while off >= 1:
        shuffle = target.subgroup_shuffle_down.format(value="{0}", offset=off)
        p = b.create("emitc.read", [part], [t]).result
        o = expr(b, [p], shuffle, t)
        both = comb_of(b, p, o)
        off //= 2
        if every_lane:
            b.create("emitc.assign", [part, both], [])
            continue
        h = b.create("emitc.read", [have], [T.i32]).result
        oh = expr(b, [h], shuffle, T.i32)
        b.create("emitc.assign", [part, expr(b, [oh, h, both, o, p], "{0} ? ({1} ? {2} : {3}) : {4}", t)], [])
        b.create("emitc.assign", [have, expr(b, [h, oh], "{0} | {1}", T.i32)], [])


def _fold_into_element(b: Builder, cond_c: str, cond_operands, part, saved, comb_of) -> None:
    """``if (cond) out[i] = combine(out[i], part);`` with the saved load/store of the fold."""
    ld_operands, ld_attrs, st_operands, st_attrs = saved
    p = b.create("emitc.read", [part], [part.type]).result
    cond = b.create("emitc.expression", list(cond_operands), [T.i1], {"c": StringAttr(cond_c)}).result
    then = Block()
    tb = Builder.at_end(then)
    old = tb.create("emitc.load", ld_operands, [part.type], ld_attrs).result
    tb.create("emitc.store", [comb_of(tb, old, p)] + st_operands, [], st_attrs)
    b.create("emitc.if", [cond], [], regions=[Region([then])])


def _combiner(match):
    """``comb_of(builder, acc, value)``: the fold's combine expression over two values, in
    the operand order of the original (``acc`` where the element was read), with its C
    template and ``source_op``."""
    ld, _st, comb, _z = match
    x_first = comb.operands[0] is ld.results[0]
    attrs = {k: comb.attributes[k] for k in ("c", "source_op")}
    t = ld.results[0].type

    def comb_of(b, acc, val):
        return b.create("emitc.expression", [acc, val] if x_first else [val, acc], [t], dict(attrs)).result
    return comb_of


# --------------------------------------------------------------------------- rewrites
def distribute_rows_of_elements(body: Block, loop: Operation, inner: Operation, threads: int, target) -> None:
    """A subgroup per row of ``loop`` (rows ``lb + warp*step``, ``+ (threads/32)*step``...),
    its lanes over the elements of the row (``inner``: lane ``l`` takes ``l``, ``l + 32``...),
    so a subgroup touches contiguous memory."""
    tid, warp = thread_index(target), target.subgroup_size
    spread_loop(Builder(body, body.ops.index(loop), loop.loc), loop, f"{tid} / {warp}", threads // warp)
    spread_loop(Builder(loop.body, loop.body.ops.index(inner), inner.loc), inner, f"{tid} % {warp}", warp)


def distribute_rows_over_warps(body: Block, loop: Operation, match, threads: int, target) -> None:
    """Rewrite the row reduction ``match`` (:func:`row_reduction`) of ``loop`` in ``body``
    so that each subgroup takes a row (rows ``lb + warp*step``, ``+ (threads/32)*step``...;
    the block has ``threads`` threads) and its lanes split the inner loop (lane ``l`` folds
    elements ``l``, ``l + 32``... into a private partial), then combine the partials with
    shuffles (:func:`_warp_combine`) and lane 0 folds the result into the row's element. A
    lane that saw no element contributes nothing (a ``have`` flag travels with its partial,
    unless the row has at least a subgroup of elements), so no identity value is needed."""
    inner, fold = match[0], match[1:]
    comb_of = _combiner(fold)
    tid, warp = thread_index(target), target.subgroup_size
    spread_loop(Builder(body, body.ops.index(loop), loop.loc), loop, f"{tid} / {warp}", threads // warp)
    every = _every_iteration_count(inner, warp)
    part, have, *saved = _fold_into_partial(loop.body, inner, inner, fold)
    spread_loop(Builder(loop.body, loop.body.ops.index(inner), inner.loc), inner, f"{tid} % {warp}", warp)
    ab = Builder.at_end(loop.body)
    _warp_combine(ab, part, have, comb_of, every, target)
    h = ab.create("emitc.read", [have], [have.type]).result
    _fold_into_element(ab, f"{tid} % {warp} == 0 && {{0}}", [h], part, saved, comb_of)


def _shared_access(bb: Builder, name: str, operands, ty: T.Type, w):
    """A load (returning its value) or store of element ``w`` (an int or an index value) of a
    1-D workgroup-shared array."""
    idx = bb.create("emitc.constant", [], [T.index], {"value": IntegerAttr(w, T.index)}).result if isinstance(w, int) else w
    attrs = {"strides": DenseArrayAttr(T.i64, (1,)), "offset": IntegerAttr(0, T.index), "element_type": TypeAttr(ty)}
    if name == "emitc.load":
        return bb.create(name, operands + [idx], [ty], attrs).result
    bb.create(name, operands + [idx], [], attrs)
    return None


def _fold_subgroup_partials(tb: Builder, part, have, arrays, nw: int, comb_of) -> None:
    """Thread 0's fold of the ``nw`` subgroups' partials published in ``arrays`` (partials,
    ``have`` flags) into ``part``/``have``."""
    t = part.type
    tb.create("emitc.assign", [part, _shared_access(tb, "emitc.load", [arrays[0]], t, 0)], [])
    tb.create("emitc.assign", [have, _shared_access(tb, "emitc.load", [arrays[1]], T.i32, 0)], [])
    for k in range(1, nw):
        p = tb.create("emitc.read", [part], [t]).result
        h = tb.create("emitc.read", [have], [T.i32]).result
        o = _shared_access(tb, "emitc.load", [arrays[0]], t, k)
        oh = _shared_access(tb, "emitc.load", [arrays[1]], T.i32, k)
        tb.create("emitc.assign", [part, expr(tb, [oh, h, comb_of(tb, p, o), o, p], "{0} ? ({1} ? {2} : {3}) : {4}", t)], [])
        tb.create("emitc.assign", [have, expr(tb, [h, oh], "{0} | {1}", T.i32)], [])


def distribute_block_reduction(body: Block, loop: Operation, match, threads: int, target) -> None:
    """The top-level fold ``loop`` (:func:`fold_loop`, e.g. a sum of everything into one
    element) over the whole block: thread ``t`` folds iterations ``t``, ``t + threads``...
    into a private partial, each subgroup combines its partials with shuffles, lane 0 of each
    subgroup writes its subgroup's partial to workgroup-shared arrays, and after a barrier
    thread 0 folds those into the element (IREE's ``LLVMGPUWarpReduction``: a subgroup
    reduce, then shared memory across subgroups)."""
    comb_of = _combiner(match)
    t = match[0].results[0].type
    tid, warp = thread_index(target), target.subgroup_size
    every = _every_iteration_count(loop, threads)
    part, have, *saved = _fold_into_partial(body, loop, loop, match)
    spread_loop(Builder(body, body.ops.index(loop), loop.loc), loop, tid, threads)
    ab = Builder(body, body.ops.index(loop) + 1, loop.loc)
    _warp_combine(ab, part, have, comb_of, every, target)
    nw = threads // warp
    arrays = []
    for ty in (t, T.i32):
        arrays.append(ab.create("emitc.variable", [], [T.MemRefType((nw,), ty)], {
            "array_size": IntegerAttr(nw, T.index),
            "element": StringAttr(f"{target.workgroup_memory_qualifier} {storage_ctype(ty)}")}).result)
    # Lane 0 of each subgroup publishes the subgroup's partial.
    then = Block()
    tb = Builder.at_end(then)
    w = expr(tb, [], f"{tid} / {warp}", T.index)
    _shared_access(tb, "emitc.store", [tb.create("emitc.read", [part], [t]).result, arrays[0]], t, w)
    _shared_access(tb, "emitc.store", [tb.create("emitc.read", [have], [T.i32]).result, arrays[1]], T.i32, w)
    ab.create("emitc.if", [expr(ab, [], f"{tid} % {warp} == 0", T.i1)], [], regions=[Region([then])])
    ab.create("emitc.verbatim", [], [], {"value": StringAttr(target.barrier)})
    # Thread 0 folds the subgroups' partials, then into the element.
    then = Block()
    tb = Builder.at_end(then)
    _fold_subgroup_partials(tb, part, have, arrays, nw, comb_of)
    h = tb.create("emitc.read", [have], [T.i32]).result
    _fold_into_element(tb, "{0}", [h], part, saved, comb_of)
    ab.create("emitc.if", [expr(ab, [], f"{target.thread_id} == 0", T.i1)], [], regions=[Region([then])])

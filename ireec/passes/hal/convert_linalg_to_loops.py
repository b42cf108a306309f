"""``linalg.generic`` on memrefs → ``scf.for`` nests with ``memref.load`` / ``memref.store``.

Mirrors MLIR's ``convert-linalg-to-loops`` (Linalg/Transforms/Loops.cpp): one loop per
iteration dimension in dimension order, the iteration domain read off the operand shapes
through the indexing maps, each operand indexed by its map applied to the induction
variables, the body cloned with ``linalg.index`` replaced by the induction variables, and
``linalg.yield`` operands stored to the outputs. It runs last of the hal passes lowering
generics: micro-kernel roots are calls by now (:mod:`.cpu_lower_to_ukernels`,
:mod:`.convert_conv_to_im2col`); what is left becomes loops.

Workgroup tiles (:mod:`.tile_and_distribute_to_workgroups`, whose offsets and sizes it reads
and whose markers it removes): in a kernel with ``ireec.distribution`` a generic's loop
carrying distributed dim ``k`` (``ireec.distribute``) runs over the workgroup's tile only
(``0 .. size[k]``, a bounds-checked partial last tile); bindings are indexed globally
(``offset[k]`` + iv), per-tile temporaries (allocas with ``ireec.tile_dims``) locally.

Loop order: loops are sorted by the sum over operands of the element stride each loop moves
the operand by (largest outermost), so the innermost loop walks contiguous memory (matmul:
i, k, j; a row reduction: the reduced dim innermost; a column reduction: rows outer).
Any order is a valid schedule of a ``linalg.generic``; loop bounds are constants wherever the
tile divides the extent, so the C compiler can vectorize the innermost loop.

Register blocking (what IREE's second tiling level + vectorization give a contraction,
:mod:`.register_blocking`): a contraction whose output's contiguous last dim is the innermost
loop is lowered as ``MR x NR`` blocks of its output kept in a local array across the
reduction loops, its contiguous input packed per ``KC`` slice of the reduction where it
helps; the blocking builds the loops, this pass fills their bodies (copy-in, the cloned body
on the accumulators, copy-out). A reduction whose innermost loop walks another output dim (its
output transposed against its input: a pool over NHWC written ``[c, h]``) is blocked the same
way with the output's contiguous dim as the block's rows: the reduction then accumulates in
the local array along the contiguous input, not by a strided read-modify-write of the output.
"""
from __future__ import annotations

from typing import Dict, List, Optional

from ...ir import types as T
from ...ir.affine import AffineMap
from ...ir.core import Builder, Operation, Value
from ..pass_base import Pass, PassContext, register_pass
from .bufferize import segment_sizes
from .cpu_lower_to_ukernels import check_bufferized
from .loop_builder import IndexBuilder, LoopBounds, for_loop, global_ivs, operand_indices
# generic_maps, generic_loop_ranges and the blocking constants are imported from here too.
from ..common.distribution import dims_of
from .memref_utils import (const_index, generic_loop_ranges, generic_maps, loop_order,  # noqa: F401
                           strides_and_offset)
from .register_blocking import (PACK_BYTES, REGISTER_BLOCK, ROWS_OUTSIDE_MIN_K,  # noqa: F401
                                blocked_loops, register_block_plan, set_pack_limit)
from .tile_and_distribute_to_workgroups import WorkgroupTiles, kernel_functions, strip_markers


class _Section:
    """One loop nest of a lowered generic (the plain nest, or a section of
    :func:`.register_blocking.blocked_loops`) whose innermost body this fills: builder
    ``inner``, loop point ``ivs``, accumulator ``acc`` (None for a plain nest)."""

    def __init__(self, op: Operation, lb: LoopBounds, plan, inner: Builder, ivs: List[Value], acc):
        self.op, self.lb, self.plan = op, lb, plan
        self.inner, self.ivs, self.acc = inner, ivs, acc
        self.maps = generic_maps(op)
        self.n_in, _ = segment_sizes(op)
        self.ib = IndexBuilder(inner, {})
        self.glob = global_ivs(inner, ivs, lb.tile_of, lb.tiles)

    def indices(self, v: Value, m: AffineMap) -> List[Value]:
        lb = self.lb
        return operand_indices(self.ib, v, m, self.ivs, self.glob, lb.tile_of, lb.tiles, bool(lb.dist))

    def load(self, v: Value, idx: List[Value]) -> Value:
        return self.inner.create("memref.load", [v] + idx, [v.type.element_type]).result

    def emit(self) -> None:
        acc = self.acc
        if acc is not None and acc[0] == "pack":
            x = self.plan[4][0]
            v = self.op.operands[x]
            self.inner.create("memref.store", [self.load(v, self.indices(v, self.maps[x])), acc[1]] + acc[2], [])
        elif acc is not None and acc[0] in ("init", "store"):
            self.emit_copy()
        else:
            self.emit_body()

    def emit_copy(self) -> None:
        """Copy-in ("init") or copy-out ("store") of the accumulator block."""
        kind, buf, acc_idx, _ = self.acc
        out = self.op.operands[self.n_in]
        et = out.type.element_type
        if kind == "init":
            x = self.load(out, self.indices(out, self.maps[self.n_in]))
            self.inner.create("memref.store", [x, buf] + acc_idx, [])
        else:
            x = self.inner.create("memref.load", [buf] + acc_idx, [et]).result
            self.inner.create("memref.store", [x, out] + self.indices(out, self.maps[self.n_in]), [])

    def operand_values(self) -> Dict[Value, Value]:
        """Each used block argument → its operand's element at the loop point (from the
        accumulator block or the packed tile where the section has them)."""
        op, acc, inner = self.op, self.acc, self.inner
        mapping: Dict[Value, Value] = {}
        for k, (v, m) in enumerate(zip(op.operands, self.maps)):
            arg = op.body.args[k]
            if not arg.uses:
                continue
            if not isinstance(v.type, T.MemRefType):
                mapping[arg] = v
            elif acc is not None and k >= self.n_in:
                mapping[arg] = inner.create("memref.load", [acc[1]] + acc[2], [v.type.element_type]).result
            elif acc is not None and acc[3] is not None and k == acc[3][0]:
                mapping[arg] = inner.create("memref.load", [acc[3][1]] + acc[3][2], [v.type.element_type]).result
            else:
                mapping[arg] = self.load(v, self.indices(v, m))
        return mapping

    def emit_body(self) -> None:
        """The body cloned at the loop point; yields stored to the outputs (or the block)."""
        op, acc, inner = self.op, self.acc, self.inner
        mapping = self.operand_values()
        for bop in op.body.ops:
            if bop.name == "linalg.yield":
                for k, y in enumerate(bop.operands):
                    out = op.operands[self.n_in + k]
                    if acc is not None:
                        inner.create("memref.store", [mapping.get(y, y), acc[1]] + acc[2], [])
                    else:
                        idx = self.indices(out, self.maps[self.n_in + k])
                        inner.create("memref.store", [mapping.get(y, y), out] + idx, [])
            elif bop.name == "linalg.index":
                mapping[bop.results[0]] = self.glob[bop.attributes["dim"].value]
            else:
                inner.insert(bop.clone(mapping))


#: Largest innermost loop merged with the loop around it (:func:`_coalescible`).
COALESCE_MAX_INNER = 16


def _coalescible(op: Operation, lb: LoopBounds, order: List[int]) -> bool:
    """Whether the two innermost loops ``a`` (outer) and ``b`` of ``op``'s plain nest can
    run as one loop of ``range(a) * range(b)`` steps: both constant (whole tiles, whose
    workgroup offsets then add to the merged index as they did to each),
    ``b`` at most :data:`COALESCE_MAX_INNER` steps, no ``linalg.index`` in the payload, and
    every operand either reading neither or reading ``a`` and ``b`` as consecutive dims of a
    row-major block (stride of ``a`` = extent of ``b`` x stride of ``b``, the extent of
    ``b`` the operand's dim), in a buffer C indexes flat (not an ``ireec.c_shape`` local).
    Then ``a = 0, b = k`` addresses every element as ``a, b`` did (``a * ext_b + b = k``):
    the loop of an NHWC epilogue over 8 channels writing int8 becomes one loop GCC
    vectorizes (8 lanes of mixed f32 and i8 do not: cnn_int8's TOSA form, 34 -> 14 us)."""
    if len(order) < 2:
        return False
    a, b = order[-2], order[-1]
    ext = {d: const_index(lb.ubs[d]) for d in (a, b)}
    if any(ext[d] is None for d in (a, b)) or ext[b] > COALESCE_MAX_INNER:
        return False
    if any(o.name == "linalg.index" for o in op.regions[0].blocks[0].ops):
        return False
    for v, m in zip(op.operands, generic_maps(op)):
        dims = [getattr(e, "pos", None) for e in m.results]
        uses = [d in dims for d in (a, b)]
        if not any(uses) and not any(d in dims_of(e) for e in m.results for d in (a, b)):
            continue
        t = v.type
        if not all(uses) or not isinstance(t, T.MemRefType) or "ireec.c_shape" in getattr(
                v.owner, "attributes", {}):
            return False
        p = dims.index(a)
        if p + 1 >= len(dims) or dims[p + 1] != b or t.shape[p + 1] != ext[b]:
            return False
        strides, _ = strides_and_offset(t)
        if strides is None or strides[p] != ext[b] * strides[p + 1]:
            return False
    return True


def _plain_nest(op: Operation, lb: LoopBounds, order: List[int]):
    """One loop per dim in ``order`` before ``op``: the nest's only section; the two
    innermost as one loop where :func:`_coalescible`."""
    c0, c1 = lb.ib.const(0), lb.ib.const(1)
    ivs: List = [None] * len(lb.ranges)
    inner = lb.ib.b
    merged = _coalescible(op, lb, order)
    loops = order[:-1] if merged else order
    ubs = list(lb.ubs)
    if merged:  # the constant before the outermost loop, like every bound
        ubs[order[-2]] = lb.ib.const(const_index(lb.ubs[order[-2]]) * const_index(lb.ubs[order[-1]]))
    for d in loops:
        body = for_loop(inner, c0, ubs[d], c1)
        ivs[d] = body.args[0]
        inner = Builder(body, 0, op.loc)
    if merged:
        ivs[order[-1]], ivs[order[-2]] = ivs[order[-2]], c0
    return inner, ivs, None


def lower(op: Operation, tiles: Optional[WorkgroupTiles] = None) -> None:
    """Replace memref generic ``op`` by its loop nest (module docstring), over the workgroup
    tile of ``tiles`` (None outside kernels). Raises CompileError for tensor operands or a
    loop range no operand dim gives."""
    check_bufferized(op)
    lb = LoopBounds.build(op, tiles)
    order = loop_order(op, len(lb.ranges), parallel_inner=True)
    maxes = lb.maxes()
    plan = register_block_plan(op, lb.ubs, maxes, order)
    if plan is None:
        sections = [_plain_nest(op, lb, order)]
    else:
        sections = blocked_loops(op, plan, order, lb.ubs, maxes, lb.ib)
    for inner, ivs, acc in sections:
        _Section(op, lb, plan, inner, ivs, acc).emit()
    op.erase()


@register_pass
class ConvertLinalgToLoopsPass(Pass):
    """MLIR's ``convert-linalg-to-loops`` over workgroup tiles: see the module docstring."""

    name = "convert-linalg-to-loops"

    def run(self, module: Operation, ctx: PassContext) -> None:
        set_pack_limit(ctx.max_stack_bytes)
        seen = set()
        for k in kernel_functions(module):
            tiles = WorkgroupTiles.of(k)
            for op in [o for o in k.walk() if o.name == "linalg.generic"]:
                seen.add(id(op))
                if op.parent is not None:
                    lower(op, tiles)
            strip_markers(k)
        for op in [o for o in module.walk() if o.name == "linalg.generic" and id(o) not in seen]:
            lower(op, None)

"""StableHLO → linalg patterns: gather, torch_index_select, dynamic_slice,
dynamic_update_slice and scatter.

Every op becomes one ``linalg.generic`` over its result space whose body computes the
source position with index arithmetic (``linalg.index``, ``arith.index_cast``) and reads
the other tensors with ``tensor.extract`` at that position, the form IREE's
``iree-stablehlo-to-linalg`` gives gather (``GatherConversion``) and that the backend turns
into plain loads. Index semantics follow the StableHLO spec
(https://openxla.org/stablehlo/spec): gather and dynamic_slice clamp start indices so the
slice lies inside the operand; scatter skips updates whose window leaves the operand.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

from ....dialects import linalg
from ....dialects import stablehlo as shlo
from ....ir import types as T
from ....ir.affine import AffineMap
from ....ir.core import Builder, Operation, Value
from ....ir.diagnostics import CompileError
from ._indexing import (Payload, cast_to, empty, map_of, static_shape, tensor_of,
                        with_static_source)
from .common import translate_region


def _parallel(n: int) -> List[str]:
    return ["parallel"] * n


# ------------------------------------------------------------------------ gather
def lower_gather(op: Operation, b: Builder) -> List[Value]:
    """``stablehlo.gather`` (general dimension numbers, batching dims, clamped starts).

    result[r] = operand[full_start + full_batching + full_offset] (spec §gather), one
    ``tensor.extract`` of the operand per result element; start indices are read with
    ``tensor.extract`` from ``start_indices``. ``indices_are_sorted`` is ignored. The op is
    verified first (a gather a pass created, or a ``dynamic_gather`` whose slice sizes
    became constant, has not been), so a malformed one is a located error.
    """
    shlo.verify_gather(op)
    operand, indices = op.operands[0], op.operands[1]
    o_shape = static_shape(operand, op, "the operand")
    i_shape = static_shape(indices, op, "the start indices")
    rt = op.results[0].type
    r_shape = static_shape(op.results[0], op, "the result")
    dn = shlo.gather_dimension_numbers(op)
    sizes = shlo.i64_list(op.attributes.get("slice_sizes"))
    offset_dims = list(dn["offset_dims"])
    collapsed = list(dn["collapsed_slice_dims"])
    obatch = list(dn["operand_batching_dims"])
    ibatch = list(dn["start_indices_batching_dims"])
    start_map = list(dn["start_index_map"])
    ivd = int(dn["index_vector_dim"])
    if len(sizes) != len(o_shape):
        raise CompileError("'stablehlo.gather': slice_sizes must have one entry per operand dim", op.loc)
    batch_dims = [d for d in range(len(r_shape)) if d not in offset_dims]
    offset_operand_dims = [d for d in range(len(o_shape)) if d not in collapsed and d not in obatch]
    rank = len(r_shape)

    def body(sb, args):
        p = Payload(sb)
        batch = [p.loop(d) for d in batch_dims]
        index: List[Optional[Value]] = [None] * len(o_shape)
        for k, d_op in enumerate(start_map):
            pos = list(batch)
            if ivd < len(i_shape):
                pos.insert(ivd, p.const(k))
            s = p.extract_index(indices, pos)
            index[d_op] = p.clamp(s, 0, o_shape[d_op] - sizes[d_op])
        for d_op, d_start in zip(obatch, ibatch):
            v = batch[d_start if d_start < ivd else d_start - 1]
            index[d_op] = v if index[d_op] is None else p.add(index[d_op], v)
        for j, d_op in enumerate(offset_operand_dims):
            v = p.loop(offset_dims[j])
            index[d_op] = v if index[d_op] is None else p.add(index[d_op], v)
        full = [v if v is not None else p.const(0) for v in index]
        return [p.extract(operand, full)]

    init = empty(b, tensor_of(r_shape, rt.element_type))
    g = linalg.build_generic([], [init], [AffineMap.identity(rank)], _parallel(rank), body, builder=b)
    return [g.results[0]]


# ------------------------------------------------------------ torch_index_select
def lower_torch_index_select(op: Operation, b: Builder) -> List[Value]:
    """``stablehlo.torch_index_select`` (``dim``, ``batch_dims``): result dims are
    operand[:dim] ++ index[batch_dims:] ++ operand[dim+1:], and
    result[p, q, s] = operand[p, index[p[:batch_dims], q], s] (torch.index_select /
    gather with batch dims). Index values are clamped to the operand's extent.
    Dynamic dims that the producers make static (constants behind ``tensor.cast``) are
    refined; the result is cast back to the op's declared type.
    """
    operand = with_static_source(b, op.operands[0])
    index = with_static_source(b, op.operands[1])
    o_shape = static_shape(operand, op, "the operand")
    i_shape = static_shape(index, op, "the index")
    dim = shlo.int_attr(op, "dim", 0)
    nb = shlo.int_attr(op, "batch_dims", 0)
    if dim < 0:
        dim += len(o_shape)
    if nb < 0:
        nb += len(i_shape)
    q_rank = len(i_shape) - nb
    r_shape = tuple(o_shape[:dim]) + tuple(i_shape[nb:]) + tuple(o_shape[dim + 1:])
    et = op.results[0].type.element_type

    def body(sb, args):
        p = Payload(sb)
        pos = [p.loop(d) for d in range(nb)] + [p.loop(dim + j) for j in range(q_rank)]
        i = p.clamp(p.extract_index(index, pos), 0, o_shape[dim] - 1)
        full = ([p.loop(d) for d in range(dim)] + [i]
                + [p.loop(dim + q_rank + j) for j in range(len(o_shape) - dim - 1)])
        return [p.extract(operand, full)]

    rank = len(r_shape)
    init = empty(b, tensor_of(r_shape, et))
    g = linalg.build_generic([], [init], [AffineMap.identity(rank)], _parallel(rank), body, builder=b)
    return [cast_to(b, g.results[0], op.results[0].type)]


# ----------------------------------------------------------------- dynamic_slice
def lower_dynamic_slice(op: Operation, b: Builder) -> List[Value]:
    """``stablehlo.dynamic_slice``: result[i] = operand[clamp(start, 0, dim - size) + i]
    (spec §dynamic_slice); the rank-0 start index tensors are read with
    ``tensor.extract``."""
    operand = op.operands[0]
    starts = op.operands[1:]
    o_shape = static_shape(operand, op, "the operand")
    sizes = shlo.i64_list(op.attributes.get("slice_sizes"))
    if len(starts) != len(o_shape) or len(sizes) != len(o_shape):
        raise CompileError("'stablehlo.dynamic_slice': one start index and size per dim expected", op.loc)
    rank = len(o_shape)

    def body(sb, args):
        p = Payload(sb)
        full = []
        for d in range(rank):
            s = p.clamp(p.extract_index(starts[d], []), 0, o_shape[d] - sizes[d])
            full.append(p.add(s, p.loop(d)))
        return [p.extract(operand, full)]

    init = empty(b, tensor_of(sizes, operand.type.element_type))
    g = linalg.build_generic([], [init], [AffineMap.identity(rank)], _parallel(rank), body, builder=b)
    return [cast_to(b, g.results[0], op.results[0].type)]


# ---------------------------------------------------------- dynamic_update_slice
def lower_dynamic_update_slice(op: Operation, b: Builder) -> List[Value]:
    """``stablehlo.dynamic_update_slice``: result = operand with ``update`` written at
    clamp(start, 0, dim - update_dim) (spec §dynamic_update_slice). One generic over the
    result reading the operand element and, inside the window, the update element."""
    operand, update = op.operands[0], op.operands[1]
    starts = op.operands[2:]
    o_shape = static_shape(operand, op, "the operand")
    u_shape = static_shape(update, op, "the update")
    rank = len(o_shape)
    if len(starts) != rank or len(u_shape) != rank:
        raise CompileError("'stablehlo.dynamic_update_slice': one start index per dim expected", op.loc)

    def body(sb, args):
        p = Payload(sb)
        inside = None
        upos = []
        for d in range(rank):
            s = p.clamp(p.extract_index(starts[d], []), 0, o_shape[d] - u_shape[d])
            rel = p.sub(p.loop(d), s)
            inside = p.and_(inside, p.in_range(rel, 0, u_shape[d]))
            upos.append(rel)
        if inside is None:  # rank 0: the update replaces the operand
            return [p.extract(update, [])]
        safe = [p.clamp(v, 0, u_shape[d] - 1) for d, v in enumerate(upos)]
        u = p.extract(update, safe)
        return [p.select(inside, u, args[0])]

    init = empty(b, tensor_of(o_shape, operand.type.element_type))
    ident = AffineMap.identity(rank)
    g = linalg.build_generic([operand], [init], [ident, ident], _parallel(rank), body, builder=b)
    return [cast_to(b, g.results[0], op.results[0].type)]


# ----------------------------------------------------------------------- scatter
@dataclass
class _ScatterDims:
    """The static geometry of one ``stablehlo.scatter``: shapes of the (first) operand,
    the scatter indices and the (first) updates, its dimension numbers, the update dims
    that are scatter dims and the operand dims that are window dims (with their sizes)."""

    o_shape: Tuple[int, ...]
    i_shape: Tuple[int, ...]
    u_shape: Tuple[int, ...]
    uwd: List[int]
    ibatch: List[int]
    sbatch: List[int]
    to_operand: List[int]
    ivd: int
    scatter_dims: List[int]
    window_operand_dims: List[int]
    window_size: Dict[int, int]

    @classmethod
    def of(cls, op: Operation, operand: Value, indices: Value, update: Value) -> "_ScatterDims":
        """Read them off ``op``; CompileError for dynamic shapes or update_window_dims that
        do not match the operand's window dims."""
        o_shape = static_shape(operand, op, "the operand")
        i_shape = static_shape(indices, op, "the scatter indices")
        u_shape = static_shape(update, op, "the updates")
        dn = shlo.scatter_dimension_numbers(op)
        uwd = list(dn["update_window_dims"])
        inserted = list(dn["inserted_window_dims"])
        ibatch = list(dn["input_batching_dims"])
        rank = len(o_shape)
        window_operand_dims = [d for d in range(rank) if d not in inserted and d not in ibatch]
        if len(window_operand_dims) != len(uwd):
            raise CompileError("'stablehlo.scatter': update_window_dims do not match the operand", op.loc)
        return cls(o_shape, i_shape, u_shape, uwd, ibatch, list(dn["scatter_indices_batching_dims"]),
                   list(dn["scatter_dims_to_operand_dims"]), int(dn["index_vector_dim"]),
                   [d for d in range(len(u_shape)) if d not in uwd], window_operand_dims,
                   {d_op: u_shape[uwd[j]] for j, d_op in enumerate(window_operand_dims)})

    def start(self, p: Payload, srow: List[Value], indices: Value) -> List[Optional[Value]]:
        """The operand position where the window of scatter position ``srow`` starts (None
        in the dims no index or batching dim names)."""
        start: List[Optional[Value]] = [None] * len(self.o_shape)
        for k, d_op in enumerate(self.to_operand):
            pos = list(srow)
            if self.ivd < len(self.i_shape):
                pos.insert(self.ivd, p.const(k))
            start[d_op] = p.extract_index(indices, pos)
        for d_op, d_start in zip(self.ibatch, self.sbatch):
            v = srow[d_start if d_start < self.ivd else d_start - 1]
            start[d_op] = v if start[d_op] is None else p.add(start[d_op], v)
        return start

    def hit(self, p: Payload, start: List[Optional[Value]]):
        """(an i1: the result element at ``linalg.index`` lies in the window starting at
        ``start`` and that window fits in the operand, None for a rank-0 operand;
        {window dim: window position, clamped into the window}). The window covers
        start[d] + [0, window_size[d]) in each window dim and exactly start[d] in
        inserted/batching dims."""
        hit = None
        fits = None
        wpos = {}
        for d in range(len(self.o_shape)):
            s = start[d] if start[d] is not None else p.const(0)
            if d in self.window_size:
                rel = p.sub(p.loop(d), s)
                hit = p.and_(hit, p.in_range(rel, 0, self.window_size[d]))
                fits = p.and_(fits, p.in_range(s, 0, self.o_shape[d] - self.window_size[d] + 1))
                wpos[d] = p.clamp(rel, 0, self.window_size[d] - 1)
            else:
                hit = p.and_(hit, p.cmp("eq", p.loop(d), s))
        if fits is not None:
            hit = p.and_(hit, fits)
        return hit, wpos

    def update_pos(self, srow: List[Value], wpos: Dict[int, Value]) -> List[Value]:
        """The updates position: scatter dims from ``srow``, window dims from ``wpos``."""
        upos: List[Value] = [None] * len(self.u_shape)  # type: ignore[list-item]
        for k, d in enumerate(self.scatter_dims):
            upos[d] = srow[k]
        for j, d_op in enumerate(self.window_operand_dims):
            upos[self.uwd[j]] = wpos[d_op]
        return upos


def lower_scatter(op: Operation, b: Builder) -> List[Value]:
    """``stablehlo.scatter`` with any update computation, N operands, update window dims,
    inserted and batching dims (spec §scatter).

    One linalg.generic whose loops are the result dims (parallel) followed by the update
    scatter dims (reduction, visited in row-major order). For result element ``r`` and
    scatter position ``s`` the body computes the window's start in the operand, the window
    position ``r - start`` and whether it lies inside the update window; if so the update
    computation combines the running value with ``updates[s, window position]``
    (``tensor.extract``). Updates therefore apply in order, so duplicate indices are
    exact even when ``unique_indices`` is false; a window that does not fit in the operand
    is skipped, as the spec says. Cost: |result| x |scatter positions| body evaluations.
    The op is verified first, as gather is.
    """
    shlo.verify_scatter(op)
    n = (len(op.operands) - 1) // 2
    operands = op.operands[:n]
    indices = op.operands[n]
    updates = op.operands[n + 1:]
    geo = _ScatterDims.of(op, operands[0], indices, updates[0])
    rank = len(geo.o_shape)
    ns = len(geo.scatter_dims)
    num_loops = rank + ns
    region = op.regions[0]

    def body(sb, args):
        p = Payload(sb)
        srow = [p.loop(rank + k) for k in range(ns)]  # update scatter index
        hit, wpos = geo.hit(p, geo.start(p, srow, indices))
        upos = geo.update_pos(srow, wpos)
        cur = args[1:1 + n]  # args[0] is the unread span element
        upd = [p.extract(u, upos) for u in updates]
        combined = translate_region(sb, region, list(cur) + upd)
        if hit is None:
            return combined
        return [p.select(hit, c, x) for c, x in zip(combined, cur)]

    # The reduction loops need an operand that spans them: an (unread) tensor.empty of the
    # scatter dims' shape. (The scatter indices would do, but elementwise fusion may fuse
    # their producer away or fold them when they are a splat, leaving the loops unbounded.)
    span = empty(b, tensor_of([geo.u_shape[d] for d in geo.scatter_dims], T.i8))
    imap = list(range(rank, rank + ns))
    maps = [map_of(num_loops, imap)] + [map_of(num_loops, range(rank))] * n
    iters = _parallel(rank) + ["reduction"] * ns
    outs = list(operands)
    g = linalg.build_generic([span], outs, maps, iters, body, builder=b)
    return [cast_to(b, r, res.type) for r, res in zip(g.results, op.results)]


PATTERNS = {
    "stablehlo.gather": lower_gather,
    "stablehlo.torch_index_select": lower_torch_index_select,
    "stablehlo.dynamic_slice": lower_dynamic_slice,
    "stablehlo.dynamic_update_slice": lower_dynamic_update_slice,
    "stablehlo.scatter": lower_scatter,
}

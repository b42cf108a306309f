"""Which loops of a fused group of linalg ops can be distributed over workgroups, and how.

Shared by dispatch formation (flow: may a consumer join a root's region without making its
intermediates big?) and the CPU lowering configuration (hal: tile sizes and workgroup count).

The model mirrors IREE's tile-and-fuse on workgroups (``TileAndDistributeToWorkgroupsUsingForallOp``
after ``LLVMCPUSelectLoweringStrategy``): the dims of the group's *anchor* (its last op) that
are parallel are tiled; every other op of the group is fused into the anchor's tile, which is
legal for a distributed dim ``δ`` when each op has a parallel loop carrying ``δ`` and every
tensor passed between two ops of the group is written and read at the same index along
``δ`` (a plain loop dim in both indexing maps). Each such intermediate then only needs a
per-tile temporary (tile size along the carried dims, full size along the others).

A static ``tensor.pad`` fused into its convolution consumer's group (IREE's
``FusePadWithConsumer``, see :mod:`..flow.form_dispatch_regions`) takes part as an op with
one parallel loop per dim and identity maps for its source and result: it carries its
unpadded dims unchanged (source index = result index there) and none of its padded dims, so
its per-tile temporary is the padded tile (tile size along the carried dims, full along the
padded ones). A dim its consumer does not read it along (a regular convolution's output
channels) is distributed too: each workgroup computes the pad whole along it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

from ...dialects import linalg as L
from ...ir import types as T
from ...ir.affine import AffineBinary, AffineConst, AffineDim, AffineExpr, AffineMap
from ...ir.core import Operation, Value

#: IREE's LLVMCPU ``max_stack_allocation_size`` (bytes of per-workgroup temporaries).
MAX_STACK_BYTES = 32768

#: Output pixels of a convolution (per workgroup, all of its image) below which its
#: workgroups are cut along the output channels instead of the rows, on targets whose
#: workgroups run concurrently (ireec/passes/hal/select_lowering_strategy.py): the GEMM's rows
#: are the pixels, and a few of them cut in two (ResNet's 3x3 and 5x5 images: 6 + 3, 15 + 10
#: rows) leave each thread a partial register tile (8 rows on AVX-512) and rows that go
#: through the one-row kernel, so two threads took as long as one. Each half of the channels
#: keeps all the rows (each thread packs the same few patches: a 3x3 image of 96 channels,
#: 9 x 864 floats). Dispatch formation fuses a small pad into such a convolution whoever
#: divides it (ireec/passes/flow/form_dispatch_regions.py): its rows are not cut anyway.
SMALL_GEMM_PIXELS = 64


def stack_budget(max_stack_bytes=None) -> int:
    """Bytes of per-workgroup temporaries a kernel may hold: :data:`MAX_STACK_BYTES`, or half
    of ``--max-stack-bytes`` when that is smaller (the other half is left to micro-kernel
    work arrays and call frames, as the micro-kernel blocking does)."""
    if max_stack_bytes is None:
        return MAX_STACK_BYTES
    return max(1, min(MAX_STACK_BYTES, int(max_stack_bytes) // 2))


#: Iterations (loop-nest points) one workgroup should execute at least, when it can.
WORKGROUP_WORK = 32768
#: Largest tile along a distributed dim.
MAX_TILE = 4096
#: Tile of the M and N dims of contractions/convolutions (IREE's default distribution tile).
CONTRACTION_TILE = 64


def is_contraction_like(op: Operation) -> bool:
    """Named matmul/conv/pooling ops, and generics shaped like them (IREE's
    ``isaContractionOpInterface`` / conv checks, structurally): reduction loops and at least
    two shaped inputs, each of them broadcast along some parallel loop (matmul: A lacks j, B
    lacks i; conv: the input lacks f, the filter lacks n, oh, ow). A row sum of ``a + b``
    (both inputs read at every loop) is not."""
    short = op.name[len("linalg."):] if op.name.startswith("linalg.") else ""
    if short in L.NAMED_SPECS:
        return True
    if op.name != "linalg.generic":
        return False
    its = op_iterators(op)
    if L.REDUCTION not in its:
        return False
    ins = L.inputs(op)
    maps = op_maps(op)[:len(ins)]
    shaped = [m for v, m in zip(ins, maps) if isinstance(v.type, T.ShapedType) and m.results]
    if len(shaped) < 2:
        return False
    par = {d for d, it in enumerate(its) if it == L.PARALLEL}
    for m in shaped:
        used = {e.pos for e in m.results if isinstance(e, AffineDim)}
        for e in m.results:
            used |= dims_of(e)
        if par <= used:
            return False
    return True


def dims_of(e: AffineExpr) -> set:
    """The loop dims an affine expression reads (``d1 * 2 + d4`` -> {1, 4})."""
    if isinstance(e, AffineDim):
        return {e.pos}
    if isinstance(e, AffineBinary):
        return dims_of(e.lhs) | dims_of(e.rhs)
    return set()


def is_static_pad(op: Operation) -> bool:
    """A ``tensor.pad`` with static low/high padding (no dynamic operands) between static
    shapes: the pad a convolution's dispatch may compute per tile."""
    if op.name != "tensor.pad" or len(op.operands) != 1 or len(op.results) != 1:
        return False
    low, high = op.attributes.get("static_low"), op.attributes.get("static_high")
    if low is None or high is None or any(x < 0 for x in list(low.value) + list(high.value)):
        return False
    src, res = op.operands[0].type, op.results[0].type
    return all(isinstance(t, T.TensorType) and t.has_static_shape for t in (src, res))


def padded_dims(op: Operation) -> set:
    """Dims of a static ``tensor.pad`` with low or high padding (its other dims: source
    index = result index)."""
    low, high = op.attributes["static_low"].value, op.attributes["static_high"].value
    return {d for d, (lo, hi) in enumerate(zip(low, high)) if lo or hi}


def is_tileable(op: Operation) -> bool:
    """Ops :func:`analyze` models: linalg structured ops and static pads."""
    return L.is_linalg_structured(op) or is_static_pad(op)


def op_inputs(op: Operation) -> List[Value]:
    """The inputs of a structured op (``ins``), or a static pad's source."""
    return [op.operands[0]] if op.name == "tensor.pad" else L.inputs(op)


def op_maps(op: Operation) -> List[AffineMap]:
    """Indexing maps of a structured op; a static pad's are identities (source, result)."""
    if op.name == "tensor.pad":
        rank = op.results[0].type.rank
        return [AffineMap.identity(rank)] * 2
    return L.indexing_maps(op)


def op_iterators(op: Operation) -> List[str]:
    """Iterator types of a structured op; a static pad's loops are all parallel."""
    if op.name == "tensor.pad":
        return [L.PARALLEL] * op.results[0].type.rank
    return L.iterator_types(op)


def _dim_pos(e: AffineExpr) -> Optional[int]:
    return e.pos if isinstance(e, AffineDim) else None


@dataclass
class Distribution:
    """Result of :func:`analyze`.

    ``extents[k]``: size of distributed dim ``k`` (outermost first; at most 3, the last is
    the workgroup x axis). ``loop_dims[op][k]``: loop dim of ``op`` carrying dim ``k`` (-1:
    a pad each workgroup computes whole along it, see :func:`_replicable`).
    ``carried[value][k]``: tensor dim of an intermediate/result ``value`` carrying dim ``k``
    (-1: none).
    """

    extents: List[int] = field(default_factory=list)
    loop_dims: Dict[Operation, List[int]] = field(default_factory=dict)
    carried: Dict[Value, List[int]] = field(default_factory=dict)


def _results_of(op: Operation) -> List[Value]:
    return [r for r in op.results if isinstance(r.type, T.TensorType)]


def _trace(ops: Sequence[Operation], anchor: Operation, start: int
           ) -> Optional[Tuple[Dict[Operation, int], Dict[Value, int]]]:
    """Follow loop dim ``start`` of ``anchor`` through the group; None when it cannot be
    distributed (an op without a parallel loop for it, or inconsistent indexing)."""
    in_group = set(id(o) for o in ops)
    loop: Dict[Operation, int] = {anchor: start}
    carried: Dict[Value, int] = {}
    replicated: set = set()
    work = [anchor]
    while work:
        op = work.pop()
        d = loop[op]
        if op_iterators(op)[d] != L.PARALLEL:
            return None
        if op.name == "tensor.pad" and d in padded_dims(op):
            return None  # a padded dim is never distributed through the pad
        maps = op_maps(op)
        n_in = len(op_inputs(op))
        # Results: the output maps say which tensor dim carries d.
        for k, r in enumerate(op.results):
            m = maps[n_in + k]
            pos = [t for t, e in enumerate(m.results) if _dim_pos(e) == d]
            if len(pos) != 1:
                return None
            if carried.setdefault(r, pos[0]) != pos[0]:
                return None
            for user in r.users:
                if id(user) in in_group and not _visit_user(user, r, pos[0], loop, work):
                    return None
        # Operands produced inside the group.
        for v, m in zip(op.operands, maps):
            p = v.owner
            if not (isinstance(p, Operation) and id(p) in in_group):
                continue
            pos = [t for t, e in enumerate(m.results) if _dim_pos(e) == d]
            if not pos and _replicable(p, m, d, in_group):
                replicated.add(id(p))
                continue
            if len(pos) != 1:
                return None
            if carried.setdefault(v, pos[0]) != pos[0]:
                return None
            pm = op_maps(p)[len(op_inputs(p)) + v.index]
            pd = _dim_pos(pm.results[pos[0]])
            if pd is None:
                return None
            if p in loop:
                if loop[p] != pd:
                    return None
            else:
                loop[p] = pd
                work.append(p)
    if len(loop) + len(replicated - set(id(o) for o in loop)) != len(ops):
        return None
    return loop, carried


def _replicable(p: Operation, m: AffineMap, d: int, in_group: set) -> bool:
    """A static pad ``p`` read through map ``m`` that does not involve loop ``d`` at all (a
    regular convolution's image, not indexed by its output channels) whose source comes from
    outside the group: each workgroup along ``d`` computes it whole (no loop of ``p`` carries
    ``d``), as tiling the consumer along a dim its operand lacks does in IREE."""
    if not is_static_pad(p) or any(d in dims_of(e) for e in m.results):
        return False
    src = p.operands[0].owner
    return not (isinstance(src, Operation) and id(src) in in_group)


def _visit_user(user: Operation, v: Value, t: int, loop, work) -> bool:
    """``user`` reads ``v`` whose dim ``t`` is distributed: its loop for it is read off its map."""
    for k, (u, m) in enumerate(zip(user.operands, op_maps(user))):
        if u is not v:
            continue
        d = _dim_pos(m.results[t])
        if d is None:
            return False
        if user in loop:
            if loop[user] != d:
                return False
        else:
            loop[user] = d
            work.append(user)
    return True


def analyze(ops: Sequence[Operation], anchor: Optional[Operation] = None) -> Distribution:
    """Distributable dims of the group ``ops`` (linalg structured ops on tensors and static
    pads, :func:`is_tileable`, in program order; ``anchor``, a structured op, defaults to the
    last). Candidates are the anchor's parallel loops in the order of its first result's
    dims; the innermost three that survive are kept."""
    ops = list(ops)
    if not ops or not all(is_tileable(o) for o in ops):
        return Distribution()
    anchor = anchor or ops[-1]
    if not L.is_linalg_structured(anchor):
        return Distribution()
    maps = op_maps(anchor)
    n_in = len(L.inputs(anchor))
    if not anchor.results:
        return Distribution()
    out_map = maps[n_in]
    ranges = L.loop_ranges(anchor)
    found = []
    for e in out_map.results:
        d = _dim_pos(e)
        if d is None or ranges[d] is None:
            continue
        tr = _trace(ops, anchor, d)
        if tr is None:
            continue
        loop, carried = tr
        # Two distributed dims may not share a loop of any op.
        if any(any(o in loop and loop[o] == f[0].get(o) for o in ops) for f in found):
            continue
        found.append((loop, carried, ranges[d]))
    found = found[-3:]
    dist = Distribution(extents=[f[2] for f in found])
    for o in ops:
        dist.loop_dims[o] = [f[0].get(o, -1) for f in found]  # -1: computed whole along it
    for k, f in enumerate(found):
        for v, t in f[1].items():
            dist.carried.setdefault(v, [-1] * len(found))[k] = t
    return dist


def temporaries(ops: Sequence[Operation], dist: Distribution, tiles: Sequence[int],
                stored: Sequence[Value] = ()) -> int:
    """Bytes of per-tile temporaries for the group: each intermediate (a tensor result not
    in ``stored``) at tile size along its carried dims, full size along the others. Fills,
    and results read only as the init of another op of the group, are written into that
    op's destination (destination-passing bufferization): no buffer of their own."""
    stored_ids = set(id(v) for v in stored)
    in_group = set(id(o) for o in ops)
    total = 0
    for o in ops:
        if o.name == "linalg.fill":
            continue  # fills are written into their consumer's destination
        for r in _results_of(o):
            if id(r) in stored_ids or _only_init_in_group(r, in_group):
                continue
            shape = list(r.type.shape)
            carried = dist.carried.get(r, [])
            for k, t in enumerate(carried):
                if k < len(tiles) and t >= 0:
                    shape[t] = min(shape[t], tiles[k])
            n = 1
            for s in shape:
                n *= s
            total += n * max(1, T.bit_width(r.type.element_type) // 8)
    return total


def _only_init_in_group(v: Value, in_group: set) -> bool:
    """``v`` is used, and only as the init (``outs``) of structured ops of the group."""
    uses = list(v.uses)
    return bool(uses) and all(
        id(u) in in_group and L.is_linalg_structured(u) and k >= len(L.inputs(u)) for u, k in uses)


def _pow2_floor(x: int) -> int:
    p = 1
    while p * 2 <= x:
        p *= 2
    return p


def choose_tile_sizes(ops: Sequence[Operation], dist: Distribution, root: Operation,
                      stored: Sequence[Value] = (), stack_bytes: int = MAX_STACK_BYTES) -> List[int]:
    """Tile size per distributed dim (outermost first).

    Contractions and convolutions take IREE's default distribution tile
    (:data:`CONTRACTION_TILE` along their innermost two distributed dims, 1 along outer ones,
    e.g. batch). Other groups aim at :data:`WORKGROUP_WORK` loop iterations per workgroup,
    counting the root's reduction loops, with power-of-two tiles filled from the innermost dim
    outwards (a 100000x100 row sum: 32768 // 100 = 327 → tile 256 → 391 workgroups). Tiles are
    then halved (largest first) until the per-tile temporaries fit ``stack_bytes``
    (:data:`MAX_STACK_BYTES`; see :func:`stack_budget`).
    """
    n = len(dist.extents)
    tiles = [1] * n
    if n == 0:
        return tiles
    if is_contraction_like(root):
        for k in range(n):
            tiles[k] = min(dist.extents[k], CONTRACTION_TILE) if k >= n - 2 else 1
    else:
        ranges = L.loop_ranges(root)
        its = op_iterators(root)
        red = 1
        for r, it in zip(ranges, its):
            if it == L.REDUCTION and r:
                red *= r
        budget = max(1, WORKGROUP_WORK // red)
        for k in reversed(range(n)):
            e = dist.extents[k]
            if e <= budget and e <= MAX_TILE:
                t = max(1, e)  # an empty dim (extent 0) keeps tile 1
            else:
                t = _pow2_floor(max(1, min(budget, MAX_TILE)))
            tiles[k] = t
            budget = max(1, budget // t)
    while temporaries(ops, dist, tiles, stored) > stack_bytes and any(t > 1 for t in tiles):
        k = max(range(n), key=lambda i: (tiles[i], i))
        tiles[k] = max(1, tiles[k] // 2)
    return tiles


def substitute(e: AffineExpr, dims: Sequence[AffineExpr]) -> AffineExpr:
    """``e`` with each ``d_i`` replaced by ``dims[i]`` (composition of affine maps)."""
    if isinstance(e, AffineDim):
        return dims[e.pos]
    if isinstance(e, AffineBinary):
        return AffineBinary(e.kind, substitute(e.lhs, dims), substitute(e.rhs, dims))
    return e


def compose(outer: AffineMap, inner: AffineMap) -> AffineMap:
    """``outer ∘ inner``: apply ``inner`` then ``outer`` (inner's results are outer's dims)."""
    return AffineMap(inner.num_dims, inner.num_symbols,
                     tuple(substitute(e, inner.results) for e in outer.results))


def inverse_permutation(m: AffineMap) -> Optional[AffineMap]:
    """Inverse of a permutation map (None when ``m`` is not a permutation)."""
    if len(m.results) != m.num_dims:
        return None
    pos = [_dim_pos(e) for e in m.results]
    if None in pos or sorted(pos) != list(range(m.num_dims)):
        return None
    inv = [0] * m.num_dims
    for i, p in enumerate(pos):
        inv[p] = i
    return AffineMap.from_dims(m.num_dims, inv)


def const_expr(v: int) -> AffineExpr:
    return AffineConst(v)

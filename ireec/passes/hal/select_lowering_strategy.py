"""Choose a lowering configuration per kernel: distributed dims, tile sizes, workgroup count.

Mirrors IREE's ``iree-llvmcpu-select-lowering-strategy`` (KernelDispatch.cpp) together with
the workgroup-count computation of ``TileAndDistributeToWorkgroups``. For each kernel whose
tensor ops are all linalg structured ops (after generalization):

* :func:`..common.distribution.analyze` finds the dims every op of the fused group can be
  tiled along (at most three, innermost last) and
  :func:`..common.distribution.choose_tile_sizes` picks their tile sizes;
* the root op (the one the dispatch is named after) gets
  ``lowering_config = #iree_codegen.lowering_config<tile_sizes = [[t0, t1, ...]]>`` (one entry
  per loop of the root, 0 = not distributed), as IREE prints it;
* every linalg op gets ``ireec.distribute = array<i64: ...>``, its loop dim carrying each
  distributed dim, read by bufferization (per-tile temporaries) and loop lowering;
* the kernel gets ``ireec.distribution = array<i64: extent0, tile0, extent1, tile1, ...>`` and
  ``translation_info``; the export gets ``workgroup_count = array<i64: x, y, z>`` with
  ``ceil(extent / tile)`` per distributed dim (x = innermost) and ``workgroup_size = [1, 1, 1]``
  (a CPU workgroup is one invocation).

A static ``tensor.pad`` fused into its convolution's kernel (see
:mod:`..flow.form_dispatch_regions`) is part of the group: it carries its unpadded dims
(:mod:`..common.distribution`), gets ``ireec.distribute`` like the linalg ops, and its
padded tile is a per-tile temporary, which the tile sizes keep under the stack budget
(:func:`..common.distribution.stack_budget`: ``--max-stack-bytes`` lowers it). The padded
image of an im2col convolution is not (:func:`_padded_images`): its packing reads the pad's
source, so the rows are distributed as without the pad.

Kernels holding other tensor ops (pad, slices, concat, ...) run as one workgroup, except a
kernel that is one large ``tensor.pad`` on a target whose workgroups run concurrently: it is
cut in two along its outermost unpadded dim (:func:`_distribute_pad`).

A root that the target computes with a micro-kernel (``Target.ukernels``; an f32 contraction,
or an 8-bit integer one for ``ireec_uk_igemm``, :mod:`.ukernels`) gets the micro-kernel's
workgroup tiles and cache blocking instead:
``lowering_config = #iree_codegen.lowering_config<tile_sizes = [[MT, NT, 0], [MC, NC, KC]]>``,
``iree_codegen.ukernel = #iree_codegen.ukernel_descriptor<"ireec_uk_sgemm", memref>`` (or
``"ireec_uk_igemm"``) and ``ireec.ukernel_blocking = array<i64: MC, NC, KC>`` (read by loop
lowering). A convolution it computes by im2col (:mod:`.im2col`; f32, or 8-bit with zero
points through ``ireec_uk_igemm``) gets whole-extent tiles along its output channels and pixels (split for concurrency as other kernels), the same descriptor
and blocking (at the output-channel dim, the GEMM's pixel dim and the outermost reduction
dim) and ``ireec.im2col = array<i64: K, pixels>`` (window length, output pixels per packed
chunk).

A depthwise convolution (:func:`.ukernels.match_dwconv`) keeps the tiles chosen for it as
for any kernel and gets ``iree_codegen.ukernel =
#iree_codegen.ukernel_descriptor<"ireec_uk_dwconv", memref>``: loop lowering calls the
micro-kernel on each workgroup's tile.
"""
from __future__ import annotations

import math
from typing import List, Optional

from ...dialects import linalg as L
from ...ir import types as T
from ...ir.attributes import DenseArrayAttr, OpaqueAttr
from ...ir.core import Operation
from ..common.distribution import (MAX_STACK_BYTES, SMALL_GEMM_PIXELS, analyze, choose_tile_sizes,
                                   is_tileable, op_inputs, stack_budget, temporaries)
from ..flow.outline_dispatch_regions import root_op
from ..pass_base import Pass, PassContext, register_pass
from . import dwconv_padding as DP
from . import im2col as IM
from . import ukernels as UK
from .memref_utils import loop_order

_NEUTRAL = {"hal.interface.binding.subspan", "flow.dispatch.tensor.load", "flow.dispatch.tensor.store",
            "tensor.empty", "arith.constant", "func.return"}


def compute_ops(ops: List[Operation]) -> List[Operation]:
    """The ops of a kernel body that compute: all but :data:`_NEUTRAL`, and but a
    ``tensor.extract_slice`` read only by linalg ops as an input (cloned into the dispatch by
    form-dispatch-regions: a view of the binding, like the load it slices, not a result)."""
    def view(o: Operation) -> bool:
        return o.name == "tensor.extract_slice" and bool(o.results[0].uses) and all(
            L.is_linalg_structured(u) and k < len(L.inputs(u)) for u, k in o.results[0].uses)

    return [o for o in ops if o.name not in _NEUTRAL and not view(o)]


def ceil_div(a: int, b: int) -> int:
    """``ceil(a / b)`` for positive ints."""
    return -(-a // b)


def configure_kernel(kernel: Operation, export: Operation, ctx: PassContext = None) -> List[int]:
    """Annotate ``kernel`` (a func.func on tensors) and its ``export``; return the workgroup
    count (x, y, z). ``ctx`` gives the target (its micro-kernels) and ``max_stack_bytes``."""
    ops = list(kernel.body.ops)
    compute = compute_ops(ops)
    folded = _padded_images(compute, ctx)
    compute = [o for o in compute if o not in folded]
    count = [1, 1, 1]
    structured = bool(compute) and all(is_tileable(o) for o in compute)
    tiles: List[int] = []
    dist = None
    if structured:
        try:
            dist = analyze(compute)
        except (ValueError, KeyError):
            dist = None
    root = root_op(compute) if compute else None
    if dist is not None and dist.extents:
        stored = [o.operands[0] for o in ops if o.name == "flow.dispatch.tensor.store"]
        tiles = choose_tile_sizes(compute, dist, root, stored,
                                  stack_budget(ctx.max_stack_bytes if ctx is not None else None))
        sgemm = _sgemm_tiles(root, compute, dist, stored, ctx)
        if sgemm is None:
            sgemm = _im2col_tiles(root, compute, dist, stored, ctx)
        if sgemm is not None:
            tiles = sgemm
        elif ctx is not None and getattr(ctx.target, "concurrent_workgroups", False):
            tiles = split_for_concurrency(dist.extents, tiles, root)
        tiles = [max(1, t) for t in tiles]  # an empty dim (extent 0): no workgroups along it
        n = len(tiles)
        for k in range(n):
            count[n - 1 - k] = ceil_div(dist.extents[k], tiles[k])
        for o in compute:
            o.attributes["ireec.distribute"] = DenseArrayAttr(T.i64, tuple(dist.loop_dims[o]))
        flat = []
        for e, t in zip(dist.extents, tiles):
            flat += [e, t]
        kernel.attributes["ireec.distribution"] = DenseArrayAttr(T.i64, tuple(flat))
    elif root is not None and ctx is not None and getattr(ctx.target, "concurrent_workgroups", False):
        count = _distribute_pad(kernel, compute, count)
    if root is not None and L.is_linalg_structured(root):
        per_loop = [0] * len(L.iterator_types(root))
        if dist is not None and dist.extents:
            for k, d in enumerate(dist.loop_dims[root]):
                per_loop[d] = tiles[k]
        levels = [per_loop]
        match = _ukernel_match(root, ctx)
        if match is not None:
            ranges = L.loop_ranges(root)
            m = per_loop[match.i] or ranges[match.i]
            n_ = per_loop[match.j] or ranges[match.j]
            budget = ctx.max_stack_bytes if ctx is not None else None
            integer = isinstance(match, UK.IgemmMatch)
            mc, nc, kc = (UK.igemm_blocking if integer else UK.blocking)(
                m, n_, ranges[match.k], None if budget is None else int(budget) // 2)
            second = [0] * len(per_loop)
            second[match.i], second[match.j], second[match.k] = mc, nc, kc
            levels.append(second)
            root.attributes["iree_codegen.ukernel"] = OpaqueAttr(
                f'#iree_codegen.ukernel_descriptor<"{UK.IGEMM if integer else UK.SGEMM}", memref>')
            root.attributes["ireec.ukernel_blocking"] = DenseArrayAttr(T.i64, (mc, nc, kc))
        else:
            conv = _im2col_match(root, ctx)
            if conv is not None:
                levels += _im2col_config(root, conv, per_loop, ctx)
            elif _dwconv_match(root, ctx) is not None:
                root.attributes["iree_codegen.ukernel"] = OpaqueAttr(
                    f'#iree_codegen.ukernel_descriptor<"{UK.DWCONV}", memref>')
        text = ", ".join("[" + ", ".join(str(t) for t in lv) + "]" for lv in levels)
        root.attributes["lowering_config"] = OpaqueAttr(f"#iree_codegen.lowering_config<tile_sizes = [{text}]>")
    kernel.attributes["translation_info"] = OpaqueAttr(
        "#iree_codegen.translation_info<pipeline = CPUDoubleTilingExpert>" if tiles
        else "#iree_codegen.translation_info<pipeline = CPUDefault>")
    export.attributes["workgroup_count"] = DenseArrayAttr(T.i64, tuple(count))
    export.attributes["workgroup_size"] = DenseArrayAttr(T.i64, (1, 1, 1))
    return count


def _padded_images(compute: List[Operation], ctx: PassContext) -> List[Operation]:
    """The static ``tensor.pad`` ops of a kernel that only pad the image of its root, an
    im2col convolution (:func:`_im2col_match`), whose packing reads their source directly
    (:func:`.padded_image.padded_image`), or a depthwise convolution whose
    micro-kernel reads it unpadded (:func:`.dwconv_padding.folds_tensor_pad`); they take no
    part in the distribution (a workgroup's rows read their own rows of the source) nor in
    the stack budget."""
    root = root_op(compute) if compute else None
    match = _im2col_match(root, ctx) if root is not None else None
    if match is None:
        dw = _dwconv_match(root, ctx) if root is not None else None
        pad = L.inputs(root)[dw.image].owner if dw is not None else None
        if isinstance(pad, Operation) and pad in compute and DP.folds_tensor_pad(root, dw, pad):
            return [pad]
        return []
    pad = L.inputs(root)[match.x].owner
    if (isinstance(pad, Operation) and pad.name == "tensor.pad" and pad in compute
            and len(pad.results[0].uses) == 1):
        return [pad]
    return []


#: Loop iterations (the root's, reductions included) from which a kernel that would run as
#: one workgroup is cut in two on targets whose workgroups run concurrently: each dispatch
#: of a call's parallel region ends at a barrier, so a lone workgroup leaves the other
#: threads waiting (a GELU over 2x16x256, a softmax over 2x4x16 rows of 16).
MIN_SPLIT_ITERATIONS = 1024


def split_for_concurrency(extents: List[int], tiles: List[int], root: Operation) -> List[int]:
    """``tiles`` (one per distributed dim, outermost first), with the outermost distributed
    dim of extent >= 2 cut in two halves when the tiles make a single workgroup and the root
    runs at least :data:`MIN_SPLIT_ITERATIONS` iterations; unchanged otherwise."""
    if any(-(-e // t) > 1 for e, t in zip(extents, tiles)):
        return tiles
    if root is None or not L.is_linalg_structured(root):
        return tiles
    iterations = math.prod(r or 0 for r in L.loop_ranges(root))
    cut = [k for k, e in enumerate(extents) if e >= 2]
    if iterations < MIN_SPLIT_ITERATIONS or not cut:
        return tiles
    out = list(tiles)
    out[cut[0]] = -(-extents[cut[0]] // 2)
    return out


#: Fewest contiguous bytes each workgroup of a distributed pad writes at a time: halves of a
#: dim with less inside (the 3 or 12 channels of an NHWC image, the only unpadded dim
#: after the batch) write alternate pieces of the same cache lines, and the two threads
#: contend for every line. TOSA ResNet's 1x85x85x3 stem pad: 1.8 us on one thread, 41 us cut
#: along its 3 channels on two.
MIN_PAD_RUN_BYTES = 64


def _distribute_pad(kernel: Operation, compute: List[Operation], count: List[int]) -> List[int]:
    """A kernel that is one static ``tensor.pad`` of at least :data:`MIN_SPLIT_ITERATIONS`
    elements, on a target whose workgroups run concurrently: its outermost unpadded dim of
    extent >= 2 (result index = source index there) is cut in two workgroups, each filling
    and copying its half (``ireec.distribute`` on the pad, read by bufferization), so the
    other threads do not wait at the dispatch's barrier. Returns the workgroup count."""
    if len(compute) != 1 or compute[0].name != "tensor.pad":
        return count
    pad = compute[0]
    t = pad.results[0].type
    low, high = pad.attributes.get("static_low"), pad.attributes.get("static_high")
    if low is None or high is None or not t.has_static_shape or t.num_elements < MIN_SPLIT_ITERATIONS:
        return count
    dims = [d for d, (lo, hi) in enumerate(zip(low.value, high.value)) if lo == 0 and hi == 0 and t.shape[d] >= 2]
    if not dims:
        return count
    d = dims[0]
    tile = ceil_div(t.shape[d], 2)
    if tile * math.prod(t.shape[d + 1:]) * T.storage_bytes(t.element_type) < MIN_PAD_RUN_BYTES:
        return count  # the halves would interleave within cache lines (NHWC's channels)
    pad.attributes["ireec.distribute"] = DenseArrayAttr(T.i64, (d,))
    kernel.attributes["ireec.distribution"] = DenseArrayAttr(T.i64, (t.shape[d], tile))
    return [ceil_div(t.shape[d], tile), 1, 1]


def _ukernel_match(root: Operation, ctx: PassContext):
    """The :class:`.ukernels.SgemmMatch` of ``root`` when the target has the sgemm
    micro-kernel and ``root`` is a static f32 contraction it computes, the
    :class:`.ukernels.IgemmMatch` when it has the integer one and ``root`` is a static 8-bit
    contraction (:func:`.ukernels.target_has`), else None."""
    if ctx is None or root is None:
        return None
    match = UK.match_sgemm(root) if UK.target_has(ctx.target, UK.SGEMM) else None
    if match is None and UK.target_has(ctx.target, UK.IGEMM):
        match = UK.match_igemm(root)
    if match is None or any(r is None for r in L.loop_ranges(root)):
        return None
    if match.taps and _im2col_match(root, ctx) is not None:
        return None  # a convolution both take: im2col (see _im2col_match)
    return match


def _im2col_chunk(root: Operation, match, ctx: PassContext, tile_of_dim) -> int:
    """The output pixels per ``Col`` chunk of im2col convolution ``root``
    (:func:`.im2col.plan_chunk`; 0 when none fits the stack budget) for workgroup tiles
    ``tile_of_dim(d)``."""
    ranges = L.loop_ranges(root)
    out_dims = IM.output_dims(root)
    transposed_out = IM.pixels_are_rows(root, match) and out_dims[-1] != match.f
    budget = IM.col_budget(ctx.max_stack_bytes, transposed_out, match.esize * match.k)
    return IM.plan_chunk(match, out_dims, ranges, tile_of_dim, budget, transposed_out)


def _dwconv_match(root: Operation, ctx: PassContext):
    """The :class:`.ukernels.DwconvMatch` of ``root`` when the target has the depthwise
    micro-kernel and ``root`` is a depthwise convolution it computes, else None."""
    if ctx is None or UK.DWCONV not in getattr(ctx.target, "ukernels", ()):
        return None
    if not L.is_linalg_structured(root):
        return None
    return UK.match_dwconv(root, loop_order(root, len(L.iterator_types(root))))


def _sgemm_tiles(root, compute, dist, stored, ctx) -> Optional[List[int]]:
    """Workgroup tiles of a kernel whose root is lowered to the sgemm micro-kernel
    (:data:`.ukernels.WORKGROUP_TILE` along i and j, 1 along batch dims), halved while the
    per-tile temporaries exceed the stack limit; None for other kernels."""
    match = _ukernel_match(root, ctx)
    if match is None:
        return None
    tiles = []
    split = bool(getattr(ctx.target, "concurrent_workgroups", False))
    for k, d in enumerate(dist.loop_dims[root]):
        if d == match.i:
            tiles.append(UK.workgroup_tile(dist.extents[k], UK.WORKGROUP_TILE[0], split))
        elif d == match.j:
            tiles.append(UK.workgroup_tile(dist.extents[k], UK.WORKGROUP_TILE[1], split))
        else:
            tiles.append(1)
    if split:
        _keep_ragged_dim_whole(tiles, [k for k, d in enumerate(dist.loop_dims[root]) if d in (match.i, match.j)],
                               dist.extents, [UK.WORKGROUP_TILE[0] if d == match.i else UK.WORKGROUP_TILE[1]
                                              for d in dist.loop_dims[root] if d in (match.i, match.j)])
    # An odd number (> 1) of workgroups leaves a thread idle at the end: cut the dim with the
    # largest tile into one more part.
    if split:
        count = 1
        for e, t in zip(dist.extents, tiles):
            count *= -(-e // t)
        ij = [k for k, d in enumerate(dist.loop_dims[root]) if d in (match.i, match.j) and tiles[k] > 8]
        if count > 1 and count % 2 and ij:
            k = max(ij, key=lambda x: (tiles[x], x))
            tiles[k] = UK.split_tile(dist.extents[k], -(-dist.extents[k] // tiles[k]) + 1)
    # Fills (generics without shaped inputs, after generalisation) are written into their
    # consumer's destination, not a temporary.
    group = [o for o in compute if any(isinstance(v.type, T.ShapedType) for v in L.inputs(o))]
    while temporaries(group, dist, tiles, stored) > MAX_STACK_BYTES and any(t > 1 for t in tiles):
        k = max(range(len(tiles)), key=lambda x: (tiles[x], x))
        tiles[k] = max(1, tiles[k] // 2)
    return tiles


def _keep_ragged_dim_whole(tiles: List[int], dims: List[int], extents: List[int], limits: List[int]) -> None:
    """Workgroups of equal work: where one of the micro-kernel's two dims (``dims``, positions
    in ``tiles``) is cut raggedly (its last part under 3/4 of a tile: 24 rows as 16 + 8) while the other is already cut into two
    or more equal parts, the ragged dim stays whole (up to its ``limits`` tile), so a static
    schedule gives every thread the same share (16 + 16 against 8 + 8 rows left one thread
    idle half the time)."""
    if len(dims) != 2:
        return
    for a, b, lim in ((dims[0], dims[1], limits[0]), (dims[1], dims[0], limits[1])):
        ea, eb = extents[a], extents[b]
        rest = ea % tiles[a]
        if rest and 4 * rest < 3 * tiles[a] and ea <= lim and eb % tiles[b] == 0 and eb // tiles[b] >= 2:
            tiles[a] = ea


def _im2col_match(root: Operation, ctx: PassContext):
    """The :class:`.im2col.Im2colMatch` of ``root`` when ``root`` is a convolution computed
    by im2col, the target has its micro-kernel (sgemm for f32, igemm for the integer form)
    and that is expected to be faster than the loop nest (:func:`.im2col.profitable`), else
    None."""
    if ctx is None or root is None or not L.is_linalg_structured(root):
        return None
    match = IM.match_im2col(root)
    if match is None or not UK.target_has(ctx.target, UK.IGEMM if match.integer else UK.SGEMM):
        return None
    per_tap = None if match.integer else UK.match_sgemm(root)
    if per_tap is None:
        return match if IM.profitable(root, match) else None
    if not per_tap.taps:
        return None  # a matmul form (a 1x1 window): the sgemm micro-kernel takes it whole
    # A convolution the per-tap sgemm calls of .ukernels also take: im2col where a chunk
    # of its whole window fits the stack (measured: the .im2col module docstring).
    ranges = L.loop_ranges(root)
    return match if _im2col_chunk(root, match, ctx, lambda d: ranges[d]) else None


def _im2col_tiles(root, compute, dist, stored, ctx) -> Optional[List[int]]:
    """Workgroup tiles of a kernel whose root is an im2col convolution: the whole extent
    along the output channels (up to :data:`.ukernels.WORKGROUP_TILE`) and the GEMM's pixel
    dims, 1 along other dims (batch); cut for concurrency as other kernels
    (:func:`split_for_concurrency`; along the output channels where the pixels are few,
    :func:`_split_channels`) and halved (rows first, the GEMM's pixel dim last) while
    the per-tile temporaries exceed the stack limit; None for other kernels."""
    match = _im2col_match(root, ctx)
    if match is None:
        return None
    r, q = IM.gemm_pixel_dims(match, IM.output_dims(root))
    split = bool(getattr(ctx.target, "concurrent_workgroups", False))
    tiles = []
    for k, d in enumerate(dist.loop_dims[root]):
        if d == match.f:  # not cut for concurrency: threads would pack the same patches
            tiles.append(UK.workgroup_tile(dist.extents[k], UK.WORKGROUP_TILE[0], False))
        elif d in (r, q):
            tiles.append(dist.extents[k])
        else:
            tiles.append(1)
    dims = list(dist.loop_dims[root])
    if split and not _split_channels(root, match, dims, dist.extents, tiles):
        # Cut the rows (r) rather than the output channels: each thread then packs only
        # its own patches (few pixels: the channels, :func:`_split_channels`).
        order = sorted(range(len(tiles)), key=lambda x: (dims[x] != r, x))  # r first
        cut = split_for_concurrency([dist.extents[x] for x in order], [tiles[x] for x in order], root)
        for pos, x in enumerate(order):
            tiles[x] = cut[pos]
    # Halve the rows (r) first, then the output channels, then the GEMM's pixel dim q: a
    # chunk of whole rows of q is one flat axis of the GEMM.
    rank = {r: 0, match.f: 1, q: 2}
    group = [o for o in compute if any(isinstance(v.type, T.ShapedType) for v in op_inputs(o))]
    budget = stack_budget(ctx.max_stack_bytes)
    while temporaries(group, dist, tiles, stored) > budget and any(t > 1 for t in tiles):
        k = min((x for x in range(len(tiles)) if tiles[x] > 1), key=lambda x: (rank.get(dims[x], 3), x))
        tiles[k] = max(1, tiles[k] // 2)
    return tiles


#: Least output channels for that cut: both halves pack the same patches (pixels x K
#: floats, element by element), and with fewer channels that duplicated packing costs more
#: than the halved products. ResNet's 5x5 images of 48 channels (K = 432 and 216) took
#: 19.2 and 11.5 us cut in two and 15.7 and 8.6 us as one workgroup; its 3x3 images of 96
#: channels 16 us cut, 23 us whole (torch-mlir resnet18 on openmp and c, this project's
#: 2-core Xeon, per dispatch).
SPLIT_CHANNELS_MIN = 64


def _split_channels(root, match, dims: List[int], extents: List[int], tiles: List[int]) -> bool:
    """Cut the output channels of an im2col convolution in two (``tiles`` updated) when its
    GEMM's rows are few output pixels (:data:`SMALL_GEMM_PIXELS`), it has at least
    :data:`SPLIT_CHANNELS_MIN` channels and its tiles make one workgroup; True when cut."""
    if match.f not in dims or not IM.pixels_are_rows(root, match):
        return False
    if any(-(-e // t) > 1 for e, t in zip(extents, tiles)):
        return False
    pixels = math.prod(e for d, e in zip(dims, extents) if d in match.pixels)
    ranges = L.loop_ranges(root)
    pixels *= math.prod(ranges[d] for d in match.pixels if d not in dims and ranges[d])
    k = dims.index(match.f)
    if pixels >= SMALL_GEMM_PIXELS or extents[k] < SPLIT_CHANNELS_MIN:
        return False
    tiles[k] = UK.split_tile(extents[k], 2)
    return True


def _im2col_config(root: Operation, match, per_loop: List[int], ctx: PassContext) -> List[List[int]]:
    """Mark ``root`` for im2col (module docstring) given its workgroup tile per loop
    (``per_loop``, 0 = whole range); return the blocking level of its lowering config
    (empty when no chunk of pixels fits the stack budget: the plain loop nest is kept)."""
    ranges = L.loop_ranges(root)
    out_dims = IM.output_dims(root)
    budget = ctx.max_stack_bytes
    rows_are_pixels = IM.pixels_are_rows(root, match)  # NHWC or a channels-last filter
    pixels = _im2col_chunk(root, match, ctx, lambda d: per_loop[d] or ranges[d])
    if not pixels:
        return []
    f = per_loop[match.f] or ranges[match.f]
    m, n = (pixels, f) if rows_are_pixels else (f, pixels)
    mc, nc, kc = (UK.igemm_blocking if match.integer else UK.blocking)(
        m, n, match.k, None if budget is None else int(budget) // 2)
    _, q = IM.gemm_pixel_dims(match, out_dims)
    second = [0] * len(per_loop)
    second[q if rows_are_pixels else match.f] = mc
    second[match.f if rows_are_pixels else q] = nc
    second[match.red[0]] = kc
    name = UK.IGEMM if match.integer else UK.SGEMM
    root.attributes["iree_codegen.ukernel"] = OpaqueAttr(f'#iree_codegen.ukernel_descriptor<"{name}", memref>')
    root.attributes["ireec.ukernel_blocking"] = DenseArrayAttr(T.i64, (mc, nc, kc))
    root.attributes["ireec.im2col"] = DenseArrayAttr(T.i64, (match.k, pixels))
    return [second]


@register_pass
class SelectLoweringStrategyPass(Pass):
    """IREE's ``iree-llvmcpu-select-lowering-strategy``: see the module docstring."""

    name = "iree-llvmcpu-select-lowering-strategy"

    def run(self, module: Operation, ctx: PassContext) -> None:
        for exe in [op for op in module.body.ops if op.name == "hal.executable"]:
            exports = {o.attributes["sym_name"].value: o for o in exe.walk() if o.name == "hal.executable.export"}
            for k in [o for o in exe.walk() if o.name == "func.func"]:
                exp = exports.get(k.attributes["sym_name"].value)
                if exp is not None:
                    configure_kernel(k, exp, ctx)

"""Group the ops of each host block into ``flow.dispatch.region``s: roots with their fused
consumers and cloned producers.

Mirrors IREE's DispatchCreation ``FormDispatchRegionsPass`` (with
``CloneProducersIntoDispatchRegions``):

* roots, in program order: linalg ops with reduction loops (matmul, batch_matmul, conv,
  pooling, reductions); then every linalg op left over (elementwise, transposes, broadcasts);
  data-movement tensor ops (pad, slices, concat, generate, insert, ...) are roots of their own
  regions. ``tensor.extract`` of a scalar, ``tensor.from_elements`` and ``tensor.insert`` (IREE's
  ``flow.tensor.load``/``store``) stay on the host.
* a root's group absorbs consumers (generics reading one of its values) when the group stays
  tileable along as many distributed dims as before (see :mod:`..common.distribution`), its
  per-tile temporaries fit the stack, and the region can be placed at its last op (no value of
  the group is used by a host op in between). Contractions are never absorbed; reductions only
  into groups without a contraction (so a softmax is one dispatch).
* a root's group also takes the broadcasts (:func:`is_broadcast_producer`) whose one use is
  the root's init, as IREE fuses a bias broadcast into a contraction's accumulator: the
  kernel writes the bias into its destination tile.
* a convolution (or pooling) root's group takes the static ``tensor.pad`` producing one of
  its inputs (:func:`fusable_pad`: padding value a constant, one use, padded dims read
  through the convolution's window) whose work the workgroups divide (a depthwise
  convolution's channels, a batch), on targets that fuse padding
  (``Target.fuse_padding_into_consumers``; IREE's ``FusePadWithConsumer``,
  ``--iree-dispatch-creation-enable-fuse-padding-into-linalg-consumer-ops``), when the
  padded tile fits the stack with rows of at least a cache line (:func:`padded_tile_fits`):
  the kernel materializes the padded tile (full along the padded dims) per workgroup
  instead of a dispatch writing the whole padded tensor for the next one to read back. On
  targets with im2col convolutions (``Target.im2col_convolutions``) also the padded image
  of an NCHW convolution with an FCHW filter (:func:`im2col_image`), whoever divides it: its
  patch packing reads the pad's source (ireec/passes/hal/convert_conv_to_im2col.py). On
  targets with the depthwise micro-kernel the zero pad of a channels-last depthwise
  convolution's image (:func:`dwconv_image`) joins whatever its size: the micro-kernel reads
  the pad's source (ireec/passes/hal/dwconv_padding.py).
* ``tensor.empty``, scalar constants and ``linalg.fill`` of such are cloned into every region
  using them (``CloneProducersIntoDispatchRegions``); host copies left unused are erased.
* so are static ``tensor.extract_slice``s read only as inputs of linalg ops (IREE's
  ``isClonableIntoDispatchOp``): a cloned slice is a view of the source's binding, so no copy
  dispatch runs; a slice returned or read by another op is a root of its own.
* shape-only ops (expand/collapse_shape, reshape, cast) become ``flow.tensor.reshape``.

Every block of every function is processed (cf/scf control flow included). Values of a group
used outside it become results of its region.
"""
from __future__ import annotations

from typing import Dict, List, Optional

from ...dialects import linalg as L
from ...ir import types as T
from ...ir.affine import AffineDim
from ...ir.core import Block, Builder, Operation, Region, Value
from ...ir.diagnostics import CompileError
from ..common.distribution import (MAX_STACK_BYTES, SMALL_GEMM_PIXELS, analyze, is_contraction_like,
                                   is_static_pad, dims_of, padded_dims, stack_budget, temporaries)
from ..pass_base import Pass, PassContext, functions, register_pass
from .elementwise_op_fusion import blocks_of

_TENSOR_DISPATCH_OPS = {"tensor.pad", "tensor.extract_slice", "tensor.insert_slice", "tensor.concat",
                        "tensor.generate", "tensor.splat", "tensor.bitcast",
                        "tensor.scatter", "tensor.gather"}
_RESHAPES = {"tensor.expand_shape", "tensor.collapse_shape", "tensor.reshape", "tensor.cast"}


def is_dispatch_root(op: Operation) -> bool:
    """Ops that need a kernel: linalg structured ops and data-movement tensor ops with a
    tensor result (``tensor.extract`` of a scalar and ``tensor.from_elements`` stay on the host)."""
    if op.name.startswith("linalg.") and op.name not in ("linalg.yield", "linalg.index"):
        return True
    return op.name in _TENSOR_DISPATCH_OPS and any(isinstance(r.type, T.TensorType) for r in op.results)


def _is_clonable_slice(op: Operation) -> bool:
    """A ``tensor.extract_slice`` with static offsets, sizes and strides read only as an input
    of linalg ops of its block (IREE's ``isClonableIntoDispatchOp``): each consumer's dispatch
    reads the slice straight from the source's buffer (a ``memref.subview`` of its binding),
    so no copy dispatch runs. A slice returned or read by any other op keeps its dispatch."""
    if op.name != "tensor.extract_slice" or len(op.operands) != 1 or not op.results[0].uses:
        return False
    return all(_is_linalg(u) and k < len(L.inputs(u)) and _in_block_or_region_of(u, op.parent)
               for u, k in op.results[0].uses)


def _in_block_or_region_of(op: Operation, blk: Block) -> bool:
    """``op`` is in ``blk`` or in a ``flow.dispatch.region`` of ``blk``."""
    if op.parent is blk:
        return True
    parent = op.parent_op
    return parent is not None and parent.name == "flow.dispatch.region" and parent.parent is blk


def _is_clonable_producer(op: Operation) -> bool:
    if op.name == "tensor.extract_slice":
        return _is_clonable_slice(op)
    if op.name == "tensor.empty":
        return True
    if op.name == "arith.constant" and not isinstance(op.results[0].type, T.ShapedType):
        return True
    if op.name == "linalg.fill":
        return all(isinstance(v.owner, Operation) and _is_clonable_producer(v.owner) for v in op.operands)
    return False


def _is_linalg(op: Operation) -> bool:
    return L.is_linalg_structured(op) and all(
        isinstance(v.type, T.TensorType) or not isinstance(v.type, T.ShapedType) for v in op.operands)


MAX_CLONED_FILL_BYTES = 32 * 1024  # a fill read as an input is a whole-tensor temporary in the kernel


def _clonable_use(fill: Operation, user: Operation, index: int) -> bool:
    """Whether ``fill`` may be cloned into the dispatch of ``user`` (which reads it as operand
    ``index``): always as an init (the kernel fills its destination), as an input only when
    small, since the kernel would materialize the whole tensor on its stack."""
    if fill.name != "linalg.fill":
        return True
    if _is_linalg(user) and index >= len(L.inputs(user)):
        return True
    if _fills_insert_destination(user, index):
        return True
    t = fill.results[0].type
    return t.num_elements * T.storage_bytes(t.element_type) <= MAX_CLONED_FILL_BYTES


def _fills_insert_destination(user: Operation, index: int) -> bool:
    """``user`` is a ``tensor.insert_slice`` with static offsets, sizes and strides reading
    the fill as its destination (operand 1): its dispatch writes the fill value and then the
    slice into its own result, as for an init (the zero-stuffed input of a transposed
    convolution: a strided slice into a zero fill), instead of the fill being a dispatch of
    its own whose result is copied."""
    return user.name == "tensor.insert_slice" and index == 1 and len(user.operands) == 2


def _in_linalg(op: Operation) -> bool:
    """``op`` is a linalg op on tensors or nested in one (e.g. a payload's tensor.extract)."""
    while op is not None:
        if _is_linalg(op):
            return True
        op = op.parent_op if op.parent is not None else None
    return False


def _has_reduction(op: Operation) -> bool:
    try:
        return any(i == L.REDUCTION for i in L.iterator_types(op))
    except (ValueError, KeyError):
        return True


class _BlockFormer:
    """Dispatch formation over one block (see the module docstring)."""

    def __init__(self, blk: Block, fuse_padding: bool = False, stack_bytes: int = MAX_STACK_BYTES,
                 fold_image_pads: bool = False, fold_dwconv_pads: bool = False):
        self.blk = blk
        self.fuse_padding = fuse_padding
        self.fold_image_pads = fold_image_pads
        self.fold_dwconv_pads = fold_dwconv_pads
        self.stack_bytes = stack_bytes
        self.ops = list(blk.ops)
        self.pos = {id(o): i for i, o in enumerate(self.ops)}
        self.group_of: Dict[int, List[Operation]] = {}

    def position(self, user: Operation) -> float:
        """Position in this block of ``user`` or of its ancestor here (inf: another block)."""
        op: Optional[Operation] = user
        while op is not None and op.parent is not self.blk:
            op = op.parent_op if op.parent is not None else None
        return self.pos.get(id(op), float("inf")) if op is not None else float("inf")

    def run(self) -> None:
        for op in self.ops:
            if op.name in _RESHAPES:
                _to_flow_reshape(op)
        self.ops = list(self.blk.ops)
        self.pos = {id(o): i for i, o in enumerate(self.ops)}
        groups: List[List[Operation]] = []
        for want_reduction in (True, False):
            for op in self.ops:
                if id(op) in self.group_of or not _is_linalg(op):
                    continue
                if want_reduction != (_has_reduction(op) or not _generic_or_named_ok(op)):
                    continue
                if op.name == "linalg.fill" and _is_clonable_producer(op) and op.results[0].uses and all(
                        (_in_linalg(u) or _fills_insert_destination(u, k)) and _clonable_use(op, u, k)
                        for u, k in op.results[0].uses):
                    continue  # cloned into its users' regions
                g = [op]
                self.group_of[id(op)] = g
                self.absorb_init_producers(g)
                if self.fuse_padding:
                    self.absorb_pad_producers(g)
                self.absorb_consumers(g)
                groups.append(g)
        for op in self.ops:
            if id(op) not in self.group_of and is_dispatch_root(op) and not _is_linalg(op) \
                    and not _is_clonable_slice(op):
                g = [op]
                self.group_of[id(op)] = g
                groups.append(g)
        materialized = False
        for g in groups:
            if any(o.parent is not self.blk for o in g):
                continue  # a clonable fill already cloned into every user's region
            g.sort(key=lambda o: self.pos[id(o)])
            region = _materialize(g)
            _clone_producers(region)
            materialized = True
        if materialized:
            _erase_dead_producers(self.blk, keep=self.group_of)

    def absorb_init_producers(self, g: List[Operation]) -> None:
        """Pull into root ``g[0]``'s group the broadcasts that only produce its inits (a bias
        broadcast into a convolution's accumulator): the kernel writes the broadcast into its
        destination tile instead of reading a materialized copy."""
        root = g[0]
        for v in L.outputs(root):
            prod = v.owner
            if not isinstance(prod, Operation) or prod.parent is not self.blk or id(prod) in self.group_of:
                continue
            if not is_broadcast_producer(prod) or len(prod.results) != 1:
                continue
            if any(u is not root for u in prod.results[0].users):
                continue
            g.insert(0, prod)
            self.group_of[id(prod)] = g

    def absorb_pad_producers(self, g: List[Operation]) -> None:
        """Pull into the group of root ``g[-1]`` (a convolution or pooling: an op reading an
        input through window expressions) each :func:`fusable_pad` of this block producing
        one of its inputs, when the workgroups divide the pad's work (:func:`_pad_work_divided`)
        and the pad's tile fits the stack budget with whole rows (:func:`padded_tile_fits`):
        the pad is then materialized per workgroup tile in the convolution's kernel. With
        ``fold_dwconv_pads`` (targets with the depthwise micro-kernel) the zero-padded image
        of a channels-last depthwise convolution (:func:`dwconv_image`) is taken whatever
        its size: the micro-kernel reads its source, and the padded tensor is materialized
        nowhere. With ``fold_image_pads`` (targets with im2col convolutions) also the padded image of a
        convolution computed by im2col (:func:`im2col_image`): its packing reads the pad's
        source, and the padded tensor is materialized nowhere."""
        root = g[-1]
        if not _generic_or_named_ok(root):
            return
        for v in L.inputs(root):
            pad = v.owner
            if not isinstance(pad, Operation) or pad.parent is not self.blk or id(pad) in self.group_of:
                continue
            if not fusable_pad(pad, root):
                continue
            trial = sorted(g + [pad], key=lambda o: self.pos[id(o)])
            dist = analyze(trial, anchor=root)
            if not (self.fold_dwconv_pads and dwconv_image(pad, root)):  # else never materialized
                divided = (_pad_work_divided(pad, dist) or (self.fold_image_pads and im2col_image(pad, root))
                           or _small_pad(pad, root))
                if not divided or not padded_tile_fits(pad, dist, self.stack_bytes):
                    continue
            g.insert(0, pad)
            self.group_of[id(pad)] = g

    def absorb_consumers(self, g: List[Operation]) -> None:
        changed = True
        while changed:
            changed = False
            for op in list(g):
                for r in op.results:
                    for user in r.users:
                        if self.try_absorb(g, user):
                            changed = True

    def try_absorb(self, g: List[Operation], user: Operation) -> bool:
        if id(user) in self.group_of or user.parent is not self.blk or not _is_linalg(user):
            return False
        if user.name != "linalg.generic" or is_contraction_like(user):
            return False
        if _has_reduction(user) and any(is_contraction_like(o) for o in g):
            return False
        if not all(o.name == "tensor.pad" or _generic_or_named_ok(o) for o in g):
            return False
        # External operands are defined before ``user`` (SSA), and a group's values are only
        # used after its last op (checked below), so placing the region at its last op keeps
        # every def before its uses.
        p = self.pos[id(user)]
        in_g = set(id(o) for o in g)
        new_g = g + [user]
        new_ids = in_g | {id(user)}
        stored = []
        for o in new_g:
            for r in o.results:
                outside = [u for u in r.users if id(u) not in new_ids]
                if not outside:
                    continue
                if any(self.position(u) < p for u in outside):
                    return False
                stored.append(r)
        old = analyze(sorted(g, key=lambda o: self.pos[id(o)]))
        ordered = sorted(new_g, key=lambda o: self.pos[id(o)])
        new = analyze(ordered, anchor=user)
        if len(new.extents) < len(old.extents):
            return False
        if temporaries(ordered, new, [1] * len(new.extents), stored) > MAX_STACK_BYTES:
            return False
        g.append(user)
        self.group_of[id(user)] = g
        return True


def is_broadcast_producer(op: Operation) -> bool:
    """A broadcast (:func:`..dialects.linalg.is_pure_broadcast`) of one input on tensors,
    yielded as is: cheap to recompute in a consumer's tile."""
    if not L.is_pure_broadcast(op) or not _is_linalg(op):
        return False
    if op.name == "linalg.broadcast":
        return True
    body = L.payload(op)
    yld = body.ops[0]
    return len(L.inputs(op)) == 1 and len(yld.operands) == 1 and yld.operands[0] is body.args[0]


#: Bytes a fused pad's tile must span along the pad's innermost dim, when that dim is
#: distributed (not padded), unless the dim is shorter: two AVX-512 vectors of f32. Narrower
#: tiles make every workgroup gather a few elements per source row and run its convolution on
#: vectors that narrow: JAX's NHWC mobilenet_block (a 1x33x33x64 padded tile, 4 channels per
#: workgroup under the 32 KiB budget) ran 1.47-1.58x slower on target c fused than with its
#: pad dispatch (interleaved medians, about 0.052 against 0.034 ms; the 4-channel copy and
#: ireec_uk_dwconv's 4-lane path against its 16-lane one); MobileNetV2's channels-last 3x3
#: depthwise convolution of 96 channels on 16x16 (12 channels a workgroup: its 8- and 4-lane
#: paths) took 28 us fused against 7.6 us with its pad dispatch (gcc 12, one thread).
MIN_CONTIGUOUS_TILE_BYTES = 128


#: Bytes of a padded tensor small enough that every workgroup may compute it whole.
SMALL_PAD_BYTES = 16384


def _small_pad(pad: Operation, consumer: Operation) -> bool:
    """Whether ``pad`` is at most :data:`SMALL_PAD_BYTES` and ``consumer`` a convolution of
    fewer than :data:`..common.distribution.SMALL_GEMM_PIXELS` output pixels (its elements
    over its output channels: the output dims the filter also has), which the targets whose
    workgroups run concurrently cut along the output channels, not the rows: every workgroup
    then computes the pad whole (a few KB), and the dispatch and barrier of its own go
    (torch-mlir's resnet18 on 2 threads: 8 dispatches fewer, about 8 % of the call)."""
    t = pad.results[0].type
    if t.num_elements * max(1, T.bit_width(t.element_type) // 8) > SMALL_PAD_BYTES:
        return False
    ins, outs = L.inputs(consumer), L.outputs(consumer)
    if len(ins) < 2 or len(outs) != 1 or pad.results[0] is not ins[0]:
        return False
    maps, its = L.indexing_maps(consumer), L.iterator_types(consumer)
    fdims = {e.pos for e in maps[1].results if isinstance(e, AffineDim)}
    out = outs[0].type
    channels = 1
    for e, n in zip(maps[len(ins)].results, out.shape):
        if isinstance(e, AffineDim) and e.pos in fdims and its[e.pos] == L.PARALLEL:
            channels *= n
    return out.num_elements // max(1, channels) < SMALL_GEMM_PIXELS


def _pad_work_divided(pad: Operation, dist) -> bool:
    """Whether the group distributed as ``dist`` tiles ``pad`` along a dim of extent >= 2 (a
    depthwise convolution's channels, a batch), so its workgroups share the pad's work. A
    pad carried along no such dim (a regular convolution of one image: only its output
    channels are distributed, and it reads every input channel) would be computed whole by
    every workgroup and leave the convolution its output channels alone to spread over
    threads: it keeps its dispatch (JAX's resnet_block: one workgroup instead of eight)."""
    carried = dist.carried.get(pad.results[0], [])
    return any(t >= 0 and e >= 2 for t, e in zip(carried, dist.extents))


def im2col_image(pad: Operation, consumer: Operation) -> bool:
    """Whether ``pad`` is the image of a convolution that the CPU targets compute by im2col
    whatever its channel counts (:func:`ireec.passes.hal.im2col.profitable`) with the output
    channels as the GEMM's rows and the pixels as its columns, which the patch packing fills
    along the image's rows: two inputs, a filter and an output indexed by plain dims that
    share one parallel dim (the output channels ``f``), ``f`` innermost in neither (an NCHW
    output and an FCHW filter); not a depthwise convolution or a pooling. (With ``f``
    innermost in the filter or the output the packing runs along the window, a few elements
    per loop: a padded image's bounds cost more there than its dispatch.)"""
    if consumer.name.startswith(("linalg.depthwise", "linalg.pooling")):
        return False
    ins = L.inputs(consumer)
    if len(ins) != 2 or pad.results[0] not in ins:
        return False
    maps = L.indexing_maps(consumer)
    fmap, omap = maps[1 - ins.index(pad.results[0])], maps[len(ins)]
    if not all(isinstance(e, AffineDim) for e in list(fmap.results) + list(omap.results)):
        return False
    its = L.iterator_types(consumer)
    fdims, odims = [e.pos for e in fmap.results], [e.pos for e in omap.results]
    shared = [d for d in odims if d in fdims and its[d] == L.PARALLEL]
    if len(shared) != 1:
        return False
    return odims[-1] != shared[0] and fdims[-1] != shared[0]


#: The depthwise micro-kernel (ireec/passes/hal/ukernels.py's ``DWCONV``).
DWCONV_UKERNEL = "ireec_uk_dwconv"
#: Channels-last depthwise convolutions whose zero-padded image the depthwise micro-kernel
#: reads unpadded: {op name: the image dims the window moves (its rows and columns)}.
DWCONV_WINDOW_DIMS = {"linalg.depthwise_conv_2d_nhwc_hwc": (1, 2), "linalg.depthwise_conv_1d_nwc_wc": (1,)}


def dwconv_image(pad: Operation, consumer: Operation) -> bool:
    """Whether ``pad`` is the image of a channels-last f32 depthwise convolution (the named
    ops of :data:`DWCONV_WINDOW_DIMS`) padded with a float zero along the dims its window
    moves only: the form ``ireec_uk_dwconv_padded`` reads from the pad's source, as
    ireec/passes/hal/dwconv_padding.py decides again on the generic op."""
    dims = DWCONV_WINDOW_DIMS.get(consumer.name)
    ins = L.inputs(consumer)
    if dims is None or not ins or ins[0] is not pad.results[0]:
        return False
    if any(not (isinstance(v.type, T.TensorType) and v.type.element_type == T.f32) for v in ins + L.outputs(consumer)):
        return False
    value = pad.body.terminator.operands[0]
    cst = value.owner
    if not isinstance(cst, Operation) or cst.name != "arith.constant":
        return False
    if getattr(cst.attributes.get("value"), "value", None) != 0.0 or value.type != T.f32:
        return False
    return padded_dims(pad) <= set(dims)


def padded_tile_fits(pad: Operation, dist, stack_bytes: int) -> bool:
    """Whether the per-tile temporary of ``pad`` in a group distributed as ``dist``
    (:func:`..common.distribution.analyze`) fits ``stack_bytes`` with tile 1 along every
    distributed dim, and along the pad's innermost dim, when distributed, still holds
    :data:`MIN_CONTIGUOUS_TILE_BYTES` (or the whole dim) within that budget."""
    n = len(dist.extents)
    smallest = temporaries([pad], dist, [1] * n)
    if smallest > stack_bytes:
        return False
    t = pad.results[0].type
    inner = t.rank - 1
    if inner < 0 or inner not in dist.carried.get(pad.results[0], []):
        return True  # the innermost dim is padded (whole rows) or not distributed (whole)
    elem = max(1, T.bit_width(t.element_type) // 8)
    widest = stack_bytes // smallest  # elements along the innermost dim within the budget
    return widest * elem >= min(t.shape[inner] * elem, MIN_CONTIGUOUS_TILE_BYTES)


def fusable_pad(pad: Operation, consumer: Operation) -> bool:
    """Whether static ``tensor.pad`` ``pad`` may be computed inside the dispatch of
    ``consumer``, a convolution-like linalg op (convolution or pooling; IREE's
    ``FusePadWithConsumer`` conditions, made structural): ``pad`` is a static pad
    (:func:`..common.distribution.is_static_pad`) whose padding value is a constant (an
    ``arith.constant`` outside its body: a value computed in the body depends on the
    indices), whose only use is an input of ``consumer``, and ``consumer``'s indexing map
    reads every padded dim through a window expression (``oh * stride + kh``, not a plain
    loop dim): a tile of the consumer's other dims needs the padded tensor whole along those
    dims only."""
    if not is_static_pad(pad) or not _is_linalg(consumer):
        return False
    uses = list(pad.results[0].uses)
    if len(uses) != 1 or uses[0][0] is not consumer or uses[0][1] >= len(L.inputs(consumer)):
        return False
    yld = pad.regions[0].blocks[0].terminator if pad.regions and pad.regions[0].blocks else None
    if yld is None or len(yld.operands) != 1:
        return False
    value = yld.operands[0].owner
    if not (isinstance(value, Operation) and value.name == "arith.constant"
            and value.parent is not pad.regions[0].blocks[0]):
        return False
    padded = padded_dims(pad)
    if not padded:
        return False
    m = L.indexing_maps(consumer)[uses[0][1]]
    return all(not isinstance(m.results[t], AffineDim) and dims_of(m.results[t]) for t in padded)


def _generic_or_named_ok(op: Operation) -> bool:
    try:
        L.indexing_maps(op)
        return True
    except (ValueError, KeyError):
        return False


def _to_flow_reshape(op: Operation) -> None:
    b = Builder.before(op)
    r = b.create("flow.tensor.reshape", [op.operands[0]], [op.results[0].type])
    op.results[0].replace_all_uses_with(r.result)
    op.erase()


def _materialize(g: List[Operation]) -> Operation:
    """Move group ``g`` (program order) into a ``flow.dispatch.region`` placed at its last op;
    values used outside the group become the region's results."""
    ids = set(id(o) for o in g)
    escaping: List[Value] = []
    for o in g:
        for r in o.results:
            if any(id(u) not in ids for u in r.users):
                escaping.append(r)
    last = g[-1]
    b = Builder.before(last)
    region_op = b.create("flow.dispatch.region", [], [v.type for v in escaping])
    region_op.loc = g[0].loc
    for v, nv in zip(escaping, region_op.results):
        v.replace_uses_if(nv, lambda user: id(user) not in ids)
    blk = Block()
    region_op.add_region(Region([blk]))
    for o in g:
        o.detach()
        blk.append(o)
    blk.append(Operation("flow.return", escaping, loc=last.loc))
    return region_op


def _clone_producers(region_op: Operation) -> List[Operation]:
    """Clone tensor.empty, scalar constants and fills of those used in the region into it
    (before their first user). Returns the host ops cloned from, whose uses dropped: the
    caller erases those left without users (:func:`_erase_dead_producers`). Linear in the
    size of the region."""
    blk = region_op.body
    inside = set(id(op) for op in region_op.walk())
    sources: List[Operation] = []
    changed = True
    while changed:
        changed = False
        for op in list(region_op.walk()):
            if op is region_op:
                continue
            for k, v in enumerate(list(op.operands)):
                owner = v.owner
                if isinstance(owner, Operation) and id(owner) not in inside and _is_clonable_producer(owner) \
                        and _clonable_use(owner, op, k):
                    c = owner.clone()
                    anchor = op
                    while anchor.parent is not blk:
                        anchor = anchor.parent_op
                    blk.insert_before(anchor, c)
                    inside.add(id(c))
                    for j, u in enumerate(list(op.operands)):
                        if u is v:
                            op.set_operand(j, c.results[0])
                    sources.append(owner)
                    changed = True
    return sources


def _erase_dead_producers(host_blk: Block, keep) -> None:
    """Erase the clonable producers of ``host_blk`` left without users, unless ``keep`` (ids
    of grouped ops) holds them. One backward walk: a block's users follow their producers, so
    erasing a fill frees its tensor.empty and constant before the walk reaches them; a
    worklist of the erased ops' producers catches any remaining order."""
    work = list(host_blk.ops)  # popped from the end: last op first
    while work:
        op = work.pop()
        if op.parent is not host_blk:
            continue  # erased already
        clonable = _is_clonable_producer(op) or op.name == "tensor.extract_slice"  # a slice: users all gone
        if clonable and id(op) not in keep and not any(r.uses for r in op.results):
            producers = [v.owner for v in op.operands if isinstance(v.owner, Operation)]
            op.erase()
            work.extend(p for p in producers if p.parent is host_blk)


@register_pass
class FormDispatchRegionsPass(Pass):
    """IREE's ``iree-dispatch-creation-form-dispatch-regions``: see the module docstring."""

    name = "iree-dispatch-creation-form-dispatch-regions"

    def run(self, module: Operation, ctx: PassContext) -> None:
        for f in functions(module):
            for blk in blocks_of(f):
                fuse = bool(getattr(ctx.target, "fuse_padding_into_consumers", False))
                _BlockFormer(blk, fuse, stack_budget(ctx.max_stack_bytes),
                             fuse and bool(getattr(ctx.target, "im2col_convolutions", False)),
                             fuse and DWCONV_UKERNEL in (getattr(ctx.target, "ukernels", ()) or ())).run()


def captured_values(region_op: Operation) -> List:
    """Values used inside ``region_op`` but defined outside it, in first-use order."""
    inside_vals = set()
    for op in region_op.walk():
        if op is not region_op:
            inside_vals.update(id(r) for r in op.results)
        for r in op.regions:
            for b in r.blocks:
                inside_vals.update(id(a) for a in b.args)
    out, seen = [], set()
    for op in region_op.walk():
        if op is region_op:
            continue
        for v in op.operands:
            if id(v) not in inside_vals and id(v) not in seen:
                seen.add(id(v))
                out.append(v)
    for v in out:
        if not isinstance(v.type, T.TensorType):
            raise CompileError(f"a dispatch captures the host scalar of type {v.type}; only tensors "
                               f"and constants may cross into a dispatch", region_op.loc)
    return out

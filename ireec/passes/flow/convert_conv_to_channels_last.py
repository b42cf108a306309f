"""Depthwise NCHW convolutions, and the 1x1 convolutions next to them, become their NHWC
forms between transposes.

Mirrors IREE's ``iree-preprocessing-convert-conv-to-channels-last``
(Preprocessing/Common/ConvertConvToChannelsLast.cpp, without its tiled channel blocks): an
op of the NCHW family becomes the NHWC op on transposed operands, its result transposed
back,

    conv_2d_nchw_fchw(x, w, init)          -> T(conv_2d_nhwc_hwcf(T(x), T(w), T(init)))
    depthwise_conv_2d_nchw_chw(x, w, init) -> T(depthwise_conv_2d_nhwc_hwc(T(x), T(w), T(init)))

each ``T`` a ``linalg.transpose`` (the image and init ``[0, 2, 3, 1]``, the result
``[0, 3, 1, 2]``, the filter to ``[kh, kw, c, f]`` / ``[kh, kw, c]``, which constant
evaluation folds). :mod:`.propagate_linalg_transpose` then moves the transposes through the
elementwise ops and pads between the convolutions until each meets its inverse.

Which ops, and why (the CPU micro-kernels; one thread, gcc 12, AVX-512):

* **every depthwise convolution.** NCHW vectorizes along an output row: a stride-2 row
  needs a shuffle per tap, and images narrower than a vector are repacked channels-last and
  back per call (MobileNetV2's 480 channels of a 2x2 image: 7.7 us a call). NHWC vectorizes
  along the channels at any image size and stride (the same op: 1.6 us).
* **a 1x1 convolution with unit strides** (a GEMM in either layout) **when channels-last
  values reach it**: its image is a transpose back to NCHW (a converted op's result, sunk to
  it), or its result reaches a transpose into NHWC through elementwise ops and pads used
  once. Converted, the transposes on its other side cancel against the next ones: the
  expand and project convolutions of an inverted-residual block (MobileNet) run
  channels-last with their depthwise one, and no transpose is left between blocks. The
  decision is repeated after each propagation until no further convolution qualifies.
* **other convolutions stay NCHW**: with few channels the NCHW im2col GEMM (pixels as its
  vector columns) is the fast form; the NHWC one has the few channels as its columns
  (torch-mlir's resnet18, 12 channels 3x3 on 20x20: 16 us NCHW against 89 us NHWC). Poolings
  stay NCHW too (the NaN-exact max pool of a 12-channel NHWC image: 28 against 16 us).

The same reasons decide the other way round first: a dense NHWC convolution with an FHWC
filter (TOSA's ``conv2d``, ``linalg.conv_2d_nhwc_fhwc``) or an NHWC max or sum pooling whose
image is an NCHW value transposed (through pads and slices or not) and whose result only
goes back to NCHW through the inverse transpose (what torch-mlir's TOSA export writes
around every convolution and pooling of an NCHW network) becomes its NCHW twin
(:data:`CHANNELS_FIRST_TWIN`), the filter transposed to FCHW. Such ops may also read each
other's results in NHWC (a pooling read by the next convolution: iree-opt cancelled the
transposes between them); the set converted is the largest in which every transpose around
it cancels (:func:`channels_first`). The network then runs in the layout of its torch-mlir
linalg form, and the rules above apply to it alike. torch-mlir's TOSA ResNet
(``resnet18.const.tosa.ireeopt.mlir``), c target, one thread: 383 -> 297 us (its linalg
form: 285); its U-Net: 786 -> 424 us (linalg: 366; its GroupNorm stays NCHW and its
transposed convolution NHWC, so one transposed elementwise dispatch is left).

Converted on static shapes, on targets that call the sgemm micro-kernel (``c``, ``openmp``;
the GPU kernels keep the layout they are given). The zero pads of the NHWC depthwise
convolutions join their dispatches and are read unpadded by the micro-kernel
(ireec/passes/hal/dwconv_padding.py). Before that, on ``openmp`` their padded tiles did not
fit the stack with whole vectors of channels, the pads stayed dispatches of their own, and
the extra dispatches, with their barriers and the image moving between the cores' caches,
cost more than the layout saved (torch-mlir's mobilenet_block 47 -> 66 us, MobileNetV2
250-330 -> 300-790 us on 2 threads), so ``openmp`` had kept NCHW; now MobileNetV2 takes 294
-> 248 us there (2 threads, one process, interleaved calls).
"""
from __future__ import annotations

from typing import Dict, List, Optional, Set, Tuple

from ...dialects import linalg as L
from ...ir import types as T
from ...ir.core import Builder, Operation, Value
from ..pass_base import Pass, PassContext, functions, register_pass
from .elementwise_op_fusion import blocks_of
from .propagate_linalg_transpose import permutation, propagate, transpose

#: NCHW -> NHWC for images and inits; NHWC -> NCHW for results (``linalg.transpose``
#: permutations).
TO_NHWC = (0, 2, 3, 1)
TO_NCHW = (0, 3, 1, 2)

#: NCHW op -> (its NHWC twin, the permutation of its filter into the twin's layout, whether
#: it is converted always (True) or when channels-last values reach it (False: a 1x1
#: convolution; see the module docstring)).
CHANNELS_LAST_TWIN: Dict[str, Tuple[str, Tuple[int, ...], bool]] = {
    "linalg.depthwise_conv_2d_nchw_chw": ("linalg.depthwise_conv_2d_nhwc_hwc", (1, 2, 0), True),
    "linalg.conv_2d_nchw_fchw": ("linalg.conv_2d_nhwc_hwcf", (2, 3, 1, 0), False),
    "linalg.conv_2d_nchw_fchw_q": ("linalg.conv_2d_nhwc_hwcf_q", (2, 3, 1, 0), False),
}

#: NHWC op with an FHWC filter -> (its NCHW twin, the permutation of its filter into the
#: twin's FCHW layout), for convolutions between transposes from and to NCHW.
CHANNELS_FIRST_TWIN: Dict[str, Tuple[str, Optional[Tuple[int, ...]]]] = {
    "linalg.conv_2d_nhwc_fhwc": ("linalg.conv_2d_nchw_fchw", (0, 3, 1, 2)),
    # Poolings: their second input is the window's shape only, it has no layout.
    "linalg.pooling_nhwc_max": ("linalg.pooling_nchw_max", None),
    "linalg.pooling_nhwc_sum": ("linalg.pooling_nchw_sum", None),
}

#: The micro-kernel whose targets get channels-last convolutions.
SGEMM = "ireec_uk_sgemm"


def _static(v: Value) -> bool:
    return isinstance(v.type, T.TensorType) and v.type.has_static_shape


def _pointwise(op: Operation) -> bool:
    """A 1x1 window with unit strides and dilations: a GEMM in either layout."""
    w = L.inputs(op)[1].type.shape
    windows = [L.int_list(op.attributes.get(k), 2) for k in ("strides", "dilations")]
    return tuple(w[2:]) == (1, 1) and all(x == 1 for ws in windows for x in ws)


def _reaches_channels_last(v: Value) -> bool:
    """Whether ``v`` flows, through elementwise generics (reading it through the identity
    map) and pads each using it alone, into a transpose to NHWC."""
    for _ in range(64):
        uses = list(v.uses)
        if len(uses) != 1:
            return False
        user, pos = uses[0]
        if permutation(user) == TO_NHWC:
            return True
        if user.name == "tensor.pad":
            v = user.results[0]
        elif user.name == "linalg.generic" and len(user.results) == 1 and pos < len(L.inputs(user)) \
                and L.indexing_maps(user)[pos].is_identity() and user.results[0].type.rank == v.type.rank:
            v = user.results[0]
        else:
            return False
    return False


def qualifies(op: Operation) -> bool:
    """Whether ``op`` is converted now (module docstring): a depthwise convolution, or a 1x1
    one that channels-last values reach; static shapes."""
    twin = CHANNELS_LAST_TWIN.get(op.name)
    ins, outs = L.inputs(op), L.outputs(op)
    if twin is None or len(outs) != 1 or len(op.results) != 1 or not all(
            _static(v) for v in ins[:2] + outs):
        return False
    if twin[2]:
        return True
    return _pointwise(op) and (permutation(ins[0].owner) == TO_NCHW
                               or _reaches_channels_last(op.results[0]))


#: Ops between a value and the image of a convolution that transposes move through
#: (:mod:`.propagate_linalg_transpose`): a pad, a slice keeping every dim.
_IMAGE_PATH = ("tensor.pad", "tensor.extract_slice")


def _through(op) -> bool:
    return (isinstance(op, Operation) and op.name in _IMAGE_PATH and len(op.operands) == 1
            and op.results[0].type.rank == op.operands[0].type.rank and len(op.results[0].uses) == 1)


def _image_source(op: Operation) -> Value:
    """``op``'s image, or what the pads and slices it is made by (each used once) start from."""
    v = L.inputs(op)[0]
    while _through(v.owner):
        v = v.owner.operands[0]
    return v


def _feeds_image(user: Operation, pos: int, members: Set[Operation]) -> bool:
    """Whether operand ``pos`` of ``user`` is the image of a member of ``members``, directly
    or through pads and slices each used once."""
    while _through(user):
        user, pos = next(iter(user.results[0].uses))
    return user in members and pos == 0


def channels_first(blk) -> List[Operation]:
    """The ops of :data:`CHANNELS_FIRST_TWIN` in ``blk`` (static shapes) that convert to
    NCHW with every transpose around them cancelling: each one's image is a transpose into
    NHWC or another such op's result (directly or through pads and slices each used once),
    and its result goes only to transposes back to NCHW and to such images. The largest
    such set: start from all and drop the ops that break the rule until none does."""
    members = {op for op in blk.ops if op.name in CHANNELS_FIRST_TWIN and len(op.results) == 1
               and len(L.outputs(op)) == 1 and all(_static(v) for v in L.inputs(op)[:2] + L.outputs(op))}
    changed = True
    while changed:
        changed = False
        for op in list(members):
            src = _image_source(op)
            uses = list(op.results[0].uses)
            ok = (permutation(src.owner) == TO_NHWC or src.owner in members) and uses and all(
                permutation(u) == TO_NCHW or _feeds_image(u, pos, members) for u, pos in uses)
            if not ok:
                members.discard(op)
                changed = True
    return [op for op in blk.ops if op in members]


def _twin(op: Operation, name: str, x: Value, w: Value, init: Value, b: Builder) -> Operation:
    """``name`` (a named convolution) on image ``x``, filter ``w``, ``op``'s other inputs
    and ``init``, with ``op``'s attributes."""
    new_ins = [x, w] + list(L.inputs(op)[2:])
    attrs = {k: a for k, a in op.attributes.items() if k != "operandSegmentSizes"}
    attrs["operandSegmentSizes"] = L.segment_sizes(len(new_ins), 1)
    short = name.split(".", 1)[1]
    region = L.build_named_region(short, [v.type for v in new_ins], [init.type], attrs, op.loc)
    return b.create(name, new_ins + [init], [init.type], attrs, regions=[region])


def convert_to_channels_first(op: Operation) -> Operation:
    """Rewrite ``op`` (one of :func:`channels_first`) as its NCHW twin reading its image,
    filter and init transposed to NCHW, its result transposed back to NHWC for its users;
    returns the NCHW op. :func:`.propagate_linalg_transpose.propagate` cancels the
    transposes next."""
    ins, outs = L.inputs(op), L.outputs(op)
    name, filter_perm = CHANNELS_FIRST_TWIN[op.name]
    b = Builder.before(op)
    w = ins[1] if filter_perm is None else transpose(b, ins[1], filter_perm)
    new = _twin(op, name, transpose(b, ins[0], TO_NCHW), w, transpose(b, outs[0], TO_NCHW), b)
    op.results[0].replace_all_uses_with(transpose(b, new.results[0], TO_NHWC))
    op.erase()
    return new


def convert(op: Operation) -> Operation:
    """Rewrite ``op`` (one that :func:`qualifies`) as the module docstring describes; returns
    the NHWC op."""
    ins, outs = L.inputs(op), L.outputs(op)
    name, filter_perm, _ = CHANNELS_LAST_TWIN[op.name]
    b = Builder.before(op)
    new = _twin(op, name, transpose(b, ins[0], TO_NHWC), transpose(b, ins[1], filter_perm),
                transpose(b, outs[0], TO_NHWC), b)
    op.results[0].replace_all_uses_with(transpose(b, new.results[0], TO_NCHW))
    op.erase()
    return new


@register_pass
class ConvertConvToChannelsLastPass(Pass):
    """IREE's ``iree-preprocessing-convert-conv-to-channels-last``: see the module docstring."""

    name = "iree-preprocessing-convert-conv-to-channels-last"

    def run(self, module: Operation, ctx: PassContext) -> None:
        if SGEMM not in (getattr(ctx.target, "ukernels", ()) or ()):
            return
        for f in functions(module):
            for blk in blocks_of(f):
                first = channels_first(blk)
                for op in first:
                    convert_to_channels_first(op)
                if first:
                    propagate(blk)
                converted = True
                while converted:
                    converted = False
                    for op in list(blk.ops):
                        if op.parent is blk and qualifies(op):
                            convert(op)
                            converted = True
                    if converted:
                        propagate(blk)

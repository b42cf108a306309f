"""Convolutions read their constant filter channels-last: NHWC ones always, NCHW ones with few
output pixels.

Mirrors IREE's ``iree-preprocessing-convert-conv-filter-to-channels-last``
(ConvertConvFilterToChannelsLast.cpp: the filter goes through a ``linalg.transpose`` that
constant evaluation folds, and the convolution becomes a ``linalg.generic`` reading the
transposed filter), applied where the CPU micro-kernel gains from it. An NCHW convolution
``C[n, f, oh, ow] += In[n, c, oh*s + kh, ow*s + kw] * W[f, c, kh, kw]`` is computed by
im2col as the GEMM ``C[f, p] += W[f, k] * Col[k, p]``: its rows are the output channels and
its columns, the vector lanes of the register tile, the output pixels. With few pixels (the
3x3 and 5x5 images of a ResNet's last stages) most lanes hold padding: a 96-channel 3x3
convolution on a 3x3 image is a 96 x 9 GEMM whose 9 columns fill an 8-wide and a padded
16-wide piece. With the filter as ``W[c, kh, kw, f]`` (output channels innermost) the
im2col lowering computes the transposed product ``T[p, f] += Col[p, k] * W[k, f]`` instead
(9 x 96: full register tiles), reading ``W`` in place, and stores ``T`` back transposed
(:mod:`..hal.convert_conv_to_im2col`). Measured on AVX-512 (gcc 12, one thread), the
GEMM alone: 96 x 9 x 864 55.8 us, 9 x 96 x 864 13.0 us; 48 x 25 x 432 22.5 us, 25 x 48 x 432
7.9 us.

An NHWC convolution with an FHWC filter (TOSA's layout, ``linalg.conv_2d_nhwc_fhwc``) gets
the HWCF filter ``[kh, kw, c, f]``: its output channels are then contiguous in the filter as
in the output, so the loop nest of a short window vectorizes along them (cnn_int8's TOSA
form, 1 -> 8 channels 3x3: the nest added 3 taps at a time into memory) and im2col reads
``W[k, f]`` in place instead of packing it per call.

A convolution is converted when

- it is an f32 convolution (named or generic: a contraction whose filter operand is indexed
  by plain dims, the output-channel dim ``f`` first and every reduction dim, and whose image
  does not read ``f``: not a depthwise convolution), on static shapes;
- its filter is a constant (``arith.constant``s and the structured ops computing it from
  them, such as a dequantization: the transpose is folded with them by constant evaluation,
  never computed on a call);
- its output has ``f`` innermost (NHWC), or :func:`..common.cost_model.sgemm_tile_cost` of
  the transposed GEMM (pixels x channels) is at most :data:`GAIN` of the plain one's
  (channels x pixels); a 1x1 window counts too (a pointwise convolution on a 2x2 image:
  1280 x 4 becomes 4 x 1280; :mod:`.convert_1x1_filter_conv2d_to_matmul` then leaves it a
  convolution, see :func:`channels_last_filter`);
- the target calls the sgemm micro-kernel (the CPU targets).
"""
from __future__ import annotations

from math import prod
from typing import List, Optional

from ...dialects import linalg as L
from ...ir import types as T
from ...ir.affine import AffineDim, AffineMap
from ...ir.attributes import i64_array
from ...ir.core import Builder, Operation
from ..common.cost_model import sgemm_tile_cost
from ..common.distribution import dims_of, is_contraction_like
from ..common.linalg_generalize_named_ops import generalize
from ..pass_base import Pass, PassContext, functions, register_pass
from .elementwise_op_fusion import blocks_of

#: The transposed GEMM is chosen when its estimated cost is at most this fraction of the
#: plain one's (the copy of the output tile back to NCHW costs a little).
GAIN = 0.8
#: The micro-kernel these layouts are chosen for.
SGEMM = "ireec_uk_sgemm"


def _filter_index(op: Operation) -> Optional[int]:
    """The input position of ``op``'s filter when it qualifies (module docstring), else None."""
    ins, outs = L.inputs(op), L.outputs(op)
    if len(outs) != 1 or not is_contraction_like(op):
        return None
    shaped = [v for v in ins if isinstance(v.type, T.ShapedType)]
    if len(shaped) != 2 or ins[:2] != shaped or not all(
            isinstance(v.type, T.TensorType) and v.type.has_static_shape for v in shaped + outs):
        return None
    if not (all(v.type.element_type == T.f32 for v in shaped + outs) or _integer(ins, outs)):
        return None
    maps, its = L.indexing_maps(op), L.iterator_types(op)
    out = maps[len(ins)].results
    if not all(isinstance(e, AffineDim) for e in out):
        return None
    out_dims = [e.pos for e in out]
    red = {d for d, it in enumerate(its) if it == L.REDUCTION}
    for w in (0, 1):
        res = maps[w].results
        if not all(isinstance(e, AffineDim) for e in res):
            continue
        dims = [e.pos for e in res]
        f = dims[0]
        if f in red or f not in out_dims or set(dims[1:]) != red:
            continue
        image = set().union(*(dims_of(e) for e in maps[1 - w].results))
        if f in image:
            continue  # a depthwise convolution: its channels index the image too
        return w
    return None


def _integer(ins, outs) -> bool:
    """An 8-bit integer convolution into i32 (its zero points scalar inputs after the two
    tensors): converted with an NHWC output only (see :func:`_worth_it`)."""
    def is_int(t, w):
        return isinstance(t, T.IntegerType) and t.width == w
    return (all(is_int(v.type.element_type, 8) for v in ins[:2]) and is_int(outs[0].type.element_type, 32)
            and all(not isinstance(v.type, T.ShapedType) for v in ins[2:]))


#: Ops a constant filter may be computed by (constant evaluation folds them first: a
#: dequantized weight of a fake-quantized export).
_CONSTANT_SOURCES = ("arith.constant", "tensor.empty", "linalg.fill")


def is_constant(v, depth: int = 0) -> bool:
    """Whether tensor ``v`` is computed from constants alone (an ``arith.constant``, or
    structured linalg / tensor reshaping ops on such values), so that constant evaluation
    folds its transpose."""
    op = v.owner
    if not isinstance(op, Operation) or depth > 16:
        return False
    if op.name in _CONSTANT_SOURCES:
        return all(is_constant(x, depth + 1) for x in op.operands if isinstance(x.type, T.ShapedType))
    if not (L.is_linalg_structured(op) or op.name in ("tensor.collapse_shape", "tensor.expand_shape",
                                                       "tensor.extract_slice")):
        return False
    return all(is_constant(x, depth + 1) for x in op.operands)


def channels_last_filter(op: Operation) -> bool:
    """Whether convolution ``op`` (a generic) reads its filter with the output channels
    innermost while its output has a pixel dim innermost: the form this pass makes, which
    im2col lowers as pixels x channels and which stays a convolution."""
    try:
        maps, its = L.indexing_maps(op), L.iterator_types(op)
    except (ValueError, KeyError):
        return False
    n_in = len(L.inputs(op))
    if n_in != 2 or len(maps) != 3 or not all(isinstance(e, AffineDim) for e in maps[2].results):
        return False
    out = [e.pos for e in maps[2].results]
    for m in maps[:2]:
        if m.results and all(isinstance(e, AffineDim) for e in m.results):
            last = m.results[-1].pos
            if its[last] == L.PARALLEL and last in out and out[-1] != last and \
                    any(its[e.pos] == L.REDUCTION for e in m.results):
                return True
    return False


def _worth_it(op: Operation, w: int) -> bool:
    """Whether the transposed filter is expected to be faster (module docstring): always for
    an NHWC output, by the tile cost model for an NCHW one."""
    maps, ranges = L.indexing_maps(op), L.loop_ranges(op)
    n_in = len(L.inputs(op))
    f = maps[w].results[0].pos
    if maps[n_in].results[-1].pos == f:
        return True
    if n_in != 2 or L.outputs(op)[0].type.element_type != T.f32:
        return False  # the integer pixels x channels im2col form is not built
    pixels = prod(ranges[e.pos] for e in maps[2].results if e.pos != f)
    channels = ranges[f]
    return sgemm_tile_cost(pixels, channels) <= GAIN * sgemm_tile_cost(channels, pixels)


def convert(op: Operation) -> Optional[Operation]:
    """Rewrite convolution ``op`` as the module docstring describes; returns the new generic,
    or None (``op`` untouched) when it does not apply."""
    if op.name != "linalg.generic" and not L.is_named_structured(op):
        return None
    try:
        w = _filter_index(op)
    except (ValueError, KeyError):
        return None
    if w is None or not _worth_it(op, w):
        return None
    flt = L.inputs(op)[w]
    if not is_constant(flt):
        return None
    op = generalize(op)
    maps = L.indexing_maps(op)
    rank = flt.type.rank
    perm = list(range(1, rank)) + [0]
    b = Builder.before(op)
    shape = tuple(flt.type.shape[p] for p in perm)
    rt = T.TensorType(shape, flt.type.element_type)
    init = b.create("tensor.empty", [], [rt]).result
    tr = b.create("linalg.transpose", [flt, init], [rt], {"permutation": i64_array(perm)},
                  regions=[L.identity_region([flt.type, rt])])
    op.set_operand(w, tr.result)
    res = maps[w].results
    new_maps: List[AffineMap] = list(maps)
    new_maps[w] = AffineMap(maps[w].num_dims, maps[w].num_symbols, tuple(res[p] for p in perm))
    op.attributes["indexing_maps"] = L.maps_attr(new_maps)
    return op


@register_pass
class ConvertConvFilterToChannelsLastPass(Pass):
    """IREE's ``iree-preprocessing-convert-conv-filter-to-channels-last`` for the NCHW
    convolutions the transposed GEMM suits: see the module docstring."""

    name = "iree-preprocessing-convert-conv-filter-to-channels-last"

    def run(self, module: Operation, ctx: PassContext) -> None:
        if SGEMM not in (getattr(ctx.target, "ukernels", ()) or ()):
            return
        for f in functions(module):
            for blk in blocks_of(f):
                for op in list(blk.ops):
                    convert(op)

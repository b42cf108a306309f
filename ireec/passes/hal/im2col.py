"""Convolutions with few input channels through the sgemm micro-kernel by im2col.

Mirrors what IREE's CPU backend gets from ``iree-preprocessing-convert-conv-to-im2col`` /
``--iree-global-opt-enable-im2col`` (and what MLAS does for ONNX Runtime's convolutions): a
convolution ``C[.., f, pixels..] += In[.., s*p + d*t, ..] * W[f, t..]`` (NCHW/FCHW,
NHWC/HWCF, named or generic, any strides and dilations, any batch) becomes, per chunk of
output pixels of the workgroup's tile,

1. a copy of the chunk's input patches into a stack array ``Col``
   (``Col[(c, kh, kw), p] = In[c, oh*s + kh*d, ow*s + kw*d]``), and
2. one ``ireec_uk_sgemm`` call with the whole window as its reduction
   ``K = C * KH * KW``: ``C[f, p] += W[f, (c, kh, kw)] * Col[(c, kh, kw), p]`` when the output's
   contiguous dim is a pixel dim (NCHW: pixels are the GEMM's columns), ``C[p, f] +=
   Col[p, (kh, kw, c)] * W[(kh, kw, c), f]`` when it is ``f`` (NHWC: pixels are its rows).

It is chosen when the whole window ``K`` is at least :data:`.ukernels.CONV_MIN_K`, for
convolutions the per-tap implicit GEMM of :mod:`.ukernels` does not take (its ``K`` is one
tap's input channels: below :data:`.ukernels.CONV_MIN_K`, or an NCHW layout whose roles do
not fit) where :func:`profitable` expects it to beat the loop nest, and for those it does
take wherever a chunk of the tile's pixels fits the stack budget (else the per-tap calls
stay; the lowering strategy decides, ``select_lowering_strategy._im2col_match``). One GEMM
over the whole window and a chunk of pixels beats one call per output row and tap, whose
``M`` is the row's few pixels and whose ``K`` is one tap's channels: measured with gcc 12
on an AMD EPYC (AVX-512, c target, one thread, median of interleaved runs), NHWC/HWCF 3x3
stride 1 unless said, per-tap / im2col in us: 10x10 24 -> 24 (TOSA ResNet's stage 2) 25 /
15, 3x3 96 -> 96 21 / 14, 20x20 16 -> 12 62 / 26, 20x20 16 -> 16 35 / 23, 32x32 16 -> 16
70 / 53, 112x112 16 -> 16 766 / 619, 28x28 32 -> 64 stride 2 315 / 277, 56x56 32 -> 32 605
/ 565, 56x56 64 -> 64 2178 / 2208, 28x28 128 -> 128 2182 / 2143; 14x14 256 -> 256 (9 KiB
of window a pixel: no chunk fits) stays per-tap. The reduction order of ``Col`` and ``W``
is the plain loop nest's (``convert-linalg-to-loops``' stride-sorted order, which must be the filter's layout
order so that ``W`` is one flat ``K`` axis): every output element sees its products in the
same order as in the loop nest, so ``--strict-fp`` builds stay bitwise equal to it.

``Col`` holds at most ``pixels`` output pixels (whole rows of the tile when the tile spans
the full width of the innermost pixel dim, which the GEMM then sees as one flat axis), so
that ``4 * K * pixels`` bytes fit :func:`col_budget`. The lowering strategy records the
choice on the root, visible at ``--compile-to=hal``::

    iree_codegen.ukernel = #iree_codegen.ukernel_descriptor<"ireec_uk_sgemm", memref>
    ireec.im2col = array<i64: K, pixels>

Integer convolutions (``linalg.conv_2d_nhwc_hwcf_q`` / ``_nhwc_fhwc_q`` / ``_nchw_fchw_q``
after generalisation, or the plain ones on i8 with an i32 accumulator: the body
``out + (ext(image) - izp) * (ext(filter) - fzp)`` of :func:`.ukernels._igemm_factors`)
take the same path with the int8 micro-kernel, as IREE's im2col feeds its i8 matmuls to the
``iree_uk_mmt4d`` i8 x i8 -> i32 kernels: ``Col`` holds the raw 8-bit image values (one
byte each) and one ``ireec_uk_igemm`` call per chunk gets the image's and the filter's zero
points, so the int32 results are exact (integer sums do not depend on the order: the window
is flattened in the filter's layout order). Out-of-image taps cannot occur: a linalg
convolution reads its input only inside it (padding is a ``tensor.pad`` with the zero point
before it, fused or not). They are marked ``"ireec_uk_igemm"`` on targets that have it
(:func:`.ukernels.target_has`); the loop nest they replace is scalar (sign extensions,
subtractions and a strided filter), so every form that matches is lowered by im2col
(:func:`profitable`) when ``K >= INT_MIN_K``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional, Sequence

from ...dialects import linalg as L
from ...ir import types as T
from ..common.distribution import MAX_STACK_BYTES
from . import ukernels as UK
from .memref_utils import loop_order


@dataclass
class Im2colMatch:
    """Loop dims of a convolution lowered by im2col: ``w`` (index of the filter among the
    generic's two inputs; the other is the image), ``f`` (the output-channel dim, in the
    filter and the output only), ``pixels`` (the other parallel dims, in the output's
    order: batch and spatial dims, looped or packed), ``red`` (the reduction dims in the
    plain nest's order = the filter's layout order) and ``k`` (their product, the GEMM's
    reduction length)."""

    w: int
    f: int
    pixels: List[int]
    red: List[int]
    k: int
    #: The image's input position (the f32 form: ``1 - w``).
    x: int = -1
    #: The integer form: i8 operands, an i32 output, zero points (scalar i32 Values: inputs of
    #: the generic or values defined above it; None for none) and zero extension (``extui``)
    #: of the image (``x_*``) and of the filter (``w_*``).
    integer: bool = False
    x_zp: Optional[object] = None
    w_zp: Optional[object] = None
    x_unsigned: bool = False
    w_unsigned: bool = False

    def __post_init__(self):
        if self.x < 0:
            self.x = 1 - self.w

    @property
    def esize(self) -> int:
        """Bytes of one ``Col`` element: 1 for the integer form, 4 for f32."""
        return 1 if self.integer else 4


def stride_order(op) -> List[int]:
    """Loop dims of generic ``op`` outermost first, as ``convert-linalg-to-loops`` nests them
    (:func:`.memref_utils.loop_order` on its static tensor operands)."""
    return loop_order(op, L.indexing_maps(op)[0].num_dims)


def match_im2col(op, order: Optional[Sequence[int]] = None) -> Optional[Im2colMatch]:
    """The :class:`Im2colMatch` of ``op`` when it is an f32 or 8-bit integer convolution
    lowered by im2col (module docstring), else None. ``order``: the plain nest's loop order
    (default :func:`stride_order`). Requires: a multiply-accumulate generic with static
    ranges (f32: ``out + pre(image) * filter``; integer: :func:`_integer_factors`); the
    output indexed by distinct plain parallel dims; a filter indexed by plain dims: every
    reduction dim, those of range > 1 consecutive and (f32) in ``order``'s order, plus one
    parallel dim ``f`` of the output; an image indexed by sums of dims times positive
    constants, with every parallel dim but ``f`` and every reduction dim; ``K >=
    CONV_MIN_K`` (integer: :data:`INT_MIN_K`); for the integer form, no match of
    :func:`.ukernels.match_igemm` (which takes the op first). An f32 convolution the per-tap
    calls of :func:`.ukernels.match_sgemm` also take matches too: the lowering strategy
    chooses between them. The integer form's ``red`` is the filter's layout order."""
    if op.name != "linalg.generic":
        return None
    ins, outs = L.inputs(op), L.outputs(op)
    factors = None
    if len(ins) == 2 and len(outs) == 1 and all(UK._is_f32(v) for v in ins + outs):
        shaped = [0, 1]
    else:
        factors = _integer_factors(op)
        if factors is None:
            return None
        shaped = sorted(factors)
    ranges = L.loop_ranges(op)
    if any(r is None for r in ranges):
        return None
    its = L.iterator_types(op)
    red_set = {d for d, it in enumerate(its) if it == L.REDUCTION}
    maps = L.indexing_maps(op)
    dc = UK._plain_dims(maps[len(ins)])
    if not red_set or dc is None or any(d in red_set for d in dc):
        return None
    order = list(order) if order is not None else stride_order(op)
    red = [d for d in order if d in red_set]
    for w in shaped:
        x = shaped[1 - shaped.index(w)]
        dw = UK._plain_dims(maps[w])
        if dw is None or (factors is None and image_prologue(op, x) is None):
            continue
        fs = [d for d in dw if d not in red_set]
        if len(fs) != 1 or fs[0] not in dc or set(dw) != red_set | {fs[0]}:
            continue
        if factors is not None:  # exact in any order: the filter's layout order
            red = [d for d in dw if d in red_set]
        # Dims of range 1 (one input channel) take no part in the order.
        pos = [dw.index(d) for d in red if ranges[d] > 1]
        if pos and pos != list(range(pos[0], pos[0] + len(pos))):
            continue
        coeffs = [UK.linear_coefficients(e) for e in maps[x].results]
        if any(c is None or any(x <= 0 for x in c.values()) for c in coeffs):
            continue
        seen = set().union(*coeffs) if coeffs else set()
        pixels = [d for d in dc if d != fs[0]]
        if fs[0] in seen or not pixels or not set(pixels) | red_set <= seen:
            continue
        k = 1
        for d in red:
            k *= ranges[d]
        if k < (INT_MIN_K if factors is not None else UK.CONV_MIN_K):
            return None
        if factors is None:
            return Im2colMatch(w=w, f=fs[0], pixels=pixels, red=red, k=k)
        return Im2colMatch(w=w, f=fs[0], pixels=pixels, red=red, k=k, x=x, integer=True,
                           x_zp=factors[x][1], w_zp=factors[w][1],
                           x_unsigned=factors[x][0], w_unsigned=factors[w][0])
    return None


#: Fewest window elements (``K``) of an integer convolution lowered by im2col; below it the
#: scalar loop nest is kept (the kernel rounds K up to a multiple of 4 and packs per call).
#: Measured with gcc 12 on this project's Xeon (AVX-512 VNNI, c target, loaded machine,
#: median of interleaved runs), conv_2d_*_q loop nest / im2col: NHWC 1 -> 8 channels 3x3 on
#: 32x32 (K = 9) 33-57 / 76 us (the loops win), NCHW 3 -> 16 3x3 on 28x28 (K = 27) 96-168 /
#: 14-16 us, NHWC 8 -> 16 3x3 stride 2 (K = 72) 426-636 / 9-10 us, NHWC 16 -> 32 3x3 on
#: 32x32 (K = 144) 2205-2741 / 42-60 us.
INT_MIN_K = 16


def _integer_factors(op) -> Optional[dict]:
    """:func:`.ukernels._igemm_factors` of generic ``op`` when it has two i8 inputs of rank
    >= 1 (the factors), other inputs scalars or rank-0 tensors / memrefs (zero points,
    indexed by no dim), one i32 shaped output and no micro-kernel match of
    :func:`.ukernels.match_igemm`; else None."""
    ins, outs = L.inputs(op), L.outputs(op)
    if len(outs) != 1 or not isinstance(outs[0].type, T.ShapedType):
        return None
    if not UK._is_int(outs[0].type.element_type, 32):
        return None
    shaped = [k for k, v in enumerate(ins) if isinstance(v.type, T.ShapedType) and v.type.rank > 0]
    if len(shaped) != 2 or not all(UK._is_int(ins[k].type.element_type, 8) for k in shaped):
        return None
    maps = L.indexing_maps(op)
    if any(maps[k].results for k in range(len(ins)) if k not in shaped):
        return None
    if UK.match_igemm(op) is not None:
        return None
    factors = UK._igemm_factors(op, rank0_zero_points=True)
    return factors if factors is not None and sorted(factors) == shaped else None


#: Ops an image prologue may hold: elementwise arithmetic without regions or side effects.
_PROLOGUE_OPS = {"arith.constant", "arith.addf", "arith.subf", "arith.mulf", "arith.divf", "arith.negf",
                 "arith.maximumf", "arith.minimumf", "arith.maxnumf", "arith.minnumf", "arith.select",
                 "arith.cmpf", "math.absf", "math.exp", "math.tanh", "math.sqrt"}


def image_prologue(op, x: int) -> Optional[list]:
    """The body ops of generic ``op`` computed from its image (input ``x``) alone before the
    multiply-accumulate (e.g. an average pool's ``/ 4`` fused into the next convolution),
    applied while packing ``Col``; ``[]`` for a plain ``out + a * b`` body, None when the
    body is not ``pre(image) * filter`` added to the output (in either operand order)."""
    ops = list(op.body.ops)
    if len(ops) < 3 or [o.name for o in ops[-3:]] != ["arith.mulf", "arith.addf", "linalg.yield"]:
        return None
    args = op.body.args
    img, flt, out = args[x], args[1 - x], args[2]
    pre, (mul, add, yld) = ops[:-3], ops[-3:]
    inside = {id(v) for v in args} | {id(r) for o in ops for r in o.results}
    known = {id(img)}
    for o in pre:
        if o.name not in _PROLOGUE_OPS or o.regions or len(o.results) != 1:
            return None
        if any(id(v) in inside and id(v) not in known for v in o.operands):
            return None  # reads the filter, the output or a later value
        known.add(id(o.results[0]))
    value = next((v for v in mul.operands if v is not flt), None)
    if not any(v is flt for v in mul.operands) or value is None or id(value) not in known:
        return None
    if {id(v) for v in add.operands} != {id(mul.results[0]), id(out)} or len(add.operands) != 2 \
            or yld.operands[0] is not add.results[0]:
        return None
    return pre


def pixels_are_rows(op, match: Im2colMatch) -> bool:
    """Whether the GEMM's rows are ``op``'s output pixels, ``C[p, f] += Col[p, k] * W[k, f]``:
    when the output channels are contiguous in the output (NHWC) or in the filter (a
    channels-last filter, ``[c, kh, kw, f]`` or HWCF: ``W`` is read in place as the GEMM's
    ``B``). An NCHW output with a channels-last filter (what
    :mod:`..flow.convert_conv_filter_to_channels_last` makes of a convolution with few output
    pixels) is computed into a stack tile ``[pixels, f]`` and stored transposed."""
    filter_dims = UK._plain_dims(L.indexing_maps(op)[match.w])
    return output_dims(op)[-1] == match.f or bool(filter_dims) and filter_dims[-1] == match.f


def output_dims(op) -> List[int]:
    """The loop dims indexing the output of convolution generic ``op``, in its order (its
    last operand's map: plain dims where :func:`match_im2col` matched)."""
    return [e.pos for e in L.indexing_maps(op)[len(L.inputs(op))].results]


#: Most bytes of a ``Col`` chunk without ``--max-stack-bytes``: the per-workgroup stack
#: allocation limit (:data:`..common.distribution.MAX_STACK_BYTES`), or twice that
#: (:data:`WIDE_COL_BYTES`) where fewer than :data:`MIN_GEMM_PIXELS` pixels would fit
#: (long windows: U-Net's 3x3 convolutions of 16 and 32 channels got one 32- or 16-pixel row
#: per call, and ran 2-2.5x slower than with rows of 96 and 48) and for the transposed
#: output tile of the pixels x channels form (a 3x3 image of 96 channels, 9 patches of 864
#: floats, 31 KB, with its 9 x 96 tile, is then one chunk and its filter is streamed once).
#: Other convolutions keep the smaller budget: a firmware build's stack bound grows with it
#: (cnn_int8 on a Cortex-M4: 85 KB, 150 KB with 64 KB chunks throughout).
COL_BYTES, WIDE_COL_BYTES = MAX_STACK_BYTES, 2 * MAX_STACK_BYTES
#: Fewest output pixels per chunk below which the wider budget is used (see above).
MIN_GEMM_PIXELS = 96


def col_budget(max_stack_bytes: Optional[int], transposed_out: bool = False,
               pixel_bytes: int = 1) -> int:
    """Most bytes of the ``Col`` array (with the transposed output tile where there is one,
    ``transposed_out``), for ``pixel_bytes`` bytes of stack per pixel: :data:`COL_BYTES`, or
    :data:`WIDE_COL_BYTES` for the transposed form and where fewer than
    :data:`MIN_GEMM_PIXELS` pixels fit the smaller one; a quarter of ``--max-stack-bytes``
    when that is smaller (half of it goes to the micro-kernel's ``work`` array)."""
    wide = transposed_out or COL_BYTES // max(1, pixel_bytes) < MIN_GEMM_PIXELS
    most = WIDE_COL_BYTES if wide else COL_BYTES
    return most if max_stack_bytes is None else min(most, int(max_stack_bytes) // 4)


#: Fewest pixels per ``Col`` chunk worth a GEMM call (one AVX-512 register tile's width);
#: below it (a very long window under a small stack budget) the plain loop nest is kept.
MIN_CHUNK_PIXELS = 8


#: Fewest output channels of an NHWC convolution (the GEMM's columns, contiguous in the
#: output) for im2col, and fewest input channels per filter tap (the plain nest's rows of
#: contiguous products) unless the body has an image prologue. The NHWC loop nest
#: vectorizes along the output channels and is hard to beat for thin inputs; measured with
#: gcc 12 on an AMD EPYC (AVX-512), c target, im2col / loop nest: 64x64x3 -> 32 (3x3) 1.5x
#: slower, 28x28x8 -> 16 (3x3) 1.05x slower, 28x28x6 -> 16 (5x5) 1.25x slower, 28x28x15 ->
#: 32 (3x3) 1.26x faster; JAX LeNet's 6 -> 16 (5x5) with a fused average pool's "/ 4",
#: which the nest recomputes for every output channel and im2col once per patch element,
#: faster (the model 1.14x), its 1 -> 6 (5x5) slower.
MIN_NHWC_CHANNELS, MIN_NHWC_TAP_CHANNELS = 16, 12
#: Output channels the nest's vector along ``f`` takes whole (AVX-512's 16 floats), and the
#: fewest input channels per tap for im2col when more than :data:`NEST_VECTOR_MIN` output
#: channels are not a multiple of it: the nest then runs a narrower remainder (or all of
#: ``f`` in narrow pieces), and im2col's GEMM wins from a few input channels on. Measured
#: as above on 20x20 outputs (3x3), loop nest / im2col in us: 12 -> 12 36.9 / 21.1 (the
#: TOSA ResNet's first stage), 8 -> 12 25.0 / 17.2, 8 -> 20 38.8 / 25.9, 8 -> 24 26.1 /
#: 21.2, 4 -> 12 14.4 / 13.0; with 3 input channels the nest stays ahead or even (3 -> 12
#: 11.0 / 12.6, 3 -> 24 12.5 / 13.0), and with whole vectors too (8 -> 8 11.6 / 12.4, 6 ->
#: 6 11.6 / 15.2, 3 -> 16 7.1 / 10.8).
NEST_VECTOR, NEST_VECTOR_MIN, MIN_RAGGED_TAP_CHANNELS = 16, 8, 4


def profitable(op, match: Im2colMatch) -> bool:
    """Whether im2col is expected to beat the loop nest for ``op``: always in the NCHW form
    (the nest's rows are the short output rows) and with a filter whose output channels are
    not contiguous (FHWC, TOSA's layout: the nest then adds one input channel at a time into
    an output element in memory, with no vector along ``f``; cnn_int8's TOSA form, 8 -> 16
    channels 3x3 stride 2 on 33x33: 117 -> 15 us), and in the NHWC/HWCF form (the output
    channels contiguous in the output and the filter) with :data:`MIN_NHWC_CHANNELS` output
    channels and either :data:`MIN_NHWC_TAP_CHANNELS` input channels per tap or an image
    prologue, or with more than :data:`NEST_VECTOR_MIN` output channels that are not a
    multiple of :data:`NEST_VECTOR` and :data:`MIN_RAGGED_TAP_CHANNELS` input channels per
    tap."""
    if match.integer:
        return True
    out = output_dims(op)
    if out[-1] != match.f:
        return True
    filter_dims = UK._plain_dims(L.indexing_maps(op)[match.w])
    if not filter_dims or filter_dims[-1] != match.f:
        return True
    ranges = L.loop_ranges(op)
    f, c = ranges[match.f], ranges[match.red[-1]]
    if f > NEST_VECTOR_MIN and f % NEST_VECTOR and c >= MIN_RAGGED_TAP_CHANNELS:
        return True
    if f < MIN_NHWC_CHANNELS:
        return False
    return c >= MIN_NHWC_TAP_CHANNELS or bool(image_prologue(op, 1 - match.w))


def chunk_pixels(pixel_bytes: int, tile_pixels: int, budget: int) -> int:
    """Output pixels per ``Col`` chunk for ``pixel_bytes`` bytes of stack per pixel (its
    window: ``k`` elements of ``esize`` bytes, and its row of the transposed output tile
    where there is one) and a workgroup tile of ``tile_pixels`` pixels: all of them when
    ``pixel_bytes * tile_pixels`` fits ``budget`` bytes, else as many as fit; 0 when fewer
    than :data:`MIN_CHUNK_PIXELS` fit."""
    p = min(tile_pixels, budget // pixel_bytes)
    return p if p >= min(MIN_CHUNK_PIXELS, tile_pixels) else 0


def gemm_pixel_dims(match: Im2colMatch, out_dims: Sequence[int]):
    """``(r, q)``: ``q`` the output's innermost pixel dim (the GEMM's pixel axis), ``r`` the
    pixel dim just outside it in the output (``out_dims``: the output's plain dims), which
    chunks of whole rows pack together with ``q`` when the tile spans all of ``q``; None
    when ``f`` or nothing lies there."""
    q = match.pixels[-1]
    pos = list(out_dims).index(q)
    r = out_dims[pos - 1] if pos > 0 and out_dims[pos - 1] in match.pixels else None
    return r, q


def plan_chunk(match: Im2colMatch, out_dims: Sequence[int], ranges: Sequence[int],
               tile_of_dim, budget: int, transposed_out: bool = False) -> int:
    """Pixels per ``Col`` chunk (0: im2col not used, the window too long for ``budget``
    bytes): whole rows of ``q`` (a multiple of its range, at most the tile's rows of ``r``)
    when the tile spans all of ``q`` and one row fits, else a part of ``q``'s tile.
    ``tile_of_dim(d)``: the workgroup tile along loop dim ``d`` (its range when not
    distributed); ``transposed_out``: each pixel also holds a row of ``f`` floats of the
    output tile stored transposed (:func:`pixels_are_rows`)."""
    r, q = gemm_pixel_dims(match, out_dims)
    tq = tile_of_dim(q)
    pixel_bytes = match.esize * match.k + (4 * tile_of_dim(match.f) if transposed_out else 0)
    if r is not None and tq == ranges[q]:
        rows = min(tile_of_dim(r), budget // (pixel_bytes * tq))
        if rows >= 1:
            return rows * tq
    return chunk_pixels(pixel_bytes, tq, budget)

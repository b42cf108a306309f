"""Transposed convolutions, written as a convolution over a zero-dilated image, become one
small convolution per output phase (sub-pixel convolution).

No IREE pass does this (IREE computes the dilated convolution as written); the
decomposition is the one ONNX Runtime's and TVM's ConvTranspose kernels compute directly
(V. Dumoulin, F. Visin, "A guide to convolution arithmetic for deep learning", 2016, sec. 4;
W. Shi et al., "Real-time single image and video super-resolution using an efficient
sub-pixel convolutional neural network", CVPR 2016). Exporters write a transposed
convolution (PyTorch's ``ConvTranspose2d``, StableHLO's ``lhs_dilation``) as

    Z = fill(0) : the dilated image
    X = tensor.insert_slice S into Z [offsets o] [sizes of S] [strides s]
    C = conv(X, W, init)            (stride 1, dilation 1)

so ``(s_h * s_w - 1)`` of every ``s_h * s_w`` products are with a zero: a ConvTranspose2d with
a 2x2 window and stride 2 does 4x its arithmetic. Along a spatial dim with stride ``s``,
offset ``o``, ``K`` taps, output ``oh`` reads ``X[oh + kh]``, non-zero only where
``oh + kh - o`` is a multiple of ``s``. The outputs of phase ``p`` (``oh = p + s*q``) therefore
use the taps ``kh = k0 + s*t`` with ``k0 = (o - p) mod s`` only, reading ``S[q + t + c]``
with ``c = (p + k0 - o) / s``: a stride-1 convolution of ``S`` (sliced from ``c`` and padded
with zeros where ``q + t + c`` leaves it) with the sub-filter ``W[k0::s]``, started from
``init[p::s]``. The phases' results are inserted into the output with stride ``s``.
Every output element sums the same non-zero products in the same order; only additions of
exact zeros are dropped.

Converted: ``linalg.conv_2d_nchw_fchw`` and ``linalg.conv_2d_nhwc_hwcf`` with unit strides
and dilations, and convolutions written as a ``linalg.generic`` of that form (StableHLO's
``convolution`` with ``lhs_dilation``: any layout and number of spatial dims, see
:func:`_generic_dims`), on static shapes whose image is such an insert into a fill of zero
(strided along spatial dims only, some stride above 1). The sub-filters of a constant filter are
folded by constant evaluation next.
"""
from __future__ import annotations

from itertools import product
from typing import Dict, List, Optional, Sequence, Tuple

from ...dialects import linalg as L
from ...dialects.tensor import segment_sizes
from ...ir import types as T
from ...ir.affine import AffineBinary, AffineDim, AffineMap
from ...ir.attributes import FloatAttr, i64_array
from ...ir.core import Block, Builder, Operation, Region, Value
from ..pass_base import Pass, PassContext, functions, register_pass
from .elementwise_op_fusion import blocks_of

#: Convolution -> (its image's spatial dims, its filter's window dims, its output's spatial
#: dims), each (h, w).
CONVOLUTIONS: Dict[str, Tuple[Tuple[int, int], Tuple[int, int], Tuple[int, int]]] = {
    "linalg.conv_2d_nchw_fchw": ((2, 3), (2, 3), (2, 3)),
    "linalg.conv_2d_nhwc_hwcf": ((1, 2), (0, 1), (1, 2)),
}


def _attr_list(op: Operation, name: str) -> List[int]:
    return list(op.attributes[name].value)


def _zero_fill(v: Value) -> bool:
    """Whether ``v`` is a ``linalg.fill`` of the constant 0 (either sign)."""
    fill = v.owner
    if not (isinstance(fill, Operation) and fill.name == "linalg.fill"):
        return False
    c = L.inputs(fill)[0].owner
    if not (isinstance(c, Operation) and c.name == "arith.constant"):
        return False
    a = c.attributes.get("value")
    return isinstance(a, FloatAttr) and a.value == 0.0


def _slice(b: Builder, v: Value, offsets: Sequence[int], sizes: Sequence[int],
           strides: Sequence[int]) -> Value:
    """``tensor.extract_slice`` of ``v`` (static), or ``v`` itself when it is the whole."""
    t = v.type
    if list(offsets) == [0] * t.rank and tuple(sizes) == tuple(t.shape) and set(strides) == {1}:
        return v
    rt = T.TensorType(tuple(sizes), t.element_type)
    return b.create("tensor.extract_slice", [v], [rt], {
        "static_offsets": i64_array(offsets), "static_sizes": i64_array(sizes),
        "static_strides": i64_array(strides), "operandSegmentSizes": segment_sizes(1, 0, 0, 0)}).result


def _pad(b: Builder, v: Value, low: Sequence[int], high: Sequence[int], zero: Value) -> Value:
    """``tensor.pad`` of ``v`` with ``zero``, or ``v`` when nothing is padded."""
    if not any(low) and not any(high):
        return v
    t = v.type
    shape = tuple(n + lo + hi for n, lo, hi in zip(t.shape, low, high))
    rt = T.TensorType(shape, t.element_type)
    block = Block([T.index] * t.rank)
    block.append(Operation("tensor.yield", [zero]))
    return b.create("tensor.pad", [v], [rt], {
        "static_low": i64_array(low), "static_high": i64_array(high),
        "operandSegmentSizes": segment_sizes(1, 0, 0)}, regions=[Region([block])]).result


def _init(b: Builder, init: Value, offsets, sizes, strides) -> Value:
    """The phase's part of the convolution's init: a fill or broadcast (``linalg.broadcast``,
    or a broadcast generic reading no sliced dim) rebuilt at its shape (so it stays the bias
    start the micro-kernel reads), else a strided slice."""
    producer = init.owner
    rt = T.TensorType(tuple(sizes), init.type.element_type)
    if isinstance(producer, Operation) and producer.name == "linalg.fill":
        return L.build_fill(L.inputs(producer)[0], rt, b)
    if isinstance(producer, Operation) and producer.name == "linalg.broadcast":
        x = L.inputs(producer)[0]
        empty = b.create("tensor.empty", [], [rt]).result
        return b.create("linalg.broadcast", [x, empty], [rt],
                        {"dimensions": producer.attributes["dimensions"]},
                        regions=[L.identity_region([x.type, rt])]).result
    if isinstance(producer, Operation) and producer.name == "linalg.generic" and L.is_pure_broadcast(producer) \
            and len(L.inputs(producer)) == 1:
        # A broadcast generic (TOSA's bias start): rebuilt when the dims it reads are whole.
        m = L.indexing_maps(producer)[0]
        read = {e.pos for e in m.results if isinstance(e, AffineDim)}
        if all(offsets[d] == 0 and strides[d] == 1 and sizes[d] == init.type.shape[d] for d in read):
            empty = b.create("tensor.empty", [], [rt]).result
            return L.build_generic([L.inputs(producer)[0]], [empty], [m, AffineMap.identity(rt.rank)],
                                   L.iterator_types(producer), lambda sb, a: [a[0]], builder=b).results[0]
    return _slice(b, init, offsets, sizes, strides)


def _phase(p: int, s: int, o: int, k: int, n: int, out: int) -> Optional[Tuple[int, int, int, int, int, int]]:
    """Along one spatial dim (stride ``s``, offset ``o``, ``k`` taps, source extent ``n``,
    output extent ``out``), phase ``p``: (outputs q, first tap k0, taps t, source start,
    zeros before, zeros after the source rows it reads); t is 0 when no tap meets a source
    row (the phase is its init). None when the phase has no outputs."""
    q = len(range(p, out, s))
    if q == 0:
        return None
    k0 = (o - p) % s
    t = len(range(k0, k, s))
    c = (p + k0 - o) // s
    need = q + t - 1  # the phase reads source rows c .. c + need - 1
    start, stop = max(0, c), min(n, c + need)
    if t == 0 or stop <= start:
        return q, k0, 0, 0, 0, 0
    return q, k0, t, start, start - c, c + need - stop


def _generic_dims(op: Operation) -> Optional[Tuple[Tuple[int, ...], Tuple[int, ...], Tuple[int, ...]]]:
    """The (image, filter window, output) positions of each spatial dim of a convolution
    written as a ``linalg.generic`` (StableHLO's ``convolution``) with unit strides and
    dilations: every image index a loop dim or ``o + k`` (``o`` a parallel dim indexing the
    output, ``k`` a reduction dim indexing the filter), the filter and output indexed by
    plain dims, a multiply-accumulate payload; None for anything else."""
    maps = L.indexing_maps(op)
    if len(maps) != 3 or not all(isinstance(e, AffineDim) for m in maps[1:] for e in m.results):
        return None
    body = L.payload(op)
    if [o.name for o in body.ops] != ["arith.mulf", "arith.addf", "linalg.yield"]:
        return None
    its = L.iterator_types(op)
    out = [e.pos for e in maps[2].results]
    flt = [e.pos for e in maps[1].results]
    spatial = []
    for xd, e in enumerate(maps[0].results):
        if isinstance(e, AffineDim):
            continue
        if not (isinstance(e, AffineBinary) and e.kind == "+" and isinstance(e.lhs, AffineDim)
                and isinstance(e.rhs, AffineDim)):
            return None
        o, k = e.lhs.pos, e.rhs.pos
        if its[o] != L.PARALLEL:
            o, k = k, o
        if its[o] != L.PARALLEL or its[k] != L.REDUCTION or o not in out or k not in flt:
            return None
        spatial.append((xd, flt.index(k), out.index(o)))
    if not spatial:
        return None
    return tuple(zip(*spatial))


def _conv_dims(op: Operation):
    """(image, filter window, output) positions of the spatial dims of ``op``, a named
    convolution of :data:`CONVOLUTIONS` with unit strides and dilations or a generic one
    (:func:`_generic_dims`); None for anything else."""
    if op.name == "linalg.generic":
        return _generic_dims(op)
    dims = CONVOLUTIONS.get(op.name)
    if dims is None:
        return None
    windows = [L.int_list(op.attributes.get(a), 2) for a in ("strides", "dilations")]
    return None if any(v != 1 for ws in windows for v in ws) else dims


def decompose(op: Operation) -> bool:
    """Rewrite convolution ``op`` as the module docstring describes; False (``op``
    untouched) when it is not of that form."""
    if len(op.results) != 1 or not L.is_linalg_structured(op) or len(L.outputs(op)) != 1 \
            or len(L.inputs(op)) != 2:
        return False
    x, w = L.inputs(op)
    ins = x.owner
    if not (isinstance(ins, Operation) and ins.name == "tensor.insert_slice"):
        return False
    if len(ins.operands) != 2 or not _zero_fill(ins.operands[1]):
        return False
    dims = _conv_dims(op)
    if dims is None:
        return False
    x_dims, w_dims, o_dims = dims
    init = L.outputs(op)[0]
    if not all(isinstance(v.type, T.TensorType) and v.type.has_static_shape for v in (x, w, init, ins.operands[0])):
        return False
    offsets, strides = _attr_list(ins, "static_offsets"), _attr_list(ins, "static_strides")
    src = ins.operands[0]
    rank = x.type.rank
    if any((offsets[d] != 0 or strides[d] != 1 or src.type.shape[d] != x.type.shape[d])
           for d in range(rank) if d not in x_dims):
        return False
    if all(strides[d] == 1 for d in x_dims):
        return False
    # Per spatial dim, the phases: (p, outputs q, first tap, taps, source start, low, high).
    per_dim = []
    for xd, wd, od in zip(x_dims, w_dims, o_dims):
        s, o = strides[xd], offsets[xd]
        k, n, out = w.type.shape[wd], src.type.shape[xd], init.type.shape[od]
        per_dim.append([(p,) + ph for p in range(s) if (ph := _phase(p, s, o, k, n, out)) is not None])
    b = Builder.before(op)
    zero = L.inputs(ins.operands[1].owner)[0]
    result = b.create("tensor.empty", [], [init.type]).result
    attrs = {k: a for k, a in op.attributes.items() if k != "operandSegmentSizes"}
    for phases in product(*per_dim):
        o_off, o_size, o_str = [0] * rank, list(init.type.shape), [1] * rank
        s_off, s_size, s_str = [0] * rank, list(src.type.shape), [1] * rank
        w_off, w_size, w_str = [0] * w.type.rank, list(w.type.shape), [1] * w.type.rank
        low, high = [0] * rank, [0] * rank
        empty_window = False
        for (p, q, k0, t, start, lo, hi), xd, wd, od, s in zip(
                phases, x_dims, w_dims, o_dims, (strides[xd] for xd in x_dims)):
            o_off[od], o_size[od], o_str[od] = p, q, s
            w_off[wd], w_size[wd], w_str[wd] = k0, t, s
            s_off[xd], s_size[xd] = start, q + t - 1 - lo - hi
            low[xd], high[xd] = lo, hi
            empty_window = empty_window or t == 0
        phase_init = _init(b, init, o_off, o_size, o_str)
        if empty_window:
            value = phase_init
        else:
            image = _pad(b, _slice(b, src, s_off, s_size, s_str), low, high, zero)
            sub = _slice(b, w, w_off, w_size, w_str)
            rt = phase_init.type
            if op.name == "linalg.generic":
                value = L.build_generic([image, sub], [phase_init], L.indexing_maps(op), L.iterator_types(op),
                                        op.regions[0].clone({}), loc=op.loc, builder=b).results[0]
            else:
                a = dict(attrs)
                a["operandSegmentSizes"] = segment_sizes(2, 1)
                region = L.build_named_region(op.name.split(".", 1)[1], [image.type, sub.type], [rt], a, op.loc)
                value = b.create(op.name, [image, sub, phase_init], [rt], a, regions=[region]).result
        result = b.create("tensor.insert_slice", [value, result], [init.type], {
            "static_offsets": i64_array(o_off), "static_sizes": i64_array(o_size),
            "static_strides": i64_array(o_str), "operandSegmentSizes": segment_sizes(1, 1, 0, 0, 0)}).result
    op.results[0].replace_all_uses_with(result)
    op.erase()
    _erase_dead([ins, init.owner])
    return True


def _erase_dead(ops) -> None:
    """Erase the ops in ``ops`` nothing reads any more, and then their producers that are
    fills, broadcasts and empty tensors (the dilated image, the old init)."""
    work = [o for o in ops if isinstance(o, Operation)]
    while work:
        o = work.pop()
        if o.parent is None or any(r.uses for r in o.results):
            continue
        producers = [v.owner for v in o.operands if isinstance(v.owner, Operation)]
        o.erase()
        work += [p for p in producers if p.name in ("linalg.fill", "linalg.broadcast", "tensor.empty")]


@register_pass
class DecomposeTransposedConvolutionPass(Pass):
    """Sub-pixel decomposition of convolutions over zero-dilated images: see the module
    docstring."""

    name = "ireec-decompose-transposed-convolution"

    def run(self, module: Operation, ctx: PassContext) -> None:
        for f in functions(module):
            for blk in blocks_of(f):
                for op in list(blk.ops):
                    if op.parent is blk:
                        decompose(op)

"""Convolutions with a 1x1 filter window, unit strides and dilations become matmul-like
``linalg.generic``\\ s without window loops.

Mirrors IREE's GlobalOptimization ``iree-global-opt-convert-1x1-filter-conv2d-to-matmul``
(Convert1X1FilterConv2DToMatmul.cpp), generalised to the loop level: a convolution —
``linalg.conv_2d_nchw_fchw``, ``conv_2d_nhwc_hwcf``, ``conv_2d_nhwc_fhwc``, their quantized
twins (``conv_2d_nchw_fchw_q``...: a quantized matmul-like generic results) or a
``linalg.generic`` shaped like one (what the StableHLO and TOSA lowerings produce: reduction
loops and two inputs each broadcast along some parallel loop) — whose window loops (reduction
loops of extent 1 that index the input as ``oh + kh``) can be dropped, leaving every operand
indexed by plain loop dims, becomes the generic over the remaining loops, in the canonical order (the result's parallel
loops as it indexes them, then the reduction):

    NCHW/FCHW:  C[n, f, oh, ow] += In[n, c, oh, ow] * W[f, c, 0, 0]
    NHWC/HWCF:  C[n, oh, ow, f] += In[n, oh, ow, c] * W[0, 0, c, f]

The filter keeps its shape: its unit window dims are indexed by the constant 0 (IREE
collapses them with a ``tensor.collapse_shape``; indexing them by 0 is the same access and
leaves nothing for elementwise fusion's unit-reshape folding to undo). Strides other than 1
(``oh * 2``) or dilations leave a non-plain index and the convolution unchanged. The payload
is moved over unchanged (the transformation only renames loops), so any element type and body
are covered; a payload reading ``linalg.index`` is left alone.

An NCHW convolution whose filter
:mod:`.convert_conv_filter_to_channels_last` made channels-last (few output pixels) is left a
convolution: im2col computes it as pixels x channels.

What this enables: :mod:`.collapse_dimensions` then merges the spatial dims (``oh, ow``; and
``n`` with them for NHWC) into one, so the sgemm micro-kernel computes the whole image in one
call (``C[n, f, hw] += W[f, c] * In[n, c, hw]``; NHWC ``C[nhw, f] += In[nhw, c] * W[c, f]``).
"""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple

from ...dialects import linalg as L
from ...ir import types as T
from ...ir.affine import AffineBinary, AffineConst, AffineDim, AffineExpr, AffineMap
from ...ir.attributes import ArrayAttr
from ...ir.core import Operation
from ..common.distribution import dims_of, is_contraction_like
from ..common.linalg_generalize_named_ops import generalize
from ..pass_base import Pass, PassContext, functions, register_pass
from .convert_conv_filter_to_channels_last import channels_last_filter
from .elementwise_op_fusion import blocks_of

#: Named 2-D convolutions IREE's pass converts (NHWC and NCHW layouts), and their quantized
#: twins (``_q``: two zero-point scalars more, indexed by no loop; the payload moves over as is).
NAMED_CONVS = tuple(f"linalg.{name}{q}" for name in
                    ("conv_2d_nchw_fchw", "conv_2d_nhwc_hwcf", "conv_2d_nhwc_fhwc")
                    for q in ("", "_q") if f"{name}{q}" in L.NAMED_SPECS)


def _drop(e: AffineExpr, renumber: Dict[int, int]) -> AffineExpr:
    """``e`` with the dims missing from ``renumber`` set to 0 and the others renumbered;
    ``x + 0`` and ``x * 0`` folded."""
    if isinstance(e, AffineDim):
        return AffineDim(renumber[e.pos]) if e.pos in renumber else AffineConst(0)
    if isinstance(e, AffineBinary):
        lhs, rhs = _drop(e.lhs, renumber), _drop(e.rhs, renumber)
        zero = [isinstance(x, AffineConst) and x.value == 0 for x in (lhs, rhs)]
        if e.kind == "+" and zero[1]:
            return lhs
        if e.kind == "+" and zero[0]:
            return rhs
        if e.kind == "*" and any(zero):
            return AffineConst(0)
        return AffineBinary(e.kind, lhs, rhs)
    return e


def window_dims(op: Operation) -> List[int]:
    """The loops of convolution ``op`` (named or generic, on static tensors) that are unit
    filter-window loops: reduction loops of extent 1 that appear in an input index summed with
    another loop (``oh + kh``). Empty when ``op`` is no convolution."""
    if not is_contraction_like(op):
        return []
    try:
        maps, its, ranges = L.indexing_maps(op), L.iterator_types(op), L.loop_ranges(op)
    except (ValueError, KeyError):
        return []
    n_in = len(L.inputs(op))
    summed = set()
    for m in maps[:n_in]:
        for e in m.results:
            if isinstance(e, AffineBinary) and e.kind == "+" and len(dims_of(e)) > 1:
                summed |= dims_of(e)
    return [d for d, (it, r) in enumerate(zip(its, ranges)) if it == L.REDUCTION and r == 1 and d in summed]


def converted_maps(op: Operation, window: List[int]) -> Optional[Tuple[List[AffineMap], List[str]]]:
    """The indexing maps and iterator types of ``op`` without its ``window`` loops, when every
    index becomes a plain loop dim or the constant 0 at a dim of extent 1 and a reduction loop
    remains; else None. The loops are renumbered into the canonical matmul order: parallel
    loops in the order the result indexes them, then the reductions in their order (the
    StableHLO lowering's ``(n, f, oh, ow)`` for an NHWC result becomes ``(n, oh, ow, f)``)."""
    maps, its = L.indexing_maps(op), L.iterator_types(op)
    kept = [d for d in range(len(its)) if d not in window]
    if not any(its[d] == L.REDUCTION for d in kept):
        return None
    n_in = len(L.inputs(op))
    out_dims = [e.pos for m in maps[n_in:] for e in m.results if isinstance(e, AffineDim)]
    parallel = [d for d in kept if its[d] == L.PARALLEL]
    order = [d for d in dict.fromkeys(out_dims) if d in parallel]
    order += [d for d in parallel if d not in order] + [d for d in kept if its[d] == L.REDUCTION]
    renumber = {d: k for k, d in enumerate(order)}
    out = []
    for v, m in zip(op.operands, maps):
        shape = getattr(v.type, "shape", ())
        res = tuple(_drop(e, renumber) for e in m.results)
        for e, size in zip(res, shape):
            if isinstance(e, AffineConst) and not (e.value == 0 and size == 1):
                return None
            if not isinstance(e, (AffineDim, AffineConst)):
                return None  # a stride or dilation other than 1
        out.append(AffineMap(len(order), 0, res))
    return out, [its[d] for d in order]


def convert(op: Operation) -> Optional[Operation]:
    """Rewrite convolution ``op`` as described in the module docstring; returns the new
    generic, or None (``op`` untouched) when it does not apply."""
    if op.name not in NAMED_CONVS and op.name != "linalg.generic":
        return None
    if not all(isinstance(v.type, T.TensorType) and v.type.has_static_shape for v in op.operands
               if isinstance(v.type, T.ShapedType)):
        return None
    window = window_dims(op)
    if not window or (op.name == "linalg.generic" and channels_last_filter(op)):
        return None  # no window, or pixels x channels through im2col
    converted = converted_maps(op, window)
    if converted is None or any(o.name == "linalg.index" for o in op.walk()):
        return None
    maps, its = converted
    op = generalize(op)
    op.attributes["indexing_maps"] = L.maps_attr(maps)
    op.attributes["iterator_types"] = ArrayAttr(tuple(L.iterator_attr(k) for k in its))
    return op


@register_pass
class Convert1X1FilterConv2DToMatmulPass(Pass):
    """IREE's ``iree-global-opt-convert-1x1-filter-conv2d-to-matmul``: see the module
    docstring."""

    name = "iree-global-opt-convert-1x1-filter-conv2d-to-matmul"

    def run(self, module: Operation, ctx: PassContext) -> None:
        for f in functions(module):
            for blk in blocks_of(f):
                for op in list(blk.ops):
                    convert(op)

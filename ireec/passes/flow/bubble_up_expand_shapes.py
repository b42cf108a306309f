"""Move ``tensor.expand_shape`` above the ``tensor.extract_slice`` it reshapes.

Mirrors the ``BubbleExpandThroughExtract`` pattern of IREE's
``iree-dispatch-creation-bubble-up-expand-shapes`` (DispatchCreation/BubbleUpExpandShapes.cpp;
the other patterns of that pass, which move reshapes through linalg ops, are not part of
ireec: its elementwise fusion folds unit-dim reshapes itself)::

    %s = tensor.extract_slice %x[0, 0, 64] [2, 16, 64] [1, 1, 1]
           : tensor<2x16x192xf32> to tensor<2x16x64xf32>
    %e = tensor.expand_shape %s [[0], [1], [2, 3]] output_shape [2, 16, 4, 16]
    // becomes
    %e = tensor.expand_shape %x [[0], [1], [2, 3]] output_shape [2, 16, 12, 16]
    %s = tensor.extract_slice %e[0, 0, 4, 0] [2, 16, 4, 16] [1, 1, 1, 1]

The reshape of the whole source is free (``flow.tensor.reshape``), and the slice then sits
right before its consumer, so form-dispatch-regions clones it into the consumer's dispatch
(a view of the source's buffer) instead of copying it in a dispatch of its own.

A source dim expanded into one dim keeps its offset, size and stride. A source dim expanded
into several (sizes ``a1 x ... x ak``) must be sliced with stride 1 at an offset and over a
source extent that are multiples of ``inner = a2 * ... * ak``; it becomes
``extent/inner x a2 x ... x ak``, sliced at ``[offset/inner, 0, ..., 0]``. (IREE asks for an
unsliced dim there; row-major order makes whole rows of ``inner`` elements the same view.)
Only static, non-rank-reducing slices are moved.
"""
from __future__ import annotations

from typing import List, Optional, Tuple

from ...dialects.tensor import i64_array, reassociation, static_list
from ...ir import types as T
from ...ir.attributes import DenseArrayAttr
from ...ir.core import Builder, Operation
from ..pass_base import Pass, PassContext, functions, register_pass
from .elementwise_op_fusion import blocks_of


def _swapped(slice_op: Operation, expand: Operation
             ) -> Optional[Tuple[List[int], List[int], List[int], List[int]]]:
    """(expanded source shape, offsets, sizes, strides) of the swapped pair, or None when
    the slice cannot move below the reshape (see the module docstring)."""
    src_t, slice_t = slice_op.operands[0].type, slice_op.results[0].type
    out_t = expand.results[0].type
    if not all(isinstance(t, T.TensorType) and t.has_static_shape for t in (src_t, slice_t, out_t)):
        return None
    if len(expand.operands) != 1 or len(slice_op.operands) != 1 or src_t.rank != slice_t.rank:
        return None
    offs, sizes, strides = (static_list(slice_op, n) for n in ("static_offsets", "static_sizes", "static_strides"))
    shape, new_offs, new_sizes, new_strides = [], [], [], []
    for i, group in enumerate(reassociation(expand)):
        parts = [out_t.shape[r] for r in group]
        if len(parts) == 1:
            shape.append(src_t.shape[i])
            new_offs.append(offs[i])
            new_sizes.append(sizes[i])
            new_strides.append(strides[i])
            continue
        inner = 1
        for a in parts[1:]:
            inner *= a
        if strides[i] != 1 or inner == 0 or offs[i] % inner or src_t.shape[i] % inner:
            return None
        shape += [src_t.shape[i] // inner] + parts[1:]
        new_offs += [offs[i] // inner] + [0] * (len(parts) - 1)
        new_sizes += parts
        new_strides += [1] * len(parts)
    return shape, new_offs, new_sizes, new_strides


def bubble_expand_through_extract(expand: Operation) -> bool:
    """Rewrite ``expand_shape(extract_slice(x))`` into ``extract_slice(expand_shape(x))``;
    returns whether it did. The old slice stays while it has other users."""
    slice_op = expand.operands[0].owner
    if not (isinstance(slice_op, Operation) and slice_op.name == "tensor.extract_slice"):
        return False
    swapped = _swapped(slice_op, expand)
    if swapped is None:
        return False
    shape, offs, sizes, strides = swapped
    src = slice_op.operands[0]
    b = Builder.before(expand)
    et = src.type.element_type
    big = b.create("tensor.expand_shape", [src], [T.TensorType(tuple(shape), et)], {
        "reassociation": expand.attributes["reassociation"],
        "static_output_shape": i64_array(shape)})
    big.loc = expand.loc
    new = b.create("tensor.extract_slice", [big.result], [expand.results[0].type], {
        "static_offsets": i64_array(offs), "static_sizes": i64_array(sizes),
        "static_strides": i64_array(strides),
        "operandSegmentSizes": DenseArrayAttr(T.i32, (1, 0, 0, 0))})
    new.loc = slice_op.loc
    expand.replace_with([new.result])
    if not slice_op.results[0].uses:
        slice_op.erase()
    return True


@register_pass
class BubbleUpExpandShapesPass(Pass):
    """IREE's ``iree-dispatch-creation-bubble-up-expand-shapes`` (its extract_slice rule):
    see the module docstring."""

    name = "iree-dispatch-creation-bubble-up-expand-shapes"

    def run(self, module: Operation, ctx: PassContext) -> None:
        for f in functions(module):
            for blk in blocks_of(f):
                for op in list(blk.ops):
                    if op.parent is blk and op.name == "tensor.expand_shape":
                        bubble_expand_through_extract(op)

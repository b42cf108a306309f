"""Rewrite named linalg ops (matmul, conv, pooling, fill, transpose, ...) as ``linalg.generic``.

Mirrors MLIR's ``linalg-generalize-named-ops`` pass (``Generalization.cpp``): the generic op
takes the named op's inputs, outputs and result types, its indexing maps and iterator types
(see :func:`ireec.dialects.linalg.indexing_maps`), and its payload region moved over
unchanged. Like upstream, the named op's other attributes (strides, dilations, discardable
attributes) are not carried over: the maps already encode strides and dilations.

Unlike upstream, ``linalg.map`` is generalized too: its body gets the (unused) output block
argument a generic payload has. Works on tensors and memrefs alike.
"""
from __future__ import annotations

from ...dialects.linalg import (build_generic, element_type, indexing_maps, inputs,
                                is_named_structured, iterator_types, outputs)
from ...ir.core import Operation
from ..pass_base import Pass, PassContext, register_pass


def generalize(op: Operation) -> Operation:
    """Replace named structured op ``op`` (in its block) by an equivalent ``linalg.generic``
    and return the new op; a ``linalg.generic`` is returned unchanged.

    Example: ``linalg.conv_2d_nchw_fchw {strides = dense<2> : vector<2xi64>}`` becomes a
    generic over (n, f, oh, ow, c, kh, kw) with input map
    ``(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 * 2 + d5, d3 * 2 + d6)``.
    """
    if op.name == "linalg.generic":
        return op
    if not is_named_structured(op):
        raise ValueError(f"{op.name} is not a named linalg structured op")
    ins, outs = inputs(op), outputs(op)
    maps, iters = indexing_maps(op), iterator_types(op)
    region = op.regions.pop(0)
    block = region.blocks[0]
    if op.name == "linalg.map" and len(block.args) == len(ins):
        block.add_arg(element_type(outs[0].type))
    generic = build_generic(ins, outs, maps, iters, region, result_types=op.result_types,
                            loc=op.loc)
    op.parent.insert_before(op, generic)
    op.replace_with(generic.results)
    return generic


@register_pass
class LinalgGeneralizeNamedOpsPass(Pass):
    """MLIR's ``linalg-generalize-named-ops``: every named structured linalg op in the module
    becomes a ``linalg.generic`` with the upstream indexing maps and iterator types."""

    name = "linalg-generalize-named-ops"

    def run(self, module: Operation, ctx: PassContext = None) -> None:
        for op in [o for o in module.walk() if is_named_structured(o)]:
            generalize(op)

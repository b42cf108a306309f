"""``tensor.concat`` becomes ``tensor.empty`` plus one ``tensor.insert_slice`` per input.

Mirrors MLIR's ``tensor::populateDecomposeTensorConcatPatterns`` (``DecomposeTensorConcatOp``,
used by IREE before dispatch formation): input ``k`` is inserted at offset
``sum(sizes of inputs before k)`` along the concatenated dim, all other offsets 0, strides 1.
Shapes must be static (CompileError otherwise).
"""
from __future__ import annotations

from ...dialects.tensor import i64_array, segment_sizes
from ...ir import types as T
from ...ir.core import Builder, Operation
from ...ir.diagnostics import CompileError
from ..pass_base import Pass, PassContext, register_pass


def decompose_concat(op: Operation) -> None:
    """Replace ``op`` (a tensor.concat) in place; CompileError on dynamic shapes."""
    rt = op.results[0].type
    types = [v.type for v in op.operands] + [rt]
    if not all(isinstance(t, T.TensorType) and t.has_static_shape for t in types):
        raise CompileError("'tensor.concat' on dynamic shapes is not supported", op.loc)
    axis = op.attributes["dim"].value
    b = Builder.before(op)
    acc = b.create("tensor.empty", [], [rt]).result
    offset = 0
    for v in op.operands:
        shape = v.type.shape
        offsets = [offset if k == axis else 0 for k in range(len(shape))]
        acc = b.create("tensor.insert_slice", [v, acc], [rt], {
            "static_offsets": i64_array(offsets), "static_sizes": i64_array(shape),
            "static_strides": i64_array([1] * len(shape)),
            "operandSegmentSizes": segment_sizes(1, 1, 0, 0, 0)}).result
        offset += shape[axis]
    op.replace_with([acc])


@register_pass
class DecomposeTensorConcatPass(Pass):
    """MLIR's tensor.concat decomposition: empty + insert_slice chain."""

    name = "decompose-tensor-concat"

    def run(self, module: Operation, ctx: PassContext) -> None:
        for op in [o for o in module.walk() if o.name == "tensor.concat"]:
            decompose_concat(op)

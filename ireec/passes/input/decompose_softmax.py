"""``linalg.softmax`` becomes max-reduce, exp(x - max), sum-reduce and divide generics.

Mirrors upstream's ``linalg::SoftmaxOp::decomposeOperation`` as IREE's
``iree-codegen-decompose-softmax`` applies it::

    m = max_d x            (fill -inf, reduction with arith.maxnumf)
    e = exp(x - m)         (broadcast m along d)
    s = sum_d e            (fill 0, reduction with arith.addf)
    y = e / s

for ``linalg.softmax dimension(d)`` on a static-shaped float tensor.
"""
from __future__ import annotations

import math

from ...dialects.linalg import build_generic, build_named_region
from ...dialects.tensor import segment_sizes
from ...ir import types as T
from ...ir.affine import AffineMap
from ...ir.attributes import FloatAttr
from ...ir.core import Builder, Operation
from ...ir.diagnostics import CompileError
from ..pass_base import Pass, PassContext, register_pass


def decompose_softmax(op: Operation) -> None:
    """Replace ``op`` (a linalg.softmax on tensors) in place; CompileError if dynamic."""
    x, out = op.operands[0], op.operands[1]
    t = x.type
    if not (isinstance(t, T.TensorType) and t.has_static_shape and isinstance(t.element_type, T.FloatType)):
        raise CompileError(f"'linalg.softmax' needs a static float tensor, got {t}", op.loc)
    d = op.attributes["dimension"].value
    rank, et = t.rank, t.element_type
    red_t = T.TensorType(tuple(s for k, s in enumerate(t.shape) if k != d), et)
    ident = AffineMap.identity(rank)
    red_map = AffineMap.from_dims(rank, [k for k in range(rank) if k != d])
    iters = ["reduction" if k == d else "parallel" for k in range(rank)]
    b = Builder.before(op)

    def filled(value: float):
        c = b.create("arith.constant", [], [et], {"value": FloatAttr(value, et)}).result
        e = b.create("tensor.empty", [], [red_t]).result
        return b.create("linalg.fill", [c, e], [red_t],
                        {"operandSegmentSizes": segment_sizes(1, 1)},
                        regions=[build_named_region("fill", [et], [et], {})]).result

    mx = build_generic([x], [filled(-math.inf)], [ident, red_map], iters,
                       lambda sb, a: [sb.op("arith.maxnumf", [a[0], a[1]], et)], builder=b).result
    ex = build_generic([x, mx], [out], [ident, red_map, ident], ["parallel"] * rank,
                       lambda sb, a: [sb.op("math.exp", [sb.op("arith.subf", [a[0], a[1]], et)], et)],
                       builder=b).result
    sm = build_generic([ex], [filled(0.0)], [ident, red_map], iters,
                       lambda sb, a: [sb.op("arith.addf", [a[0], a[1]], et)], builder=b).result
    y = build_generic([ex, sm], [out], [ident, red_map, ident], ["parallel"] * rank,
                      lambda sb, a: [sb.op("arith.divf", [a[0], a[1]], et)], builder=b)
    op.replace_with(y.results)


@register_pass
class DecomposeSoftmaxPass(Pass):
    """IREE's ``iree-codegen-decompose-softmax`` at the input phase."""

    name = "iree-codegen-decompose-softmax"

    def run(self, module: Operation, ctx: PassContext) -> None:
        for op in [o for o in module.walk() if o.name == "linalg.softmax" and o.results]:
            decompose_softmax(op)

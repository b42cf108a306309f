"""Elementwise arith/math ops on ranked tensors become ``linalg.generic`` ops.

Mirrors MLIR's ``convert-elementwise-to-linalg`` (ElementwiseToLinalg.cpp): every operand
and the result use the identity indexing map, all loops are parallel, the scalar op is
cloned into the body. Scalar operands (e.g. the i1 condition of arith.select) are passed
through with a rank-0 broadcast map.
"""
from __future__ import annotations

from ...dialects.registry import has_trait
from ...ir import types as T
from ...ir.affine import AffineMap
from ...ir.core import Builder, Operation
from ...dialects.linalg import build_generic
from ..pass_base import Pass, PassContext, register_pass


def _is_elementwise_on_tensors(op: Operation) -> bool:
    return (op.dialect in ("arith", "math") and has_trait(op, "elementwise") and len(op.results) == 1
            and isinstance(op.results[0].type, T.TensorType))


@register_pass
class ConvertElementwiseToLinalgPass(Pass):
    name = "convert-elementwise-to-linalg"

    def run(self, module: Operation, ctx: PassContext) -> None:
        for op in [o for o in module.walk() if _is_elementwise_on_tensors(o)]:
            self.rewrite(op)

    @staticmethod
    def rewrite(op: Operation) -> None:
        rt = op.results[0].type
        rank = rt.rank
        b = Builder.before(op)
        init = b.create("tensor.empty", [], [rt]).result
        maps, ins = [], []
        for v in op.operands:
            if isinstance(v.type, T.TensorType):
                maps.append(AffineMap.identity(rank))
            else:
                maps.append(AffineMap(rank, 0, ()))
                # A scalar operand is broadcast through a rank-0 tensor of it.
                v = b.create("tensor.from_elements", [v], [T.TensorType((), v.type)]).result
            ins.append(v)
        maps.append(AffineMap.identity(rank))

        def body(sb, args):
            scalar = Operation(op.name, args[: len(ins)], [rt.element_type], dict(op.attributes), loc=op.loc)
            sb.block.append(scalar)
            return [scalar.result]

        g = build_generic(ins, [init], maps, ["parallel"] * rank, body, builder=b, loc=op.loc)
        op.replace_with(g.results)

"""Scalars the host computes reach dispatches through rank-0 tensors.

IREE passes such scalars to a dispatch as push constants (``flow.dispatch`` scalar operands,
``hal.interface.constant.load`` in the kernel). ireec's kernels read everything from bindings,
so a scalar computed on the host (read with ``tensor.extract``, or a block argument of a host
loop) that a future dispatch root uses is first written into a rank-0 tensor
(``tensor.from_elements``, done by the host) and read back inside the dispatch:

- uses in a payload region: ``tensor.extract %t[]`` at the top of the region;
- the scalar input of ``linalg.generic`` or of a named structured op (the zero points of
  ``quantized_matmul`` or ``conv_2d_nchw_fchw_q``): the rank-0 tensor replaces it (its
  indexing map already has no results; the payload's block argument stays the element type);
- the value of ``linalg.fill``: the fill becomes a ``linalg.generic`` broadcasting the tensor.

Constants are left alone: dispatch formation clones them into the dispatch.
"""
from __future__ import annotations

from typing import Dict

from ...dialects import linalg
from ...ir import types as T
from ...ir.affine import AffineMap
from ...ir.core import Builder, Operation, Value
from ..pass_base import Pass, PassContext, defined_functions, register_pass

_SCALAR = (T.IntegerType, T.FloatType, T.IndexType)


def _is_host_scalar(v: Value, f: Operation) -> bool:
    if not isinstance(v.type, _SCALAR):
        return False
    owner = v.owner
    if isinstance(owner, Operation):
        return owner.parent_op is f and owner.name != "arith.constant"
    return owner.parent_op is f  # a block argument of a host block


def _is_root(op: Operation) -> bool:
    if op.name in ("tensor.from_elements", "tensor.extract", "tensor.insert", "func.return", "func.call"):
        return False
    return op.dialect in ("linalg", "tensor") and any(isinstance(r.type, T.TensorType) for r in op.results)


@register_pass
class ConvertHostScalarsToTensorsPass(Pass):
    name = "convert-host-scalars-to-tensors"

    def run(self, module: Operation, ctx: PassContext) -> None:
        for f in defined_functions(module):
            boxed: Dict[Value, Value] = {}
            for blk in list(f.regions[0].blocks):
                for op in list(blk.ops):
                    if _is_root(op):
                        self._rewrite(op, f, boxed)

    @staticmethod
    def _box(v: Value, boxed: Dict[Value, Value]) -> Value:
        t = boxed.get(v)
        if t is None:
            owner = v.owner
            if isinstance(owner, Operation):
                b = Builder.after(owner)
            else:
                b = Builder(owner, 0)
            t = b.create("tensor.from_elements", [v], [T.TensorType((), v.type)]).result
            boxed[v] = t
        return t

    def _rewrite(self, op: Operation, f: Operation, boxed: Dict[Value, Value]) -> None:
        # Uses inside the op's regions.
        for region in op.regions:
            if not region.blocks:
                continue
            entry = region.blocks[0]
            local: Dict[Value, Value] = {}
            for inner in list(op.walk()):
                if inner is op:
                    continue
                for i, v in enumerate(list(inner.operands)):
                    if _is_host_scalar(v, f):
                        if v not in local:
                            t = self._box(v, boxed)
                            local[v] = Builder(entry, 0, inner.loc).create("tensor.extract", [t], [v.type]).result
                        inner.set_operand(i, local[v])
        # Direct scalar operands.
        if op.name == "linalg.fill" and _is_host_scalar(op.operands[0], f):
            t = self._box(op.operands[0], boxed)
            out = op.operands[1]
            rank = out.type.rank
            g = linalg.build_generic([t], [out], [AffineMap(rank, 0, ()), AffineMap.identity(rank)],
                                     ["parallel"] * rank, lambda sb, args: [args[0]], builder=Builder.before(op))
            op.replace_with(list(g.results))
        elif linalg.is_linalg_structured(op):
            for i, v in enumerate(linalg.inputs(op)):
                if _is_host_scalar(v, f):
                    op.set_operand(i, self._box(v, boxed))

"""Wrap each root op of a host function in a ``flow.dispatch.region`` with its producers.

Mirrors IREE's DispatchCreation ``FormDispatchRegionsPass``: roots are linalg structured ops
and the data-movement tensor ops that need a kernel (pad, slices, concat); ``tensor.empty``
and scalar constants are cloned in (``CloneProducersIntoDispatchRegions``), and a
``linalg.fill`` whose only use is the init operand of a root is moved in with it, as IREE
does. Shape-only ops (expand/collapse_shape) become ``flow.tensor.reshape`` on the host.
(Elementwise producer/consumer fusion is a separate, later pass.)
"""
from __future__ import annotations

from typing import List

from ...ir import types as T
from ...ir.core import Block, Builder, Operation, Region
from ...ir.diagnostics import CompileError
from ..pass_base import Pass, PassContext, functions, register_pass

_TENSOR_DISPATCH_OPS = {"tensor.pad", "tensor.extract_slice", "tensor.insert_slice", "tensor.concat",
                        "tensor.generate", "tensor.from_elements", "tensor.splat", "tensor.extract",
                        "tensor.insert", "tensor.bitcast"}
_RESHAPES = {"tensor.expand_shape", "tensor.collapse_shape", "tensor.reshape", "tensor.cast"}


def is_dispatch_root(op: Operation) -> bool:
    if op.name.startswith("linalg.") and op.name not in ("linalg.yield", "linalg.index"):
        return True
    return op.name in _TENSOR_DISPATCH_OPS and any(isinstance(r.type, T.TensorType) for r in op.results)


def _is_clonable_producer(op: Operation) -> bool:
    if op.name == "tensor.empty":
        return True
    if op.name == "arith.constant" and not isinstance(op.results[0].type, T.ShapedType):
        return True
    return False


@register_pass
class FormDispatchRegionsPass(Pass):
    name = "iree-dispatch-creation-form-dispatch-regions"

    def run(self, module: Operation, ctx: PassContext) -> None:
        for f in functions(module):
            if f.regions and f.regions[0].blocks:
                for blk in f.regions[0].blocks:
                    self.form_in_block(blk)

    def form_in_block(self, blk: Block) -> None:
        for op in list(blk.ops):
            if op.parent is not blk:
                continue  # already moved into a region
            if op.name in _RESHAPES:
                self._to_flow_reshape(op)
            elif is_dispatch_root(op):
                self._wrap(op)

    @staticmethod
    def _to_flow_reshape(op: Operation) -> None:
        b = Builder.before(op)
        r = b.create("flow.tensor.reshape", [op.operands[0]], [op.results[0].type])
        op.results[0].replace_all_uses_with(r.result)
        op.erase()

    def _wrap(self, root: Operation) -> None:
        b = Builder.before(root)
        region_op = b.create("flow.dispatch.region", [], [r.type for r in root.results])
        blk = Block()
        region_op.add_region(Region([blk]))
        # Results of the root are now produced by the region.
        for r, nr in zip(root.results, region_op.results):
            r.replace_uses_if(nr, lambda user: True)
        root.detach()
        blk.append(root)
        blk.append(Operation("flow.return", list(root.results), loc=root.loc))
        # Fills feeding only this root's init operands move in with it.
        for v in list(root.operands):
            p = v.owner if isinstance(v.owner, Operation) else None
            if p is not None and p.name == "linalg.fill" and p.parent is region_op.parent and len(v.uses) == 1:
                p.detach()
                blk.insert(blk.ops.index(root), p)
        self._clone_producers(region_op)

    @staticmethod
    def _clone_producers(region_op: Operation) -> None:
        """Clone tensor.empty and scalar constants used in the region into it."""
        blk = region_op.body
        inside = set()
        for op in region_op.walk():
            inside.add(id(op))
        changed = True
        while changed:
            changed = False
            for op in list(region_op.walk()):
                if op is region_op:
                    continue
                for i, v in enumerate(op.operands):
                    owner = v.owner
                    if isinstance(owner, Operation) and id(owner) not in inside and _is_clonable_producer(owner):
                        c = owner.clone()
                        blk.insert(0, c)
                        inside.add(id(c))
                        for j, u in enumerate(list(op.operands)):
                            if u is v:
                                op.set_operand(j, c.results[0])
                        changed = True
        # Drop host producers left without users.
        for op in list(region_op.parent.ops):
            if _is_clonable_producer(op) and not any(r.uses for r in op.results):
                op.erase()


def captured_values(region_op: Operation) -> List:
    """Values used inside ``region_op`` but defined outside it, in first-use order."""
    inside_vals = set()
    for op in region_op.walk():
        if op is not region_op:
            inside_vals.update(id(r) for r in op.results)
        for r in op.regions:
            for b in r.blocks:
                inside_vals.update(id(a) for a in b.args)
    out, seen = [], set()
    for op in region_op.walk():
        if op is region_op:
            continue
        for v in op.operands:
            if id(v) not in inside_vals and id(v) not in seen:
                seen.add(id(v))
                out.append(v)
    for v in out:
        if not isinstance(v.type, T.TensorType):
            raise CompileError(f"a dispatch captures the host scalar of type {v.type}; only tensors "
                               f"and constants may cross into a dispatch", region_op.loc)
    return out

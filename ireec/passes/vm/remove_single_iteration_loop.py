"""Loops that run exactly once become their body.

Mirrors IREE's ``iree-codegen-remove-single-iteration-loop`` (RemoveSingleIterationLoopPass,
``compiler/src/iree/compiler/Codegen/Common/RemoveSingleIterationLoop.cpp``), which is what
MLIR's ``scf.for`` canonicalization (``SimplifyTrivialLoops``) does for constant bounds, here
on the ``emitc.for`` loops of kernels: an ``emitc.for`` with constant ``lb < ub <= lb + step``
(e.g. over a unit dimension of a tile) is replaced by its body with the induction variable
replaced by ``lb``.
"""
from __future__ import annotations

from ...ir.attributes import IntegerAttr
from ...ir.core import Block, Operation
from ..pass_base import Pass, PassContext, register_pass
from .emitc_utils import constant_value, emitc_funcs


def inline_single_trip_loops(blk: Block) -> None:
    """Inline every single-trip ``emitc.for`` nested in ``blk`` (innermost first): an
    ``emitc.constant`` holding the lower bound replaces the induction variable, and the
    body's ops move before the loop, which is erased."""
    for op in list(blk.ops):
        for r in op.regions:
            for inner in r.blocks:
                inline_single_trip_loops(inner)
        if op.name != "emitc.for":
            continue
        lb, ub, step = (constant_value(x) for x in op.operands)
        if lb is None or ub is None or step is None or not (lb < ub <= lb + step):
            continue
        iv = op.body.args[0]
        c = Operation("emitc.constant", [], [iv.type], {"value": IntegerAttr(lb, iv.type)}, loc=op.loc)
        blk.insert_before(op, c)
        iv.replace_all_uses_with(c.results[0])
        for o in list(op.body.ops):
            o.detach()
            blk.insert_before(op, o)
        op.erase()


@register_pass
class RemoveSingleIterationLoopPass(Pass):
    """Single-trip ``emitc.for`` loops of kernels become their body."""

    name = "iree-codegen-remove-single-iteration-loop"

    def run(self, module: Operation, ctx: PassContext) -> None:
        for f in emitc_funcs(module, "kernel"):
            inline_single_trip_loops(f.body)

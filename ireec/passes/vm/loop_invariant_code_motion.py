"""Loop-invariant code motion over the emitc ops of kernels.

Mirrors MLIR's ``loop-invariant-code-motion`` (``mlir/lib/Transforms/LoopInvariantCodeMotion.cpp``,
``moveLoopInvariantCode``): an op of a loop body whose operands are all defined outside the
loop, and that may be moved (no side effects, no regions), moves before the loop; innermost
loops first, so invariants climb as far as they can.

Movable: ``emitc.constant`` and ``emitc.expression`` (pure C expressions), except those whose
C divides (``divides``: C ``/``, ``%``), which leave only loops known to run at least once,
as MLIR keeps ops that are not speculatable in place; an ``emitc.load`` from a buffer the loop neither
stores to nor assigns, likewise only out of loops known to run at least once.
"""
from __future__ import annotations

from typing import Set

from ...ir.core import Block, Operation, Value
from ..pass_base import Pass, PassContext, register_pass
from .emitc_utils import defined_inside, emitc_funcs, runs_at_least_once

#: Ops free of side effects that may always be executed early.
_HOISTABLE = {"emitc.constant", "emitc.expression"}


def _stored_bases(op: Operation) -> Set[Value]:
    """The arrays ``op`` stores to and the scalars it assigns (its nested ops included)."""
    out: Set[Value] = set()
    for o in op.walk():
        if o.name == "emitc.store":
            out.add(o.operands[1])
        elif o.name == "emitc.assign":
            out.add(o.operands[0])
    return out


def hoist_loop_invariants(blk: Block) -> None:
    """Move the loop invariants of every ``emitc.for`` nested in ``blk`` before their loop
    (see the module docstring for what moves)."""
    for op in list(blk.ops):
        for r in op.regions:
            for inner in r.blocks:
                hoist_loop_invariants(inner)
        if op.name != "emitc.for":
            continue
        inside = defined_inside(op)
        once = runs_at_least_once(op)
        stored = _stored_bases(op) if once else set()
        for o in list(op.body.ops):
            # A load moves too when nothing in the loop writes its buffer.
            movable = o.name in _HOISTABLE or (once and o.name == "emitc.load" and o.operands[0] not in stored)
            if not movable or o.regions:
                continue
            if any(x in inside for x in o.operands):
                continue
            if "divides" in o.attributes and not once:
                continue
            o.detach()
            blk.insert_before(op, o)
            inside.difference_update(o.results)


@register_pass
class LoopInvariantCodeMotionPass(Pass):
    """Loop invariants of kernels' ``emitc.for`` loops move before the loop."""

    name = "loop-invariant-code-motion"

    def run(self, module: Operation, ctx: PassContext) -> None:
        for f in emitc_funcs(module, "kernel"):
            hoist_loop_invariants(f.body)

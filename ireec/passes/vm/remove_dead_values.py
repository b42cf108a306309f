"""Dead emitc ops and write-only variables are erased before C is printed.

Mirrors MLIR's ``remove-dead-values`` (``mlir/lib/Transforms/RemoveDeadValues.cpp``) together
with the trivially-dead-op erasure of its canonicalizer (``isOpTriviallyDead``), on the
``emitc.func`` ops of the module (kernels and host functions): C compilers warn on unused
locals and on set-but-unused variables, and the C printer prints every op it is given.

Erased, until nothing changes: side-effect-free ops (``emitc.constant``,
``emitc.expression``, ``emitc.load``, ``emitc.read``) whose results are unused, and
``emitc.variable`` ops (scalars or local arrays) only ever assigned or stored into, with
those assignments and stores.
"""
from __future__ import annotations

from typing import Iterator

from ...ir.core import Block, Operation
from ..pass_base import Pass, PassContext, register_pass
from .emitc_utils import emitc_funcs

#: emitc ops without side effects: erased when their results are unused.
PURE_OPS = {"emitc.constant", "emitc.expression", "emitc.load", "emitc.read"}


def _walk_ops(blk: Block) -> Iterator[Operation]:
    for op in blk.ops:
        yield op
        for r in op.regions:
            for b in r.blocks:
                yield from _walk_ops(b)


def _write_only(var: Operation) -> bool:
    """Whether every user of the ``emitc.variable`` ``var`` assigns or stores into it (and
    none reads it, e.g. as a subscript or as the stored value)."""
    v = var.results[0]
    return all((u.name == "emitc.assign" and u.operands[0] is v)
               or (u.name == "emitc.store" and u.operands[1] is v
                   and v not in u.operands[2:] and u.operands[0] is not v)
               for u in v.users)


def erase_dead(blk: Block) -> None:
    """Erase the dead ops and write-only variables nested in ``blk`` (see the module
    docstring), repeating until none is left."""
    changed = True
    while changed:
        changed = False
        for op in reversed(list(_walk_ops(blk))):
            if op.parent is None:
                continue
            if op.name in PURE_OPS and all(not r.uses for r in op.results):
                op.erase()
                changed = True
            elif op.name == "emitc.variable" and _write_only(op):
                for u in op.results[0].users:
                    u.erase()
                op.erase()
                changed = True


@register_pass
class RemoveDeadValuesPass(Pass):
    """Unused side-effect-free emitc ops and write-only variables are erased."""

    name = "remove-dead-values"

    def run(self, module: Operation, ctx: PassContext) -> None:
        for f in emitc_funcs(module):
            erase_dead(f.body)

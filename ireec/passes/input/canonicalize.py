"""Folds and shape refinement on tensors.

Mirrors MLIR's ``canonicalize`` as IREE's GlobalOptimization runs it: ``tensor.cast`` folded
into its users, ``tensor.dim`` of static dims folded to constants, dynamic result types refined
to static ones where the operands make them known.
"""
from __future__ import annotations

from ...ir.core import Operation
from ..pass_base import Pass, PassContext, register_pass


@register_pass
class CanonicalizePass(Pass):
    name = "canonicalize"

    def run(self, module: Operation, ctx: PassContext) -> None:
        pass

"""TOSA → linalg/tensor/arith/scf on tensors.

Mirrors MLIR's TOSA lowering as IREE runs it (``tosa-to-linalg-named``, ``tosa-to-linalg``,
``tosa-to-arith``, ``tosa-to-tensor``, ``tosa-to-scf``). The patterns live in :mod:`.tosa`.
``tosa.const_shape`` values are read by the ops that use them (reshape, pad, slice, tile)
and erased once unused. An op without a pattern, or one a pattern rejects, is a
CompileError at its location.
"""
from __future__ import annotations

from ...ir.core import Builder, Operation
from ...ir.diagnostics import CompileError
from ..pass_base import Pass, PassContext, is_attached, register_pass
from .tosa import PATTERNS


@register_pass
class ConvertTosaToLinalgPass(Pass):
    name = "tosa-to-linalg"

    def run(self, module: Operation, ctx: PassContext) -> None:
        for op in list(module.walk()):
            if not op.name.startswith("tosa.") or not is_attached(op, module):
                continue
            lower = PATTERNS.get(op.name)
            if lower is None:
                continue
            try:
                new = lower(op, Builder.before(op))
            except (ValueError, KeyError, IndexError, TypeError) as e:
                raise CompileError(f"'{op.name}' could not be converted: {e}", op.loc) from None
            if new is not None:
                op.replace_with(list(new))
        # Shape constants die with their users.
        for op in list(module.walk(pre_order=False)):
            if op.name == "tosa.const_shape" and not any(r.uses for r in op.results):
                op.erase()
        for op in module.walk():
            if op.name.startswith("tosa."):
                raise CompileError(f"'{op.name}' is not supported by the TOSA input conversion", op.loc)

"""StableHLO → linalg/tensor/arith/scf on tensors.

Mirrors IREE's ``iree-stablehlo-to-linalg`` input conversion (compiler/plugins/input/StableHLO/
Conversion/StableHLOToLinalg*.cpp). The patterns live in :mod:`.stablehlo`, one module per op
family; each maps an op name to ``lower(op, builder) -> list of replacement values``.
"""
from __future__ import annotations

from ...ir.core import Builder, Operation
from ...ir.diagnostics import CompileError
from ..pass_base import Pass, PassContext, is_attached, register_pass
from .stablehlo import PATTERNS


@register_pass
class ConvertStableHloToLinalgPass(Pass):
    name = "iree-stablehlo-to-linalg"

    def run(self, module: Operation, ctx: PassContext) -> None:
        for op in list(module.walk()):
            if not op.name.startswith("stablehlo.") or not is_attached(op, module):
                continue
            lower = PATTERNS.get(op.name)
            if lower is None:
                continue  # ops handled inside a parent's pattern (e.g. reduce bodies) or left for later
            new = lower(op, Builder.before(op))
            if new is not None:
                op.replace_with(list(new))
        for op in module.walk():
            if op.name.startswith("stablehlo."):
                raise CompileError(f"'{op.name}' is not supported by the StableHLO input conversion", op.loc)

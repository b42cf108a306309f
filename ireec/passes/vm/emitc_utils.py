"""Queries on emitc ops shared by the kernel lowering and the emitc loop passes."""
from __future__ import annotations

from typing import List, Optional, Set

from ...ir.core import Operation, Value


def defined_inside(op: Operation) -> Set[Value]:
    """Every value defined in ``op``'s regions (block arguments and op results, nested
    regions included)."""
    out: Set[Value] = set()
    for r in op.regions:
        for blk in r.blocks:
            out.update(blk.args)
            for o in blk.ops:
                out.update(o.results)
                out |= defined_inside(o)
    return out


def constant_value(v: Value) -> Optional[int]:
    """The value of ``v`` when an ``emitc.constant`` defines it, else None."""
    o = v.owner
    if isinstance(o, Operation) and o.name == "emitc.constant":
        return o.attributes["value"].value
    return None


def runs_at_least_once(loop: Operation) -> bool:
    """Whether an ``emitc.for`` has constant bounds with ``lb < ub``."""
    lb, ub = (constant_value(x) for x in loop.operands[:2])
    return lb is not None and ub is not None and lb < ub


def emitc_funcs(module: Operation, kind: Optional[str] = None) -> List[Operation]:
    """The ``emitc.func`` ops directly in ``module`` (only those whose ``kind`` attribute is
    ``kind`` when given: ``"kernel"`` for workgroup functions)."""
    return [op for op in module.body.ops if op.name == "emitc.func"
            and (kind is None or op.attributes["kind"].value == kind)]


"""Static cost estimates of dispatches: floating-point (and integer) operations per kernel.

The estimate IREE's and TVM's reports use for dense kernels: a structured linalg op executes
its payload once per point of its iteration domain, so it costs
``product(loop ranges) x (scalar ops in its payload)``. A matmul's payload is one multiply
and one add, giving the usual ``2·M·N·K``; an elementwise add costs one operation per output
element. Data movement ops (pad, slices, copies without arithmetic) cost nothing.
"""
from __future__ import annotations

from math import prod
from typing import Dict

from ...dialects import linalg as L
from ...ir.core import Operation

#: Payload ops that are bookkeeping, not arithmetic.
_FREE_OPS = ("linalg.yield", "linalg.index", "arith.constant")


def op_flops(op: Operation) -> int:
    """Operations one structured linalg ``op`` executes: the product of its static loop
    ranges (dynamic ranges count as 1) times the arithmetic ops of its payload (at least 1
    when the payload computes anything, 0 for a pure copy/yield payload)."""
    ranges = L.loop_ranges(op)
    points = prod(r for r in ranges if r is not None) if ranges else 1
    body = L.payload(op)
    work = sum(1 for o in body.ops if o.name not in _FREE_OPS
               and (o.dialect in ("arith", "math", "complex")))
    return points * work


def executable_flops(module: Operation) -> Dict[str, int]:
    """Entry point name → estimated operations of one call of it, for every kernel of the
    ``flow.executable`` ops of ``module`` (kernels still on tensors, as the stream phase
    sees them)."""
    out: Dict[str, int] = {}
    for exe in module.body.ops:
        if exe.name != "flow.executable":
            continue
        for op in exe.walk():
            if op.name == "func.func" and "sym_name" in op.attributes:
                total = 0
                for inner in op.walk():
                    if L.is_linalg_structured(inner):
                        total += op_flops(inner)
                out[op.attributes["sym_name"].value] = total
    return out

"""StableHLO → linalg patterns: elementwise ops, constants, barriers.

Mirrors IREE's ``PointwiseToLinalgConverter`` (StableHLOToLinalgPointwise.cpp): one
``linalg.generic`` with identity maps over the result shape (rank-0 operands of ``select``
and ``clamp`` broadcast with the empty map), the body the op's scalar semantics from
:func:`.common.scalar_op`.
"""
from __future__ import annotations

from ....ir.affine import AffineMap
from ....ir.core import Builder, Operation
from ....ir.diagnostics import CompileError
from .common import ELEMENTWISE_OPS, empty, generic, ranked, scalar_op


def lower_elementwise(op: Operation, b: Builder):
    """Elementwise op on tensors of one static shape → ``linalg.generic``."""
    rt = ranked(op.results[0], op)
    rank = rt.rank
    maps = []
    for v in op.operands:
        vt = ranked(v, op)
        if vt.rank == rank:
            if list(vt.shape) != list(rt.shape):
                raise CompileError(f"'{op.name}' operand shape {vt} differs from result {rt}", op.loc)
            maps.append(AffineMap.identity(rank))
        elif vt.rank == 0:
            maps.append(AffineMap(rank, 0, ()))
        else:
            raise CompileError(f"'{op.name}' operand of rank {vt.rank} against result rank {rank}",
                               op.loc)
    out = empty(b, rt.shape, rt.element_type)
    maps.append(AffineMap.identity(rank))
    g = generic(b, list(op.operands), [out], maps, ["parallel"] * rank,
                lambda sb, a: [scalar_op(sb, op, a[:len(op.operands)], rt.element_type)])
    return g.results


def lower_constant(op: Operation, b: Builder):
    """``stablehlo.constant`` → ``arith.constant`` with the same dense value."""
    return b.create("arith.constant", [], [op.results[0].type],
                    {"value": op.attributes["value"]}).results


def lower_optimization_barrier(op: Operation, b: Builder):
    """The barrier only orders scheduling in XLA; its results are its operands."""
    return list(op.operands)


PATTERNS = {name: lower_elementwise for name in ELEMENTWISE_OPS}
PATTERNS["stablehlo.constant"] = lower_constant
PATTERNS["stablehlo.optimization_barrier"] = lower_optimization_barrier

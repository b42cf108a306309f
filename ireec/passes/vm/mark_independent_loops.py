"""Innermost kernel loops whose iterations are independent get ``ivdep``.

Mirrors the dependence test of MLIR's ``affine-parallelize`` (``AffineParallelize.cpp``:
``isLoopParallel``, which proves a loop free of loop-carried memory dependences before
making it ``affine.parallel``), on the ``emitc.for`` loops of kernels: instead of
changing the loop, the proof becomes the ``ivdep`` unit attribute, which the C printer
renders as ``IREEC_IVDEP`` (``#pragma GCC ivdep``) before the loop, so the C compiler
vectorizes it without its own (often failing) alias analysis. The test
(:func:`ireec.emitc.analysis.innermost_loop_independent`) and its form for whole loop nests
(``iterations_independent``, used by ``iree-codegen-gpu-distribute``) live in
:mod:`ireec.emitc.analysis`.

The test is conservative: no nested control flow in the loop (for the ``ivdep`` mark), no
calls or verbatim C, no assignment to outer scalars, and for each array the loop stores to,
every access uses the same address, which moves with the induction variable.
"""
from __future__ import annotations

from ...emitc.analysis import (access_address, innermost_loop_independent, iterations_independent,
                               stores_independent_except)
from ...ir.attributes import UnitAttr
from ...ir.core import Block, Operation
from ..pass_base import Pass, PassContext, register_pass
from .emitc_utils import emitc_funcs

#: The analyses (ireec/emitc/analysis.py) other passes import from here.
__all__ = ["access_address", "iterations_independent", "mark_independent_loops",
           "stores_independent_except", "MarkIndependentLoopsPass"]


def mark_independent_loops(blk: Block) -> None:
    """Set ``ivdep`` on innermost ``emitc.for`` loops that
    :func:`~ireec.emitc.analysis.innermost_loop_independent` accepts; the printer emits
    ``IREEC_IVDEP`` (``#pragma GCC ivdep``) before them."""
    for op in blk.ops:
        for r in op.regions:
            for inner in r.blocks:
                mark_independent_loops(inner)
        if op.name == "emitc.for" and not any(o.regions for o in op.body.ops) and innermost_loop_independent(op):
            op.attributes["ivdep"] = UnitAttr()


@register_pass
class MarkIndependentLoopsPass(Pass):
    """Innermost ``emitc.for`` loops of kernels proved free of loop-carried dependences get
    the ``ivdep`` attribute."""

    name = "iree-codegen-mark-independent-loops"

    def run(self, module: Operation, ctx: PassContext) -> None:
        for f in emitc_funcs(module, "kernel"):
            mark_independent_loops(f.body)

"""Innermost kernel loops whose iterations are independent get ``ivdep``.

Mirrors the dependence test of MLIR's ``affine-parallelize`` (``AffineParallelize.cpp``:
``isLoopParallel``, which proves a loop free of loop-carried memory dependences before
making it ``affine.parallel``), on the ``emitc.for`` loops of kernels: instead of
changing the loop, the proof becomes the ``ivdep`` unit attribute, which the C printer
renders as ``IREEC_IVDEP`` (``#pragma GCC ivdep``) before the loop, so the C compiler
vectorizes it without its own (often failing) alias analysis. :func:`iterations_independent`
is the same test for whole loop nests, used by targets that spread a workgroup's loops over
threads.

The test is conservative: no nested control flow in the loop (for the ``ivdep`` mark), no
calls or verbatim C, no assignment to outer scalars, and for each array the loop stores to,
every access uses the same address, which moves with the induction variable.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Set

from ...ir import types as T
from ...ir.attributes import UnitAttr
from ...ir.core import Block, Operation, Value
from ..pass_base import Pass, PassContext, register_pass
from .emitc_utils import defined_inside, emitc_funcs


def access_address(o: Operation):
    """(strides, offset, index operands) of an ``emitc.load``/``emitc.store``: two accesses
    with equal addresses touch the same element in every iteration."""
    idx = o.operands[1:] if o.name == "emitc.load" else o.operands[2:]
    return (tuple(o.attributes["strides"].value), o.attributes["offset"].value, tuple(idx))


def _loop_is_independent(loop: Operation) -> bool:
    """True when no iteration of ``loop`` (an innermost loop) depends on another: no
    nested control flow, no calls, no assignments to outer variables, and for each array
    it stores to, every access in the body uses the same address, which moves with the
    induction variable (a direct subscript with a non-zero stride, other subscripts
    loop-invariant)."""
    stored = any(o.name == "emitc.store" for o in loop.body.ops)
    return stored and stores_independent_except(loop, None)


def stores_independent_except(loop: Operation, skip: Optional[Value]) -> bool:
    """True when, ignoring array ``skip``, the innermost ``loop`` has no loop-carried
    dependence: no nested control flow, calls, verbatim C or variables, and each other array
    it stores to is accessed at one address that moves with the induction variable (the test
    of :func:`_loop_is_independent`, with or without stores)."""
    body = loop.body
    iv = body.args[0]
    inside = defined_inside(loop)
    accesses: Dict[Value, List[Operation]] = {}
    for o in body.ops:
        if o.regions or o.name in ("emitc.assign", "emitc.call_opaque", "emitc.verbatim", "emitc.variable"):
            return False
        base = o.operands[0] if o.name == "emitc.load" else o.operands[1] if o.name == "emitc.store" else None
        if base is not None and base is not skip:
            accesses.setdefault(base, []).append(o)
    return all(_accesses_independent(ops, iv, inside) for ops in accesses.values())


def _accesses_independent(ops: List[Operation], iv: Value, inside: Set[Value]) -> bool:
    """Whether the loads and stores ``ops`` of one array in an innermost loop (induction
    variable ``iv``) carry no dependence: no store, or all at one address that moves with
    ``iv`` through exactly one subscript, the others loop-invariant."""
    if not any(o.name == "emitc.store" for o in ops):
        return True
    a0 = access_address(ops[0])
    if any(access_address(o) != a0 for o in ops):
        return False
    strides, _, idx = a0
    shifted = [_shift_of(i, iv, inside) for i in idx]
    moves = [s != 0 for s in strides]
    if sum(1 for sh, m in zip(shifted, moves) if sh and m) != 1:
        return False
    return not any(not sh and i in inside for i, sh in zip(idx, shifted))


def _shift_of(i: Value, iv: Value, inside: Set[Value]) -> bool:
    """True when ``i`` is the induction variable plus or minus loop-invariant values (so
    the subscript is injective in the induction variable): index ``arith.addi`` /
    ``arith.subi`` expressions (their ``source_op``) over it."""
    if i is iv:
        return True
    o = i.owner
    if not (isinstance(o, Operation) and o.name == "emitc.expression" and len(o.operands) == 2
            and isinstance(o.results[0].type, T.IndexType)):
        return False
    src = o.attributes.get("source_op")
    src = src.value if src is not None else None
    a, b = o.operands
    if src == "arith.addi":
        return (_shift_of(a, iv, inside) and b not in inside) or (_shift_of(b, iv, inside) and a not in inside)
    if src == "arith.subi":
        return _shift_of(a, iv, inside) and b not in inside
    return False


def iterations_independent(loop: Operation) -> bool:
    """True when the iterations of ``loop`` (an ``emitc.for``, nested loops allowed) touch
    disjoint memory, so they may run in any order or at once: no calls or verbatim C, no
    assignment to a variable defined outside the loop, and for each array defined outside
    the loop that the loop stores to, every access inside the loop uses the same subscripts,
    one of which (with a non-zero stride) is the induction variable plus or minus
    loop-invariant values; accesses stay in bounds (memref semantics), so distinct iterations
    touch distinct elements. Arrays the loop only reads are unconstrained."""
    iv = loop.body.args[0]
    inside = defined_inside(loop)
    accesses: Dict[Value, List[Operation]] = {}
    for o in loop.walk():
        if o is loop:
            continue
        if o.name in ("emitc.call_opaque", "emitc.verbatim"):
            return False
        if o.name == "emitc.assign" and o.operands[0] not in inside:
            return False
        if o.name == "emitc.load":
            accesses.setdefault(o.operands[0], []).append(o)
        elif o.name == "emitc.store":
            accesses.setdefault(o.operands[1], []).append(o)
    for base, ops in accesses.items():
        if base in inside or not any(o.name == "emitc.store" for o in ops):
            continue

        a0 = access_address(ops[0])
        if any(access_address(o) != a0 for o in ops):
            return False
        strides, _, idx = a0
        if not any(st != 0 and _shift_of(i, iv, inside) for i, st in zip(idx, strides)):
            return False
    return True


def mark_independent_loops(blk: Block) -> None:
    """Set ``ivdep`` on innermost ``emitc.for`` loops that :func:`_loop_is_independent`
    accepts; the printer emits ``IREEC_IVDEP`` (``#pragma GCC ivdep``) before them."""
    for op in blk.ops:
        for r in op.regions:
            for inner in r.blocks:
                mark_independent_loops(inner)
        if op.name == "emitc.for" and not any(o.regions for o in op.body.ops) and _loop_is_independent(op):
            op.attributes["ivdep"] = UnitAttr()


@register_pass
class MarkIndependentLoopsPass(Pass):
    """Innermost ``emitc.for`` loops of kernels proved free of loop-carried dependences get
    the ``ivdep`` attribute."""

    name = "iree-codegen-mark-independent-loops"

    def run(self, module: Operation, ctx: PassContext) -> None:
        for f in emitc_funcs(module, "kernel"):
            mark_independent_loops(f.body)

"""StableHLO → scf patterns: while, if, case; and the side-effect-only custom calls.

Mirrors IREE's ``iree-stablehlo-to-linalg`` control-flow patterns
(StableHLOToLinalg's ``WhileOpToSCF``/``IfOpToSCF``/``CaseOpToSCF`` family): the op's
regions move into ``scf.while`` / ``scf.if`` on tensors; a predicate ``tensor<i1>`` (or a
``case`` index ``tensor<i32>``) is read with ``tensor.extract %p[]``; ``stablehlo.return``
becomes ``scf.condition`` / ``scf.yield``. The ops inside the moved regions stay the same
objects, so the conversion driver converts them afterwards (it walks in pre-order).

``stablehlo.case`` becomes a chain of ``scf.if`` on ``index == k``: per the spec an index
outside [0, N) selects the last branch, which the chain's final ``else`` gives for free.

``stablehlo.custom_call @shape_assertion`` (JAX's shape checks) has no results and
asserts facts about dynamic shapes; with the static shapes ireec compiles it always holds,
so it is dropped. Other custom calls are reported as unsupported.
"""
from __future__ import annotations

from typing import List, Optional

from ....ir import types as T
from ....ir.attributes import IntegerAttr
from ....ir.core import Block, Builder, Operation, Region, Value
from ....ir.diagnostics import CompileError

_RETURNS = ("stablehlo.return", "mhlo.return")


def _take_region(op: Operation, i: int) -> Region:
    """A new Region holding the blocks of ``op.regions[i]`` (moved, not copied)."""
    new = Region()
    for blk in list(op.regions[i].blocks):
        new.add_block(blk)
    op.regions[i].blocks = []
    return new


def _terminator(region: Region, op: Operation) -> Operation:
    if len(region.blocks) != 1:
        raise CompileError(f"'{op.name}' regions with several blocks are not supported", op.loc)
    term = region.blocks[0].terminator
    if term is None or term.name not in _RETURNS:
        raise CompileError(f"'{op.name}': region does not end in stablehlo.return", op.loc)
    return term


def _extract_scalar(b: Builder, v: Value) -> Value:
    """``tensor.extract %v[]`` of a rank-0 tensor (scalars pass through)."""
    if isinstance(v.type, T.TensorType):
        if v.type.shape != ():
            raise CompileError(f"expected a rank-0 tensor, got {v.type}", b.loc)
        return b.create("tensor.extract", [v], [v.type.element_type]).results[0]
    return v


def _return_to_yield(region: Region, op: Operation) -> None:
    term = _terminator(region, op)
    Builder.before(term).create("scf.yield", list(term.operands))
    term.erase()


def lower_while(op: Operation, b: Builder) -> List[Value]:
    """``stablehlo.while`` → ``scf.while`` (cond region: ``scf.condition(%p) %args``;
    body region: ``scf.yield``)."""
    cond = _take_region(op, 0)
    body = _take_region(op, 1)
    term = _terminator(cond, op)
    if len(term.operands) != 1:
        raise CompileError("'stablehlo.while': the condition must return one tensor<i1>", op.loc)
    tb = Builder.before(term)
    p = _extract_scalar(tb, term.operands[0])
    tb.create("scf.condition", [p] + list(cond.blocks[0].args))
    term.erase()
    _return_to_yield(body, op)
    w = b.create("scf.while", list(op.operands), list(op.result_types), regions=[cond, body])
    return list(w.results)


def _scf_if(b: Builder, cond: Value, result_types, then: Region, other: Region) -> Operation:
    return b.create("scf.if", [cond], list(result_types), regions=[then, other])


def lower_if(op: Operation, b: Builder) -> List[Value]:
    """``stablehlo.if`` → ``scf.if %p -> (results)``."""
    p = _extract_scalar(b, op.operands[0])
    then = _take_region(op, 0)
    other = _take_region(op, 1)
    _return_to_yield(then, op)
    _return_to_yield(other, op)
    return list(_scf_if(b, p, op.result_types, then, other).results)


def lower_case(op: Operation, b: Builder) -> Optional[List[Value]]:
    """``stablehlo.case`` → nested ``scf.if`` on ``index == k`` (k < N-1); the innermost
    else runs the last branch, which also covers out-of-range indices (spec §case)."""
    n = len(op.regions)
    if n == 0:
        raise CompileError("'stablehlo.case' needs at least one branch", op.loc)
    branches = [_take_region(op, i) for i in range(n)]
    for r in branches:
        _terminator(r, op)
    if n == 1:  # the only branch always runs: splice it in place
        blk = branches[0].blocks[0]
        term = blk.terminator
        vals = list(term.operands)
        for inner in list(blk.ops):
            if inner is term:
                break
            inner.detach()
            b.insert(inner)
        term.erase()
        return vals
    idx = _extract_scalar(b, op.operands[0])
    for r in branches:
        _return_to_yield(r, op)
    types = list(op.result_types)

    def chain(k: int, at: Builder) -> Operation:
        c = at.create("arith.constant", [], [idx.type], {"value": IntegerAttr(k, idx.type)}).results[0]
        eq = at.create("arith.cmpi", [idx, c], [T.i1], {"predicate": IntegerAttr(0, T.i64)}).results[0]
        if k == n - 2:
            other = branches[n - 1]
        else:
            blk = Block()
            other = Region([blk])
            inner_b = Builder.at_end(blk, at.loc)
            inner = chain(k + 1, inner_b)
            inner_b.create("scf.yield", list(inner.results))
        return _scf_if(at, eq, types, branches[k], other)

    return list(chain(0, b).results)


def lower_custom_call(op: Operation, b: Builder) -> None:
    """``@shape_assertion`` is dropped (always true for static shapes); anything else is
    reported with its target name."""
    target = op.attributes.get("call_target_name")
    name = target.value if target is not None else "?"
    if name == "shape_assertion" and not op.results:
        op.erase()
        return None
    raise CompileError(f"'stablehlo.custom_call' @{name} is not supported", op.loc)


PATTERNS = {
    "stablehlo.while": lower_while,
    "stablehlo.if": lower_if,
    "stablehlo.case": lower_case,
    "stablehlo.custom_call": lower_custom_call,
}

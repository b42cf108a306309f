"""TOSA control flow → ``scf.if`` / ``scf.while`` on tensors.

Mirrors MLIR's ``tosa-to-scf`` (TosaToSCF.cpp): the ``tensor<i1>`` condition becomes an
``i1`` through ``tensor.extract %c[]``; ``tosa.cond_if``'s regions move into ``scf.if``
(its block arguments, TOSA 1.0's explicit inputs, are replaced by the inputs themselves);
``tosa.while_loop``'s cond region becomes the ``before`` region ending in
``scf.condition`` and its body the ``after`` region; ``tosa.yield`` becomes ``scf.yield``.
The ops inside the moved regions stay in place and are converted by the same walk.
"""
from __future__ import annotations

from typing import Dict

from ....ir.core import Builder, Operation
from ....ir.attributes import IntegerAttr
from .utils import I1, INDEX, fail, ranked

PATTERNS: Dict = {}


def _to_i1(op: Operation, b: Builder, cond):
    """``tensor.extract %cond[0...]`` of a single-element ``tensor<i1>``."""
    t = ranked(op, cond)
    if t.element_type != I1 or any(d != 1 for d in t.shape):
        raise fail(op, f"needs a tensor<i1> condition, got {t}")
    idx = [b.create("arith.constant", [], [INDEX], {"value": IntegerAttr(0, INDEX)}).result
           for _ in t.shape]
    return b.create("tensor.extract", [cond] + idx, [I1]).result


def _replace_yield(block, name: str) -> Operation:
    y = block.terminator
    if y is None or y.name != "tosa.yield":
        raise fail(block.parent.parent, "region must end in tosa.yield")
    new = Operation(name, list(y.operands), [], loc=y.loc)
    block.insert_before(y, new)
    y.erase()
    return new


def _cond_if(op: Operation, b: Builder):
    cond, inputs = op.operands[0], op.operands[1:]
    c = _to_i1(op, b, cond)
    regions = list(op.regions)
    if len(regions) != 2:
        raise fail(op, "needs then and else regions")
    for r in regions:
        if len(r.blocks) != 1:
            raise fail(op, "regions must have exactly one block")
        blk = r.blocks[0]
        if len(blk.args) != len(inputs):
            raise fail(op, f"regions take {len(blk.args)} arguments for {len(inputs)} inputs")
        for a, v in zip(list(blk.args), inputs):
            a.replace_all_uses_with(v)
        while blk.args:
            blk.erase_arg(len(blk.args) - 1)
        _replace_yield(blk, "scf.yield")
    op.regions = []
    new = b.create("scf.if", [c], list(op.result_types), regions=regions)
    return list(new.results)


PATTERNS["tosa.cond_if"] = _cond_if


def _while_loop(op: Operation, b: Builder):
    regions = list(op.regions)
    if len(regions) != 2 or any(len(r.blocks) != 1 for r in regions):
        raise fail(op, "needs single-block cond and body regions")
    before, after = regions[0].blocks[0], regions[1].blocks[0]
    y = before.terminator
    if y is None or y.name != "tosa.yield" or len(y.operands) != 1:
        raise fail(op, "cond region must end in 'tosa.yield' of one tensor<i1>")
    yb = Builder.before(y)
    c = _to_i1(op, yb, y.operands[0])
    yb.create("scf.condition", [c] + list(before.args))
    y.erase()
    _replace_yield(after, "scf.yield")
    op.regions = []
    new = b.create("scf.while", list(op.operands), list(op.result_types), regions=regions)
    return list(new.results)


PATTERNS["tosa.while_loop"] = _while_loop

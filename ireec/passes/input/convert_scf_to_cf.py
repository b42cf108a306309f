"""Structured control flow of the host program becomes branches between blocks.

Mirrors MLIR's ``convert-scf-to-cf`` (SCFToControlFlow.cpp), applied to the ``scf`` ops directly
in a function body (the host program: loops and conditionals around dispatches, as StableHLO's
while/if/case and TOSA's while_loop/cond_if become). ``scf`` inside linalg payloads and
kernels is left to code generation. Each op splits its block; its regions' blocks move into
the function:

- ``scf.if``: ``cf.cond_br`` to the then/else blocks, each branching to the continuation
  with its yielded values as block arguments;
- ``scf.while``: a "before" block ending in ``cf.cond_br`` (to "after", or out with the
  ``scf.condition`` values) and an "after" block branching back with the yielded values;
- ``scf.for``: a header comparing the induction variable with the upper bound;
- ``scf.index_switch``: a chain of ``arith.cmpi eq`` + ``cf.cond_br``, the default last.
"""
from __future__ import annotations

from typing import List, Sequence

from ...ir import types as T
from ...ir.attributes import DenseArrayAttr, IntegerAttr
from ...ir.core import Block, Builder, Operation, Value
from ...ir.diagnostics import CompileError
from ..pass_base import Pass, PassContext, defined_functions, register_pass

_SCF = ("scf.if", "scf.while", "scf.for", "scf.index_switch", "scf.execute_region")


def _br(b: Builder, dest: Block, vals: Sequence[Value]) -> None:
    b.create("cf.br", list(vals), [], successors=[dest])


def _cond_br(b: Builder, cond: Value, t: Block, t_vals, f: Block, f_vals) -> None:
    b.create("cf.cond_br", [cond] + list(t_vals) + list(f_vals), [], {
        "operandSegmentSizes": DenseArrayAttr(T.i32, (1, len(t_vals), len(f_vals)))}, successors=[t, f])


def _split_after(op: Operation) -> Block:
    """Move the ops after ``op`` into a new block (inserted right after op's block) whose
    arguments stand for op's results; returns it."""
    blk = op.parent
    region = blk.parent
    cont = Block([r.type for r in op.results])
    idx = blk.ops.index(op)
    for moved in blk.ops[idx + 1:]:
        moved.parent = cont
        cont.ops.append(moved)
    del blk.ops[idx + 1:]
    cont.parent = region
    region.blocks.insert(region.blocks.index(blk) + 1, cont)
    for r, a in zip(op.results, cont.args):
        r.replace_all_uses_with(a)
    return cont


def _inline_region_blocks(op: Operation, region_index: int, before: Block) -> List[Block]:
    """Move the blocks of ``op``'s region into the function region, before block ``before``."""
    blocks = list(op.regions[region_index].blocks)
    region = before.parent
    at = region.blocks.index(before)
    for k, blk in enumerate(blocks):
        blk.parent = region
        region.blocks.insert(at + k, blk)
    op.regions[region_index].blocks.clear()
    return blocks


def _yields_to(blocks: Sequence[Block], cont: Block) -> None:
    """Every ``scf.yield`` ending one of ``blocks`` branches to ``cont`` with its values."""
    for blk in blocks:
        if blk.terminator is not None and blk.terminator.name == "scf.yield":
            _retarget_terminator(blk, "scf.yield", lambda b, v: _br(b, cont, v))


def _remove(op: Operation) -> None:
    op.drop_operands()
    op.detach()


def _retarget_terminator(blk: Block, term_name: str, make) -> None:
    term = blk.terminator
    if term is None or term.name != term_name:
        raise CompileError(f"expected '{term_name}' to end the region", term.loc if term else None)
    vals = list(term.operands)
    b = Builder.before(term)
    make(b, vals)
    term.drop_operands()
    term.detach()


@register_pass
class ConvertScfToCfPass(Pass):
    name = "convert-scf-to-cf"

    def run(self, module: Operation, ctx: PassContext) -> None:
        for f in defined_functions(module):
            while True:
                op = next((o for blk in f.regions[0].blocks for o in blk.ops if o.name in _SCF), None)
                if op is None:
                    break
                getattr(self, "_" + op.name.split(".")[1])(op)

    @staticmethod
    def _if(op: Operation) -> None:
        cont = _split_after(op)
        then_blocks = _inline_region_blocks(op, 0, cont)
        if len(op.regions) > 1 and op.regions[1].blocks:
            else_blocks = _inline_region_blocks(op, 1, cont)
        else:
            eb = Block()
            eb.parent = cont.parent
            cont.parent.blocks.insert(cont.parent.blocks.index(cont), eb)
            Builder.at_end(eb, op.loc).create("scf.yield", [])
            else_blocks = [eb]
        _yields_to(then_blocks + else_blocks, cont)
        _cond_br(Builder.before(op), op.operands[0], then_blocks[0], [], else_blocks[0], [])
        _remove(op)

    @staticmethod
    def _while(op: Operation) -> None:
        cont = _split_after(op)
        before = _inline_region_blocks(op, 0, cont)
        after = _inline_region_blocks(op, 1, cont)

        def cond(b, vals):
            _cond_br(b, vals[0], after[0], vals[1:], cont, vals[1:])

        _retarget_terminator(before[-1], "scf.condition", cond)
        _retarget_terminator(after[-1], "scf.yield", lambda b, v: _br(b, before[0], v))
        _br(Builder.before(op), before[0], op.operands)
        _remove(op)

    @staticmethod
    def _for(op: Operation) -> None:
        lb, ub, step = op.operands[:3]
        inits = op.operands[3:]
        cont = _split_after(op)
        body = _inline_region_blocks(op, 0, cont)
        iv_type = body[0].args[0].type
        header = Block([iv_type] + [v.type for v in inits])
        header.parent = cont.parent
        cont.parent.blocks.insert(cont.parent.blocks.index(body[0]), header)
        hb = Builder.at_end(header, op.loc)
        pred = IntegerAttr(2, T.i64)  # slt
        c = hb.create("arith.cmpi", [header.args[0], ub], [T.i1], {"predicate": pred}).result
        _cond_br(hb, c, body[0], list(header.args), cont, list(header.args[1:]))

        def latch(b, vals):
            nxt = b.create("arith.addi", [body[0].args[0], step], [iv_type]).result
            _br(b, header, [nxt] + list(vals))

        _retarget_terminator(body[-1], "scf.yield", latch)
        _br(Builder.before(op), header, [lb] + list(inits))
        _remove(op)

    @staticmethod
    def _index_switch(op: Operation) -> None:
        arg = op.operands[0]
        cases = [int(c) for c in op.attributes["cases"].value]
        cont = _split_after(op)
        case_blocks = [_inline_region_blocks(op, k, cont) for k in range(len(op.regions))]
        # regions: default first (as MLIR stores it), then one per case value.
        default, per_case = case_blocks[0], case_blocks[1:]
        for blocks in case_blocks:
            _yields_to(blocks, cont)
        b = Builder.before(op)
        for k, (value, blocks) in enumerate(zip(cases, per_case)):
            cst = b.create("arith.constant", [], [arg.type], {"value": IntegerAttr(value, arg.type)}).result
            eq = b.create("arith.cmpi", [arg, cst], [T.i1], {"predicate": IntegerAttr(0, T.i64)}).result
            if k == len(cases) - 1:
                _cond_br(b, eq, blocks[0], [], default[0], [])
            else:
                nxt = Block()
                nxt.parent = cont.parent
                cont.parent.blocks.insert(cont.parent.blocks.index(cont), nxt)
                _cond_br(b, eq, blocks[0], [], nxt, [])
                b = Builder.at_end(nxt, op.loc)
        if not cases:
            _br(b, default[0], [])
        _remove(op)

    @staticmethod
    def _execute_region(op: Operation) -> None:
        cont = _split_after(op)
        blocks = _inline_region_blocks(op, 0, cont)
        _yields_to(blocks, cont)
        _br(Builder.before(op), blocks[0], [])
        _remove(op)

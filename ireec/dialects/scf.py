"""scf dialect: structured control flow (for, if, while, execute_region).

Pretty syntax as mlir-opt prints it (https://mlir.llvm.org/docs/Dialects/SCFDialect/):

    %r = scf.for %i = %lb to %ub step %s iter_args(%acc = %init) -> (f32) {
      ...
      scf.yield %next : f32
    }
    scf.for %i = %lb to %ub step %s  : i32 { ... }        (non-index induction variable)
    %v = scf.if %c -> (f32) { scf.yield %a : f32 } else { scf.yield %b : f32 }
    %w = scf.while (%x = %init) : (f32) -> f32 {
      scf.condition(%cond) %x : f32
    } do {
    ^bb0(%y: f32):
      scf.yield %y : f32
    }
    %e = scf.execute_region -> i32 { ... scf.yield %x : i32 }

Regions without results end in an implicit ``scf.yield`` that is neither printed nor required
in the input (the parser adds it, as MLIR's ``ensureTerminator`` does).
"""
from __future__ import annotations

from ..ir import types as T
from ..ir.attributes import UnitAttr
from ..ir.core import Block, Operation, Region
from .registry import register


# --------------------------------------------------------------------- helpers
def ensure_yield(region: Region, name: str = "scf.yield") -> None:
    """Append an empty ``scf.yield`` to each block of ``region`` lacking a terminator."""
    if not region.blocks:
        region.add_block(Block())
    for b in region.blocks:
        last = b.terminator
        if last is None or last.name != name:
            b.append(Operation(name))


def print_region_elide_yield(pr, region: Region, print_entry_block_args: bool = False) -> None:
    """Print ``region`` omitting operand-less ``scf.yield`` terminators (MLIR's
    ``printBlockTerminators=false``)."""
    hidden = []
    for b in region.blocks:
        t = b.terminator
        if t is not None and t.name == "scf.yield" and not t.operands and not t.attributes:
            b.ops.pop()
            hidden.append((b, t))
    try:
        pr.print_region(region, print_entry_block_args=print_entry_block_args)
    finally:
        for b, t in hidden:
            b.ops.append(t)


def _parse_init_list(p):
    """``(%a = %x, %b = %y)`` → list of (arg ref, init ref)."""
    pairs = []
    p.expect("(")
    if p.try_punct(")"):
        return pairs
    while True:
        arg = p.parse_operand()
        p.expect("=")
        pairs.append((arg, p.parse_operand()))
        if not p.try_punct(","):
            break
    p.expect(")")
    return pairs


def _init_list_str(pr, args, inits) -> str:
    return "(" + ", ".join(f"{pr.name_of(a)} = {pr.name_of(v)}" for a, v in zip(args, inits)) + ")"


# -------------------------------------------------------------------------- for
def _parse_for(p, name, loc):
    attrs = {}
    if p.try_keyword("unsigned"):
        attrs["unsignedCmp"] = UnitAttr()
    iv = p.parse_operand()
    p.expect("=")
    lb = p.parse_operand()
    p.expect_keyword("to")
    ub = p.parse_operand()
    p.expect_keyword("step")
    step = p.parse_operand()
    pairs = _parse_init_list(p) if p.try_keyword("iter_args") else []
    result_types = []
    if p.try_punct("->"):
        result_types = p.parse_type_list_parens() if p.peek("(") else [p.parse_type()]
    if len(result_types) != len(pairs):
        raise p.error(f"scf.for has {len(pairs)} iter_args but {len(result_types)} result types",
                      loc)
    iv_type = p.parse_type() if p.try_punct(":") else T.index
    inits = [p.resolve(ref, t) for (_, ref), t in zip(pairs, result_types)]
    entry = [(iv, iv_type)] + [(arg, t) for (arg, _), t in zip(pairs, result_types)]
    region = p.parse_region(entry_args=entry)
    if not pairs:
        ensure_yield(region)
    attrs.update(p.parse_optional_attr_dict())
    operands = [p.resolve(lb, iv_type), p.resolve(ub, iv_type), p.resolve(step, iv_type)] + inits
    return Operation(name, operands, result_types, attrs, regions=[region], loc=loc)


def _print_for(pr, op):
    body = op.regions[0].blocks[0]
    pr.name_block_args(body)
    lb, ub, step = op.operands[:3]
    inits = op.operands[3:]
    if "unsignedCmp" in op.attributes:
        pr.write(" unsigned")
    pr.write(f" {pr.name_of(body.args[0])} = {pr.name_of(lb)} to {pr.name_of(ub)} "
             f"step {pr.name_of(step)}")
    if inits:
        pr.write(" iter_args" + _init_list_str(pr, body.args[1:], inits))
        pr.write(" -> (" + ", ".join(str(v.type) for v in inits) + ")")
    pr.write(" ")
    if not isinstance(body.args[0].type, T.IndexType):
        pr.write(f" : {body.args[0].type} ")
    if inits:
        pr.print_region(op.regions[0], print_entry_block_args=False)
    else:
        print_region_elide_yield(pr, op.regions[0])
    pr.print_attr_dict(op.attributes, elided=("unsignedCmp",))


# --------------------------------------------------------------------------- if
def _parse_if(p, name, loc):
    cond = p.parse_operand()
    result_types = []
    if p.try_punct("->"):
        result_types = p.parse_type_list_parens() if p.peek("(") else [p.parse_type()]
    then = p.parse_region()
    other = p.parse_region() if p.try_keyword("else") else Region()
    if not result_types:
        ensure_yield(then)
        if other.blocks:
            ensure_yield(other)
    attrs = p.parse_optional_attr_dict()
    return Operation(name, [p.resolve(cond, T.i1)], result_types, attrs, regions=[then, other],
                     loc=loc)


def _print_if(pr, op):
    pr.write(" " + pr.name_of(op.operands[0]))
    if op.results:
        pr.write(" -> (" + ", ".join(str(t) for t in op.result_types) + ")")

    def body(region):  # yields are printed only when the op has results
        if op.results:
            pr.print_region(region, print_entry_block_args=False)
        else:
            print_region_elide_yield(pr, region)

    pr.write(" ")
    body(op.regions[0])
    if op.regions[1].blocks:
        pr.write(" else ")
        body(op.regions[1])
    pr.print_attr_dict(op.attributes)


# ------------------------------------------------------------------------ while
def _parse_while(p, name, loc):
    pairs = _parse_init_list(p) if p.peek("(") else []
    p.expect(":")
    ft = p.parse_type()
    if not isinstance(ft, T.FunctionType) or len(ft.inputs) != len(pairs):
        raise p.error("expected '(init types) -> (result types)' matching the init list", loc)
    inits = [p.resolve(ref, t) for (_, ref), t in zip(pairs, ft.inputs)]
    before = p.parse_region(entry_args=[(arg, t) for (arg, _), t in zip(pairs, ft.inputs)])
    p.expect_keyword("do")
    after = p.parse_region()
    attrs = p.parse_optional_attr_dict_with_keyword()
    return Operation(name, inits, list(ft.results), attrs, regions=[before, after], loc=loc)


def _print_while(pr, op):
    before = op.regions[0].blocks[0]
    pr.name_block_args(before)
    if op.operands:
        pr.write(" " + _init_list_str(pr, before.args, op.operands))
    ft = T.FunctionType(tuple(v.type for v in op.operands), tuple(op.result_types))
    pr.write(f" : {ft} ")
    pr.print_region(op.regions[0], print_entry_block_args=False)
    pr.write(" do ")
    pr.print_region(op.regions[1])
    pr.print_attr_dict(op.attributes, keyword=True)


def _parse_condition(p, name, loc):
    p.expect("(")
    cond = p.parse_operand()
    p.expect(")")
    attrs = p.parse_optional_attr_dict()
    refs = p.parse_operand_list()
    types = p.parse_colon_type_list() if refs else []
    return Operation(name, [p.resolve(cond, T.i1)] + p.resolve_list(refs, types), [], attrs,
                     loc=loc)


def _print_condition(pr, op):
    pr.write(f"({pr.name_of(op.operands[0])})")
    pr.print_attr_dict(op.attributes)
    if len(op.operands) > 1:
        pr.write(" ")
        pr.print_operands(op.operands[1:])
        pr.write(" : " + ", ".join(str(v.type) for v in op.operands[1:]))


# ------------------------------------------------------------- execute_region
def _parse_execute_region(p, name, loc):
    result_types = []
    if p.try_punct("->"):
        result_types = p.parse_type_list_parens() if p.peek("(") else [p.parse_type()]
    attrs = {}
    if p.try_keyword("no_inline"):
        attrs["no_inline"] = UnitAttr()
    region = p.parse_region()
    attrs.update(p.parse_optional_attr_dict())
    return Operation(name, [], result_types, attrs, regions=[region], loc=loc)


def _print_execute_region(pr, op):
    rts = op.result_types
    if len(rts) == 1 and not isinstance(rts[0], T.FunctionType):
        pr.write(f" -> {rts[0]}")
    elif rts:
        pr.write(" -> (" + ", ".join(str(t) for t in rts) + ")")
    pr.write(" ")
    if "no_inline" in op.attributes:
        pr.write("no_inline ")
    pr.print_region(op.regions[0], print_entry_block_args=False)
    pr.print_attr_dict(op.attributes, elided=("no_inline",))


# ------------------------------------------------------------------------ yield
def _parse_yield(p, name, loc):
    attrs = p.parse_optional_attr_dict()
    refs = p.parse_operand_list()
    types = p.parse_colon_type_list() if refs else []
    return Operation(name, p.resolve_list(refs, types), [], attrs, loc=loc)


def _print_yield(pr, op):
    pr.print_attr_dict(op.attributes)
    if op.operands:
        pr.write(" ")
        pr.print_operands(op.operands)
        pr.write(" : " + ", ".join(str(v.type) for v in op.operands))


register("scf.for", _parse_for, _print_for)
register("scf.if", _parse_if, _print_if)
register("scf.while", _parse_while, _print_while)
register("scf.execute_region", _parse_execute_region, _print_execute_region)
register("scf.condition", _parse_condition, _print_condition, traits=("terminator",))
register("scf.yield", _parse_yield, _print_yield, traits=("terminator",))

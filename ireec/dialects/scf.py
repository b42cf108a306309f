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
from ..ir import verifier as V
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


# -------------------------------------------------------------------- verifiers
def _yield_matches(op: Operation, region: Region, types, what: str) -> None:
    y = region.blocks[0].terminator
    vals = [v.type for v in y.operands]
    if len(vals) != len(types):
        raise V.op_error(y, f"expects {len(types)} yielded value(s) to match the {what} of the "
                            f"parent '{op.name}', but found {len(vals)}")
    for i, (a, b) in enumerate(zip(vals, types)):
        if a != b:
            raise V.op_error(y, f"type of yielded value #{i} ({V.type_str(a)}) doesn't match "
                                f"the {what} type ({V.type_str(b)}) of the parent '{op.name}'")


def _verify_for(op):
    """lb/ub/step of one integer/index type; block args = induction variable + iter_args;
    results, inits, iter_args and yielded values typed alike."""
    V.at_least_operands(3)(op)
    V.single_block_terminated(("scf.yield",))(op)
    lb, ub, step = op.operands[:3]
    if not (V.is_int_like(lb.type) and lb.type == ub.type == step.type
            and not isinstance(lb.type, T.ShapedType)):
        raise V.op_error(op, "expected lower bound, upper bound and step to be of one "
                             "signless integer or index type")
    inits = op.operands[3:]
    body = op.regions[0].blocks[0]
    if len(body.args) != 1 + len(inits) or body.args[0].type != lb.type:
        raise V.op_error(op, f"expected the body to have the induction variable ({lb.type}) "
                             f"and {len(inits)} iter_args as arguments")
    if len(op.results) != len(inits):
        raise V.op_error(op, f"mismatch in number of loop-carried values ({len(inits)}) and "
                             f"defined values ({len(op.results)})")
    for i, (v, a, r) in enumerate(zip(inits, body.args[1:], op.results)):
        if not (v.type == a.type == r.type):
            raise V.op_error(op, f"types mismatch between iter operand #{i} and its region "
                                 f"argument and result")
    _yield_matches(op, op.regions[0], op.result_types, "result")


def _verify_if(op):
    """An i1 condition; a then region and an else region (required when there are
    results), each yielding the result types."""
    V.num_operands(1)(op)
    V.num_regions(2)(op)
    c = op.operands[0].type
    if c != T.i1:
        raise V.op_error(op, f"operand #0 must be 1-bit signless integer, but got {V.type_str(c)}")
    V.single_block_terminated(("scf.yield",), (0,))(op)
    V.single_block_terminated(("scf.yield",), (1,), allow_empty=True)(op)
    if op.results and not op.regions[1].blocks:
        raise V.op_error(op, "must have an else block if defining values")
    for r in op.regions:
        if r.blocks:
            if r.blocks[0].args:
                raise V.op_error(op, "requires the regions to have no arguments")
            _yield_matches(op, r, op.result_types, "result")


def _verify_while(op):
    """Before region: arguments typed as the inits, ends in scf.condition; after region:
    ends in scf.yield."""
    V.num_regions(2)(op)
    V.single_block_terminated(("scf.condition",), (0,))(op)
    V.single_block_terminated(("scf.yield",), (1,))(op)
    before = op.regions[0].blocks[0]
    if [a.type for a in before.args] != [v.type for v in op.operands]:
        raise V.op_error(op, "expects the 'before' region arguments to match the operand types")
    cond = before.terminator
    if [v.type for v in cond.operands[1:]] != list(op.result_types):
        raise V.op_error(cond, "expects the forwarded values to match the parent's result types")


def _verify_yield(op):
    """Terminates a region of an scf op."""
    p = op.parent_op
    if p is None or not p.name.startswith("scf."):
        raise V.op_error(op, "expects parent op to be an scf region op (scf.for, scf.if, "
                             f"scf.while, scf.execute_region), found "
                             f"'{p.name if p is not None else 'none'}'")


def _verify_condition(op):
    """An i1 condition inside the 'before' region of an scf.while."""
    p = op.parent_op
    if p is None or p.name != "scf.while":
        raise V.op_error(op, "expects parent op 'scf.while'")
    if not op.operands or op.operands[0].type != T.i1:
        raise V.op_error(op, "expects an i1 condition as operand #0")


register("scf.for", _parse_for, _print_for)
register("scf.if", _parse_if, _print_if)
register("scf.while", _parse_while, _print_while)
register("scf.execute_region", _parse_execute_region, _print_execute_region)
register("scf.condition", _parse_condition, _print_condition, traits=("terminator",))
register("scf.yield", _parse_yield, _print_yield, traits=("terminator",))
V.register_verifiers({"scf.for": _verify_for, "scf.if": _verify_if, "scf.while": _verify_while,
                      "scf.yield": _verify_yield, "scf.condition": _verify_condition})

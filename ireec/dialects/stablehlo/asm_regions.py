"""stablehlo assembly formats of the ops with regions: reduce and while.

Both print upstream's compact form when the region fits it (``applies stablehlo.add``,
``cond { } do { }``) and the generic form otherwise.
"""
from __future__ import annotations

from typing import List

from ...ir import types as T
from ...ir.core import Block, Operation, Region
from ...ir.diagnostics import CompileError
from .asm import (_generic_fallback, _resolve_fn, fmt_list, parse_fn_type, parse_int_list,
                  print_fn_type)
from .attributes import i64_array, i64_list, sorted_attrs


# --- reduce --------------------------------------------------------------------------
_COMMUTATIVE = ("add", "multiply", "maximum", "minimum", "and", "or", "xor")


def _parse_reduce(p, name, loc):
    dialect = name.split(".", 1)[0]
    inputs, inits = [], []
    while p.try_punct("("):
        inputs.append(p.parse_operand())
        p.expect_keyword("init")
        p.expect(":")
        inits.append(p.parse_operand())
        p.expect(")")
        if not p.try_punct(","):
            break
    refs = inputs + inits
    inner = None
    if p.try_keyword("applies"):
        iloc = p.loc()
        inner = p.parse_bare_id("operation name")
        if "." not in inner:
            inner = f"{dialect}.{inner}"
        if inner.split(".", 1)[0] != dialect or inner.split(".", 1)[1] not in _COMMUTATIVE:
            raise CompileError(f"expected the inner-op to be a commutative binary-op from the "
                               f"{dialect} dialect, with zero region, producing single result",
                               iloc)
    p.expect_keyword("across")
    p.expect_keyword("dimensions")
    p.expect("=")
    dims = parse_int_list(p)
    attrs = p.parse_optional_attr_dict()
    attrs["dimensions"] = i64_array(dims)
    p.expect(":")
    ft = parse_fn_type(p)
    if not ft.inputs:
        raise CompileError("input types missing in reduce-op function type", loc)
    operands = _resolve_fn(p, refs, ft, loc)
    op = Operation(name, operands, ft.results, sorted_attrs(attrs), loc=loc)
    if inner is not None:
        p.parse_optional_location()
        et = T.element_type(ft.inputs[0])
        st = T.TensorType((), et)
        blk = Block([st, st])
        body = Operation(inner, [blk.args[0], blk.args[1]], [st], loc=loc)
        blk.append(body)
        blk.append(Operation(f"{dialect}.return", [body.result], loc=loc))
        op.add_region(Region([blk]))
        return op
    p.expect_keyword("reducer")
    firsts, seconds = [], []
    while p.try_punct("("):
        for lst in (firsts, seconds):
            r = p.parse_operand()
            p.expect(":")
            t = p.parse_type()
            p.parse_optional_location()
            lst.append((r, t))
            if lst is firsts:
                p.expect(",")
        p.expect(")")
    op.add_region(p.parse_region(entry_args=firsts + seconds))
    return op


def _reduce_is_compact(op) -> bool:
    if len(op.regions) != 1 or len(op.regions[0].blocks) != 1 or not op.operands:
        return False
    blk = op.regions[0].blocks[0]
    if len(blk.ops) != 2:
        return False
    inner, ret = blk.ops
    dialect = op.name.split(".", 1)[0]
    if inner.name.split(".", 1)[0] != dialect or inner.name.split(".", 1)[1] not in _COMMUTATIVE:
        return False
    if inner.regions or inner.attributes or len(inner.operands) != 2 or len(inner.results) != 1:
        return False
    st = T.TensorType((), T.element_type(op.operands[0].type))
    if any(v.type != st for v in inner.operands) or inner.result.type != st:
        return False
    if list(inner.operands) != list(blk.args):
        return False
    return ret.name == f"{dialect}.return" and list(ret.operands) == [inner.result]


def _print_reduce(pr, op):
    n = len(op.operands) // 2
    pr.write(", ".join(f"({pr.name_of(op.operands[i])} init: {pr.name_of(op.operands[i + n])})"
                       for i in range(n)))
    compact = _reduce_is_compact(op)
    if compact:
        pr.write(" applies " + op.regions[0].blocks[0].ops[0].name)
    pr.write(" across dimensions = " + fmt_list(i64_list(op.attributes.get("dimensions"))))
    pr.print_attr_dict(op.attributes, elided=("dimensions",))
    print_fn_type(pr, op)
    if not compact:
        blk = op.regions[0].blocks[0]
        pr.name_block_args(blk)
        pr.newline()
        pr.write(" reducer")
        for i in range(n):
            a, b = blk.args[i], blk.args[i + n]
            pr.write(f"({pr.name_of(a)}: {a.type}, {pr.name_of(b)}: {b.type}) ")
        pr.write(" ")
        pr.print_region(op.regions[0], print_entry_block_args=False)


def _print_reduce_checked(pr, op):
    n = len(op.operands)
    ok = (n % 2 == 0 and n > 0 and len(op.regions) == 1 and len(op.regions[0].blocks) == 1
          and len(op.regions[0].blocks[0].args) == n and "dimensions" in op.attributes)
    if not ok:
        return _generic_fallback(pr, op)
    _print_reduce(pr, op)


# --- while ---------------------------------------------------------------------------
def _parse_while(p, name, loc):
    p.expect("(")
    iters, refs = [], []
    if not p.try_punct(")"):
        while True:
            iters.append(p.parse_operand())
            p.expect("=")
            refs.append(p.parse_operand())
            if p.try_punct(")"):
                break
            p.expect(",")
    types: List[T.Type] = []
    if refs:
        p.expect(":")
        types = p.parse_type_list()
    operands = p.resolve_list(refs, types)
    attrs = p.parse_optional_attr_dict_with_keyword()
    op = Operation(name, operands, types, attrs, loc=loc)
    args = list(zip(iters, types))
    p.expect_keyword("cond")
    op.add_region(p.parse_region(entry_args=args))
    p.expect_keyword("do")
    op.add_region(p.parse_region(entry_args=args))
    return op


def _print_while(pr, op):
    cond, body = op.regions[0].blocks[0], op.regions[1].blocks[0]
    pr.name_block_args(body)
    for a, b in zip(cond.args, body.args):
        pr.names[a] = pr.names[b]
    pr.write("(" + ", ".join(f"{pr.name_of(a)} = {pr.name_of(v)}"
                             for a, v in zip(body.args, op.operands)) + ")")
    if op.operands:
        pr.write(" : " + ", ".join(str(v.type) for v in op.operands))
    pr.print_attr_dict(op.attributes, keyword=True)
    pr.newline()
    pr.write("cond ")
    pr.print_region(op.regions[0], print_entry_block_args=False)
    pr.write(" do ")
    pr.print_region(op.regions[1], print_entry_block_args=False)


def _print_while_checked(pr, op):
    ok = (len(op.regions) == 2 and all(len(r.blocks) == 1 for r in op.regions)
          and all(len(r.blocks[0].args) == len(op.operands) for r in op.regions)
          and [a.type for a in op.regions[0].blocks[0].args] == [v.type for v in op.operands]
          and [a.type for a in op.regions[1].blocks[0].args] == [v.type for v in op.operands]
          and op.result_types == [v.type for v in op.operands])
    if not ok:
        return _generic_fallback(pr, op)
    _print_while(pr, op)

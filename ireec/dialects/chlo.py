"""chlo dialect (client HLO: broadcasting binary ops and decomposable math), pretty and generic.

Syntax source: StableHLO's ``ChloOps.td`` assembly formats. Dialect attributes
(``#chlo<comparison_direction GT>``...) are kept as :class:`OpaqueAttr` in canonical spelling;
``stablehlo.comparison_direction(op)`` also reads ``chlo.broadcast_compare``.

Traits: ``elementwise`` (+ ``broadcasting`` for the ``broadcast_*`` ops, which broadcast their
operands numpy-style or along ``broadcast_dimensions``) and ``pure``.
"""
from __future__ import annotations

from ..frontend.parser import register_dialect_attr_parser
from ..ir import types as T
from ..ir.attributes import BoolAttr, IntegerAttr
from ..ir.core import Operation
from ..ir.diagnostics import CompileError
from . import stablehlo as shlo
from .registry import register as _register


def register(name, parse=None, print_=None, traits=()):
    _register(name, parse, shlo.safe_printer(print_), traits=traits)

register_dialect_attr_parser("chlo", shlo._attr_hook("chlo"))


def _parse_binary(p, name, loc):
    """``%a, %b attr-dict : (T1, T2) -> R``."""
    return shlo.parse_operands_fn(p, name, loc)


def _print_binary(pr, op):
    shlo.print_operands_fn(pr, op)


def _parse_unary(p, name, loc):
    """``%x attr-dict : T -> R``."""
    ref = p.parse_operand()
    attrs = p.parse_optional_attr_dict()
    p.expect(":")
    t = p.parse_type()
    if isinstance(t, T.FunctionType):
        ins, outs = list(t.inputs), list(t.results)
    else:
        p.expect("->")
        ins, outs = [t], [p.parse_type()]
    return Operation(name, p.resolve_list([ref], ins), outs, shlo.sorted_attrs(attrs), loc=loc)


def _print_unary(pr, op):
    pr.write(" " + pr.name_of(op.operands[0]))
    pr.print_attr_dict(op.attributes)
    pr.write(f" : {op.operands[0].type} -> {op.result_types[0]}")


def _parse_pair_arrow(p, name, loc):
    """``%x, %y attr-dict : T1, T2 -> R`` (next_after, polygamma, zeta, mulhi)."""
    refs = p.parse_operand_list()
    attrs = p.parse_optional_attr_dict()
    p.expect(":")
    t1 = p.parse_type()
    if isinstance(t1, T.FunctionType):
        ins, outs = list(t1.inputs), list(t1.results)
    else:
        p.expect(",")
        t2 = p.parse_type()
        p.expect("->")
        ins, outs = [t1, t2], [p.parse_type()]
    return Operation(name, p.resolve_list(refs, ins), outs, shlo.sorted_attrs(attrs), loc=loc)


def _print_pair_arrow(pr, op):
    pr.write(" ")
    pr.print_operands(op.operands)
    pr.print_attr_dict(op.attributes)
    pr.write(f" : {op.operands[0].type}, {op.operands[1].type} -> {op.result_types[0]}")


def _parse_constant(p, name, loc):
    """``chlo.constant attr-dict dense<...> : T``."""
    attrs = p.parse_optional_attr_dict()
    vloc = p.loc()
    v = p.parse_attribute()
    attrs["value"] = v
    return Operation(name, [], [shlo._typed_value_type(v, vloc)], shlo.sorted_attrs(attrs), loc=loc)


def _print_constant(pr, op):
    pr.print_attr_dict(op.attributes, elided=("value",))
    pr.write(" " + str(op.attributes["value"]))


def _parse_top_k(p, name, loc):
    """``(%x, k = 3[, is_stable = true]) attr-dict : T -> (T1, T2)``."""
    p.expect("(")
    ref = p.parse_operand()
    p.expect(",")
    p.expect_keyword("k")
    p.expect("=")
    attrs = {"k": IntegerAttr(p.parse_integer(), T.i64)}
    if p.try_punct(","):
        p.expect_keyword("is_stable")
        p.expect("=")
        attrs["is_stable"] = BoolAttr(p.parse_keyword_of(("true", "false")) == "true")
    p.expect(")")
    attrs.update(p.parse_optional_attr_dict())
    p.expect(":")
    t = p.parse_type()
    p.expect("->")
    outs = p.parse_result_types()
    if len(outs) != 2:
        raise CompileError("chlo.top_k has two results", loc)
    return Operation(name, p.resolve_list([ref], [t]), outs, shlo.sorted_attrs(attrs), loc=loc)


def _print_top_k(pr, op):
    pr.write(f"({pr.name_of(op.operands[0])}, k = {op.attributes['k'].value}")
    st = op.attributes.get("is_stable")
    if st is not None:
        pr.write(f", is_stable = {st}")
    pr.write(")")
    pr.print_attr_dict(op.attributes, elided=("k", "is_stable"))
    pr.write(f" : {op.operands[0].type} -> ({op.result_types[0]}, {op.result_types[1]})")


BROADCAST_BINARY = (
    "broadcast_add", "broadcast_atan2", "broadcast_divide", "broadcast_maximum",
    "broadcast_minimum", "broadcast_multiply", "broadcast_next_after", "broadcast_polygamma",
    "broadcast_power", "broadcast_remainder", "broadcast_shift_left",
    "broadcast_shift_right_arithmetic", "broadcast_shift_right_logical", "broadcast_subtract",
    "broadcast_zeta", "broadcast_and", "broadcast_or", "broadcast_xor", "broadcast_complex",
    "broadcast_compare")
UNARY = (
    "_asin_acos_kernel", "acos", "acosh", "asin", "asinh", "atan", "atanh", "bessel_i1e",
    "conj", "cosh", "sinh", "tan", "digamma", "erf", "erf_inv", "erfc", "is_inf",
    "is_neg_inf", "is_pos_inf", "lgamma", "square")

for _op in BROADCAST_BINARY:
    register(f"chlo.{_op}", _parse_binary, _print_binary,
             traits=("pure", "elementwise", "broadcasting"))
for _op in UNARY:
    register(f"chlo.{_op}", _parse_unary, _print_unary, traits=("pure", "elementwise"))
for _op in ("next_after", "polygamma", "zeta", "mulhi"):
    register(f"chlo.{_op}", _parse_pair_arrow, _print_pair_arrow, traits=("pure", "elementwise"))
register("chlo.broadcast_select", _parse_binary, _print_binary,
         traits=("pure", "elementwise", "broadcasting"))
register("chlo.constant", _parse_constant, _print_constant, traits=("pure",))
register("chlo.top_k", _parse_top_k, _print_top_k, traits=("pure",))
for _op in ("constant_like", "ragged_dot", "scan"):
    register(f"chlo.{_op}", traits=("pure",))

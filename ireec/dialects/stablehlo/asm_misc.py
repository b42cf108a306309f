"""stablehlo assembly formats of the remaining ops with a custom syntax.

custom_call, fft, rng / rng_bit_generator, optimization_barrier, tuple,
get_tuple_element, after_all, cholesky, reduce_precision, einsum / unary_einsum and
composite.
"""
from __future__ import annotations

import re

from ...ir import types as T
from ...ir.attributes import BoolAttr, escape_string, IntegerAttr, StringAttr
from ...ir.core import Operation
from ...ir.diagnostics import CompileError
from .asm import (_parse_operand_then, _resolve_fn, fmt_list, parse_dims_keyword, parse_fn_type,
                  parse_same_type_tail, print_fn_type, print_same_type_tail)
from .asm_shape import _make_kw_op
from .attributes import enum_attr, enum_value, i64_array, i64_list, sorted_attrs


# --- custom_call ---------------------------------------------------------------------
def _parse_custom_call(p, name, loc):
    target = p.parse_symbol_name()
    refs = p.parse_operand_list("()")
    attrs = p.parse_optional_attr_dict()
    attrs["call_target_name"] = StringAttr(target)
    p.expect(":")
    ft = parse_fn_type(p)
    return Operation(name, _resolve_fn(p, refs, ft, loc), ft.results, sorted_attrs(attrs), loc=loc)


def _print_custom_call(pr, op):
    pr.write(" ")
    pr.print_symbol(op.attributes["call_target_name"].value)
    pr.write("(")
    pr.print_operands(op.operands)
    pr.write(")")
    pr.print_attr_dict(op.attributes, elided=("call_target_name",))
    print_fn_type(pr, op)


# --- fft / rng / rng_bit_generator ---------------------------------------------------
def _parse_fft(p, name, loc):
    ref = _parse_operand_then(p)
    p.expect_keyword("type")
    p.expect("=")
    kind = p.parse_bare_id("fft type")
    p.expect(",")
    length = parse_dims_keyword(p, "length")
    attrs = p.parse_optional_attr_dict()
    attrs.update(fft_type=enum_attr("fft_type", kind), fft_length=i64_array(length))
    p.expect(":")
    ft = parse_fn_type(p)
    return Operation(name, _resolve_fn(p, [ref], ft, loc), ft.results, sorted_attrs(attrs), loc=loc)


def _print_fft(pr, op):
    a = op.attributes
    pr.write(f" {pr.name_of(op.operands[0])}, type = {enum_value(a['fft_type'])}, "
             f"length = {fmt_list(i64_list(a['fft_length']))}")
    pr.print_attr_dict(a, elided=("fft_type", "fft_length"))
    print_fn_type(pr, op)


def _make_enum_kw_op(n_operands: int, kw: str, attr: str, kind: str):
    return _make_kw_op(kw, attr, n_operands, lambda p: enum_attr(kind, p.parse_bare_id(kind)), enum_value)


# --- return / optimization_barrier / tuple / get_tuple_element / after_all -----------


def _parse_opt_barrier(p, name, loc):
    attrs = p.parse_optional_attr_dict()
    if p.try_punct("("):
        p.expect(")")
        return Operation(name, [], [], attrs, loc=loc)
    refs = p.parse_operand_list()
    types = p.parse_colon_type_list()
    return Operation(name, p.resolve_list(refs, types), types, attrs, loc=loc)


def _print_opt_barrier(pr, op):
    pr.print_attr_dict(op.attributes)
    if not op.operands:
        pr.write("()")
        return
    pr.write(" ")
    pr.print_operands(op.operands)
    pr.write(" : " + ", ".join(str(v.type) for v in op.operands))


def _parse_tuple(p, name, loc):
    refs = p.parse_operand_list()
    attrs = p.parse_optional_attr_dict()
    p.expect(":")
    t = p.parse_type()
    if not isinstance(t, T.TupleType):
        raise CompileError("expected tuple type", loc)
    return Operation(name, p.resolve_list(refs, t.types), [t], attrs, loc=loc)


def _print_tuple(pr, op):
    if op.operands:
        pr.write(" ")
        pr.print_operands(op.operands)
    pr.print_attr_dict(op.attributes)
    pr.write(f" : {op.result_types[0]}")


def _parse_get_tuple_element(p, name, loc):
    ref = p.parse_operand()
    p.expect("[")
    idx = p.parse_integer()
    p.expect("]")
    attrs = p.parse_optional_attr_dict()
    attrs["index"] = IntegerAttr(idx, T.i32)
    p.expect(":")
    ft = parse_fn_type(p)
    return Operation(name, _resolve_fn(p, [ref], ft, loc), ft.results, sorted_attrs(attrs), loc=loc)


def _print_get_tuple_element(pr, op):
    pr.write(f" {pr.name_of(op.operands[0])}[{op.attributes['index'].value}]")
    pr.print_attr_dict(op.attributes, elided=("index",))
    print_fn_type(pr, op)


def _parse_after_all(p, name, loc):
    refs = p.parse_operand_list()
    attrs = p.parse_optional_attr_dict()
    p.expect(":")
    t = p.parse_type()
    if isinstance(t, T.FunctionType):
        ins, outs = list(t.inputs), list(t.results)
    else:
        ins, outs = [t] * len(refs), [t]
    return Operation(name, p.resolve_list(refs, ins), outs, attrs, loc=loc)


# --- cholesky / reduce_precision / einsum / composite -------------------------------
def _parse_cholesky(p, name, loc):
    ref = p.parse_operand()
    attrs = {}
    if p.try_punct(","):
        p.expect_keyword("lower")
        p.expect("=")
        attrs["lower"] = BoolAttr(p.parse_keyword_of(("true", "false")) == "true")
    attrs.update(p.parse_optional_attr_dict())
    ins, outs = parse_same_type_tail(p, [ref], loc)
    return Operation(name, p.resolve_list([ref], ins), outs, sorted_attrs(attrs), loc=loc)


def _print_cholesky(pr, op):
    pr.write(" " + pr.name_of(op.operands[0]))
    low = op.attributes.get("lower")
    if low is not None:
        pr.write(f", lower = {low}")
    pr.print_attr_dict(op.attributes, elided=("lower",))
    print_same_type_tail(pr, op)


def _parse_reduce_precision(p, name, loc):
    ref = _parse_operand_then(p)
    p.expect_keyword("format")
    p.expect("=")
    floc = p.loc()
    fmt = p.parse_bare_id("format")
    m = re.fullmatch(r"e([0-9]+)m([0-9]+)", fmt)
    if not m:
        raise CompileError(f"expected exponent mantissa in format e#m#, saw {fmt}", floc)
    attrs = p.parse_optional_attr_dict()
    attrs.update(exponent_bits=IntegerAttr(int(m.group(1)), T.i32),
                 mantissa_bits=IntegerAttr(int(m.group(2)), T.i32))
    ins, outs = parse_same_type_tail(p, [ref], loc)
    return Operation(name, p.resolve_list([ref], ins), outs, sorted_attrs(attrs), loc=loc)


def _print_reduce_precision(pr, op):
    a = op.attributes
    pr.write(f" {pr.name_of(op.operands[0])}, format = e{a['exponent_bits'].value}"
             f"m{a['mantissa_bits'].value}")
    pr.print_attr_dict(a, elided=("exponent_bits", "mantissa_bits"))
    print_same_type_tail(pr, op)


def _make_einsum(n: int):
    def parse(p, name, loc):
        refs = [_parse_operand_then(p) for _ in range(n)]
        p.expect_keyword("config")
        p.expect("=")
        cfg = p.parse_string()
        attrs = p.parse_optional_attr_dict()
        attrs["einsum_config"] = StringAttr(cfg)
        p.expect(":")
        ft = parse_fn_type(p)
        return Operation(name, _resolve_fn(p, refs, ft, loc), ft.results, sorted_attrs(attrs),
                         loc=loc)

    def print_(pr, op):
        pr.write(" " + "".join(pr.name_of(v) + ", " for v in op.operands))
        pr.write("config = " + escape_string(op.attributes["einsum_config"].value))
        pr.print_attr_dict(op.attributes, elided=("einsum_config",))
        print_fn_type(pr, op)

    return parse, print_


def _parse_composite(p, name, loc):
    cname = p.parse_string()
    refs = p.parse_operand_list()
    op = Operation(name, loc=loc)
    if p.peek("(") and not p._looks_like_function_type():
        p.expect("(")
        while True:
            op.add_region(p.parse_region())
            if not p.try_punct(","):
                break
        p.expect(")")
    attrs = p.parse_optional_attr_dict()
    attrs["name"] = StringAttr(cname)
    p.expect(":")
    ft = parse_fn_type(p)
    for v in _resolve_fn(p, refs, ft, loc):
        op._append_operand(v)
    from ...ir.core import OpResult

    op.results = [OpResult(t, op, i) for i, t in enumerate(ft.results)]
    op.attributes = sorted_attrs(attrs)
    return op


def _print_composite(pr, op):
    pr.write(" " + escape_string(op.attributes["name"].value))
    if op.operands:
        pr.write(" ")
        pr.print_operands(op.operands)
    if op.regions:
        pr.write(" (")
        for i, r in enumerate(op.regions):
            if i:
                pr.write(", ")
            pr.print_region(r)
        pr.write(")")
    pr.print_attr_dict(op.attributes, elided=("name",))
    print_fn_type(pr, op)

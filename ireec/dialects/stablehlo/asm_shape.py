"""stablehlo assembly formats of constants, elementwise and shape ops.

constant, iota / dynamic_iota, create_token-like ops, compare, slice, dynamic_slice, the
``kw = [dims]`` ops (broadcast_in_dim, transpose, reverse...), the ``kw = value`` ops
(concatenate, get_dimension_size...), pad, select and complex.
"""
from __future__ import annotations

from ...ir import types as T
from ...ir.attributes import DenseArrayAttr, IntegerAttr
from ...ir.core import Operation
from ...ir.diagnostics import CompileError
from .asm import (_generic_fallback, _parse_operand_then, _resolve_fn, _typed_value_type, fmt_list,
                  parse_dims_keyword, parse_fn_type, parse_same_type_tail, print_fn_type,
                  print_same_type_tail)
from .attributes import enum_attr, enum_value, i64_array, i64_list, sorted_attrs


# --- constant ------------------------------------------------------------------------
def _parse_constant(p, name, loc):
    if p.try_punct("("):  # generic tail: stablehlo.constant() <{value = ...}> : () -> T
        p.expect(")")
        attrs = {}
        if p.peek("<{"):
            p.expect("<")
            attrs.update(p.parse_attr_dict())
            p.expect(">")
        attrs.update(p.parse_optional_attr_dict())
        p.expect(":")
        ft = parse_fn_type(p)
        return Operation(name, [], ft.results, attrs, loc=loc)
    attrs = p.parse_optional_attr_dict()
    vloc = p.loc()
    v = p.parse_attribute()
    attrs["value"] = v
    return Operation(name, [], [_typed_value_type(v, vloc)], sorted_attrs(attrs), loc=loc)


def _print_constant(pr, op):
    v = op.attributes.get("value")
    if v is None or getattr(v, "type", None) != op.result_types[0]:
        pr.write("()")
        pr.print_attr_dict(op.attributes)
        pr.write(" : () -> " + str(op.result_types[0]))
        return
    pr.print_attr_dict(op.attributes, elided=("value",))
    pr.write(" " + str(v))


# --- iota / dynamic_iota -------------------------------------------------------------
def _parse_iota(p, name, loc):
    p.expect_keyword("dim")
    p.expect("=")
    d = p.parse_integer()
    attrs = p.parse_optional_attr_dict()
    attrs["iota_dimension"] = IntegerAttr(d, T.i64)
    p.expect(":")
    t = p.parse_type()
    return Operation(name, [], [t], sorted_attrs(attrs), loc=loc)


def _print_iota(pr, op):
    pr.write(f" dim = {op.attributes['iota_dimension'].value}")
    pr.print_attr_dict(op.attributes, elided=("iota_dimension",))
    pr.write(f" : {op.result_types[0]}")


def _parse_dynamic_iota(p, name, loc):
    ref = _parse_operand_then(p)
    p.expect_keyword("dim")
    p.expect("=")
    d = p.parse_integer()
    attrs = p.parse_optional_attr_dict()
    attrs["iota_dimension"] = IntegerAttr(d, T.i64)
    p.expect(":")
    ft = parse_fn_type(p)
    return Operation(name, _resolve_fn(p, [ref], ft, loc), ft.results, sorted_attrs(attrs), loc=loc)


def _print_dynamic_iota(pr, op):
    pr.write(f" {pr.name_of(op.operands[0])}, dim = {op.attributes['iota_dimension'].value}")
    pr.print_attr_dict(op.attributes, elided=("iota_dimension",))
    print_fn_type(pr, op)


# --- attr-dict : type (create_token, replica_id, partition_id) -----------------------
def _parse_type_only(p, name, loc):
    attrs = p.parse_optional_attr_dict()
    p.expect(":")
    ts = p.parse_type_list()
    return Operation(name, [], ts, sorted_attrs(attrs), loc=loc)


def _print_type_only(pr, op):
    pr.print_attr_dict(op.attributes)
    pr.write(" : " + ", ".join(str(t) for t in op.result_types))


# --- compare -------------------------------------------------------------------------
def _parse_compare(p, name, loc, dialect="stablehlo"):
    direction = p.parse_bare_id("comparison direction")
    p.expect(",")
    lhs = _parse_operand_then(p)
    rhs = p.parse_operand()
    attrs = {}
    if p.try_punct(","):
        attrs["compare_type"] = enum_attr("comparison_type", p.parse_bare_id("comparison type"),
                                          dialect)
    attrs.update(p.parse_optional_attr_dict())
    attrs["comparison_direction"] = enum_attr("comparison_direction", direction, dialect)
    p.expect(":")
    ft = parse_fn_type(p)
    return Operation(name, _resolve_fn(p, [lhs, rhs], ft, loc), ft.results, sorted_attrs(attrs),
                     loc=loc)


def _print_compare(pr, op):
    pr.write(f"  {enum_value(op.attributes['comparison_direction'])}, ")
    pr.print_operands(op.operands)
    ct = op.attributes.get("compare_type")
    if ct is not None:
        pr.write(f",  {enum_value(ct)}")
    pr.print_attr_dict(op.attributes, elided=("comparison_direction", "compare_type"))
    print_fn_type(pr, op)


# --- slice ---------------------------------------------------------------------------
def _parse_slice(p, name, loc):
    ref = p.parse_operand()
    p.expect("[")
    start, limit, stride = [], [], []
    if not p.try_punct("]"):
        while True:
            start.append(p.parse_integer())
            p.expect(":")
            limit.append(p.parse_integer())
            stride.append(p.parse_integer() if p.try_punct(":") else 1)
            if p.try_punct("]"):
                break
            p.expect(",")
    attrs = p.parse_optional_attr_dict()
    attrs.update(start_indices=i64_array(start), limit_indices=i64_array(limit),
                 strides=i64_array(stride))
    p.expect(":")
    ft = parse_fn_type(p)
    return Operation(name, _resolve_fn(p, [ref], ft, loc), ft.results, sorted_attrs(attrs), loc=loc)


def _print_slice(pr, op):
    a = op.attributes
    s, l, st = i64_list(a["start_indices"]), i64_list(a["limit_indices"]), i64_list(a["strides"])
    pr.write(f" {pr.name_of(op.operands[0])} [")
    if len(s) == len(l) == len(st):
        pr.write(", ".join(f"{x}:{y}" + (f":{z}" if z != 1 else "") for x, y, z in zip(s, l, st)))
    pr.write("]")
    pr.print_attr_dict(a, elided=("start_indices", "limit_indices", "strides"))
    print_fn_type(pr, op)


def _print_slice_checked(pr, op):
    a = op.attributes
    ok = all(isinstance(a.get(k), DenseArrayAttr) for k in ("start_indices", "limit_indices", "strides"))
    if not ok or not (len(a["start_indices"]) == len(a["limit_indices"]) == len(a["strides"])):
        return _generic_fallback(pr, op)
    _print_slice(pr, op)


# --- dynamic_slice -------------------------------------------------------------------
def _parse_dynamic_slice(p, name, loc):
    refs = [_parse_operand_then(p)]
    while p.peek("%"):
        refs.append(_parse_operand_then(p))
    sizes = parse_dims_keyword(p, "sizes")
    attrs = p.parse_optional_attr_dict()
    attrs["slice_sizes"] = i64_array(sizes)
    p.expect(":")
    ft = parse_fn_type(p)
    return Operation(name, _resolve_fn(p, refs, ft, loc), ft.results, sorted_attrs(attrs), loc=loc)


def _print_dynamic_slice(pr, op):
    pr.write(" " + "".join(pr.name_of(v) + ", " for v in op.operands))
    pr.write("sizes = " + fmt_list(i64_list(op.attributes["slice_sizes"])))
    pr.print_attr_dict(op.attributes, elided=("slice_sizes",))
    print_fn_type(pr, op)


# --- ops of the form  %x, kw = [dims] attr-dict : functional / same type -------------
def _make_dims_op(kw: str, attr: str, n_operands: int, same_type: bool = False):
    def parse(p, name, loc):
        refs = [_parse_operand_then(p) for _ in range(n_operands)]
        dims = parse_dims_keyword(p, kw)
        attrs = p.parse_optional_attr_dict()
        attrs[attr] = i64_array(dims)
        if same_type:
            ins, outs = parse_same_type_tail(p, refs, loc)
            return Operation(name, p.resolve_list(refs, ins), outs, sorted_attrs(attrs), loc=loc)
        p.expect(":")
        ft = parse_fn_type(p)
        return Operation(name, _resolve_fn(p, refs, ft, loc), ft.results, sorted_attrs(attrs),
                         loc=loc)

    def print_(pr, op):
        pr.write(" " + "".join(pr.name_of(v) + ", " for v in op.operands))
        pr.write(f"{kw} = {fmt_list(i64_list(op.attributes[attr]))}")
        pr.print_attr_dict(op.attributes, elided=(attr,))
        if same_type:
            print_same_type_tail(pr, op)
        else:
            print_fn_type(pr, op)

    return parse, print_


# --- ops of the form  operands, kw = <value> ---------------------------------------
def _make_kw_op(kw: str, attr: str, n_operands: int, parse_value, print_value, variadic: bool = False):
    """``%a, %b, kw = <value> {attrs} : (types) -> types``; ``parse_value(p)`` returns the
    attribute stored under ``attr``, ``print_value(attribute)`` its text."""

    def parse(p, name, loc):
        if variadic:
            refs = []
            while p.peek("%"):
                refs.append(_parse_operand_then(p))
        else:
            refs = [_parse_operand_then(p) for _ in range(n_operands)]
        p.expect_keyword(kw)
        p.expect("=")
        value = parse_value(p)
        attrs = p.parse_optional_attr_dict()
        attrs[attr] = value
        p.expect(":")
        ft = parse_fn_type(p)
        return Operation(name, _resolve_fn(p, refs, ft, loc), ft.results, sorted_attrs(attrs),
                         loc=loc)

    def print_(pr, op):
        pr.write(" " + "".join(pr.name_of(v) + ", " for v in op.operands))
        pr.write(f"{kw} = {print_value(op.attributes[attr])}")
        pr.print_attr_dict(op.attributes, elided=(attr,))
        print_fn_type(pr, op)

    return parse, print_


def _make_int_op(kw: str, attr: str, n_operands: int, width: int = 64, variadic: bool = False):
    it = T.IntegerType(width)
    return _make_kw_op(kw, attr, n_operands, lambda p: IntegerAttr(p.parse_integer(), it),
                       lambda a: a.value, variadic)


# --- pad -----------------------------------------------------------------------------
def _parse_pad(p, name, loc):
    refs = [_parse_operand_then(p), _parse_operand_then(p)]
    lo = parse_dims_keyword(p, "low")
    p.expect(",")
    hi = parse_dims_keyword(p, "high")
    p.expect(",")
    inner = parse_dims_keyword(p, "interior")
    attrs = p.parse_optional_attr_dict()
    attrs.update(edge_padding_low=i64_array(lo), edge_padding_high=i64_array(hi),
                 interior_padding=i64_array(inner))
    p.expect(":")
    ft = parse_fn_type(p)
    return Operation(name, _resolve_fn(p, refs, ft, loc), ft.results, sorted_attrs(attrs), loc=loc)


def _print_pad(pr, op):
    a = op.attributes
    pr.write(f" {pr.name_of(op.operands[0])}, {pr.name_of(op.operands[1])}, "
             f"low = {fmt_list(i64_list(a['edge_padding_low']))}, "
             f"high = {fmt_list(i64_list(a['edge_padding_high']))}, "
             f"interior = {fmt_list(i64_list(a['interior_padding']))}")
    pr.print_attr_dict(a, elided=("edge_padding_low", "edge_padding_high", "interior_padding"))
    print_fn_type(pr, op)


# --- select / complex / clamp --------------------------------------------------------
def _parse_select(p, name, loc):
    refs = p.parse_operand_list()
    attrs = p.parse_optional_attr_dict()
    p.expect(":")
    ts = p.parse_type_list()
    if len(ts) == 2:
        ins, outs = [ts[0], ts[1], ts[1]], [ts[1]]
    elif len(ts) == 1 and isinstance(ts[0], T.FunctionType):
        ins, outs = list(ts[0].inputs), list(ts[0].results)
    else:
        raise CompileError("expected functional type or list of two types", loc)
    return Operation(name, p.resolve_list(refs, ins), outs, sorted_attrs(attrs), loc=loc)


def _print_select(pr, op):
    pr.write(" ")
    pr.print_operands(op.operands)
    pr.print_attr_dict(op.attributes)
    r = op.result_types[0]
    if op.operands[1].type == r and op.operands[2].type == r:
        pr.write(f" : {op.operands[0].type}, {r}")
    else:
        print_fn_type(pr, op)


def _real_type(t):
    if isinstance(t, T.TensorType) and isinstance(t.element_type, T.ComplexType):
        return T.TensorType(t.shape, t.element_type.element_type, t.encoding)
    return None


def _parse_complex(p, name, loc):
    refs = p.parse_operand_list()
    attrs = p.parse_optional_attr_dict()
    p.expect(":")
    t = p.parse_type()
    if isinstance(t, T.FunctionType):
        ins, outs = list(t.inputs), list(t.results)
    else:
        rt = _real_type(t)
        if rt is None:
            raise CompileError("expected tensor with complex element type", loc)
        ins, outs = [rt, rt], [t]
    return Operation(name, p.resolve_list(refs, ins), outs, sorted_attrs(attrs), loc=loc)


def _print_complex(pr, op):
    pr.write(" ")
    pr.print_operands(op.operands)
    pr.print_attr_dict(op.attributes)
    rt = _real_type(op.result_types[0])
    if rt is not None and all(v.type == rt for v in op.operands):
        pr.write(f" : {op.result_types[0]}")
    else:
        print_fn_type(pr, op)

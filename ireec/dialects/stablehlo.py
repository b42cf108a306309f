"""stablehlo dialect: every op JAX / torch-mlir / IREE's tests print, pretty and generic.

Syntax source: StableHLO's ``StablehloOps.td`` assembly formats and its custom
printers (``AssemblyFormat.cpp``), and the spec https://openxla.org/stablehlo/spec.

Representation rule: an op parsed from its pretty form is the op upstream's generic form
gives: same attribute names and kinds (``broadcast_dimensions = array<i64: ...>``,
``comparison_direction = #stablehlo<comparison_direction GT>``...). Dialect attributes
(``#stablehlo.dot<...>``, ``#stablehlo.conv<...>``, ``#stablehlo.gather<...>``,
``#stablehlo.scatter<...>``, enums) are :class:`OpaqueAttr` whose text is upstream's
canonical spelling, whatever spelling the input used (``#stablehlo.conv<raw ...>``,
trailing commas, line breaks). Use the accessors at the end of this module
(:func:`dot_dimension_numbers`, :func:`conv_dimension_numbers`, ...) to read them.

Traits: ``elementwise`` on per-element ops, ``pure`` on side-effect-free ops,
``terminator`` on ``stablehlo.return``; ``broadcasting`` on the elementwise ops whose
operands may be rank-0 against ranked ones (``select``'s predicate, ``clamp``'s bounds).
"""
from __future__ import annotations

import re
from typing import Dict, List, Optional, Sequence

import numpy as np

from ..frontend.parser import register_dialect_attr_parser
from ..ir import types as T
from ..ir import verifier as V
from ..ir.attributes import (ArrayAttr, Attribute, BoolAttr, DenseArrayAttr, DenseElementsAttr,
                             DenseResourceAttr, IntegerAttr, OpaqueAttr, StringAttr,
                             escape_string)
from ..ir.core import Block, Operation, Region
from ..ir.diagnostics import CompileError
from .registry import register
from .syntax import parse_terminator, print_terminator

# =====================================================================================
# Dialect attributes: canonical spelling
# =====================================================================================

_TOK = re.compile(r"\s*(->|[A-Za-z_][A-Za-z0-9_.]*|-?[0-9]+|\?|[\[\],=<>():{}])")


def _tokenize(s: str) -> List[str]:
    out, pos = [], 0
    s = s.rstrip()
    while pos < len(s):
        m = _TOK.match(s, pos)
        if not m:
            raise ValueError(f"unexpected text {s[pos:pos + 10]!r}")
        out.append(m.group(1))
        pos = m.end()
    return out


class _Toks:
    def __init__(self, s: str):
        self.t = _tokenize(s)
        self.i = 0

    def peek(self, k: int = 0) -> Optional[str]:
        j = self.i + k
        return self.t[j] if j < len(self.t) else None

    def next(self) -> str:
        if self.i >= len(self.t):
            raise ValueError("unexpected end of attribute")
        tok = self.t[self.i]
        self.i += 1
        return tok

    def expect(self, s: str) -> None:
        tok = self.next()
        if tok != s:
            raise ValueError(f"expected '{s}', found '{tok}'")

    def accept(self, s: str) -> bool:
        if self.peek() == s:
            self.i += 1
            return True
        return False

    def int_list(self) -> List[int]:
        self.expect("[")
        vals: List[int] = []
        if self.accept("]"):
            return vals
        while True:
            vals.append(int(self.next()))
            if self.accept("]"):
                return vals
            self.expect(",")
            if self.accept("]"):  # trailing comma
                return vals


def _parse_struct(body: str) -> Dict[str, object]:
    """``key = [1, 2], other = 3,`` (the inside of ``<...>``) → dict."""
    tk = _Toks(body)
    out: Dict[str, object] = {}
    while tk.peek() is not None:
        key = tk.next()
        tk.expect("=")
        out[key] = tk.int_list() if tk.peek() == "[" else int(tk.next())
        if not tk.accept(","):
            break
    if tk.peek() is not None:
        raise ValueError(f"unexpected '{tk.peek()}'")
    return out


def _struct_text(mnemonic: str, fields: Sequence[str], vals: Dict[str, object],
                 dialect: str = "stablehlo") -> str:
    """Upstream's printStruct: empty lists and zero integers are left out."""
    parts = []
    for f in fields:
        v = vals.get(f)
        if isinstance(v, list):
            if v:
                parts.append(f"{f} = [{', '.join(str(x) for x in v)}]")
        elif v:
            parts.append(f"{f} = {v}")
    return f"#{dialect}.{mnemonic}<{', '.join(parts)}>"


DOT_FIELDS = ("lhs_batching_dimensions", "rhs_batching_dimensions",
              "lhs_contracting_dimensions", "rhs_contracting_dimensions")
GATHER_FIELDS = ("offset_dims", "collapsed_slice_dims", "operand_batching_dims",
                 "start_indices_batching_dims", "start_index_map", "index_vector_dim")
SCATTER_FIELDS = ("update_window_dims", "inserted_window_dims", "input_batching_dims",
                  "scatter_indices_batching_dims", "scatter_dims_to_operand_dims",
                  "index_vector_dim")
CONV_FIELDS = ("input_batch_dimension", "input_feature_dimension", "input_spatial_dimensions",
               "kernel_input_feature_dimension", "kernel_output_feature_dimension",
               "kernel_spatial_dimensions", "output_batch_dimension",
               "output_feature_dimension", "output_spatial_dimensions")
_STRUCTS = {"dot": DOT_FIELDS, "gather": GATHER_FIELDS, "scatter": SCATTER_FIELDS}


def dot_attr(lhs_batch=(), rhs_batch=(), lhs_contract=(), rhs_contract=()) -> OpaqueAttr:
    """``#stablehlo.dot<...>`` in canonical spelling."""
    return OpaqueAttr(_struct_text("dot", DOT_FIELDS, {
        "lhs_batching_dimensions": list(lhs_batch), "rhs_batching_dimensions": list(rhs_batch),
        "lhs_contracting_dimensions": list(lhs_contract),
        "rhs_contracting_dimensions": list(rhs_contract)}))


def gather_attr(**fields) -> OpaqueAttr:
    return OpaqueAttr(_struct_text("gather", GATHER_FIELDS, fields))


def scatter_attr(**fields) -> OpaqueAttr:
    return OpaqueAttr(_struct_text("scatter", SCATTER_FIELDS, fields))


def _conv_dims_text(d: Dict[str, object]) -> str:
    """``[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]`` (printConvolutionDimensions)."""

    def one(spatial, named):
        n = len(spatial) + len(named)
        dims: List[str] = ["?"] * n
        for pos, ch in named:
            if not 0 <= pos < n:
                raise ValueError("invalid non-spatial dimension")
            dims[pos] = ch
        for i, pos in enumerate(spatial):
            if not 0 <= pos < n:
                raise ValueError("invalid spatial dimension")
            dims[pos] = str(i)
        return "[" + ", ".join(dims) + "]"

    return (one(d["input_spatial_dimensions"], [(d["input_batch_dimension"], "b"),
                                                 (d["input_feature_dimension"], "f")])
            + "x"
            + one(d["kernel_spatial_dimensions"], [(d["kernel_input_feature_dimension"], "i"),
                                                    (d["kernel_output_feature_dimension"], "o")])
            + "->"
            + one(d["output_spatial_dimensions"], [(d["output_batch_dimension"], "b"),
                                                    (d["output_feature_dimension"], "f")]))


def conv_attr(d: Dict[str, object]) -> OpaqueAttr:
    """``#stablehlo.conv<...>`` from a dict with the keys of :data:`CONV_FIELDS`."""
    full = {k: d.get(k, [] if k.endswith("dimensions") and "spatial" in k else 0)
            for k in CONV_FIELDS}
    return OpaqueAttr(f"#stablehlo.conv<{_conv_dims_text(full)}>")


def _parse_conv_compact(tk: _Toks) -> Dict[str, object]:
    def one(allowed):
        tk.expect("[")
        spatial: Dict[int, int] = {}
        named: Dict[str, int] = {}
        idx = 0
        while True:
            tok = tk.next()
            if re.fullmatch(r"[0-9]+", tok):
                if int(tok) in spatial:
                    raise ValueError(f"duplicate spatial dimension {tok}")
                spatial[int(tok)] = idx
            elif tok in allowed and tok not in named:
                named[tok] = idx
            else:
                raise ValueError(f"unexpected dimension '{tok}'")
            idx += 1
            if tk.accept("]"):
                break
            tk.expect(",")
        missing = [a for a in allowed if a not in named]
        if missing:
            raise ValueError(f"dimensions {', '.join(missing)} not specified")
        n = max(spatial) + 1 if spatial else 0
        if sorted(spatial) != list(range(n)):
            raise ValueError("spatial dimensions are not 0..n-1")
        return [spatial[i] for i in range(n)], named

    ins, inn = one(("b", "f"))
    tk.expect("x")
    ks, kn = one(("i", "o"))
    tk.expect("->")
    outs, on = one(("b", "f"))
    return {"input_batch_dimension": inn["b"], "input_feature_dimension": inn["f"],
            "input_spatial_dimensions": ins, "kernel_input_feature_dimension": kn["i"],
            "kernel_output_feature_dimension": kn["o"], "kernel_spatial_dimensions": ks,
            "output_batch_dimension": on["b"], "output_feature_dimension": on["f"],
            "output_spatial_dimensions": outs}


def _tidy(text: str) -> str:
    """Generic canonical spelling of a dialect attribute: no space inside brackets,
    no trailing commas, ``, `` between items, `` = `` around '='."""
    if '"' in text:
        return text
    text = re.sub(r"\s*,\s*(?=[>\]\)])", "", text)
    text = re.sub(r"([<\[\(])\s+", r"\1", text)
    text = re.sub(r"\s+([>\]\)])", r"\1", text)
    text = re.sub(r"\s*,\s*", ", ", text)
    text = re.sub(r"\s*=\s*", " = ", text)
    return text


def canonical_attr(dialect: str, name: str, text: str) -> str:
    """Canonical text of a ``#stablehlo...`` / ``#chlo...`` attribute (``text`` as written)."""
    mnemonic = name.split(".", 1)[1] if "." in name else ""
    lt = text.find("<")
    body = text[lt + 1: text.rfind(">")] if lt >= 0 else ""
    if mnemonic in _STRUCTS:
        fields = _parse_struct(body)
        bad = [k for k in fields if k not in _STRUCTS[mnemonic]]
        if bad:
            raise ValueError(f"unexpected field '{bad[0]}', expected one of: "
                             + ", ".join(_STRUCTS[mnemonic]))
        return _struct_text(mnemonic, _STRUCTS[mnemonic], fields, dialect)
    if mnemonic == "conv":
        tk = _Toks(body)
        if tk.accept("raw"):
            d = _parse_struct(body.strip()[3:])
            bad = [k for k in d if k not in CONV_FIELDS]
            if bad:
                raise ValueError(f"unexpected field '{bad[0]}'")
            d = {k: d.get(k, [] if "spatial" in k else 0) for k in CONV_FIELDS}
        else:
            d = _parse_conv_compact(tk)
            if tk.peek() is not None:
                raise ValueError(f"unexpected '{tk.peek()}'")
        return f"#{dialect}.conv<{_conv_dims_text(d)}>"
    if mnemonic == "" and lt >= 0:
        # Enum: #stablehlo<comparison_direction GT>
        parts = body.split()
        if len(parts) == 2:
            return f"#{dialect}<{parts[0]} {parts[1]}>"
    return _tidy(text)


def _attr_hook(dialect):
    def hook(p, name, text, loc):
        try:
            return OpaqueAttr(canonical_attr(dialect, name, text))
        except (ValueError, KeyError, IndexError) as e:
            raise CompileError(f"invalid #{name} attribute: {e}", loc) from None
    return hook


register_dialect_attr_parser("stablehlo", _attr_hook("stablehlo"))


def enum_attr(kind: str, value: str, dialect: str = "stablehlo") -> OpaqueAttr:
    """``#stablehlo<kind VALUE>``."""
    return OpaqueAttr(f"#{dialect}<{kind} {value}>")


def enum_value(attr) -> Optional[str]:
    """``GT`` from ``#stablehlo<comparison_direction GT>`` (None if not an enum attribute)."""
    if not isinstance(attr, OpaqueAttr):
        return None
    m = re.fullmatch(r"#\w+<\s*\w+\s+(\w+)\s*>", attr.text)
    return m.group(1) if m else None


# =====================================================================================
# Parse / print helpers (shared with chlo)
# =====================================================================================

def sorted_attrs(attrs: Dict[str, Attribute]) -> Dict[str, Attribute]:
    """MLIR keeps an op's attributes in a sorted dictionary; so do we for parsed pretty ops."""
    return dict(sorted(attrs.items()))


def i64_array(vals) -> DenseArrayAttr:
    return DenseArrayAttr(T.i64, tuple(int(v) for v in vals))


def i64_list(attr) -> List[int]:
    """Python ints of an ``array<i64: ...>``, ``dense<...> : tensor<Nxi64>`` or ``[...]``."""
    if attr is None:
        return []
    if isinstance(attr, DenseArrayAttr):
        return [int(v) for v in attr.value]
    if isinstance(attr, DenseElementsAttr):
        return attr.int_list()
    if isinstance(attr, ArrayAttr):
        return [int(a.value) for a in attr.value]
    if isinstance(attr, IntegerAttr):
        return [int(attr.value)]
    raise CompileError(f"expected an integer list attribute, got '{attr}'")


def parse_int_list(p, allow_bool: bool = False) -> List[int]:
    """``[1, 2, 3]`` (``true``/``false`` allowed as 1/0 when ``allow_bool``)."""
    p.expect("[")
    vals: List[int] = []
    if p.try_punct("]"):
        return vals
    while True:
        if allow_bool and p.try_keyword("true"):
            vals.append(1)
        elif allow_bool and p.try_keyword("false"):
            vals.append(0)
        else:
            vals.append(p.parse_integer())
        if not p.try_punct(","):
            break
    p.expect("]")
    return vals


def fmt_list(vals) -> str:
    return "[" + ", ".join(str(int(v)) for v in vals) + "]"


def parse_fn_type(p) -> T.FunctionType:
    p.skip_ws()
    start = p.pos
    t = p.parse_type()
    if not isinstance(t, T.FunctionType):
        raise CompileError(f"expected a function type '(...) -> ...', found '{t}'",
                           p.loc_at(start))
    return t


def fn_type_str(op: Operation) -> str:
    return str(T.FunctionType(tuple(v.type for v in op.operands), tuple(op.result_types)))


def print_fn_type(pr, op: Operation) -> None:
    pr.write(" : " + fn_type_str(op))


def _resolve_fn(p, refs, ft: T.FunctionType, loc):
    if len(refs) != len(ft.inputs):
        raise CompileError(f"{len(refs)} operands present, but expected {len(ft.inputs)}", loc)
    return p.resolve_list(refs, ft.inputs)


def parse_operands_fn(p, name, loc):
    """``operands attr-dict : functional-type(operands, results)``."""
    refs = p.parse_operand_list()
    attrs = p.parse_optional_attr_dict()
    p.expect(":")
    ft = parse_fn_type(p)
    return Operation(name, _resolve_fn(p, refs, ft, loc), ft.results, sorted_attrs(attrs), loc=loc)


def print_operands_fn(pr, op):
    if op.operands:
        pr.write(" ")
        pr.print_operands(op.operands)
    pr.print_attr_dict(op.attributes)
    print_fn_type(pr, op)


def parse_same_type_tail(p, refs, loc):
    """``: T`` (every operand and the result) or ``: (T1, T2) -> R``; returns (operand types,
    result types)."""
    p.expect(":")
    t = p.parse_type()
    if isinstance(t, T.FunctionType):
        if len(t.inputs) != len(refs):
            raise CompileError(f"{len(refs)} operands present, but expected {len(t.inputs)}", loc)
        if len(t.results) != 1:
            raise CompileError("expected single output", loc)
        return list(t.inputs), list(t.results)
    return [t] * len(refs), [t]


def print_same_type_tail(pr, op):
    r = op.result_types[0] if op.results else None
    if r is not None and all(v.type == r for v in op.operands):
        pr.write(f" : {r}")
    elif r is None and not op.operands:
        pr.write(" : ()")
    else:
        print_fn_type(pr, op)


def parse_same_type(p, name, loc):
    """``%a, %b attr-dict : T`` or ``... : (T1, T2) -> R`` (SameOperandsAndResultType)."""
    refs = p.parse_operand_list()
    attrs = p.parse_optional_attr_dict()
    ins, outs = parse_same_type_tail(p, refs, loc)
    return Operation(name, p.resolve_list(refs, ins), outs, sorted_attrs(attrs), loc=loc)


def print_same_type(pr, op):
    if op.operands:
        pr.write(" ")
        pr.print_operands(op.operands)
    pr.print_attr_dict(op.attributes)
    print_same_type_tail(pr, op)


def parse_dims_keyword(p, kw: str) -> List[int]:
    """``kw = [1, 2]``."""
    p.expect_keyword(kw)
    p.expect("=")
    return parse_int_list(p)


def _parse_operand_then(p):
    """One operand followed by ','; returns the ref."""
    ref = p.parse_operand()
    p.expect(",")
    return ref


def _typed_value_type(v: Attribute, loc) -> T.Type:
    if isinstance(v, (DenseElementsAttr, DenseResourceAttr, IntegerAttr)):
        return v.type
    t = getattr(v, "type", None)
    if isinstance(t, T.Type):
        return t
    raise CompileError(f"expected a typed elements attribute, found '{v}'", loc)


# =====================================================================================
# Op parsers and printers
# =====================================================================================

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


def safe_printer(fn):
    """Wrap a custom printer: if ``op`` lacks what its pretty form needs (a pass built it
    with a missing or differently-typed attribute), print it in generic form instead."""
    if fn is None:
        return None

    def wrapped(pr, op):
        n, indent = len(pr.parts), pr.indent
        try:
            fn(pr, op)
        except (KeyError, AttributeError, IndexError, TypeError, ValueError):
            # Names the partial print gave to values stay: they are unique, so harmless.
            del pr.parts[n:]
            pr.indent = indent
            _generic_fallback(pr, op)

    wrapped.__name__ = getattr(fn, "__name__", "printer")
    wrapped.__doc__ = fn.__doc__
    return wrapped


def _generic_fallback(pr, op):
    """Print ``op`` in generic form from inside its custom printer, for IR the pretty form
    cannot express (e.g. a pass left a slice with mismatched index lists). The printer has
    just written the op name; it is replaced by the quoted generic spelling."""
    if pr.parts and pr.parts[-1] == op.name:
        pr.parts.pop()
        pr.print_generic(op)
        return
    raise CompileError(f"'{op.name}' cannot be printed in its pretty form", op.loc)


# --- dot / dot_general ---------------------------------------------------------------
def _parse_precision_list(p) -> ArrayAttr:
    p.expect("[")
    vals = []
    if not p.try_punct("]"):
        while True:
            vals.append(enum_attr("precision", p.parse_bare_id("precision")))
            if not p.try_punct(","):
                break
        p.expect("]")
    return ArrayAttr(tuple(vals))


def _precision_text(attr) -> str:
    return "[" + ", ".join(enum_value(a) or str(a) for a in attr.value) + "]"


def _parse_dot(p, name, loc):
    lhs = _parse_operand_then(p)
    rhs = p.parse_operand()
    attrs = {}
    if p.try_punct(","):
        p.expect_keyword("precision")
        p.expect("=")
        attrs["precision_config"] = _parse_precision_list(p)
    attrs.update(p.parse_optional_attr_dict())
    p.expect(":")
    ft = parse_fn_type(p)
    return Operation(name, _resolve_fn(p, [lhs, rhs], ft, loc), ft.results, sorted_attrs(attrs),
                     loc=loc)


def _print_dot(pr, op):
    pr.write(" ")
    pr.print_operands(op.operands)
    pc = op.attributes.get("precision_config")
    if isinstance(pc, ArrayAttr):
        pr.write(", precision = " + _precision_text(pc))
    pr.print_attr_dict(op.attributes, elided=("precision_config",) if isinstance(pc, ArrayAttr) else ())
    print_fn_type(pr, op)


def _parse_lhs_rhs(p):
    lhs = parse_int_list(p)
    p.expect_keyword("x")
    rhs = parse_int_list(p)
    return lhs, rhs


def _parse_dot_general(p, name, loc):
    lhs = _parse_operand_then(p)
    rhs = _parse_operand_then(p)
    lb = rb = []
    if p.try_keyword("batching_dims"):
        p.expect("=")
        lb, rb = _parse_lhs_rhs(p)
        p.expect(",")
    p.expect_keyword("contracting_dims")
    p.expect("=")
    lc, rc = _parse_lhs_rhs(p)
    attrs = {"dot_dimension_numbers": dot_attr(lb, rb, lc, rc)}
    if p.try_punct(","):
        if not p.peek("algorithm"):
            p.expect_keyword("precision")
            p.expect("=")
            attrs["precision_config"] = _parse_precision_list(p)
            if p.try_punct(","):
                p.expect_keyword("algorithm")
                p.expect("=")
                attrs["algorithm"] = OpaqueAttr(_tidy("#stablehlo.dot_algorithm"
                                                      + re.sub(r"\s+", " ", p.skip_balanced("<", ">"))))
        else:
            p.expect_keyword("algorithm")
            p.expect("=")
            attrs["algorithm"] = OpaqueAttr(_tidy("#stablehlo.dot_algorithm"
                                                  + re.sub(r"\s+", " ", p.skip_balanced("<", ">"))))
    attrs.update(p.parse_optional_attr_dict())
    p.expect(":")
    ft = parse_fn_type(p)
    return Operation(name, _resolve_fn(p, [lhs, rhs], ft, loc), ft.results, sorted_attrs(attrs),
                     loc=loc)


def _print_dot_general(pr, op):
    d = dot_dimension_numbers(op)
    pr.write(f" {pr.name_of(op.operands[0])}, {pr.name_of(op.operands[1])}, ")
    if d["lhs_batching_dimensions"] or d["rhs_batching_dimensions"]:
        pr.write(f"batching_dims = {fmt_list(d['lhs_batching_dimensions'])} x "
                 f"{fmt_list(d['rhs_batching_dimensions'])}, ")
    pr.write(f"contracting_dims = {fmt_list(d['lhs_contracting_dimensions'])} x "
             f"{fmt_list(d['rhs_contracting_dimensions'])}")
    elided = ["dot_dimension_numbers"]
    pc = op.attributes.get("precision_config")
    if isinstance(pc, ArrayAttr):
        pr.write(", precision = " + _precision_text(pc))
        elided.append("precision_config")
    alg = op.attributes.get("algorithm")
    if isinstance(alg, OpaqueAttr) and alg.text.startswith("#stablehlo.dot_algorithm<"):
        pr.write(", algorithm = " + alg.text[len("#stablehlo.dot_algorithm"):])
        elided.append("algorithm")
    pr.print_attr_dict(op.attributes, elided=elided)
    print_fn_type(pr, op)


def _print_dot_general_checked(pr, op):
    if not isinstance(op.attributes.get("dot_dimension_numbers"), OpaqueAttr):
        return _generic_fallback(pr, op)
    _print_dot_general(pr, op)


# --- convolution ---------------------------------------------------------------------
def _parse_conv_dims_inline(p) -> Dict[str, object]:
    """``[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]`` read straight from the parser."""
    p.skip_ws()
    start = p.pos
    depth = 0
    # Collect the three bracket groups (stop early at anything that cannot be inside).
    groups = 0
    i = p.pos
    t = p.text
    while i < len(t) and groups < 3:
        c = t[i]
        if depth == 0 and c in "{}:=%":
            break
        if c == "[":
            depth += 1
        elif c == "]":
            depth -= 1
            if depth == 0:
                groups += 1
        i += 1
    text = t[p.pos:i]
    p.pos = i
    try:
        tk = _Toks(text)
        d = _parse_conv_compact(tk)
        if tk.peek() is not None:
            raise ValueError(f"unexpected '{tk.peek()}'")
    except ValueError as e:
        raise CompileError(f"invalid convolution dimension numbers: {e}", p.loc_at(start)) from None
    return d


def _parse_window(p, attrs):
    p.expect("{")
    seen = set()
    while not p.peek("}"):
        kloc = p.loc()
        key = p.parse_bare_id("window attribute")
        if key not in ("stride", "pad", "lhs_dilate", "rhs_dilate", "reverse") or key in seen:
            raise CompileError(f"Unexpected keyword {key}", kloc)
        seen.add(key)
        p.expect("=")
        if key == "pad":
            p.expect("[")
            pairs: List[List[int]] = []
            if not p.try_punct("]"):
                while True:
                    pl = parse_int_list(p)
                    if len(pl) != 2:
                        raise CompileError(f"Expected array with 2 elements, got {len(pl)} "
                                           "elements instead", kloc)
                    pairs.append(pl)
                    if not p.try_punct(","):
                        break
                p.expect("]")
            arr = np.array(pairs, dtype=np.int64).reshape(len(pairs), 2)
            attrs["padding"] = DenseElementsAttr(arr, T.TensorType((len(pairs), 2), T.i64))
        elif key == "reverse":
            vals = parse_int_list(p, allow_bool=True)
            attrs["window_reversal"] = DenseArrayAttr(T.i1, tuple(1 if v else 0 for v in vals))
        else:
            vals = parse_int_list(p)
            attrs[{"stride": "window_strides", "lhs_dilate": "lhs_dilation",
                   "rhs_dilate": "rhs_dilation"}[key]] = i64_array(vals)
        if not p.try_punct(","):
            break
    p.expect("}")


def _parse_convolution(p, name, loc):
    refs = p.parse_operand_list("()")
    p.expect_keyword("dim_numbers")
    p.expect("=")
    attrs: Dict[str, Attribute] = {"dimension_numbers": conv_attr(_parse_conv_dims_inline(p))}
    p.expect(",")
    p.expect_keyword("window")
    p.expect("=")
    _parse_window(p, attrs)
    attrs.update(p.parse_optional_attr_dict())
    p.expect(":")
    ft = parse_fn_type(p)
    return Operation(name, _resolve_fn(p, refs, ft, loc), ft.results, sorted_attrs(attrs), loc=loc)


def _print_convolution(pr, op):
    a = op.attributes
    text = a["dimension_numbers"].text
    pr.write("(")
    pr.print_operands(op.operands)
    pr.write(") dim_numbers = " + text[len("#stablehlo.conv<"):-1] + ", window = {")
    parts = []
    if "window_strides" in a:
        parts.append("stride = " + fmt_list(i64_list(a["window_strides"])))
    if "padding" in a:
        vals = i64_list(a["padding"])
        parts.append("pad = [" + ", ".join(f"[{vals[i]}, {vals[i + 1]}]"
                                            for i in range(0, len(vals) - 1, 2)) + "]")
    if "lhs_dilation" in a:
        parts.append("lhs_dilate = " + fmt_list(i64_list(a["lhs_dilation"])))
    if "rhs_dilation" in a:
        parts.append("rhs_dilate = " + fmt_list(i64_list(a["rhs_dilation"])))
    if "window_reversal" in a:
        parts.append("reverse = [" + ", ".join("true" if v else "false"
                                               for v in a["window_reversal"].value) + "]")
    pr.write(", ".join(parts) + "}")
    pr.print_attr_dict(a, elided=("dimension_numbers", "window_strides", "padding",
                                  "lhs_dilation", "rhs_dilation", "window_reversal"))
    print_fn_type(pr, op)


def _print_convolution_checked(pr, op):
    a = op.attributes
    dn = a.get("dimension_numbers")
    ok = isinstance(dn, OpaqueAttr) and dn.text.startswith("#stablehlo.conv<[")
    ok = ok and all(isinstance(a[k], DenseArrayAttr) for k in
                    ("window_strides", "lhs_dilation", "rhs_dilation", "window_reversal") if k in a)
    ok = ok and ("padding" not in a or isinstance(a["padding"], DenseElementsAttr))
    if not ok:
        return _generic_fallback(pr, op)
    _print_convolution(pr, op)


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
    from ..ir.core import OpResult

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


# =====================================================================================
# Registration
# =====================================================================================

UNARY_ELEMENTWISE = (
    "abs", "cbrt", "ceil", "convert", "count_leading_zeros", "cosine", "exponential",
    "exponential_minus_one", "floor", "imag", "log", "log_plus_one", "logistic", "not",
    "negate", "popcnt", "real", "round_nearest_afz", "round_nearest_even", "rsqrt", "sign",
    "sine", "sqrt", "tan", "tanh", "uniform_quantize", "uniform_dequantize")
BINARY_ELEMENTWISE = (
    "add", "atan2", "divide", "maximum", "minimum", "multiply", "power", "remainder",
    "shift_left", "shift_right_arithmetic", "shift_right_logical", "subtract", "and", "or",
    "xor")

PURE = ("pure",)
EW = ("pure", "elementwise")


def _reg(op, parse=None, print_=None, traits=PURE):
    register(f"stablehlo.{op}", parse, safe_printer(print_), traits=traits)


for _op in UNARY_ELEMENTWISE + BINARY_ELEMENTWISE:
    _reg(_op, parse_same_type, print_same_type, EW)

_reg("constant", _parse_constant, _print_constant)
_reg("iota", _parse_iota, _print_iota)
_reg("dynamic_iota", _parse_dynamic_iota, _print_dynamic_iota)
_reg("create_token", _parse_type_only, _print_type_only)
_reg("replica_id", _parse_type_only, _print_type_only)
_reg("partition_id", _parse_type_only, _print_type_only)
_reg("after_all", _parse_after_all, print_same_type)
_reg("compare", _parse_compare, _print_compare, EW)
_reg("complex", _parse_complex, _print_complex, EW)
# select's predicate and clamp's min/max may be rank-0 against a ranked operand.
_reg("select", _parse_select, _print_select, EW + ("broadcasting",))
_reg("clamp", parse_same_type, print_same_type, EW + ("broadcasting",))
_reg("is_finite", parse_operands_fn, print_operands_fn, EW)
for _op in ("dynamic_update_slice", "bitcast_convert", "reshape", "dynamic_reshape",
            "real_dynamic_slice", "dynamic_pad"):
    _reg(_op, parse_operands_fn, print_operands_fn)
_reg("slice", _parse_slice, _print_slice_checked)
_reg("dynamic_slice", _parse_dynamic_slice, _print_dynamic_slice)
_reg("broadcast", *_make_dims_op("sizes", "broadcast_sizes", 1))
_reg("broadcast_in_dim", *_make_dims_op("dims", "broadcast_dimensions", 1))
_reg("dynamic_broadcast_in_dim", *_make_dims_op("dims", "broadcast_dimensions", 2))
_reg("transpose", *_make_dims_op("dims", "permutation", 1))
_reg("reverse", *_make_dims_op("dims", "dimensions", 1, same_type=True))
_reg("concatenate", *_make_int_op("dim", "dimension", 0, variadic=True))
_reg("get_dimension_size", *_make_int_op("dim", "dimension", 1))
_reg("set_dimension_size", *_make_int_op("dim", "dimension", 2))
_reg("pad", _parse_pad, _print_pad)
_reg("reduce", _parse_reduce, _print_reduce_checked)
_reg("while", _parse_while, _print_while_checked, traits=())
_reg("dot", _parse_dot, _print_dot)
_reg("dot_general", _parse_dot_general, _print_dot_general_checked)
_reg("convolution", _parse_convolution, _print_convolution_checked)
_reg("custom_call", _parse_custom_call, _print_custom_call, traits=())
_reg("fft", _parse_fft, _print_fft)
_reg("rng", *_make_enum_kw_op(3, "distribution", "rng_distribution", "rng_distribution"),
     traits=())
_reg("rng_bit_generator", *_make_enum_kw_op(1, "algorithm", "rng_algorithm", "rng_algorithm"))
_reg("return", parse_terminator, print_terminator, traits=("pure", "terminator"))
_reg("optimization_barrier", _parse_opt_barrier, _print_opt_barrier, traits=())
_reg("tuple", _parse_tuple, _print_tuple)
_reg("get_tuple_element", _parse_get_tuple_element, _print_get_tuple_element)
_reg("cholesky", _parse_cholesky, _print_cholesky)
_reg("reduce_precision", _parse_reduce_precision, _print_reduce_precision, EW)
_reg("einsum", *_make_einsum(2))
_reg("unary_einsum", *_make_einsum(1))
_reg("composite", _parse_composite, _print_composite, traits=())
# Ops whose only syntax is the generic form (as upstream prints them).
for _op in ("batch_norm_grad", "batch_norm_inference", "batch_norm_training", "gather",
            "dynamic_gather", "scatter", "sort", "reduce_window", "select_and_scatter", "map",
            "torch_index_select", "triangular_solve", "dynamic_conv"):
    _reg(_op)
for _op in ("if", "case", "all_gather", "all_reduce", "reduce_scatter", "all_to_all",
            "collective_permute", "collective_broadcast", "collective_reduce", "infeed",
            "outfeed", "send", "recv", "cross-replica-sum", "async_start", "async_done"):
    _reg(_op, traits=())


# =====================================================================================
# Verifiers (StableHLO spec constraints: https://openxla.org/stablehlo/spec)
# =====================================================================================

def _tensor_shape(op, v, what: str):
    t = v.type
    if not isinstance(t, T.TensorType):
        raise V.op_error(op, f"{what} must be a tensor, but got {V.type_str(t)}")
    return t.shape


def _int_list_attr(op, name: str, required: bool = True) -> List[int]:
    a = op.attributes.get(name)
    if a is None:
        if required:
            raise V.op_error(op, f"requires attribute '{name}'")
        return []
    try:
        return i64_list(a)
    except (TypeError, ValueError, AttributeError):
        raise V.op_error(op, f"attribute '{name}' failed to satisfy constraint: i64 dense "
                             "array attribute") from None


# Elementwise ops whose result element type differs from the operand's by definition.
_ELEMENT_TYPE_CHANGING = ("convert", "real", "imag", "abs", "uniform_quantize",
                          "uniform_dequantize", "bitcast_convert", "is_finite")


def _verify_elementwise(op):
    """Operands and result of one (compatible) shape; one element type unless the op
    converts it (convert, real/imag/abs of complex, quantize)."""
    V.num_results(1)(op)
    V.same_operands_and_result_shape(op)
    short = op.name.split(".", 1)[1]
    if short not in _ELEMENT_TYPE_CHANGING:
        V.same_operands_and_result_element_type(op)


def _verify_compare(op):
    """Two operands of one type; an i1 result of their shape; a direction."""
    V.num_operands(2)(op)
    V.num_results(1)(op)
    if op.attributes.get("comparison_direction") is None:
        raise V.op_error(op, "requires attribute 'comparison_direction'")
    if enum_value(op.attributes["comparison_direction"]) not in ("EQ", "NE", "GE", "GT", "LE", "LT"):
        raise V.op_error(op, "attribute 'comparison_direction' failed to satisfy constraint: "
                             "one of EQ, NE, GE, GT, LE, LT")
    V.same_operands_element_type(op)
    V.same_operands_and_result_shape(op)
    e = T.element_type(op.results[0].type)
    if not (isinstance(e, T.IntegerType) and e.width == 1):
        raise V.op_error(op, f"result #0 must be tensor of bool values, but got "
                             f"{V.type_str(op.results[0].type)}")


def _verify_select(op):
    """``pred`` i1, rank 0 or shaped like the values; both values and the result alike."""
    V.num_operands(3)(op)
    V.num_results(1)(op)
    pred, a, b = op.operands
    pe = T.element_type(pred.type)
    if not (isinstance(pe, T.IntegerType) and pe.width == 1):
        raise V.op_error(op, f"operand #0 must be tensor of bool values, but got "
                             f"{V.type_str(pred.type)}")
    r = op.results[0].type
    if not (V.compatible_types(a.type, b.type) and V.compatible_types(a.type, r)):
        raise V.op_error(op, "requires compatible types for all operands and results")
    ps = V.shape_of(pred.type)
    if ps is not None and len(ps) != 0 and not V.compatible_shapes(ps, V.shape_of(a.type)):
        raise V.op_error(op, "requires the same shape for all operands")


def _verify_clamp(op):
    """min/max rank 0 or shaped like the operand; one element type."""
    V.num_operands(3)(op)
    V.num_results(1)(op)
    V.same_operands_and_result_element_type(op)
    lo, x, hi = op.operands
    for name, v in (("min", lo), ("max", hi)):
        sh = V.shape_of(v.type)
        if sh and not V.compatible_shapes(sh, V.shape_of(x.type)):
            raise V.op_error(op, f"{name} shape {list(sh)} is not scalar and is not compatible "
                                 f"to operand shape {list(V.shape_of(x.type))}")
    if not V.compatible_types(x.type, op.results[0].type):
        raise V.op_error(op, "requires the same type for operand and result")


def _verify_dot_general(op):
    """Batching and contracting dims: in range, distinct, of equal sizes on both sides;
    the result has batch + lhs free + rhs free dims."""
    V.num_operands(2)(op)
    V.num_results(1)(op)
    try:
        d = dot_dimension_numbers(op)
    except (KeyError, ValueError, TypeError):
        raise V.op_error(op, "requires attribute 'dot_dimension_numbers'") from None
    lhs = _tensor_shape(op, op.operands[0], "lhs")
    rhs = _tensor_shape(op, op.operands[1], "rhs")
    if lhs is None or rhs is None:
        return
    lb, rb = d["lhs_batching_dimensions"], d["rhs_batching_dimensions"]
    lc, rc = d["lhs_contracting_dimensions"], d["rhs_contracting_dimensions"]
    if len(lb) != len(rb):
        raise V.op_error(op, "lhs and rhs should have the same number of batching dimensions")
    if len(lc) != len(rc):
        raise V.op_error(op, "lhs and rhs should have the same number of contracting dimensions")
    for side, shape, dims in (("lhs", lhs, lb + lc), ("rhs", rhs, rb + rc)):
        if len(set(dims)) != len(dims):
            raise V.op_error(op, f"has duplicated dimension from {side}_batching_dimensions and "
                                 f"{side}_contracting_dimensions: {dims}")
        for x in dims:
            if not 0 <= x < len(shape):
                raise V.op_error(op, f"{side}_batching_dimensions and {side}_contracting_dimensions"
                                     f" value must be in the range [0, {len(shape)}), got {x}")
    for kind, ld, rd in (("batching", lb, rb), ("contracting", lc, rc)):
        for a, b in zip(ld, rd):
            if not V.compatible_dims(lhs[a], rhs[b]):
                raise V.op_error(op, f"{kind} dimension sizes must match for lhs/rhs (lhs "
                                     f"dimension {a} has size {lhs[a]}, rhs dimension {b} has size "
                                     f"{rhs[b]})")
    res = V.shape_of(op.results[0].type)
    expect = ([lhs[a] for a in lb] + [x for i, x in enumerate(lhs) if i not in lb + lc]
              + [x for i, x in enumerate(rhs) if i not in rb + rc])
    if res is not None and not V.compatible_shapes(tuple(expect), res):
        raise V.op_error(op, f"inferred shape '{_dims_str(expect)}' is incompatible with return "
                             f"type of operation {V.type_str(op.results[0].type)}")


def _dims_str(dims) -> str:
    return "[" + ", ".join("?" if x is None else str(x) for x in dims) + "]"


def _verify_dot(op):
    """Rank 1 or 2 operands whose contracting dims agree."""
    V.num_operands(2)(op)
    V.num_results(1)(op)
    lhs = _tensor_shape(op, op.operands[0], "lhs")
    rhs = _tensor_shape(op, op.operands[1], "rhs")
    if lhs is None or rhs is None:
        return
    if len(lhs) not in (1, 2) or len(rhs) not in (1, 2):
        raise V.op_error(op, "expected operands of rank 1 or 2")
    if not V.compatible_dims(lhs[-1], rhs[0]):
        raise V.op_error(op, f"contracting dimension sizes must match for lhs/rhs (lhs dimension "
                             f"{len(lhs) - 1} has size {lhs[-1]}, rhs dimension 0 has size "
                             f"{rhs[0]})")


def _verify_broadcast_in_dim(op):
    """One dimension per operand dim, distinct and in range; each operand dim is 1 or the
    result's size there."""
    V.num_results(1)(op)
    dims = _int_list_attr(op, "broadcast_dimensions")
    src = _tensor_shape(op, op.operands[0], "operand")
    res = _tensor_shape(op, op.results[0], "result")
    V.same_operands_and_result_element_type(op)
    if src is None or res is None:
        return
    if len(dims) != len(src):
        raise V.op_error(op, f"broadcast_dimensions size ({len(dims)}) does not match operand "
                             f"rank ({len(src)})")
    if len(set(dims)) != len(dims):
        raise V.op_error(op, f"broadcast_dimensions should not have duplicates: {dims}")
    for i, d in enumerate(dims):
        if not 0 <= d < len(res):
            raise V.op_error(op, f"broadcast_dimensions contains invalid value {d} for result "
                                 f"with rank {len(res)}")
        if src[i] is not None and res[d] is not None and src[i] != 1 and src[i] != res[d]:
            raise V.op_error(op, f"size of operand dimension {i} ({src[i]}) is not equal to 1 or "
                                 f"size of result dimension {d} ({res[d]})")


def _verify_reshape(op):
    """Same element type and (static) element count."""
    V.num_operands(1)(op)
    V.num_results(1)(op)
    V.same_operands_and_result_element_type(op)
    a, r = op.operands[0].type, op.results[0].type
    if isinstance(a, T.TensorType) and isinstance(r, T.TensorType) and a.has_static_shape \
            and r.has_static_shape and a.num_elements != r.num_elements:
        raise V.op_error(op, f"number of output elements ({r.num_elements}) doesn't match "
                             f"expected number of elements ({a.num_elements})")


def _verify_transpose(op):
    """``permutation`` is a permutation of the operand dims; result dims follow it."""
    V.num_operands(1)(op)
    V.num_results(1)(op)
    V.same_operands_and_result_element_type(op)
    perm = _int_list_attr(op, "permutation")
    src = _tensor_shape(op, op.operands[0], "operand")
    if src is None:
        return
    if sorted(perm) != list(range(len(src))):
        raise V.op_error(op, f"permutation {perm} is not a permutation of the {len(src)} "
                             "operand dimensions")
    res = V.shape_of(op.results[0].type)
    if res is not None and not V.compatible_shapes(tuple(src[p] for p in perm), res):
        raise V.op_error(op, f"inferred shape '{_dims_str([src[p] for p in perm])}' is "
                             f"incompatible with return type of operation "
                             f"{V.type_str(op.results[0].type)}")


def _verify_constant(op):
    """``value`` present and typed like the result."""
    V.num_results(1)(op)
    v = op.attributes.get("value")
    if v is None:
        raise V.op_error(op, "requires attribute 'value'")
    vt = getattr(v, "type", None)
    if isinstance(vt, T.Type) and not V.compatible_types(vt, op.results[0].type):
        raise V.op_error(op, f"value type {V.type_str(vt)} doesn't match result type "
                             f"{V.type_str(op.results[0].type)}")


def _int_attr(op, name: str, required: bool = True):
    a = op.attributes.get(name)
    if a is None:
        if required:
            raise V.op_error(op, f"requires attribute '{name}'")
        return None
    v = getattr(a, "value", None)
    if not isinstance(v, int) or isinstance(v, bool):
        raise V.op_error(op, f"attribute '{name}' failed to satisfy constraint: integer attribute")
    return v


def _dim_in_range(op, d: int, rank: int, what: str) -> None:
    if not 0 <= d < rank:
        raise V.op_error(op, f"{what} {d} is out of range [0, {rank})")


def _dims_in_range(op, dims: List[int], rank: int, what: str) -> None:
    if len(set(dims)) != len(dims):
        raise V.op_error(op, f"{what} {dims} has duplicates")
    for d in dims:
        _dim_in_range(op, d, rank, f"{what} element")


def _check_result_shape(op, inferred, i: int = 0) -> None:
    res = V.shape_of(op.results[i].type)
    if res is not None and not V.compatible_shapes(tuple(inferred), res):
        raise V.op_error(op, f"inferred shape '{_dims_str(list(inferred))}' is incompatible with "
                             f"return type of operation {V.type_str(op.results[i].type)}")


def _verify_concatenate(op):
    """Operands of one rank and element type, equal except along ``dimension``; the
    result's ``dimension`` is their sum (spec: concatenate C1-C6)."""
    V.at_least_operands(1)(op)
    V.num_results(1)(op)
    V.same_operands_and_result_element_type(op)
    dim = _int_attr(op, "dimension")
    shapes = [_tensor_shape(op, v, f"operand #{i}") for i, v in enumerate(op.operands)]
    if any(s is None for s in shapes):
        return
    rank = len(shapes[0])
    _dim_in_range(op, dim, rank, "dimension")
    for i, s in enumerate(shapes[1:], 1):
        if len(s) != rank:
            raise V.op_error(op, f"operands (0) and ({i}) do not match rank")
        for d in range(rank):
            if d != dim and not V.compatible_dims(s[d], shapes[0][d]):
                raise V.op_error(op, f"shapes of operand (0) and ({i}) do not match at non-concat "
                                     f"index: dimension {d}")
    if all(s[dim] is not None for s in shapes):
        out = list(shapes[0])
        out[dim] = sum(s[dim] for s in shapes)
        _check_result_shape(op, out)


def _verify_slice(op):
    """``start_indices``/``limit_indices``/``strides`` one per dimension with
    0 <= start <= limit <= size and strides > 0 (spec: slice C2-C5)."""
    V.num_operands(1)(op)
    V.num_results(1)(op)
    V.same_operands_and_result_element_type(op)
    src = _tensor_shape(op, op.operands[0], "operand")
    starts, limits, strides = (_int_list_attr(op, n) for n in ("start_indices", "limit_indices", "strides"))
    if src is None:
        return
    if not len(starts) == len(limits) == len(strides) == len(src):
        raise V.op_error(op, f"start_indices, limit_indices and strides must each have {len(src)} "
                             "elements (the operand's rank)")
    out = []
    for d, (a, b, c) in enumerate(zip(starts, limits, strides)):
        if c <= 0:
            raise V.op_error(op, f"stride of dimension {d} must be positive, got {c}")
        if a < 0 or b < a or (src[d] is not None and b > src[d]):
            raise V.op_error(op, f"slice [{a}, {b}) of dimension {d} is not within its size {src[d]}")
        out.append(-(-(b - a) // c))
    _check_result_shape(op, out)


def _verify_pad(op):
    """Paddings one per dimension, interior >= 0, a rank-0 padding value; the result
    shape follows (spec: pad C1-C4)."""
    V.num_operands(2)(op)
    V.num_results(1)(op)
    V.same_operands_and_result_element_type(op)
    src = _tensor_shape(op, op.operands[0], "operand")
    pv = _tensor_shape(op, op.operands[1], "padding value")
    lo, hi, interior = (_int_list_attr(op, n) for n in ("edge_padding_low", "edge_padding_high", "interior_padding"))
    if pv is not None and len(pv) != 0:
        raise V.op_error(op, "padding value must be a rank-0 tensor")
    if src is None:
        return
    if not len(lo) == len(hi) == len(interior) == len(src):
        raise V.op_error(op, f"edge_padding_low, edge_padding_high and interior_padding must each "
                             f"have {len(src)} elements (the operand's rank)")
    out = []
    for d, (a, b, c) in enumerate(zip(lo, hi, interior)):
        if c < 0:
            raise V.op_error(op, f"interior padding of dimension {d} must be non-negative, got {c}")
        if src[d] is None:
            out.append(None)
            continue
        n = a + b + src[d] + max(src[d] - 1, 0) * c
        if n < 0:
            raise V.op_error(op, f"padding of dimension {d} gives a negative size {n}")
        out.append(n)
    _check_result_shape(op, out)


def _verify_iota(op):
    """``iota_dimension`` within the result's rank (spec: iota C1)."""
    V.num_results(1)(op)
    rank = len(_tensor_shape(op, op.results[0], "result") or ())
    _dim_in_range(op, _int_attr(op, "iota_dimension"), rank, "iota_dimension")


def _verify_dimension_attr(attr: str, operand: int = 0):
    def check(op):
        V.at_least_operands(operand + 1)(op)
        shape = _tensor_shape(op, op.operands[operand], "operand")
        if shape is not None:
            d = _int_attr(op, attr, required=attr != "dimension" or op.name != "stablehlo.sort")
            if d is not None:
                _dim_in_range(op, d + len(shape) if d < 0 and op.name == "stablehlo.sort" else d,
                              len(shape), attr)
    return check


def _verify_dims_list(attr: str):
    """``attr`` lists distinct dimensions of operand 0."""
    def check(op):
        V.at_least_operands(1)(op)
        shape = _tensor_shape(op, op.operands[0], "operand")
        if shape is not None:
            _dims_in_range(op, _int_list_attr(op, attr), len(shape), attr)
    return check


def _verify_reduce(op):
    """As many inputs as init values, rank-0 init values, distinct ``dimensions`` within the
    inputs' rank, results shaped as the inputs without those dimensions (spec: reduce C1-C4,
    C7)."""
    n = len(op.operands)
    if n == 0 or n % 2:
        raise V.op_error(op, "expects an even, non-zero number of operands (inputs, then init values)")
    for i, v in enumerate(op.operands[n // 2:], n // 2):
        s = _tensor_shape(op, v, f"init value #{i - n // 2}")
        if s is not None and len(s) != 0:
            raise V.op_error(op, f"init value #{i - n // 2} must be a rank-0 tensor")
    _verify_dims_list("dimensions")(op)
    if len(op.results) != n // 2:
        raise V.op_error(op, f"expects {n // 2} results, got {len(op.results)}")
    dims = set(_int_list_attr(op, "dimensions"))
    for k in range(n // 2):
        s = _tensor_shape(op, op.operands[k], f"input #{k}")
        if s is not None:
            _check_result_shape(op, [d for i, d in enumerate(s) if i not in dims], k)


def _verify_reduce_window(op):
    """Inputs and init values in equal numbers; ``window_dimensions`` (and any
    ``window_strides``, ``base_dilations``, ``window_dilations``: positive) one per input
    dimension, ``padding`` one pair per dimension (spec: reduce_window C1-C13)."""
    n = len(op.operands)
    if n == 0 or n % 2:
        raise V.op_error(op, "expects an even, non-zero number of operands (inputs, then init values)")
    shape = _tensor_shape(op, op.operands[0], "input")
    if shape is None:
        return
    rank = len(shape)
    win = _int_list_attr(op, "window_dimensions")
    if len(win) != rank or any(w <= 0 for w in win):
        raise V.op_error(op, f"window_dimensions must have {rank} positive elements, got {win}")
    for name in ("window_strides", "base_dilations", "window_dilations"):
        vals = _int_list_attr(op, name, required=False)
        if vals and (len(vals) != rank or any(v <= 0 for v in vals)):
            raise V.op_error(op, f"{name} must have {rank} positive elements, got {vals}")
    pad = op.attributes.get("padding")
    if pad is not None:
        arr = getattr(pad, "array", None)
        if arr is None or tuple(arr.shape) != (rank, 2):
            raise V.op_error(op, f"padding must be a {rank}x2 dense i64 attribute")
    for i, v in enumerate(op.operands[1:n // 2], 1):
        if _tensor_shape(op, v, f"input #{i}") != shape:
            raise V.op_error(op, f"input #{i} does not have the shape of input #0")


def _verify_dynamic_slice(op):
    """One start index per dimension; 0 <= slice_sizes <= the operand's sizes (spec:
    dynamic_slice C2-C5)."""
    V.num_results(1)(op)
    V.at_least_operands(1)(op)
    src = _tensor_shape(op, op.operands[0], "operand")
    sizes = _int_list_attr(op, "slice_sizes")
    if src is None:
        return
    if len(op.operands) - 1 != len(src) or len(sizes) != len(src):
        raise V.op_error(op, f"expects {len(src)} start indices and slice sizes (the operand's rank)")
    for d, (k, n) in enumerate(zip(sizes, src)):
        if k < 0 or (n is not None and k > n):
            raise V.op_error(op, f"slice size {k} of dimension {d} is not within [0, {n}]")
    _check_result_shape(op, sizes)


def _verify_dynamic_update_slice(op):
    """An update of the operand's rank no larger than it, one start index per dimension,
    result typed as the operand (spec: dynamic_update_slice C1-C5)."""
    V.num_results(1)(op)
    V.at_least_operands(2)(op)
    src = _tensor_shape(op, op.operands[0], "operand")
    upd = _tensor_shape(op, op.operands[1], "update")
    if src is None or upd is None:
        return
    if len(upd) != len(src) or len(op.operands) - 2 != len(src):
        raise V.op_error(op, f"expects an update of rank {len(src)} and {len(src)} start indices")
    for d, (u, n) in enumerate(zip(upd, src)):
        if u is not None and n is not None and u > n:
            raise V.op_error(op, f"update size {u} of dimension {d} exceeds the operand's {n}")
    _check_result_shape(op, src)


def _verify_dimension_numbers(name: str, mnemonic: str):
    """Verifier: attribute ``name`` is present and is a ``#stablehlo.<mnemonic><...>`` the
    accessors can read (a misspelt ``#stablehlo.gatger<...>`` parses as an opaque attribute)."""
    def verify(op):
        if name not in op.attributes:
            raise V.op_error(op, f"requires attribute '{name}'")
        accessor = {"gather": gather_dimension_numbers, "scatter": scatter_dimension_numbers,
                    "conv": conv_dimension_numbers}[mnemonic]
        try:
            accessor(op.attributes[name])
        except (KeyError, ValueError, TypeError, IndexError):
            raise V.op_error(op, f"expects attribute '{name}' to be a #stablehlo.{mnemonic}<...>, "
                                 f"got {op.attributes[name]}") from None
    return verify


# ----------------------------------------------------------------- gather and scatter
def _dim_fields(op, attr: str, dn: Dict[str, object], lists: Sequence[str]) -> None:
    """The list fields of a gather/scatter struct hold integers, ``index_vector_dim`` is one
    integer (``offset_dims = 2`` or ``index_vector_dim = [1]`` parse but mean nothing)."""
    for f in lists:
        if not isinstance(dn[f], list):
            raise V.op_error(op, f"attribute '{attr}' field '{f}' must be a list of integers, "
                                 f"got {dn[f]}")
    if not isinstance(dn["index_vector_dim"], int):
        raise V.op_error(op, f"attribute '{attr}' field 'index_vector_dim' must be an integer, "
                             f"got {dn['index_vector_dim']}")


def _unique(op, dims: List[int], what: str, rule: str) -> None:
    """No dimension of ``dims`` repeats (spec constraint ``rule``)."""
    if len(set(dims)) != len(dims):
        raise V.op_error(op, f"{what} {dims} has repeated dimensions ({rule})")


def _sorted(op, dims: List[int], what: str, rule: str) -> None:
    """``dims`` is in increasing order (spec constraint ``rule``)."""
    if dims != sorted(dims):
        raise V.op_error(op, f"{what} {dims} is not sorted ({rule})")


def _in_rank(op, dims: List[int], rank: Optional[int], what: str, of: str, rule: str) -> None:
    """Every dimension of ``dims`` is in [0, rank) of ``of`` (unknown rank: unchecked)."""
    if rank is None:
        return
    for d in dims:
        if not 0 <= d < rank:
            raise V.op_error(op, f"{what} element {d} is out of range [0, {rank}), the rank of "
                                 f"{of} ({rule})")


def _index_vector(op, ivd: int, idx: Optional[tuple], dims_to_operand: List[int],
                  batching: List[int], names: Sequence[str], rules: Sequence[str]) -> None:
    """``index_vector_dim`` within the indices' rank (one past it: scalar indices), the
    index vector as long as the dims it maps, and not a batching dimension."""
    map_name, batch_name, idx_name = names
    r_range, r_size, r_batch = rules
    if idx is None:
        return
    if not 0 <= ivd <= len(idx):
        raise V.op_error(op, f"index_vector_dim {ivd} is out of range [0, {len(idx)}], the rank of "
                             f"{idx_name} ({r_range})")
    n = idx[ivd] if ivd < len(idx) else 1
    if n is not None and len(dims_to_operand) != n:
        raise V.op_error(op, f"{map_name} has length {len(dims_to_operand)}, but the index "
                             f"vector (dimension {ivd} of {idx_name}) has size {n} ({r_size})")
    if ivd in batching:
        raise V.op_error(op, f"index_vector_dim {ivd} is also in {batch_name} {batching} ({r_batch})")


def _batching(op, obatch: List[int], ibatch: List[int], src: Optional[tuple], idx: Optional[tuple],
              names: Sequence[str], rules: Sequence[str]) -> None:
    """Operand and indices batching dimensions: as many on both sides, of equal sizes."""
    o_name, i_name, src_name, idx_name = names
    r_count, r_dims = rules
    if len(obatch) != len(ibatch):
        raise V.op_error(op, f"{o_name} {obatch} and {i_name} {ibatch} differ in length ({r_count})")
    if src is None or idx is None:
        return
    for a, b in zip(obatch, ibatch):
        if not V.compatible_dims(src[a], idx[b]):
            raise V.op_error(op, f"dimension {a} of {src_name} has size {src[a]}, but batching "
                                 f"dimension {b} of {idx_name} has size {idx[b]} ({r_dims})")


def _int_tensor(op, v, what: str) -> Optional[tuple]:
    """The shape of ``v``, a tensor of integers (not of booleans: ``i1`` is StableHLO's
    boolean type)."""
    shape = _tensor_shape(op, v, what)
    et = v.type.element_type
    boolean = isinstance(et, T.IntegerType) and et.width == 1
    if not isinstance(et, (T.IntegerType, T.IndexType)) or boolean:
        raise V.op_error(op, f"{what} must be a tensor of integers, but got {V.type_str(v.type)}")
    return shape


def _constant_ints(v) -> Optional[List[int]]:
    """The integers of ``v`` when a constant op defines it (``dynamic_gather``'s
    slice sizes), else None."""
    owner = v.owner
    if not isinstance(owner, Operation) or owner.name not in ("stablehlo.constant", "arith.constant"):
        return None
    a = owner.attributes.get("value")
    if not isinstance(a, DenseElementsAttr) or not isinstance(
            a.type.element_type, (T.IntegerType, T.IndexType)):
        return None
    return a.int_list()


def verify_gather(op: Operation) -> None:
    """``stablehlo.gather`` / ``dynamic_gather``: the dimension numbers, slice sizes and the
    operand, start indices and result shapes agree (spec: gather C1-C23). Each error names
    its constraint. ``dynamic_gather``'s slice sizes are checked when a constant gives them.
    Unranked tensors and dynamic dimensions check what they can."""
    dynamic = op.name == "stablehlo.dynamic_gather"
    V.num_operands(3 if dynamic else 2)(op)
    V.num_results(1)(op)
    _verify_dimension_numbers("dimension_numbers", "gather")(op)
    dn = gather_dimension_numbers(op)
    _dim_fields(op, "dimension_numbers", dn, GATHER_FIELDS[:-1])
    offset, collapsed = dn["offset_dims"], dn["collapsed_slice_dims"]
    obatch, ibatch = dn["operand_batching_dims"], dn["start_indices_batching_dims"]
    start_map, ivd = dn["start_index_map"], dn["index_vector_dim"]
    src = _tensor_shape(op, op.operands[0], "operand")
    idx = _int_tensor(op, op.operands[1], "start_indices")
    res = _tensor_shape(op, op.results[0], "result")
    if dynamic:
        _int_tensor(op, op.operands[2], "slice_sizes")
        sizes = _constant_ints(op.operands[2])
    else:
        sizes = _int_list_attr(op, "slice_sizes")
    rank = None if src is None else len(src)
    if rank is not None and rank != len(offset) + len(collapsed) + len(obatch):
        raise V.op_error(op, f"operand rank {rank} is not the number of offset_dims ({len(offset)}) "
                             f"+ collapsed_slice_dims ({len(collapsed)}) + operand_batching_dims "
                             f"({len(obatch)}) (C1)")
    _index_vector(op, ivd, idx, start_map, ibatch,
                  ("start_index_map", "start_indices_batching_dims", "start_indices"),
                  ("C2", "C3", "C15"))
    _unique(op, offset, "offset_dims", "C4")
    _sorted(op, offset, "offset_dims", "C4")
    _in_rank(op, offset, None if res is None else len(res), "offset_dims", "the result", "C5")
    _unique(op, collapsed + obatch, "collapsed_slice_dims ++ operand_batching_dims", "C6")
    _sorted(op, collapsed, "collapsed_slice_dims", "C7")
    _in_rank(op, collapsed, rank, "collapsed_slice_dims", "the operand", "C8")
    _sorted(op, obatch, "operand_batching_dims", "C10")
    _in_rank(op, obatch, rank, "operand_batching_dims", "the operand", "C11")
    _unique(op, ibatch, "start_indices_batching_dims", "C13")
    _in_rank(op, ibatch, None if idx is None else len(idx), "start_indices_batching_dims",
             "start_indices", "C14")
    _batching(op, obatch, ibatch, src, idx, ("operand_batching_dims", "start_indices_batching_dims",
                                             "the operand", "start_indices"), ("C16", "C17"))
    _unique(op, start_map + obatch, "start_index_map ++ operand_batching_dims", "C18")
    _in_rank(op, start_map, rank, "start_index_map", "the operand", "C19")
    if sizes is None:
        return
    if rank is not None and len(sizes) != rank:
        raise V.op_error(op, f"slice_sizes has length {len(sizes)}, but the operand has rank "
                             f"{rank} (C20)")
    if src is not None:
        for d, (k, n) in enumerate(zip(sizes, src)):
            if k < 0 or (n is not None and k > n):
                raise V.op_error(op, f"slice size {k} of dimension {d} is not within [0, {n}], "
                                     f"the operand's size (C21)")
    for dims, name, rule in ((collapsed, "collapsed_slice_dims", "C9"),
                             (obatch, "operand_batching_dims", "C12")):
        for d in dims:
            if 0 <= d < len(sizes) and sizes[d] > 1:
                raise V.op_error(op, f"slice size {sizes[d]} of {name} element {d} is larger "
                                     f"than 1 ({rule})")
    if idx is None or res is None or len(sizes) != len(offset) + len(collapsed) + len(obatch):
        return
    batch = [n for d, n in enumerate(idx) if d != ivd]
    window = [n for d, n in enumerate(sizes) if d not in collapsed and d not in obatch]
    if len(window) != len(offset):  # an unranked operand: C8/C11 could not be checked
        return
    if len(res) != len(batch) + len(window):
        raise V.op_error(op, f"result rank {len(res)} is not the {len(batch)} batch dimensions of "
                             f"start_indices + the {len(window)} offset_dims (C22)")
    inferred, b_it, w_it = [], iter(batch), iter(window)
    for d in range(len(res)):
        inferred.append(next(w_it) if d in offset else next(b_it))
    if not V.compatible_shapes(tuple(inferred), res):
        raise V.op_error(op, f"inferred shape '{_dims_str(inferred)}' is incompatible with return "
                             f"type of operation {V.type_str(op.results[0].type)} (C22)")
    if op.operands[0].type.element_type != op.results[0].type.element_type:
        raise V.op_error(op, f"result element type {op.results[0].type.element_type} is not the "
                             f"operand's {op.operands[0].type.element_type} (C23)")


def verify_scatter(op: Operation) -> None:
    """``stablehlo.scatter``: N inputs, the scatter indices and N updates whose shapes agree
    with the dimension numbers; an update computation of 2N rank-0 tensor arguments; results
    shaped as the inputs (spec: scatter C1-C25). Each error names its constraint."""
    n_ops = len(op.operands)
    if n_ops < 3 or n_ops % 2 == 0:
        raise V.op_error(op, f"expects N inputs, the scatter indices and N updates (N > 0), got "
                             f"{n_ops} operands (C5)")
    n = (n_ops - 1) // 2
    _verify_dimension_numbers("scatter_dimension_numbers", "scatter")(op)
    dn = scatter_dimension_numbers(op)
    _dim_fields(op, "scatter_dimension_numbers", dn, SCATTER_FIELDS[:-1])
    uwd, inserted = dn["update_window_dims"], dn["inserted_window_dims"]
    ibatch, sbatch = dn["input_batching_dims"], dn["scatter_indices_batching_dims"]
    to_operand, ivd = dn["scatter_dims_to_operand_dims"], dn["index_vector_dim"]
    inputs, updates = op.operands[:n], op.operands[n + 1:]
    src = _tensor_shape(op, inputs[0], "input #0")
    for i, v in enumerate(inputs[1:], 1):
        if not V.compatible_shapes(_tensor_shape(op, v, f"input #{i}"), src):
            raise V.op_error(op, f"input #{i} does not have the shape of input #0 (C1)")
    idx = _int_tensor(op, op.operands[n], "scatter_indices")
    upd = _tensor_shape(op, updates[0], "update #0")
    for i, v in enumerate(updates[1:], 1):
        if not V.compatible_shapes(_tensor_shape(op, v, f"update #{i}"), upd):
            raise V.op_error(op, f"update #{i} does not have the shape of update #0 (C3)")
    for i, (x, u) in enumerate(zip(inputs, updates)):
        if x.type.element_type != u.type.element_type:
            raise V.op_error(op, f"update #{i} has element type {u.type.element_type}, input #{i} "
                                 f"has {x.type.element_type} (C6)")
    rank = None if src is None else len(src)
    if rank is not None and rank != len(uwd) + len(inserted) + len(ibatch):
        raise V.op_error(op, f"input rank {rank} is not the number of update_window_dims "
                             f"({len(uwd)}) + inserted_window_dims ({len(inserted)}) + "
                             f"input_batching_dims ({len(ibatch)}) (C2)")
    _unique(op, uwd, "update_window_dims", "C7")
    _sorted(op, uwd, "update_window_dims", "C7")
    _in_rank(op, uwd, None if upd is None else len(upd), "update_window_dims", "the updates", "C8")
    _unique(op, inserted + ibatch, "inserted_window_dims ++ input_batching_dims", "C9")
    _sorted(op, inserted, "inserted_window_dims", "C10")
    _in_rank(op, inserted, rank, "inserted_window_dims", "the inputs", "C11")
    _sorted(op, ibatch, "input_batching_dims", "C12")
    _in_rank(op, ibatch, rank, "input_batching_dims", "the inputs", "C13")
    _unique(op, sbatch, "scatter_indices_batching_dims", "C14")
    _in_rank(op, sbatch, None if idx is None else len(idx), "scatter_indices_batching_dims",
             "scatter_indices", "C15")
    _index_vector(op, ivd, idx, to_operand, sbatch,
                  ("scatter_dims_to_operand_dims", "scatter_indices_batching_dims",
                   "scatter_indices"), ("C22", "C19", "C16"))
    _batching(op, ibatch, sbatch, src, idx, ("input_batching_dims", "scatter_indices_batching_dims",
                                             "the inputs", "scatter_indices"), ("C17", "C18"))
    _unique(op, to_operand + ibatch, "scatter_dims_to_operand_dims ++ input_batching_dims", "C20")
    _in_rank(op, to_operand, rank, "scatter_dims_to_operand_dims", "the inputs", "C21")
    if src is not None and idx is not None and upd is not None:
        scatter_sizes = [s for d, s in enumerate(idx) if d != ivd]
        window_bounds = [s for d, s in enumerate(src) if d not in inserted and d not in ibatch]
        if len(upd) != len(scatter_sizes) + len(uwd):
            raise V.op_error(op, f"updates rank {len(upd)} is not the {len(scatter_sizes)} scatter "
                                 f"dimensions of scatter_indices + the {len(uwd)} "
                                 f"update_window_dims (C4)")
        s_it = iter(scatter_sizes)
        for d, u in enumerate(upd):
            if d in uwd:
                bound = window_bounds[uwd.index(d)]
                if u is not None and bound is not None and u > bound:
                    raise V.op_error(op, f"update window dimension {d} has size {u}, more than the "
                                         f"{bound} of the inputs' matching dimension (C4)")
            else:
                s = next(s_it)
                if not V.compatible_dims(u, s):
                    raise V.op_error(op, f"update scatter dimension {d} has size {u}, but "
                                         f"scatter_indices' matching dimension has {s} (C4)")
    _verify_update_computation(op, inputs)


def _verify_update_computation(op: Operation, inputs) -> None:
    """Scatter C23-C25: the region takes 2N rank-0 tensors and the results have the inputs'
    shapes and the region's element types."""
    n = len(inputs)
    if len(op.regions) != 1 or not op.regions[0].blocks:
        raise V.op_error(op, "expects an update computation region (C23)")
    args = op.regions[0].blocks[0].args
    if len(args) != 2 * n or any(not isinstance(a.type, T.TensorType) or a.type.shape != ()
                                 for a in args):
        raise V.op_error(op, f"update computation must take {2 * n} rank-0 tensors, got "
                             f"({', '.join(str(a.type) for a in args)}) (C23)")
    if len(op.results) != n:
        raise V.op_error(op, f"expects {n} results, got {len(op.results)} (C24)")
    for i, (x, r) in enumerate(zip(inputs, op.results)):
        if not V.compatible_shapes(V.shape_of(r.type), V.shape_of(x.type)):
            raise V.op_error(op, f"result #{i} {V.type_str(r.type)} does not have the shape of "
                                 f"input #{i} {V.type_str(x.type)} (C24)")
        if T.element_type(r.type) != args[i].type.element_type:
            raise V.op_error(op, f"result #{i} has element type {T.element_type(r.type)}, the "
                                 f"update computation's is {args[i].type.element_type} (C25)")


V.register_verifiers({
    **{f"stablehlo.{n}": _verify_elementwise for n in UNARY_ELEMENTWISE + BINARY_ELEMENTWISE},
    "stablehlo.gather": verify_gather,
    "stablehlo.dynamic_gather": verify_gather,
    "stablehlo.scatter": verify_scatter,
    "stablehlo.convolution": _verify_dimension_numbers("dimension_numbers", "conv"),
    "stablehlo.compare": _verify_compare,
    "stablehlo.select": _verify_select,
    "stablehlo.clamp": _verify_clamp,
    "stablehlo.dot_general": _verify_dot_general,
    "stablehlo.dot": _verify_dot,
    "stablehlo.broadcast_in_dim": _verify_broadcast_in_dim,
    "stablehlo.reshape": _verify_reshape,
    "stablehlo.transpose": _verify_transpose,
    "stablehlo.constant": _verify_constant,
    "stablehlo.concatenate": _verify_concatenate,
    "stablehlo.slice": _verify_slice,
    "stablehlo.pad": _verify_pad,
    "stablehlo.iota": _verify_iota,
    "stablehlo.reverse": _verify_dims_list("dimensions"),
    "stablehlo.reduce": _verify_reduce,
    "stablehlo.reduce_window": _verify_reduce_window,
    "stablehlo.dynamic_slice": _verify_dynamic_slice,
    "stablehlo.dynamic_update_slice": _verify_dynamic_update_slice,
    "stablehlo.get_dimension_size": _verify_dimension_attr("dimension"),
    "stablehlo.set_dimension_size": _verify_dimension_attr("dimension"),
    "stablehlo.sort": _verify_dimension_attr("dimension"),
})

# =====================================================================================
# Accessors: decode dialect attributes into Python data
# =====================================================================================

def _get(op_or_attr, name):
    if isinstance(op_or_attr, Operation):
        return op_or_attr.attributes[name]  # absent: a located "requires attribute" error
    return op_or_attr


def _struct_of(attr, mnemonic, fields) -> Dict[str, object]:
    text = attr.text if isinstance(attr, OpaqueAttr) else str(attr)
    m = re.fullmatch(r"#\w+\.(\w+)<(.*)>", text, re.S)
    if not m or m.group(1) != mnemonic:
        raise ValueError(f"not a #stablehlo.{mnemonic} attribute: {text}")
    d = _parse_struct(m.group(2))
    return {f: d.get(f, 0 if f == "index_vector_dim" else []) for f in fields}


def dot_dimension_numbers(op_or_attr) -> Dict[str, List[int]]:
    """``{'lhs_batching_dimensions': [...], 'rhs_batching_dimensions': [...],
    'lhs_contracting_dimensions': [...], 'rhs_contracting_dimensions': [...]}``."""
    return _struct_of(_get(op_or_attr, "dot_dimension_numbers"), "dot", DOT_FIELDS)


def gather_dimension_numbers(op_or_attr) -> Dict[str, object]:
    """Keys: offset_dims, collapsed_slice_dims, operand_batching_dims,
    start_indices_batching_dims, start_index_map (lists), index_vector_dim (int)."""
    return _struct_of(_get(op_or_attr, "dimension_numbers"), "gather", GATHER_FIELDS)


def scatter_dimension_numbers(op_or_attr) -> Dict[str, object]:
    """Keys: update_window_dims, inserted_window_dims, input_batching_dims,
    scatter_indices_batching_dims, scatter_dims_to_operand_dims (lists), index_vector_dim."""
    return _struct_of(_get(op_or_attr, "scatter_dimension_numbers"), "scatter", SCATTER_FIELDS)


def conv_dimension_numbers(op_or_attr) -> Dict[str, object]:
    """Keys of :data:`CONV_FIELDS`: ``input_batch_dimension`` (int), ``input_feature_dimension``,
    ``input_spatial_dimensions`` (list), ``kernel_input_feature_dimension``,
    ``kernel_output_feature_dimension``, ``kernel_spatial_dimensions``,
    ``output_batch_dimension``, ``output_feature_dimension``, ``output_spatial_dimensions``."""
    attr = _get(op_or_attr, "dimension_numbers")
    text = attr.text if isinstance(attr, OpaqueAttr) else str(attr)
    m = re.fullmatch(r"#\w+\.conv<(.*)>", text, re.S)
    if not m:
        raise ValueError(f"not a #stablehlo.conv attribute: {text}")
    body = m.group(1).strip()
    if body.startswith("raw"):
        d = _parse_struct(body[3:])
        return {k: d.get(k, [] if "spatial" in k else 0) for k in CONV_FIELDS}
    return _parse_conv_compact(_Toks(body))


def conv_window(op) -> Dict[str, object]:
    """A convolution's window with upstream's defaults filled in: ``window_strides``,
    ``padding`` (list of (low, high)), ``lhs_dilation``, ``rhs_dilation`` (lists of ints),
    ``window_reversal`` (list of bools), ``feature_group_count``, ``batch_group_count``."""
    n = len(conv_dimension_numbers(op)["input_spatial_dimensions"])
    a = op.attributes
    pad = i64_list(a.get("padding")) if "padding" in a else [0] * (2 * n)
    rev = [bool(v) for v in a["window_reversal"].value] if "window_reversal" in a else [False] * n
    return {
        "window_strides": i64_list(a["window_strides"]) if "window_strides" in a else [1] * n,
        "padding": [(pad[2 * i], pad[2 * i + 1]) for i in range(len(pad) // 2)],
        "lhs_dilation": i64_list(a["lhs_dilation"]) if "lhs_dilation" in a else [1] * n,
        "rhs_dilation": i64_list(a["rhs_dilation"]) if "rhs_dilation" in a else [1] * n,
        "window_reversal": rev,
        "feature_group_count": int(a["feature_group_count"].value) if "feature_group_count" in a else 1,
        "batch_group_count": int(a["batch_group_count"].value) if "batch_group_count" in a else 1,
    }


def comparison_direction(op_or_attr) -> str:
    """``'EQ'|'NE'|'GE'|'GT'|'LE'|'LT'`` of a (stablehlo or chlo) compare."""
    v = enum_value(_get(op_or_attr, "comparison_direction"))
    if v is None:
        raise ValueError("not a comparison_direction attribute")
    return v


def comparison_type(op_or_attr) -> Optional[str]:
    """``'FLOAT'|'TOTALORDER'|'SIGNED'|'UNSIGNED'|'NOTYPE'`` or None when absent."""
    if isinstance(op_or_attr, Operation):
        a = op_or_attr.attributes.get("compare_type")
        return enum_value(a) if a is not None else None
    return enum_value(op_or_attr)


def precision_config(op) -> List[str]:
    a = op.attributes.get("precision_config")
    return [enum_value(x) for x in a.value] if isinstance(a, ArrayAttr) else []


def fft_type(op) -> str:
    return enum_value(op.attributes["fft_type"])


def rng_distribution(op) -> str:
    return enum_value(op.attributes["rng_distribution"])


def rng_algorithm(op) -> str:
    return enum_value(op.attributes["rng_algorithm"])


def int_attr(op, name: str, default: Optional[int] = None) -> Optional[int]:
    a = op.attributes.get(name)
    if a is None:
        return default
    return int(a.value)


def bool_attr(op, name: str, default: bool = False) -> bool:
    a = op.attributes.get(name)
    if a is None:
        return default
    if isinstance(a, (BoolAttr, IntegerAttr)):
        return bool(a.value)
    return default


__all__ = [
    "dot_dimension_numbers", "conv_dimension_numbers", "gather_dimension_numbers",
    "scatter_dimension_numbers", "comparison_direction", "comparison_type", "conv_window",
    "precision_config", "fft_type", "rng_distribution", "rng_algorithm", "i64_list",
    "enum_value", "enum_attr", "dot_attr", "conv_attr", "gather_attr", "scatter_attr",
    "canonical_attr", "int_attr", "bool_attr", "verify_gather", "verify_scatter",
]

"""stablehlo assembly formats of dot, dot_general and convolution.

dot_general's ``batching_dims = [..] x [..], contracting_dims = [..] x [..]`` and
convolution's ``dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {...}``
parse into the attributes upstream's generic form carries (see :mod:`.attributes`).
"""
from __future__ import annotations

import re
from typing import Dict, List

import numpy as np

from ...ir import types as T
from ...ir.attributes import ArrayAttr, Attribute, DenseArrayAttr, DenseElementsAttr, OpaqueAttr
from ...ir.core import Operation
from ...ir.diagnostics import CompileError
from .asm import (_generic_fallback, _parse_operand_then, _resolve_fn, fmt_list, parse_fn_type,
                  parse_int_list, print_fn_type)
from .attributes import (_Toks, _parse_conv_compact, _tidy, conv_attr, dot_attr,
                         dot_dimension_numbers, enum_attr, enum_value, i64_array, i64_list,
                         sorted_attrs)


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

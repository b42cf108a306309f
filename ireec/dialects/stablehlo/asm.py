"""stablehlo assembly-format helpers shared by the op parsers and printers (and chlo).

Parsers take ``(p, name, loc)`` and return an :class:`Operation`; printers take ``(pr, op)``.
:func:`safe_printer` wraps a printer so that an op its pretty form cannot express is
printed in generic form instead (:func:`_generic_fallback`).
"""
from __future__ import annotations

from typing import List

from ...ir import types as T
from ...ir.attributes import Attribute, DenseElementsAttr, DenseResourceAttr, IntegerAttr
from ...ir.core import Operation
from ...ir.diagnostics import CompileError
from .attributes import sorted_attrs


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

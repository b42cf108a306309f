"""IREE's check dialect: the assertions of IREE's e2e tests.

Syntax source: IREE ``compiler/src/iree/compiler/Modules/Check/IR/CheckOps.td``:

* ``check.expect_true(%v) : i32``, ``check.expect_false(%v) : i32``,
  ``check.expect_all_true(%t) : tensor<...>``;
* ``check.expect_eq(%a, %b) : T`` (both operands of type T);
* ``check.expect_eq_const(%a, dense<...> : T) : T`` (attribute ``value``);
* ``check.expect_almost_eq(%a, %b[, atol 1.0e-04][, rtol 0.0]) : T`` and
  ``check.expect_almost_eq_const(%a, dense<...> : T[, atol F][, rtol F]) : T``
  (``atol``/``rtol`` are f32 attributes, absent when not written: defaults 1e-4 and 0);
* an optional device operand: ``check.expect_eq<%device>(%a, %b) : T`` (first operand).

None is pure: each records a test failure.
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from ..ir import types as T
from ..ir.attributes import FloatAttr, format_float
from ..ir.core import Operation
from ..ir.diagnostics import CompileError
from ..ir import verifier as V
from .registry import register as _register
from .stablehlo import safe_printer


def register(name, parse=None, print_=None, traits=()):
    _register(name, parse, safe_printer(print_), traits=traits)

DEFAULT_ATOL = 1e-4
DEFAULT_RTOL = 0.0

_DEVICE_TYPE = T.OpaqueType("hal", "device")


def _parse_device(p):
    """``<%device>`` right after the op name, or None."""
    if p.text.startswith("<", p.pos):
        p.expect("<")
        ref = p.parse_operand()
        p.expect(">")
        return ref
    return None


def _parse_tol(p, attrs):
    """``, atol F``/``, rtol F`` pairs; a bare ``, F`` first is the absolute tolerance (the
    older positional form, ``check.expect_almost_eq_const(%a, dense<...>, 1.0e-4)``)."""
    first = True
    while p.try_punct(","):
        for key in ("atol", "rtol"):
            if p.try_keyword(key):
                v, kind = p.parse_number()
                attrs[key] = FloatAttr(float(np.float32(v)), T.f32)
                break
        else:
            if not (first and (p.peek_char().isdigit() or p.peek_char() in "-.")):
                raise p.error("expected 'atol' or 'rtol'")
            v, kind = p.parse_number()
            attrs["atol"] = FloatAttr(float(np.float32(v)), T.f32)
        first = False


def _make(n_values: int, const: bool, tol: bool):
    """Parser/printer for ``check.op[<%dev>](%a[, %b | , attr][, atol F][, rtol F]) : T``."""

    def parse(p, name, loc):
        dev = _parse_device(p)
        p.expect("(")
        refs = [p.parse_operand()]
        attrs = {}
        if n_values == 2:
            p.expect(",")
            if const:
                vloc = p.loc()
                v = p.parse_attribute()
                if not hasattr(v, "type"):
                    raise CompileError(f"expected an elements attribute, found '{v}'", vloc)
                attrs["value"] = v
            else:
                refs.append(p.parse_operand())
        if tol:
            _parse_tol(p, attrs)
        p.expect(")")
        attrs.update(p.parse_optional_attr_dict())
        p.expect(":")
        t = p.parse_type()
        operands = p.resolve_list(refs, [t] * len(refs))
        if dev is not None:
            operands = [p.resolve(dev, _DEVICE_TYPE)] + operands
        return Operation(name, operands, [], dict(sorted(attrs.items())), loc=loc)

    def print_(pr, op):
        vals = list(op.operands)
        if vals and vals[0].type == _DEVICE_TYPE and len(vals) > (1 if const or n_values == 1 else 2):
            pr.write(f"<{pr.name_of(vals[0])}>")
            vals = vals[1:]
        pr.write("(" + ", ".join(pr.name_of(v) for v in vals))
        elided = ["atol", "rtol"] if tol else []
        if const:
            pr.write(f", {op.attributes['value']}")
            elided.append("value")
        if tol:
            for key in ("atol", "rtol"):
                a = op.attributes.get(key)
                if isinstance(a, FloatAttr):
                    pr.write(f", {key} {format_float(a.value, T.f32)}")
                elif a is not None:
                    elided.remove(key)
        pr.write(")")
        pr.print_attr_dict(op.attributes, elided=elided)
        pr.write(f" : {vals[0].type}")

    return parse, print_


register("check.expect_true", *_make(1, False, False))
register("check.expect_false", *_make(1, False, False))
register("check.expect_all_true", *_make(1, False, False))
register("check.expect_eq", *_make(2, False, False))
register("check.expect_eq_const", *_make(2, True, False))
register("check.expect_almost_eq", *_make(2, False, True))
register("check.expect_almost_eq_const", *_make(2, True, True))


def _verify_same_type(op: Operation) -> None:
    """expect_eq / expect_almost_eq: both checked values have one type; the ``*_const``
    forms: the expected elements attribute is typed as the checked value."""
    vals = checked_operands(op)
    const = op.name.endswith("_const")
    if len(vals) != (1 if const else 2):
        raise V.op_error(op, f"expected {1 if const else 2} checked operands, but found {len(vals)}")
    if const:
        value = op.attributes.get("value")
        vt = getattr(value, "type", None)
        if value is None:
            raise V.op_error(op, "requires attribute 'value'")
        if vt != vals[0].type:
            raise V.op_error(op, f"failed to verify that all of {{lhs, value}} have same type "
                                 f"({V.type_str(vals[0].type)} vs {V.type_str(vt)})")
    elif vals[0].type != vals[1].type:
        raise V.op_error(op, f"failed to verify that all of {{lhs, rhs}} have same type "
                             f"({V.type_str(vals[0].type)} vs {V.type_str(vals[1].type)})")


V.register_verifiers({f"check.{n}": _verify_same_type for n in (
    "expect_eq", "expect_eq_const", "expect_almost_eq", "expect_almost_eq_const")})

def tolerances(op: Operation):
    """(atol, rtol) of an expect_almost_eq[_const], with IREE's defaults (1e-4, 0)."""
    a, r = op.attributes.get("atol"), op.attributes.get("rtol")
    return (float(a.value) if a is not None else DEFAULT_ATOL,
            float(r.value) if r is not None else DEFAULT_RTOL)


def checked_operands(op: Operation):
    """The checked values (the device operand, if any, left out)."""
    vals = list(op.operands)
    if vals and vals[0].type == _DEVICE_TYPE:
        vals = vals[1:]
    return vals


def expected_value(op: Operation) -> Optional[object]:
    """The ``value`` attribute of an ``*_const`` check, else None."""
    return op.attributes.get("value")

"""math dialect: elementwise transcendental and rounding functions.

Pretty syntax as mlir-opt prints it (https://mlir.llvm.org/docs/Dialects/MathOps/):

    %y = math.exp %x fastmath<fast> : f32          (unary:  ``$operand flags attr-dict : type``)
    %z = math.powf %x, %y : tensor<4xf32>          (binary: ``$lhs, $rhs flags attr-dict : type``)
    %w = math.fma %a, %b, %c : f32
    %p = math.fpowi %x, %n : f32, i32              (types of both operands)
    %b = math.isnan %x : f32                       (result i1, or shaped i1)

``fastmath`` is an OpaqueAttr (``#arith.fastmath<...>``) present only when written.
"""
from __future__ import annotations

from ..ir import types as T
from ..ir import verifier as V
from ..ir.core import Operation
from .arith import (FLAG_ATTRS, parse_binary, parse_flags, parse_two_typed_operands, parse_unary, print_binary,
                    print_flags, print_unary, with_element_type)
from .registry import register

FLOAT_UNARY = ("absf", "acos", "acosh", "asin", "asinh", "atan", "atanh", "cbrt", "ceil", "cos",
               "cosh", "erf", "erfc", "exp", "exp2", "expm1", "floor", "log", "log10", "log1p",
               "log2", "round", "roundeven", "rsqrt", "sin", "sinh", "sqrt", "tan", "tanh",
               "trunc")
INT_UNARY = ("absi", "ctlz", "cttz", "ctpop")
FLOAT_BINARY = ("atan2", "copysign", "powf")
INT_BINARY = ("ipowi",)
PREDICATES = ("isfinite", "isinf", "isnan", "isnormal")


def _parse_fma(p, name, loc):
    refs = [p.parse_operand()]
    for _ in range(2):
        p.expect(",")
        refs.append(p.parse_operand())
    attrs = parse_flags(p)
    attrs.update(p.parse_optional_attr_dict())
    p.expect(":")
    t = p.parse_type()
    return Operation(name, p.resolve_list(refs, [t, t, t]), [t], attrs, loc=loc)


def _parse_fpowi(p, name, loc):
    operands, attrs = parse_two_typed_operands(p)
    return Operation(name, operands, [operands[0].type], attrs, loc=loc)


def _print_fpowi(pr, op):
    pr.write(" ")
    pr.print_operands(op.operands)
    print_flags(pr, op)
    pr.print_attr_dict(op.attributes, elided=FLAG_ATTRS)
    pr.write(f" : {op.operands[0].type}, {op.operands[1].type}")


def _parse_predicate(p, name, loc):
    a = p.parse_operand()
    attrs = parse_flags(p)
    attrs.update(p.parse_optional_attr_dict())
    p.expect(":")
    t = p.parse_type()
    return Operation(name, [p.resolve(a, t)], [with_element_type(t, T.i1)], attrs, loc=loc)


def _print_predicate(pr, op):
    pr.write(" ")
    pr.print_operand(op.operands[0])
    print_flags(pr, op)
    pr.print_attr_dict(op.attributes, elided=FLAG_ATTRS)
    pr.write(f" : {op.operands[0].type}")


_TRAITS = ("pure", "elementwise")
for _n in FLOAT_UNARY + INT_UNARY:
    register(f"math.{_n}", parse_unary, print_unary, traits=_TRAITS)
for _n in FLOAT_BINARY + INT_BINARY:
    register(f"math.{_n}", parse_binary, print_binary, traits=_TRAITS)
register("math.fma", _parse_fma, print_binary, traits=_TRAITS)
register("math.fpowi", _parse_fpowi, _print_fpowi, traits=_TRAITS)
for _n in PREDICATES:
    register(f"math.{_n}", _parse_predicate, _print_predicate, traits=_TRAITS)


# -------------------------------------------------------------------- verifiers
def _verify_fpowi(op):
    """Float base and result of one type; an integer exponent of the same shape."""
    V.num_operands(2)(op)
    V.num_results(1)(op)
    V.operand_kind(0, V.is_float_like, "floating-point-like")(op)
    V.operand_kind(1, V.is_int_like, "signless-integer-like")(op)
    if not V.compatible_types(op.operands[0].type, op.results[0].type):
        raise V.op_error(op, "requires the same type for operand #0 and the result")
    V.same_operands_and_result_shape(op)


def _verify_predicate(op):
    """A float operand; an i1 (or i1-shaped) result of the same shape."""
    V.num_operands(1)(op)
    V.num_results(1)(op)
    V.operand_kind(0, V.is_float_like, "floating-point-like")(op)
    e = T.element_type(op.results[0].type)
    if not (isinstance(e, T.IntegerType) and e.width == 1):
        raise V.op_error(op, f"result #0 must be bool-like, but got "
                             f"{V.type_str(op.results[0].type)}")
    V.same_operands_and_result_shape(op)


def _same_kind(n: int, float_: bool):
    kind = V.all_float_like if float_ else V.all_int_like
    return V.all_of(V.num_operands(n), V.num_results(1), kind, V.same_operands_and_result_type)


V.register_verifiers({
    **{f"math.{n}": _same_kind(1, True) for n in FLOAT_UNARY},
    **{f"math.{n}": _same_kind(1, False) for n in INT_UNARY},
    **{f"math.{n}": _same_kind(2, True) for n in FLOAT_BINARY},
    **{f"math.{n}": _same_kind(2, False) for n in INT_BINARY},
    "math.fma": _same_kind(3, True),
    "math.fpowi": _verify_fpowi,
    **{f"math.{n}": _verify_predicate for n in PREDICATES},
})

"""arith dialect: constants, integer/float arithmetic, comparisons, select and casts.

Pretty syntax as mlir-opt prints it (https://mlir.llvm.org/docs/Dialects/ArithOps/):

    %c = arith.constant 0 : index            %t = arith.constant dense<1.0> : tensor<4xf32>
    %s = arith.addf %a, %b fastmath<fast> : f32
    %i = arith.addi %a, %b overflow<nsw> : i32
    %p = arith.cmpf olt, %a, %b : f32        %q = arith.cmpi slt, %x, %y : tensor<4xi32>
    %r = arith.select %p, %a, %b : f32       (shaped condition: ``: tensor<4xi1>, tensor<4xf32>``)
    %e = arith.extf %h : f16 to f32

IR form (equal to parsing ``mlir-opt --mlir-print-op-generic``): ``value`` on constants;
``predicate`` = IntegerAttr(enum value, i64) on compares; ``fastmath`` /
``overflowFlags`` as OpaqueAttr (``#arith.fastmath<fast>``), left out when not written.
(mlir-opt's own generic dumps spell the default ``#arith.fastmath<none>`` out; such ops are
accepted and print the same pretty text, since ``none`` is never printed.)

:class:`ScalarBuilder` appends scalar arith/math ops to a block; the linalg dialect builds
the payload regions of named ops with it.
"""
from __future__ import annotations

import dataclasses
import re
from typing import Dict, Optional, Sequence

from ..ir import types as T
from ..ir import verifier as V
from ..ir.attributes import (Attribute, BoolAttr, FloatAttr, IntegerAttr, OpaqueAttr,
                             format_float)
from ..ir.core import Block, Operation, Value
from .registry import register

FLOAT_BINARY = ("addf", "subf", "mulf", "divf", "remf", "maximumf", "minimumf", "maxnumf",
                "minnumf")
INT_BINARY = ("addi", "subi", "muli", "divsi", "divui", "remsi", "remui", "ceildivsi",
              "ceildivui", "floordivsi", "maxsi", "maxui", "minsi", "minui", "andi", "ori",
              "xori", "shli", "shrsi", "shrui")
CASTS = ("extf", "truncf", "extsi", "extui", "trunci", "sitofp", "uitofp", "fptosi", "fptoui",
         "index_cast", "index_castui", "bitcast")

# Enum values of arith::CmpFPredicate / arith::CmpIPredicate (ArithBase.td).
CMPF_PREDICATES = ("false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt",
                   "uge", "ult", "ule", "une", "uno", "true")
CMPI_PREDICATES = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")

# Optional flag groups printed after the operands: (keyword, attribute name, dialect prefix).
_FLAGS = (("fastmath", "fastmath", "#arith.fastmath"),
          ("overflow", "overflowFlags", "#arith.overflow"))
FLAG_ATTRS = tuple(a for _, a, _ in _FLAGS)
_WS = re.compile(r"\s+")


# ----------------------------------------------------------------- shared syntax helpers
def parse_flags(p) -> Dict[str, Attribute]:
    """Optional ``fastmath<...>`` / ``overflow<...>`` groups (any order) as attributes
    ``fastmath`` / ``overflowFlags``; ``<none>`` gives no attribute."""
    attrs: Dict[str, Attribute] = {}
    progress = True
    while progress:
        progress = False
        for kw, attr_name, prefix in _FLAGS:
            if p.try_keyword(kw):
                body = _WS.sub(" ", p.skip_balanced("<", ">"))
                if body != "<none>":  # the default is left out of the IR
                    attrs[attr_name] = OpaqueAttr(prefix + body)
                progress = True
    return attrs


def print_flags(pr, op: Operation) -> None:
    """Writes ``fastmath<..>`` / ``overflow<..>`` unless absent or ``<none>``."""
    for kw, attr_name, prefix in _FLAGS:
        a = op.attributes.get(attr_name)
        if a is None:
            continue
        text = str(a)
        body = text[len(prefix):] if text.startswith(prefix) else text
        if body != "<none>":
            pr.write(f" {kw}{body}")


def with_element_type(t: T.Type, et: T.Type) -> T.Type:
    """``t`` with its element type replaced (scalar ``t`` gives ``et``): i1 for compares."""
    if isinstance(t, T.ShapedType):
        return dataclasses.replace(t, element_type=et)
    return et


def _trailing(pr, op: Operation, types: str) -> None:
    pr.print_attr_dict(op.attributes, elided=FLAG_ATTRS)
    pr.write(" : " + types)


# ---------------------------------------------------------------------- constant
def constant_value_str(a: Attribute) -> str:
    """The ``$value`` of arith.constant: always with its type, except i1 (``true``)."""
    if isinstance(a, IntegerAttr):
        if isinstance(a.type, T.IntegerType) and a.type.width == 1 and a.type.signedness == "":
            return "true" if a.value else "false"
        return f"{a.value} : {a.type}"
    if isinstance(a, FloatAttr):
        return f"{format_float(a.value, a.type)} : {a.type}"
    return str(a)


def _parse_constant(p, name, loc):
    attrs = p.parse_optional_attr_dict()
    value = p.parse_attribute()
    if isinstance(value, BoolAttr):
        value = IntegerAttr(1 if value.value else 0, T.i1)
    ty = getattr(value, "type", None)
    if not isinstance(ty, T.Type):
        raise p.error("arith.constant needs a typed value (e.g. '0 : i32')", loc)
    attrs["value"] = value
    return Operation(name, [], [ty], attrs, loc=loc)


def _print_constant(pr, op):
    pr.print_attr_dict(op.attributes, elided=("value",))
    pr.write(" " + constant_value_str(op.attributes["value"]))


def constant_value(op: Operation):
    """The ``value`` attribute of an ``arith.constant`` (None for other ops)."""
    return op.attributes.get("value") if op.name == "arith.constant" else None


# ------------------------------------------------------------- binary and unary
def parse_binary(p, name, loc):
    """``%a, %b flags attr-dict : type`` (result type = operand type)."""
    a = p.parse_operand()
    p.expect(",")
    b = p.parse_operand()
    attrs = parse_flags(p)
    attrs.update(p.parse_optional_attr_dict())
    p.expect(":")
    t = p.parse_type()
    return Operation(name, [p.resolve(a, t), p.resolve(b, t)], [t], attrs, loc=loc)


def print_binary(pr, op):
    """Inverse of :func:`parse_binary`."""
    pr.write(" ")
    pr.print_operands(op.operands)
    print_flags(pr, op)
    _trailing(pr, op, str(op.results[0].type))


def parse_unary(p, name, loc):
    """``%a flags attr-dict : type``."""
    a = p.parse_operand()
    attrs = parse_flags(p)
    attrs.update(p.parse_optional_attr_dict())
    p.expect(":")
    t = p.parse_type()
    return Operation(name, [p.resolve(a, t)], [t], attrs, loc=loc)


def print_unary(pr, op):
    """Inverse of :func:`parse_unary`."""
    pr.write(" ")
    pr.print_operand(op.operands[0])
    print_flags(pr, op)
    _trailing(pr, op, str(op.results[0].type))


# -------------------------------------------------------------------- compares
def _make_cmp_parser(predicates):
    def parse(p, name, loc):
        ploc = p.loc()
        kw = p.parse_bare_id("comparison predicate")
        if kw not in predicates:
            raise p.error(f"unknown predicate '{kw}' for {name}", ploc)
        p.expect(",")
        a = p.parse_operand()
        p.expect(",")
        b = p.parse_operand()
        attrs = parse_flags(p)
        attrs.update(p.parse_optional_attr_dict())
        p.expect(":")
        t = p.parse_type()
        attrs["predicate"] = IntegerAttr(predicates.index(kw), T.i64)
        return Operation(name, [p.resolve(a, t), p.resolve(b, t)], [with_element_type(t, T.i1)],
                         attrs, loc=loc)
    return parse


def _make_cmp_printer(predicates):
    def print_(pr, op):
        pred = op.attributes["predicate"].value
        pr.write(f" {predicates[pred]}, ")
        pr.print_operands(op.operands)
        print_flags(pr, op)
        pr.print_attr_dict(op.attributes, elided=FLAG_ATTRS + ("predicate",))
        pr.write(f" : {op.operands[0].type}")
    return print_


def cmp_predicate(op: Operation) -> str:
    """The predicate keyword of an arith.cmpf / arith.cmpi op (``olt``, ``slt``...)."""
    table = CMPF_PREDICATES if op.name == "arith.cmpf" else CMPI_PREDICATES
    return table[op.attributes["predicate"].value]


# ---------------------------------------------------------------------- select
def _parse_select(p, name, loc):
    refs = [p.parse_operand()]
    for _ in range(2):
        p.expect(",")
        refs.append(p.parse_operand())
    attrs = p.parse_optional_attr_dict()
    tys = p.parse_colon_type_list()
    if len(tys) == 1:
        cond_t, t = T.i1, tys[0]
    elif len(tys) == 2:
        cond_t, t = tys
    else:
        raise p.error("expected ': type' or ': condition type, type' after arith.select", loc)
    ops = p.resolve_list(refs, [cond_t, t, t])
    return Operation(name, ops, [t], attrs, loc=loc)


def _print_select(pr, op):
    pr.write(" ")
    pr.print_operands(op.operands)
    pr.print_attr_dict(op.attributes)
    ct = op.operands[0].type
    pr.write(" : " + (f"{ct}, " if isinstance(ct, T.ShapedType) else "") + str(op.results[0].type))


# ------------------------------------------------------------------------ casts
def parse_cast(p, name, loc):
    """``%a flags attr-dict : from to to-type``."""
    a = p.parse_operand()
    attrs = parse_flags(p)
    attrs.update(p.parse_optional_attr_dict())
    p.expect(":")
    src = p.parse_type()
    p.expect_keyword("to")
    dst = p.parse_type()
    return Operation(name, [p.resolve(a, src)], [dst], attrs, loc=loc)


def print_cast(pr, op):
    """Inverse of :func:`parse_cast`."""
    pr.write(" ")
    pr.print_operand(op.operands[0])
    print_flags(pr, op)
    _trailing(pr, op, f"{op.operands[0].type} to {op.results[0].type}")


def parse_two_typed_operands(p):
    """``%a, %b flags attr-dict : t_a, t_b``: the two resolved operands and the attributes
    (shared by ops whose operands have different types: scaling_extf/truncf, math.fpowi)."""
    a = p.parse_operand()
    p.expect(",")
    b = p.parse_operand()
    attrs = parse_flags(p)
    attrs.update(p.parse_optional_attr_dict())
    p.expect(":")
    ta = p.parse_type()
    p.expect(",")
    tb = p.parse_type()
    return [p.resolve(a, ta), p.resolve(b, tb)], attrs


def _parse_scaling(p, name, loc):
    """``%in, %scale flags attr-dict : t_in, t_scale to t_out`` (scaling_extf/truncf)."""
    operands, attrs = parse_two_typed_operands(p)
    p.expect_keyword("to")
    dst = p.parse_type()
    return Operation(name, operands, [dst], attrs, loc=loc)


def _print_scaling(pr, op):
    pr.write(" ")
    pr.print_operands(op.operands)
    print_flags(pr, op)
    a, s = op.operands
    _trailing(pr, op, f"{a.type}, {s.type} to {op.results[0].type}")


# ------------------------------------------------------------------- registration
_ELEMENTWISE = ("pure", "elementwise")
# "constant_like": materialises its ``value`` attribute (for folders).
register("arith.constant", _parse_constant, _print_constant, traits=("pure", "constant_like"))
for _n in FLOAT_BINARY + INT_BINARY:
    register(f"arith.{_n}", parse_binary, print_binary, traits=_ELEMENTWISE)
register("arith.negf", parse_unary, print_unary, traits=_ELEMENTWISE)
register("arith.cmpf", _make_cmp_parser(CMPF_PREDICATES), _make_cmp_printer(CMPF_PREDICATES),
         traits=_ELEMENTWISE)
register("arith.cmpi", _make_cmp_parser(CMPI_PREDICATES), _make_cmp_printer(CMPI_PREDICATES),
         traits=_ELEMENTWISE)
register("arith.select", _parse_select, _print_select, traits=_ELEMENTWISE)
for _n in CASTS:
    register(f"arith.{_n}", parse_cast, print_cast, traits=_ELEMENTWISE)
for _n in ("scaling_extf", "scaling_truncf"):
    register(f"arith.{_n}", _parse_scaling, _print_scaling, traits=_ELEMENTWISE)


# -------------------------------------------------------------------- verifiers
def _verify_constant(op):
    """``value`` is present and typed like the result."""
    v = op.attributes.get("value")
    if v is None:
        raise V.op_error(op, "requires attribute 'value'")
    V.num_results(1)(op)
    vt = getattr(v, "type", None)
    if isinstance(vt, T.Type) and vt != op.results[0].type:
        raise V.op_error(op, f"value type {V.type_str(vt)} doesn't match result type "
                             f"{V.type_str(op.results[0].type)}")


def _is_bool_like(t) -> bool:
    e = T.element_type(t)
    return isinstance(e, T.IntegerType) and e.width == 1


def _verify_cmp(float_operands: bool):
    kind = V.is_float_like if float_operands else V.is_int_like
    what = "floating-point-like" if float_operands else "signless-integer-like"

    def check(op):
        V.num_operands(2)(op)
        V.num_results(1)(op)
        for i in range(2):
            V.operand_kind(i, kind, what)(op)
        a, b = op.operands
        if not V.compatible_types(a.type, b.type):
            raise V.op_error(op, "requires all operands to have the same type")
        if not _is_bool_like(op.results[0].type):
            raise V.op_error(op, f"result #0 must be bool-like, but got "
                                 f"{V.type_str(op.results[0].type)}")
        V.same_operands_and_result_shape(op)
        if not isinstance(op.attributes.get("predicate"), IntegerAttr):
            raise V.op_error(op, "requires attribute 'predicate'")
    return check


def _verify_select(op):
    """Condition i1 (scalar, or shaped like the result); both values typed as the result."""
    V.num_operands(3)(op)
    V.num_results(1)(op)
    c, a, b = op.operands
    if not _is_bool_like(c.type):
        raise V.op_error(op, f"operand #0 must be bool-like, but got {V.type_str(c.type)}")
    rt = op.results[0].type
    if not (V.compatible_types(a.type, rt) and V.compatible_types(b.type, rt)):
        raise V.op_error(op, "failed to verify that all of {true_value, false_value, result} "
                             "have same type")
    if isinstance(c.type, T.ShapedType):
        V.same_operands_and_result_shape(op)


def _width(t) -> int:
    e = T.element_type(t)
    return T.bit_width(e) if isinstance(e, (T.IntegerType, T.FloatType)) else 0


# cast name -> (operand kind, result kind, width relation: '>' result wider, '<' narrower)
_CAST_RULES = {
    "extf": (V.is_float_like, V.is_float_like, ">"),
    "truncf": (V.is_float_like, V.is_float_like, "<"),
    "extsi": (V.is_int_like, V.is_int_like, ">"),
    "extui": (V.is_int_like, V.is_int_like, ">"),
    "trunci": (V.is_int_like, V.is_int_like, "<"),
    "sitofp": (V.is_int_like, V.is_float_like, None),
    "uitofp": (V.is_int_like, V.is_float_like, None),
    "fptosi": (V.is_float_like, V.is_int_like, None),
    "fptoui": (V.is_float_like, V.is_int_like, None),
    "index_cast": (V.is_int_like, V.is_int_like, None),
    "index_castui": (V.is_int_like, V.is_int_like, None),
    "bitcast": (lambda t: True, lambda t: True, "="),
}
_KIND_NAMES = {V.is_float_like: "floating-point-like", V.is_int_like: "signless-integer-like"}


def _verify_cast(op):
    """Operand/result element kinds of the cast, equal shapes, and the width relation
    (``extf`` widens, ``truncf`` narrows, ``bitcast`` keeps the width)."""
    V.num_operands(1)(op)
    V.num_results(1)(op)
    src_ok, dst_ok, rel = _CAST_RULES[op.name.split(".", 1)[1]]
    src, dst = op.operands[0].type, op.results[0].type
    if not src_ok(src):
        raise V.op_error(op, f"operand #0 must be {_KIND_NAMES[src_ok]}, but got "
                             f"{V.type_str(src)}")
    if not dst_ok(dst):
        raise V.op_error(op, f"result #0 must be {_KIND_NAMES[dst_ok]}, but got "
                             f"{V.type_str(dst)}")
    V.same_operands_and_result_shape(op)
    ws, wd = _width(src), _width(dst)
    if rel == ">" and not wd > ws:
        raise V.op_error(op, f"result type {V.type_str(dst)} must be wider than operand type "
                             f"{V.type_str(src)}")
    if rel == "<" and not wd < ws:
        raise V.op_error(op, f"result type {V.type_str(dst)} must be shorter than operand type "
                             f"{V.type_str(src)}")
    if rel == "=" and ws != wd:
        raise V.op_error(op, f"operand type {V.type_str(src)} and result type "
                             f"{V.type_str(dst)} are cast incompatible")


_verify_float_binary = V.all_of(V.num_operands(2), V.num_results(1), V.all_float_like,
                                V.same_operands_and_result_type)
_verify_int_binary = V.all_of(V.num_operands(2), V.num_results(1), V.all_int_like,
                              V.same_operands_and_result_type)
VERIFIERS = {
    "arith.constant": _verify_constant,
    "arith.negf": V.all_of(V.num_operands(1), V.num_results(1), V.all_float_like,
                           V.same_operands_and_result_type),
    "arith.cmpf": _verify_cmp(True),
    "arith.cmpi": _verify_cmp(False),
    "arith.select": _verify_select,
    **{f"arith.{n}": _verify_float_binary for n in FLOAT_BINARY},
    **{f"arith.{n}": _verify_int_binary for n in INT_BINARY},
    **{f"arith.{n}": _verify_cast for n in CASTS},
}
V.register_verifiers(VERIFIERS)

# ============================================================ building scalar bodies
def _is_float(t) -> bool:
    return isinstance(t, T.FloatType)


def _is_bool(t) -> bool:
    return isinstance(t, T.IntegerType) and t.width == 1


# OpDSL binary functions → (float op, integer op, i1 op); see LinalgOps.cpp
# RegionBuilderHelper::buildBinaryFn upstream.
_BINARY_FNS = {
    "add": ("arith.addf", "arith.addi", "arith.ori"),
    "sub": ("arith.subf", "arith.subi", None),
    "mul": ("arith.mulf", "arith.muli", "arith.andi"),
    "div": ("arith.divf", "arith.divsi", None),
    "div_unsigned": (None, "arith.divui", None),
    "max_signed": ("arith.maximumf", "arith.maxsi", "arith.maxsi"),
    "min_signed": ("arith.minimumf", "arith.minsi", "arith.minsi"),
    "max_unsigned": ("arith.maximumf", "arith.maxui", "arith.maxui"),
    "min_unsigned": ("arith.minimumf", "arith.minui", "arith.minui"),
    "powf": ("math.powf", None, None),
}
# OpDSL unary functions (floats only).
_UNARY_FNS = {"exp": "math.exp", "log": "math.log", "abs": "math.absf", "ceil": "math.ceil",
              "floor": "math.floor", "negf": "arith.negf", "round": "math.round",
              "sqrt": "math.sqrt", "rsqrt": "math.rsqrt", "tanh": "math.tanh", "erf": "math.erf"}


class ScalarBuilder:
    """Appends scalar ops at the end of ``block`` and returns their results.

    Mirrors MLIR's linalg ``RegionBuilderHelper``: :meth:`binary` / :meth:`unary` pick the
    float or integer op for OpDSL functions, :meth:`cast` is ``convertScalarToDtype``.
    """

    def __init__(self, block: Block, loc=None):
        self.block = block
        self.loc = loc

    def create(self, name: str, operands: Sequence[Value], result_types: Sequence[T.Type] = (),
               attrs: Optional[Dict[str, Attribute]] = None) -> Operation:
        """Append op ``name`` to the block and return it."""
        return self.block.append(Operation(name, operands, result_types, attrs, loc=self.loc))

    def op(self, name: str, operands: Sequence[Value], result_type: T.Type,
           attrs: Optional[Dict[str, Attribute]] = None) -> Value:
        """One-result op; returns its result."""
        return self.create(name, operands, [result_type], attrs).results[0]

    def constant(self, attr: Attribute) -> Value:
        """``arith.constant`` of a typed attribute."""
        return self.op("arith.constant", [], attr.type, {"value": attr})

    def yield_(self, values: Sequence[Value], name: str = "linalg.yield") -> Operation:
        """Append the terminator (``linalg.yield`` by default)."""
        return self.create(name, list(values))

    def cast(self, v: Value, to: T.Type, unsigned: bool = False) -> Value:
        """Convert scalar ``v`` to type ``to`` (ext/trunc, int<->float, index_cast)."""
        src = v.type
        if src == to:
            return v
        if isinstance(to, T.IntegerType):
            if _is_float(src):
                return self.op("arith.fptoui" if unsigned else "arith.fptosi", [v], to)
            if isinstance(src, T.IndexType):
                return self.op("arith.index_cast", [v], to)
            if isinstance(src, T.IntegerType):
                if to.width > src.width:
                    return self.op("arith.extui" if unsigned else "arith.extsi", [v], to)
                if to.width < src.width:
                    return self.op("arith.trunci", [v], to)
                return v
        if _is_float(to):
            if isinstance(src, T.IntegerType):
                return self.op("arith.uitofp" if unsigned else "arith.sitofp", [v], to)
            if _is_float(src):
                if to.width > src.width:
                    return self.op("arith.extf", [v], to)
                if to.width < src.width:
                    return self.op("arith.truncf", [v], to)
                return v
        if isinstance(to, T.IndexType) and isinstance(src, T.IntegerType):
            return self.op("arith.index_cast", [v], to)
        raise ValueError(f"cannot cast {src} to {to}")

    def binary(self, fn: str, a: Value, b: Value) -> Value:
        """OpDSL BinaryFn ``fn`` (add, sub, mul, div, max_signed, ...) on two scalars."""
        f_op, i_op, b_op = _BINARY_FNS[fn]
        t = a.type
        name = f_op if _is_float(t) else (b_op if _is_bool(t) else i_op)
        if name is None:
            raise ValueError(f"linalg binary function '{fn}' is not defined for {t}")
        return self.op(name, [a, b], t)

    def unary(self, fn: str, a: Value) -> Value:
        """OpDSL UnaryFn ``fn`` (exp, log, abs, ..., reciprocal, square) on a float."""
        if fn == "reciprocal":
            one = self.constant(FloatAttr(1.0, a.type))
            return self.op("arith.divf", [one, a], a.type)
        if fn == "square":
            return self.op("arith.mulf", [a, a], a.type)
        return self.op(_UNARY_FNS[fn], [a], a.type)

    def select(self, c: Value, a: Value, b: Value) -> Value:
        """``arith.select %c, %a, %b``."""
        return self.op("arith.select", [c, a, b], a.type)


def binary_op_name(fn: str, t: T.Type) -> Optional[str]:
    """The arith/math op that OpDSL BinaryFn ``fn`` becomes for element type ``t``."""
    f_op, i_op, b_op = _BINARY_FNS[fn]
    return f_op if _is_float(t) else (b_op if _is_bool(t) else i_op)

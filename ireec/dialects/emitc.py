"""The emitc dialect as ireec uses it: C statements as ops, printed as C by
:mod:`ireec.emitc.c_printer` (the role of MLIR's EmitC dialect, https://mlir.llvm.org/docs/Dialects/EmitC/).

The vm phase creates these ops (``ireec/passes/vm/kernel_to_emitc.py`` for kernels,
``host_to_emitc.py`` for host functions) and its loop passes rewrite them; this module gives
each one a verifier, so ``ireec opt`` (and ``--verify-each``) checks vm-phase IR:

- ``emitc.func``: one region of one block; ``sym_name``, ``kind`` (``kernel`` or ``host``);
  ``params`` (C parameter declarations), ``result`` (C type), ``specifiers``, a kernel's
  ``param_names`` (one per block argument) and ``workgroup_size`` as the printer reads them,
  when present. IsolatedFromAbove;
- ``emitc.constant``: no operands, one scalar result, ``value`` an integer, float or bool;
- ``emitc.expression``: one scalar result; ``c`` a C template over the operands (``{0}``,
  ``{1}``... each naming an operand), ``source_op`` (the arith/math op it computes, which the
  loop analyses read instead of ``c``) and ``divides`` optional;
- ``emitc.load`` / ``emitc.store``: an array operand (``memref``), one index per ``strides``
  entry, ``offset``, ``element_type`` (the loaded / stored value's type);
- ``emitc.variable``: an array (``array_size``, ``element`` C type, optional
  ``init_values``, no operand, a memref result) or a mutable scalar (optional initial value
  of its type); ``emitc.read`` (a snapshot of a scalar variable) and ``emitc.assign``
  (``var = value``) take a variable;
- ``emitc.for`` (``lb, ub, step`` of one type, the accumulator variable as a fourth operand
  with ``simd_reduction``; one block whose argument is the induction variable),
  ``emitc.if`` (an ``i1``; then region, optional else region), ``emitc.loop`` (one region)
  and ``emitc.break_unless`` (an ``i1``, inside an ``emitc.loop``);
- ``emitc.call_opaque``: ``callee``, ``args`` (C text, ``{k}`` naming operand ``k``);
  ``accesses`` optional (its form belongs to the host lowering);
- ``emitc.return`` and ``emitc.verbatim``: no operands, C text in ``value``.

Ops print in MLIR's generic form. ``emitc.return`` is not a terminator here: a host
function's blocks are flattened into one, with labels (``emitc.verbatim``) after returns.
"""
from __future__ import annotations

import string

from ..ir import types as T
from ..ir import verifier as V
from ..ir.attributes import (ArrayAttr, BoolAttr, DenseArrayAttr, FloatAttr, IntegerAttr, StringAttr,
                             TypeAttr, UnitAttr)
from ..ir.core import Operation
from .registry import register

_STRING = (StringAttr, "string attribute")
_STRINGS = (ArrayAttr, "array of strings")


def _attrs(required=(), optional=()):
    """A verifier of the attributes ``required`` / ``optional``: (name, kind, what) each."""
    checks = [V.required_attr(n, k, w) for n, k, w in required]
    checks += [V.optional_attr(n, k, w) for n, k, w in optional]
    return V.all_of(*checks)


def _string_array(op: Operation, name: str) -> None:
    """Attribute ``name``, when present, is an array of strings."""
    a = op.attributes.get(name)
    if a is not None and not all(isinstance(x, StringAttr) for x in a.value):
        raise V.op_error(op, f"attribute '{name}' failed to satisfy constraint: array of strings")


def _template_fields(op: Operation, attr: str, text: str) -> None:
    """Every ``{k}`` of the C template ``text`` names an operand (``k`` < operand count)."""
    try:
        fields = [f for _lit, f, _spec, _conv in string.Formatter().parse(text) if f is not None]
    except ValueError as e:
        raise V.op_error(op, f"attribute '{attr}' is not a valid C template: {e}") from None
    for f in fields:
        if not f.isdigit() or int(f) >= len(op.operands):
            raise V.op_error(op, f"attribute '{attr}' refers to {{{f}}}, but the op has "
                                 f"{len(op.operands)} operand(s)")


def _scalar_result(op: Operation) -> None:
    V.num_results(1)(op)
    t = op.results[0].type
    if isinstance(t, T.ShapedType):
        raise V.op_error(op, f"result #0 must be a scalar, but got {V.type_str(t)}")


def _is_variable(v) -> bool:
    o = v.owner
    return isinstance(o, Operation) and o.name == "emitc.variable"


def _variable_operand(op: Operation) -> None:
    """Operand 0 is a scalar ``emitc.variable``."""
    v = op.operands[0]
    if not _is_variable(v) or "array_size" in v.owner.attributes:
        raise V.op_error(op, "operand #0 must be a scalar 'emitc.variable'")


# ------------------------------------------------------------------ functions
def _verify_func(op: Operation) -> None:
    """One region of one block; ``sym_name`` and ``kind`` (``kernel`` or ``host``); the C
    attributes, when present, typed; a kernel's ``param_names`` names each argument."""
    V.num_regions(1)(op)
    _attrs([("sym_name",) + _STRING, ("kind",) + _STRING],
           [("params",) + _STRINGS, ("result",) + _STRING, ("specifiers",) + _STRINGS,
            ("param_names",) + _STRINGS, ("workgroup_size", IntegerAttr, "integer attribute")])(op)
    for name in ("params", "specifiers", "param_names"):
        _string_array(op, name)
    kind = op.attributes["kind"].value
    if kind not in ("kernel", "host"):
        raise V.op_error(op, f"attribute 'kind' must be 'kernel' or 'host', but is '{kind}'")
    blocks = op.regions[0].blocks
    if len(blocks) != 1:
        raise V.op_error(op, f"expects one block, found {len(blocks)}")
    names = op.attributes.get("param_names")
    if kind == "kernel" and names is not None and len(names.value) != len(blocks[0].args):
        raise V.op_error(op, f"has {len(names.value)} 'param_names' for {len(blocks[0].args)} arguments")


# ------------------------------------------------------------------ values
def _verify_constant(op: Operation) -> None:
    """No operands; one scalar result; ``value`` an integer, float or bool."""
    V.num_operands(0)(op)
    _scalar_result(op)
    V.required_attr("value", (IntegerAttr, FloatAttr, BoolAttr), "integer, float or bool attribute")(op)


def _verify_expression(op: Operation) -> None:
    """One scalar result; ``c`` a C template over the operands; ``source_op`` a string."""
    _scalar_result(op)
    _attrs([("c",) + _STRING], [("source_op",) + _STRING, ("divides", UnitAttr, "unit attribute")])(op)
    _template_fields(op, "c", op.attributes["c"].value)
    src = op.attributes.get("source_op")
    if src is not None and "." not in src.value:
        raise V.op_error(op, f"attribute 'source_op' must name an op ('dialect.op'), but is '{src.value}'")


def _verify_access(op: Operation) -> None:
    """``emitc.load``: (array, indices...) -> value; ``emitc.store``: (value, array,
    indices...); one index per stride; the value of ``element_type``."""
    is_load = op.name == "emitc.load"
    V.at_least_operands(1 if is_load else 2)(op)
    V.num_results(1 if is_load else 0)(op)
    _attrs([("strides", DenseArrayAttr, "dense array attribute"), ("offset", IntegerAttr, "integer attribute"),
            ("element_type", TypeAttr, "type attribute")])(op)
    array = op.operands[0 if is_load else 1]
    if not isinstance(array.type, T.MemRefType):
        raise V.op_error(op, f"operand #{0 if is_load else 1} must be an array (memref), "
                             f"but got {V.type_str(array.type)}")
    n_idx = len(op.operands) - (1 if is_load else 2)
    n_strides = len(op.attributes["strides"].value)
    if n_idx != n_strides:
        raise V.op_error(op, f"expects one index per stride ({n_strides}), but found {n_idx}")
    value_t = op.results[0].type if is_load else op.operands[0].type
    et = op.attributes["element_type"].value
    if value_t != et:
        raise V.op_error(op, f"{'result' if is_load else 'stored value'} type {V.type_str(value_t)} "
                             f"differs from the element type {V.type_str(et)}")


def _verify_variable(op: Operation) -> None:
    """An array (``array_size``, ``element``; memref result, no operand) or a mutable
    scalar (at most one initial value, of the result's type)."""
    V.num_results(1)(op)
    t = op.results[0].type
    if "array_size" in op.attributes:
        V.num_operands(0)(op)
        _attrs([("array_size", IntegerAttr, "integer attribute"), ("element",) + _STRING],
               [("init_values",) + _STRINGS, ("dims", DenseArrayAttr, "dense array attribute")])(op)
        _string_array(op, "init_values")
        if not isinstance(t, T.MemRefType):
            raise V.op_error(op, f"an array's result must be a memref, but got {V.type_str(t)}")
        return
    if len(op.operands) > 1:
        raise V.op_error(op, f"expects at most one initial value, but found {len(op.operands)}")
    _scalar_result(op)
    if op.operands and op.operands[0].type != t:
        raise V.op_error(op, f"initial value type {V.type_str(op.operands[0].type)} differs from "
                             f"the variable's {V.type_str(t)}")


def _verify_read(op: Operation) -> None:
    """A snapshot of a scalar variable, of its type."""
    V.num_operands(1)(op)
    V.num_results(1)(op)
    _variable_operand(op)
    if op.results[0].type != op.operands[0].type:
        raise V.op_error(op, "result type differs from the variable's")


def _verify_assign(op: Operation) -> None:
    """``var = value``: a scalar variable and a value of its type."""
    V.num_operands(2)(op)
    V.num_results(0)(op)
    _variable_operand(op)
    if op.operands[1].type != op.operands[0].type:
        raise V.op_error(op, f"assigned value type {V.type_str(op.operands[1].type)} differs from "
                             f"the variable's {V.type_str(op.operands[0].type)}")


# ------------------------------------------------------------------ control flow
def _single_block(op: Operation, ri: int, n_args: int) -> None:
    blocks = op.regions[ri].blocks
    if len(blocks) != 1:
        raise V.op_error(op, f"expects region #{ri} to have one block, found {len(blocks)}")
    if len(blocks[0].args) != n_args:
        raise V.op_error(op, f"expects region #{ri} to have {n_args} argument(s), "
                             f"found {len(blocks[0].args)}")


def _verify_for(op: Operation) -> None:
    """``lb, ub, step`` of one integer or index type (then the accumulator variable, with
    ``simd_reduction``); one block whose argument is the induction variable, of that type."""
    V.num_results(0)(op)
    V.num_regions(1)(op)
    _attrs(optional=[("ivdep", UnitAttr, "unit attribute"), ("unsigned", UnitAttr, "unit attribute"),
                     ("simd_reduction",) + _STRING])(op)
    n = 4 if "simd_reduction" in op.attributes else 3
    V.num_operands(n)(op)
    lb, ub, step = op.operands[:3]
    if not (V.is_int_like(lb.type) and not isinstance(lb.type, T.ShapedType)
            and lb.type == ub.type == step.type):
        raise V.op_error(op, "expected lower bound, upper bound and step of one integer or index type")
    if n == 4 and not _is_variable(op.operands[3]):
        raise V.op_error(op, "operand #3 (the 'simd_reduction' accumulator) must be an 'emitc.variable'")
    _single_block(op, 0, 1)
    if op.regions[0].blocks[0].args[0].type != lb.type:
        raise V.op_error(op, "the induction variable's type differs from the bounds'")


def _condition(op: Operation) -> None:
    V.num_operands(1)(op)
    V.num_results(0)(op)
    V.operand_kind(0, lambda t: t == T.i1, "1-bit signless integer")(op)


def _verify_if(op: Operation) -> None:
    """An ``i1`` condition; a then region and an optional else region, one block each."""
    _condition(op)
    if len(op.regions) not in (1, 2):
        raise V.op_error(op, f"requires 1 or 2 regions, found {len(op.regions)}")
    _single_block(op, 0, 0)
    if len(op.regions) == 2 and op.regions[1].blocks:
        _single_block(op, 1, 0)


def _verify_loop(op: Operation) -> None:
    """``for (;;)``: no operands or results, one region of one block."""
    V.num_operands(0)(op)
    V.num_results(0)(op)
    V.num_regions(1)(op)
    _single_block(op, 0, 0)


def _verify_break_unless(op: Operation) -> None:
    """An ``i1`` condition, inside an ``emitc.loop`` (the loop it leaves)."""
    _condition(op)
    p = op.parent_op
    while p is not None and p.name != "emitc.loop":
        if p.name in ("emitc.for", "emitc.func"):
            p = None
            break
        p = p.parent_op
    if p is None:
        raise V.op_error(op, "expects to be nested in an 'emitc.loop'")


# ------------------------------------------------------------------ C text
def _verify_call_opaque(op: Operation) -> None:
    """``callee`` and ``args`` (C text; ``{k}`` names operand ``k``); no results."""
    V.num_results(0)(op)
    _attrs([("callee",) + _STRING, ("args",) + _STRINGS])(op)
    _string_array(op, "args")
    if op.operands:
        for a in op.attributes["args"].value:
            _template_fields(op, "args", a.value)


def _verify_text(op: Operation) -> None:
    """``emitc.return`` / ``emitc.verbatim``: no operands or results, C text in ``value``."""
    V.num_operands(0)(op)
    V.num_results(0)(op)
    V.required_attr("value", StringAttr, "string attribute")(op)


#: The verifier of each emitc op.
VERIFIERS = {
    "emitc.func": _verify_func,
    "emitc.constant": _verify_constant,
    "emitc.expression": _verify_expression,
    "emitc.load": _verify_access,
    "emitc.store": _verify_access,
    "emitc.variable": _verify_variable,
    "emitc.read": _verify_read,
    "emitc.assign": _verify_assign,
    "emitc.for": _verify_for,
    "emitc.if": _verify_if,
    "emitc.loop": _verify_loop,
    "emitc.break_unless": _verify_break_unless,
    "emitc.call_opaque": _verify_call_opaque,
    "emitc.return": _verify_text,
    "emitc.verbatim": _verify_text,
}

register("emitc.func", traits=("isolated",))
for _name in VERIFIERS:
    register(_name)
V.register_verifiers(VERIFIERS)

"""tosa dialect (TOSA v1.0 as MLIR defines it), pretty and generic.

Two pretty syntaxes are read, because TOSA's changed between MLIR versions:

* older (torch-mlir's print): ``tosa.transpose %x {perms = array<i32: 1, 0>} : (T) -> R``,
  ``tosa.clamp %x {max_val = 3.4e+38 : f32, min_val = 0.0 : f32} : (T) -> R``;
* newer (IREE 3.13's iree-opt): inherent attributes as ``name(value)`` after the operands,
  with the attribute's type stripped where ODS knows it: ``tosa.transpose %x perms([1, 0])``,
  ``tosa.reduce_max %x axis(1)``, ``tosa.conv2d ... pad([2, 2, 2, 2]) acc_type(f32)``,
  ``tosa.const values(dense<...> : tensor<1xf32>) : () -> tensor<1xf32>``.

Both give the same Operation: attribute names and kinds as in ``TosaOps.td``
(``perms`` is ``array<i32: ...>``, ``kernel``/``stride``/``pad``/``dilation`` are
``array<i64: ...>``, ``axis`` is an i32 integer, ``acc_type`` a type attribute...).
Ops print in the older form ``tosa.op %a, %b {attrs} : (T1, T2) -> R``, which every MLIR
version reads; ``tosa.const`` prints generic. v1.0 operands (zero points of ``matmul`` /
``negate`` / ``conv2d``, ``shift`` of ``mul``, ``!tosa.shape<N>`` operands of ``reshape`` /
``pad`` / ``slice`` / ``tile``) are ordinary operands.

``tosa.cond_if`` / ``tosa.while_loop`` use their custom syntax
(``tosa.cond_if %c [(%a = %x, ...)] : tensor<i1> [(T...)] -> R { ... } else { ... }``,
``tosa.while_loop (%a = %x, ...) : (T...) -> R { cond } do { body }``); the generic form
(``"tosa.cond_if"(%c, %x...) ({...}, {...})``) is read too.

Traits: ``elementwise`` (+ ``broadcasting``: TOSA binary ops broadcast size-1 axes),
``pure``, ``terminator`` on ``tosa.yield``.
"""
from __future__ import annotations

import re
from typing import Dict, List

from ..frontend.parser import register_dialect_attr_parser
from ..ir import types as T
from ..ir.attributes import Attribute, DenseArrayAttr, OpaqueAttr, StringAttr, TypeAttr, UnitAttr
from ..ir.core import Operation
from ..ir.diagnostics import CompileError
from ..ir import verifier as V
from .registry import register as _register
from .syntax import parse_terminator, print_terminator
from .stablehlo import safe_printer


def register(name, parse=None, print_=None, traits=()):
    _register(name, parse, safe_printer(print_), traits=traits)
from .stablehlo import _generic_fallback, _tidy, enum_value  # noqa: F401  (enum_value re-exported for users)

# Attributes that the newer syntax prints without their type: value kinds per ODS.
_I32_ARRAYS = {"perms"}
_TYPE_ATTRS = {"acc_type"}
_I64_INTS = {"min_int", "max_int", "new_shape"}
_ENUM_KIND = {"nan_mode": "nan_mode", "rounding_mode": "rounding_mode", "mode": "resize_mode",
              "block_size": "block_size"}


def _hook(p, name, text, loc):
    return OpaqueAttr(_tidy(text))


register_dialect_attr_parser("tosa", _hook)


def _parse_prop_value(p, key: str) -> Attribute:
    """The value inside ``key(...)`` of the newer syntax."""
    if key in _TYPE_ATTRS:
        return TypeAttr(p.parse_type())
    if p.peek("["):
        p.expect("[")
        vals: List[int] = []
        if not p.try_punct("]"):
            while True:
                if p.try_keyword("true"):
                    vals.append(1)
                elif p.try_keyword("false"):
                    vals.append(0)
                else:
                    vals.append(p.parse_integer())
                if not p.try_punct(","):
                    break
            p.expect("]")
        return DenseArrayAttr(T.i32 if key in _I32_ARRAYS else T.i64, tuple(vals))
    w = p.peek_bare_id()
    if w is not None and re.fullmatch(r"[A-Z][A-Z0-9_]*", w):
        # A stripped enum: nan_mode(PROPAGATE) -> #tosa<nan_mode PROPAGATE>
        p.parse_bare_id()
        return OpaqueAttr(f"#tosa<{_ENUM_KIND.get(key, key)} {w}>")
    hint = T.i64 if key in _I64_INTS else T.i32
    return p.parse_attribute(type_hint=hint)


def _parse_attr_dict(p) -> Dict[str, Attribute]:
    """An attribute dictionary in which enum attributes may be bare case names, as MLIR
    prints them when ODS knows the attribute's type (``{rounding_mode = DOUBLE_ROUND}``);
    those become ``#tosa<rounding_mode DOUBLE_ROUND>`` like the ``name(VALUE)`` form."""
    if not p.peek("{"):
        return {}
    p.expect("{")
    out: Dict[str, Attribute] = {}
    if p.try_punct("}"):
        return out
    while True:
        p.skip_ws()
        kloc = p.loc()
        key = p.parse_string() if p.peek('"') else p.parse_bare_id("attribute name")
        if key in out:
            raise CompileError(f"duplicate key '{key}' in dictionary attribute", kloc)
        if p.try_punct("="):
            w = p.peek_bare_id()
            if key in _ENUM_KIND and w is not None and re.fullmatch(r"[A-Z][A-Z0-9_]*", w):
                p.parse_bare_id()
                out[key] = OpaqueAttr(f"#tosa<{_ENUM_KIND[key]} {w}>")
            else:
                out[key] = p.parse_attribute()
        else:
            out[key] = UnitAttr()
        if not p.try_punct(","):
            break
    p.expect("}", "to close attribute dictionary")
    return out


def _looks_like_prop(p) -> bool:
    w = p.peek_bare_id()
    return w is not None and p.text.startswith("(", p.pos + len(w))


def parse_tosa_op(p, name, loc):
    """``tosa.op [operands] [name(value)...] [attr-dict] : (T...) -> R``."""
    refs = p.parse_operand_list()
    attrs: Dict[str, Attribute] = {}
    while _looks_like_prop(p):
        key = p.parse_bare_id()
        p.expect("(")
        attrs[key] = _parse_prop_value(p, key)
        p.expect(")")
    attrs.update(_parse_attr_dict(p))
    p.expect(":")
    p.skip_ws()
    tstart = p.pos
    t = p.parse_type()
    if not isinstance(t, T.FunctionType):
        raise CompileError(f"expected a function type '(...) -> ...', found '{t}'",
                           p.loc_at(tstart))
    if len(refs) != len(t.inputs):
        raise CompileError(f"{len(refs)} operands present, but expected {len(t.inputs)}", loc)
    return Operation(name, p.resolve_list(refs, t.inputs), t.results, dict(sorted(attrs.items())),
                     loc=loc)


def print_tosa_op(pr, op):
    if op.operands:
        pr.write(" ")
        pr.print_operands(op.operands)
    pr.print_attr_dict(op.attributes)
    pr.write(" : " + str(T.FunctionType(tuple(v.type for v in op.operands),
                                        tuple(op.result_types))))


def _parse_init_list(p):
    """``(%a = %x, %b = %y)`` → ([region arg refs], [operand refs])."""
    args, refs = [], []
    p.expect("(")
    if not p.try_punct(")"):
        while True:
            args.append(p.parse_operand())
            p.expect("=")
            refs.append(p.parse_operand())
            if not p.try_punct(","):
                break
        p.expect(")")
    return args, refs


def _parse_cond_if(p, name, loc):
    cond = p.parse_operand()
    args, refs = ([], [])
    if p.peek("("):
        args, refs = _parse_init_list(p)
    p.expect(":")
    cond_t = p.parse_type()
    in_types: List[T.Type] = []
    if p.peek("(") and not p.peek("()"):
        in_types = p.parse_type_list_parens()
    elif p.peek("()"):
        p.parse_type_list_parens()
    p.expect("->")
    outs = p.parse_result_types()
    if len(in_types) != len(refs):
        raise CompileError(f"{len(refs)} inputs present, but {len(in_types)} types given", loc)
    operands = [p.resolve(cond, cond_t)] + p.resolve_list(refs, in_types)
    op = Operation(name, operands, outs, loc=loc)
    entry = list(zip(args, in_types))
    op.add_region(p.parse_region(entry_args=entry))
    p.expect_keyword("else")
    op.add_region(p.parse_region(entry_args=entry))
    op.attributes.update(p.parse_optional_attr_dict())
    return op


def _print_cond_if(pr, op):
    then_b = op.regions[0].blocks[0] if op.regions[0].blocks else None
    inputs = op.operands[1:]
    pr.write(" " + pr.name_of(op.operands[0]))
    show_args = bool(inputs)
    if show_args:
        pr.name_block_args(then_b)
        pr.write(" (" + ", ".join(f"{pr.name_of(a)} = {pr.name_of(v)}"
                                   for a, v in zip(then_b.args, inputs)) + ")")
    pr.write(f" : {op.operands[0].type}")
    if show_args:
        pr.write(" (" + ", ".join(str(v.type) for v in inputs) + ")")
    rts = op.result_types
    pr.write(" -> " + (str(rts[0]) if len(rts) == 1 and not isinstance(rts[0], T.FunctionType)
                       else "(" + ", ".join(str(t) for t in rts) + ")"))
    pr.write(" ")
    pr.print_region(op.regions[0], print_entry_block_args=show_args)
    pr.write(" else ")
    pr.print_region(op.regions[1], print_entry_block_args=show_args)
    pr.print_attr_dict(op.attributes)


def _parse_while_loop(p, name, loc):
    args, refs = _parse_init_list(p)
    p.expect(":")
    ft = p.parse_type()
    if not isinstance(ft, T.FunctionType):
        raise CompileError("expected '(types) -> types' after ':' in tosa.while_loop", loc)
    operands = p.resolve_list(refs, ft.inputs)
    op = Operation(name, operands, ft.results, loc=loc)
    entry = list(zip(args, ft.inputs))
    op.add_region(p.parse_region(entry_args=entry))
    p.expect_keyword("do")
    op.add_region(p.parse_region(entry_args=entry))
    op.attributes.update(p.parse_optional_attr_dict_with_keyword())
    return op


def _print_while_loop(pr, op):
    cond_b = op.regions[0].blocks[0]
    pr.name_block_args(cond_b)
    pr.write(" (" + ", ".join(f"{pr.name_of(a)} = {pr.name_of(v)}"
                              for a, v in zip(cond_b.args, op.operands)) + ")")
    pr.write(" : " + str(T.FunctionType(tuple(v.type for v in op.operands),
                                        tuple(op.result_types))) + " ")
    pr.print_region(op.regions[0], print_entry_block_args=False)
    pr.write(" do ")
    pr.print_region(op.regions[1], print_entry_block_args=True)
    pr.print_attr_dict(op.attributes, keyword=True)


def _control_flow_printable(op, n_region_args) -> bool:
    return (len(op.regions) == 2 and all(len(r.blocks) >= 1 for r in op.regions)
            and all(len(r.blocks[0].args) == n_region_args for r in op.regions))


def _print_cond_if_checked(pr, op):
    if not op.operands or not _control_flow_printable(op, len(op.operands) - 1) or any(
            a.type != v.type for r in op.regions for a, v in zip(r.blocks[0].args, op.operands[1:])):
        return _generic_fallback(pr, op)
    _print_cond_if(pr, op)


def _print_while_loop_checked(pr, op):
    if not _control_flow_printable(op, len(op.operands)) or any(
            a.type != v.type for r in op.regions for a, v in zip(r.blocks[0].args, op.operands)):
        return _generic_fallback(pr, op)
    _print_while_loop(pr, op)


UNARY_ELEMENTWISE = (
    "abs", "bitwise_not", "ceil", "clz", "cos", "exp", "floor", "log", "logical_not", "negate",
    "reciprocal", "rsqrt", "sin", "sigmoid", "tanh", "erf", "clamp", "cast", "rescale",
    "identity")
BINARY_ELEMENTWISE = (
    "add", "arithmetic_right_shift", "bitwise_and", "bitwise_or", "bitwise_xor", "intdiv",
    "logical_and", "logical_left_shift", "logical_right_shift", "logical_or", "logical_xor",
    "maximum", "minimum", "mul", "pow", "sub", "equal", "greater", "greater_equal", "select",
    "table")
OTHER_PURE = (
    "argmax", "avg_pool2d", "conv2d", "conv3d", "depthwise_conv2d", "fft2d", "rfft2d",
    "fully_connected",
    "matmul", "max_pool2d", "transpose_conv2d", "reduce_all", "reduce_any", "reduce_max",
    "reduce_min", "reduce_product", "reduce_sum", "concat", "pad", "reshape", "reverse",
    "slice", "tile", "transpose", "gather", "scatter", "resize", "const_shape", "dim",
    "apply_scale", "matmul_t_block_scaled", "cast_from_block_scaled", "cast_to_block_scaled",
    "add_shape", "sub_shape", "mul_shape", "div_ceil_shape", "div_floor_shape", "mod_shape",
    "max_shape", "min_shape", "exp2_shape", "log2_ceil_shape", "log2_floor_shape",
    "concat_shape", "slice_shape", "assert_equal_shape", "dim_shape")
OTHER = ("custom",)

for _op in UNARY_ELEMENTWISE:
    register(f"tosa.{_op}", parse_tosa_op, print_tosa_op, traits=("pure", "elementwise"))
for _op in BINARY_ELEMENTWISE:
    register(f"tosa.{_op}", parse_tosa_op, print_tosa_op,
             traits=("pure", "elementwise", "broadcasting"))
for _op in OTHER_PURE:
    register(f"tosa.{_op}", parse_tosa_op, print_tosa_op, traits=("pure",))
for _op in OTHER:
    register(f"tosa.{_op}", parse_tosa_op, print_tosa_op)


# Stateful variables: ``tosa.variable @v = dense<...> : tensor<...>`` (module level),
# ``%x = tosa.variable_read @v : T``, ``tosa.variable_write @v, %x : T``; the older spellings
# ``tosa.variable.read`` / ``tosa.variable.write`` parse to the same ops.
def _parse_variable(p, name, loc):
    attrs: Dict[str, Attribute] = {"sym_name": StringAttr(p.parse_symbol_name())}
    if p.try_punct("="):
        init = p.parse_attribute()
        attrs["initial_value"] = init
        t = getattr(init, "type", None)
        if p.try_punct(":"):
            t = p.parse_type()
        attrs["type"] = TypeAttr(t)
    else:
        p.expect(":")
        attrs["type"] = TypeAttr(p.parse_type())
        if p.try_punct("="):
            attrs["initial_value"] = p.parse_attribute()
    attrs.update(p.parse_optional_attr_dict())
    return Operation("tosa.variable", [], [], dict(sorted(attrs.items())), loc=loc)


def _print_variable(pr, op):
    a = op.attributes
    init = a.get("initial_value")
    pr.write(f" @{a['sym_name'].value}")
    pr.write(f" = {init}" if init is not None else f" : {a['type'].value}")


def _parse_variable_read(p, name, loc):
    ref = p.parse_symbol_ref()
    attrs = p.parse_optional_attr_dict()
    p.expect(":")
    t = p.parse_type()
    return Operation("tosa.variable_read", [], [t], dict(sorted({"name": ref, **attrs}.items())), loc=loc)


def _print_variable_read(pr, op):
    pr.write(f" {op.attributes['name']} : {op.result_types[0]}")


def _parse_variable_write(p, name, loc):
    ref = p.parse_symbol_ref()
    p.expect(",")
    v = p.parse_operand()
    attrs = p.parse_optional_attr_dict()
    p.expect(":")
    t = p.parse_type()
    return Operation("tosa.variable_write", [p.resolve(v, t)], [], dict(sorted({"name": ref, **attrs}.items())),
                     loc=loc)


def _print_variable_write(pr, op):
    pr.write(f" {op.attributes['name']}, ")
    pr.print_operands(op.operands)
    pr.write(f" : {op.operands[0].type}")


register("tosa.variable", _parse_variable, _print_variable)
for _n in ("tosa.variable_read", "tosa.variable.read"):
    register(_n, _parse_variable_read, _print_variable_read)
for _n in ("tosa.variable_write", "tosa.variable.write"):
    register(_n, _parse_variable_write, _print_variable_write)
# tosa.const: parses both syntaxes, prints generic (valid for every MLIR version).
register("tosa.const", parse_tosa_op, None, traits=("pure",))


# -------------------------------------------------------------------- verifiers
def _broadcast_compatible(op, values) -> None:
    """TOSA elementwise operands have the rank of the result, and each dim is 1 or the
    size the others agree on (ResultsBroadcastableShape)."""
    shapes = [V.shape_of(v.type) for v in values]
    if any(s is None for s in shapes):
        return
    ranks = {len(s) for s in shapes}
    if len(ranks) != 1:
        raise V.op_error(op, "operands and result must all have the same rank")
    for d in range(len(shapes[0])):
        sizes = {s[d] for s in shapes[:-1] if s[d] is not None and s[d] != 1}
        if len(sizes) > 1:
            raise V.op_error(op, "operands don't have broadcast-compatible shapes")
        r = shapes[-1][d]
        if sizes and r is not None and r not in sizes:
            raise V.op_error(op, "result shape is not the broadcast of the operand shapes")


def _element_types_agree(op, values, what="operands and result") -> None:
    ets = {T.element_type(v.type) for v in values}
    if len(ets) > 1:
        raise V.op_error(op, f"requires the same element type for all {what}")


def _verify_unary(op):
    V.num_results(1)(op)
    V.at_least_operands(1)(op)
    _element_types_agree(op, [op.operands[0], op.results[0]])
    if len(op.operands) == 1:
        V.same_operands_and_result_shape(op)


def _verify_binary(same_result_element: bool, bool_result: bool = False):
    def check(op):
        V.num_results(1)(op)
        V.at_least_operands(2)(op)
        a, b = op.operands[:2]
        r = op.results[0]
        _broadcast_compatible(op, [a, b, r])
        if same_result_element:
            _element_types_agree(op, [a, b, r])
        else:
            _element_types_agree(op, [a, b], "operands")
        if bool_result:
            e = T.element_type(r.type)
            if not (isinstance(e, T.IntegerType) and e.width == 1):
                raise V.op_error(op, f"result #0 must be tensor of bool values, but got "
                                     f"{V.type_str(r.type)}")
    return check


def _verify_select(op):
    V.num_operands(3)(op)
    V.num_results(1)(op)
    _broadcast_compatible(op, list(op.operands) + [op.results[0]])
    _element_types_agree(op, [op.operands[1], op.operands[2], op.results[0]])


_SAME_TYPE_UNARY = ("abs", "bitwise_not", "ceil", "clz", "cos", "exp", "floor", "log",
                    "logical_not", "negate", "reciprocal", "rsqrt", "sin", "sigmoid", "tanh",
                    "erf", "identity")
_SAME_TYPE_BINARY = ("add", "arithmetic_right_shift", "bitwise_and", "bitwise_or", "bitwise_xor",
                     "intdiv", "logical_and", "logical_left_shift", "logical_right_shift",
                     "logical_or", "logical_xor", "maximum", "minimum", "pow", "sub")
V.register_verifiers({
    **{f"tosa.{n}": _verify_unary for n in _SAME_TYPE_UNARY},
    **{f"tosa.{n}": _verify_binary(True) for n in _SAME_TYPE_BINARY},
    **{f"tosa.{n}": _verify_binary(False, True) for n in ("equal", "greater", "greater_equal")},
    "tosa.mul": _verify_binary(False),
    "tosa.select": _verify_select,
})
register("tosa.yield", parse_terminator, print_terminator, traits=("pure", "terminator"))
register("tosa.cond_if", _parse_cond_if, _print_cond_if_checked)
register("tosa.while_loop", _parse_while_loop, _print_while_loop_checked)


def int_attr(op: Operation, name: str, default=None):
    a = op.attributes.get(name)
    return default if a is None else int(a.value)


def int_list_attr(op: Operation, name: str):
    a = op.attributes.get(name)
    if a is None:
        return None
    if isinstance(a, DenseArrayAttr):
        return [int(v) for v in a.value]
    from .stablehlo import i64_list

    return i64_list(a)

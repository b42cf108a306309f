"""IREE's util dialect as input programs use it (plus three ``flow.tensor.*`` helpers).

Syntax source: IREE ``compiler/src/iree/compiler/Dialect/Util/IR/UtilOps.td`` and
``UtilOps.cpp`` (custom ``TypeOrAttr`` / ``SymbolVisibility`` directives):

* ``util.unfoldable_constant [attr-dict] <typed attr>`` (``: type`` after a symbol ref):
  a constant the compiler must not fold through;
* ``util.optimization_barrier [attr-dict] %a, %b : T1, T2`` (identity, blocks folding);
* ``util.global [private|public|nested] [mutable] @name [attr-dict] (: T [= attr] | = attr)``
  (attributes ``sym_visibility``, ``is_mutable``, ``sym_name``, ``type``, ``initial_value``);
* ``util.global.load [immutable] @g : T``, ``util.global.store %v, @g : T``,
  ``util.global.address [immutable] @g : !util.ptr<T>``,
  ``util.global.load.indirect [immutable] %p : !util.ptr<T> -> T``,
  ``util.global.store.indirect %v, %p : T -> !util.ptr<T>``;
* ``util.null : T``, ``util.return [%a : T]``, ``util.initializer { ... }``.

``#util.byte_pattern<N> : T`` (a typed dialect attribute) parses to :class:`TypedOpaqueAttr`.

The flow helpers the e2e tests put in their input are here too, unless a flow dialect module
already registered a parser for them: ``flow.tensor.dynamic_constant <attr> -> T``,
``flow.tensor.tie_shape %x : T{%d0, ...}``, ``flow.tensor.bitcast %x : T{dims} -> R{dims}``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Optional

from ..frontend.parser import register_dialect_attr_parser
from ..ir import types as T
from ..ir import verifier as V
from ..ir.attributes import (ArrayAttr, Attribute, BoolAttr, DenseArrayAttr, DenseElementsAttr,
                             DenseResourceAttr, DictAttr, FloatAttr, IntegerAttr, OpaqueAttr,
                             StringAttr, SymbolRefAttr, TypeAttr, UnitAttr)
from ..ir.core import Operation, Region
from ..ir.diagnostics import CompileError
from .registry import op_def
from .registry import register as _register
from .stablehlo import safe_printer


def register(name, parse=None, print_=None, traits=()):
    _register(name, parse, safe_printer(print_), traits=traits)


@dataclass(frozen=True)
class TypedOpaqueAttr(OpaqueAttr):
    """A dialect attribute with a trailing type: ``#util.byte_pattern<1> : tensor<4xf32>``."""

    type: Optional[T.Type] = None

    def __str__(self) -> str:
        return f"{self.text} : {self.type}"


_TYPED_UTIL_ATTRS = ("util.byte_pattern", "util.uninitialized")


def _hook(p, name, text, loc):
    if name in _TYPED_UTIL_ATTRS and p.peek(":") and not p.peek("::"):
        save = p.pos
        p.expect(":")
        t = p.try_type()
        if t is not None:
            return TypedOpaqueAttr(text, t)
        p.pos = save
    return OpaqueAttr(text)


register_dialect_attr_parser("util", _hook)


def attr_type(a: Attribute) -> Optional[T.Type]:
    """The type of a typed attribute (dense, integer, float, typed dialect attr), else None."""
    if isinstance(a, (DenseElementsAttr, DenseResourceAttr, IntegerAttr, FloatAttr,
                      TypedOpaqueAttr)):
        return a.type
    if isinstance(a, BoolAttr):
        return T.i1
    return None


def _sorted(attrs: Dict[str, Attribute]) -> Dict[str, Attribute]:
    return dict(sorted(attrs.items()))


# --- unfoldable_constant ---------------------------------------------------------------
def _parse_unfoldable_constant(p, name, loc):
    attrs = p.parse_optional_attr_dict()
    vloc = p.loc()
    v = p.parse_attribute()
    if isinstance(v, SymbolRefAttr):
        p.expect(":")
        t = p.parse_type()
    else:
        t = attr_type(v)
        if t is None:
            raise CompileError(f"util.unfoldable_constant needs a typed value, found '{v}'", vloc)
    attrs["value"] = v
    return Operation(name, [], [t], _sorted(attrs), loc=loc)


def _print_unfoldable_constant(pr, op):
    pr.print_attr_dict(op.attributes, elided=("value",))
    v = op.attributes["value"]
    pr.write(f" {v}")
    if isinstance(v, SymbolRefAttr):
        pr.write(f" : {op.result_types[0]}")


# --- optimization_barrier / return / null ----------------------------------------------
def _parse_operands_types(p, name, loc, results_too: bool):
    attrs = p.parse_optional_attr_dict()
    refs = p.parse_operand_list()
    types = p.parse_colon_type_list() if refs else []
    return Operation(name, p.resolve_list(refs, types), types if results_too else (), attrs,
                     loc=loc)


def _print_operands_types(pr, op):
    pr.print_attr_dict(op.attributes)
    if op.operands:
        pr.write(" ")
        pr.print_operands(op.operands)
        pr.write(" : " + ", ".join(str(v.type) for v in op.operands))


def _parse_null(p, name, loc):
    attrs = p.parse_optional_attr_dict()
    p.expect(":")
    return Operation(name, [], [p.parse_type()], attrs, loc=loc)


def _print_null(pr, op):
    pr.print_attr_dict(op.attributes)
    pr.write(f" : {op.result_types[0]}")


# --- globals ---------------------------------------------------------------------------
def _parse_visibility(p, attrs):
    for vis in ("private", "public", "nested"):
        if p.try_keyword(vis):
            attrs["sym_visibility"] = StringAttr(vis)
            return


def _print_visibility(pr, op):
    vis = op.attributes.get("sym_visibility")
    if vis is not None:
        pr.write(f" {vis.value}")


def _parse_global(p, name, loc):
    attrs: Dict[str, Attribute] = {}
    _parse_visibility(p, attrs)
    if p.try_keyword("mutable"):
        attrs["is_mutable"] = UnitAttr()
    attrs["sym_name"] = StringAttr(p.parse_symbol_name())
    attrs.update(p.parse_optional_attr_dict())
    if p.try_punct("="):
        vloc = p.loc()
        v = _typed(p, p.parse_attribute())
        t = attr_type(v)
        if t is None:
            raise CompileError(f"util.global initial value '{v}' has no type; write "
                               "': type = value'", vloc)
        attrs["initial_value"] = v
        attrs["type"] = TypeAttr(t)
    else:
        p.expect(":", "or '=' after the global's name")
        attrs["type"] = TypeAttr(p.parse_type())
        if p.try_punct("="):
            attrs["initial_value"] = _typed(p, p.parse_attribute())
    return Operation(name, [], [], _sorted(attrs), loc=loc)


def _typed(p, v: Attribute) -> Attribute:
    """A dialect attribute followed by ``: type`` (``#hal.device.target<...> : !hal.device``)
    is a typed attribute, as MLIR reads it."""
    if type(v) is OpaqueAttr and p.peek(":") and not p.peek("::"):
        save = p.pos
        p.expect(":")
        t = p.try_type()
        if t is not None:
            return TypedOpaqueAttr(v.text, t)
        p.pos = save
    return v


def _print_global(pr, op):
    a = op.attributes
    _print_visibility(pr, op)
    if "is_mutable" in a:
        pr.write(" mutable")
    pr.write(" ")
    pr.print_symbol(a["sym_name"].value)
    pr.print_attr_dict(a, elided=("sym_visibility", "is_mutable", "sym_name", "type",
                                  "initial_value"))
    t = a["type"].value
    init = a.get("initial_value")
    if init is None or attr_type(init) != t:
        pr.write(f" : {t}")
    if init is not None:
        pr.write(f" = {init}")


def _parse_global_load(p, name, loc):
    attrs: Dict[str, Attribute] = {}
    if p.try_keyword("immutable"):
        attrs["is_immutable"] = UnitAttr()
    attrs["global"] = p.parse_symbol_ref()
    attrs.update(p.parse_optional_attr_dict())
    p.expect(":")
    return Operation(name, [], [p.parse_type()], _sorted(attrs), loc=loc)


def _print_global_load(pr, op):
    if "is_immutable" in op.attributes:
        pr.write(" immutable")
    pr.write(f" {op.attributes['global']}")
    pr.print_attr_dict(op.attributes, elided=("is_immutable", "global"))
    pr.write(f" : {op.result_types[0]}")


def _parse_global_store(p, name, loc):
    ref = p.parse_operand()
    p.expect(",")
    attrs: Dict[str, Attribute] = {"global": p.parse_symbol_ref()}
    attrs.update(p.parse_optional_attr_dict())
    p.expect(":")
    t = p.parse_type()
    return Operation(name, [p.resolve(ref, t)], [], _sorted(attrs), loc=loc)


def _print_global_store(pr, op):
    pr.write(f" {pr.name_of(op.operands[0])}, {op.attributes['global']}")
    pr.print_attr_dict(op.attributes, elided=("global",))
    pr.write(f" : {op.operands[0].type}")


def _parse_load_indirect(p, name, loc):
    attrs: Dict[str, Attribute] = {}
    if p.try_keyword("immutable"):
        attrs["is_immutable"] = UnitAttr()
    ref = p.parse_operand()
    attrs.update(p.parse_optional_attr_dict())
    p.expect(":")
    pt = p.parse_type()
    p.expect("->")
    rt = p.parse_type()
    return Operation(name, [p.resolve(ref, pt)], [rt], _sorted(attrs), loc=loc)


def _print_load_indirect(pr, op):
    if "is_immutable" in op.attributes:
        pr.write(" immutable")
    pr.write(f" {pr.name_of(op.operands[0])}")
    pr.print_attr_dict(op.attributes, elided=("is_immutable",))
    pr.write(f" : {op.operands[0].type} -> {op.result_types[0]}")


def _parse_store_indirect(p, name, loc):
    vref = p.parse_operand()
    p.expect(",")
    pref = p.parse_operand()
    attrs = p.parse_optional_attr_dict()
    p.expect(":")
    vt = p.parse_type()
    p.expect("->")
    pt = p.parse_type()
    return Operation(name, [p.resolve(vref, vt), p.resolve(pref, pt)], [], attrs, loc=loc)


def _print_store_indirect(pr, op):
    pr.write(f" {pr.name_of(op.operands[0])}, {pr.name_of(op.operands[1])}")
    pr.print_attr_dict(op.attributes)
    pr.write(f" : {op.operands[0].type} -> {op.operands[1].type}")


def _parse_initializer(p, name, loc):
    attrs = p.parse_optional_attr_dict_with_keyword()
    op = Operation(name, [], [], attrs, loc=loc)
    p.default_dialects.append("util")
    try:
        op.add_region(p.parse_region(isolated=True))
    finally:
        p.default_dialects.pop()
    return op


def _print_initializer(pr, op):
    pr.print_attr_dict(op.attributes, keyword=True)
    pr.write(" ")
    pr.print_region(op.regions[0], print_entry_block_args=False)


# --- util.func / util.call ---------------------------------------------------------------
def _index_array(vals):
    return ArrayAttr(tuple(IntegerAttr(int(v), T.index) for v in vals))


def _parse_tied_results(p, arg_names, arg_types, allow_attrs):
    """``type``, ``%arg0``, ``%arg0 as type`` (comma separated, each optionally ``{attrs}``);
    returns (types, tied indices, result attr dicts)."""
    types, tied, rattrs = [], [], []
    while True:
        if p.peek("%"):
            ref = p.parse_operand()
            if ref[0] not in arg_names:
                raise CompileError(f"tied operand not found for result reference {ref[0]}", ref[1])
            idx = arg_names.index(ref[0])
            t = p.parse_type() if p.try_keyword("as") else arg_types[idx]
        else:
            idx, t = -1, p.parse_type()
        types.append(t)
        tied.append(idx)
        rattrs.append(p.parse_optional_attr_dict() if allow_attrs else {})
        if not p.try_punct(","):
            return types, tied, rattrs


def _parse_result_list(p, arg_names, arg_types):
    if p.try_punct("("):
        if p.try_punct(")"):
            return [], [], []
        out = _parse_tied_results(p, arg_names, arg_types, True)
        p.expect(")")
        return out
    return _parse_tied_results(p, arg_names, arg_types, False)


def _tied_list(op):
    a = op.attributes.get("tied_operands")
    n = len(op.attributes["function_type"].value.results) if "function_type" in op.attributes \
        else len(op.results)
    if a is None:
        return [-1] * n
    return [int(x.value) for x in a.value]


def _result_list_str(pr, arg_names, arg_types, res_types, tied, res_attrs, func: bool):
    parts = []
    for i, t in enumerate(res_types):
        idx = tied[i] if i < len(tied) else -1
        if idx >= 0:
            s = arg_names[idx] + ("" if arg_types[idx] == t else f" as {t}")
        else:
            s = str(t)
        if res_attrs is not None and i < len(res_attrs) and len(res_attrs[i].value):
            s += " " + str(res_attrs[i])
        parts.append(s)
    any_attrs = res_attrs is not None and any(len(d.value) for d in res_attrs)
    if len(res_types) != 1 or any_attrs:
        return "(" + ", ".join(parts) + ")"
    return parts[0]


def _parse_util_func(p, name, loc):
    attrs: Dict[str, Attribute] = {}
    _parse_visibility(p, attrs)
    attrs["sym_name"] = StringAttr(p.parse_symbol_name())
    p.expect("(")
    args, arg_types, arg_attrs = [], [], []
    if not p.try_punct(")"):
        while True:
            if p.peek("%"):
                ref = p.parse_operand()
                p.expect(":")
                t = p.parse_type()
                args.append((ref, t))
            else:
                t = p.parse_type()
            arg_types.append(t)
            arg_attrs.append(p.parse_optional_attr_dict())
            p.parse_optional_location()
            if not p.try_punct(","):
                break
        p.expect(")")
    names = [r[0] for r, _ in args]
    res_types, tied, res_attrs = [], [], []
    if p.try_punct("->"):
        res_types, tied, res_attrs = _parse_result_list(p, names, arg_types)
    if res_types:
        attrs["tied_operands"] = _index_array(tied)
    attrs["function_type"] = TypeAttr(T.FunctionType(tuple(arg_types), tuple(res_types)))
    attrs.update(p.parse_optional_attr_dict_with_keyword())
    if any(arg_attrs):
        attrs["arg_attrs"] = ArrayAttr(tuple(DictAttr(tuple(d.items())) for d in arg_attrs))
    if any(res_attrs):
        attrs["res_attrs"] = ArrayAttr(tuple(DictAttr(tuple(d.items())) for d in res_attrs))
    op = Operation(name, [], [], _sorted(attrs), loc=loc)
    if p.peek("{"):
        if len(args) != len(arg_types):
            raise CompileError("a function with a body needs named arguments (%name: type)", loc)
        p.default_dialects.append("util")
        try:
            op.add_region(p.parse_region(entry_args=args, isolated=True))
        finally:
            p.default_dialects.pop()
    else:
        op.add_region(Region())
    return op


def _print_util_func(pr, op):
    a = op.attributes
    _print_visibility(pr, op)
    pr.write(" ")
    pr.print_symbol(a["sym_name"].value)
    ft = a["function_type"].value
    decl = not op.regions or not op.regions[0].blocks
    if not decl:
        pr.name_block_args(op.regions[0].blocks[0])
        names = [pr.names[x] for x in op.regions[0].blocks[0].args]
    else:
        names = [f"%arg{i}" for i in range(len(ft.inputs))]
    arg_attrs = a.get("arg_attrs")
    parts = []
    for i, t in enumerate(ft.inputs):
        s_ = f"{names[i]}: {t}"
        if arg_attrs is not None and len(arg_attrs[i].value):
            s_ += " " + str(arg_attrs[i])
        parts.append(s_)
    pr.write("(" + ", ".join(parts) + ")")
    if ft.results:
        pr.write(" -> " + _result_list_str(pr, names, list(ft.inputs), list(ft.results),
                                             _tied_list(op), a.get("res_attrs"), True))
    pr.print_attr_dict(a, elided=("sym_name", "function_type", "tied_operands",
                                  "sym_visibility", "arg_attrs", "res_attrs"), keyword=True)
    if not decl:
        pr.write(" ")
        pr.print_region(op.regions[0], print_entry_block_args=False)


def _parse_util_call(p, name, loc):
    callee = p.parse_symbol_ref()
    refs = p.parse_operand_list("()")
    attrs = p.parse_optional_attr_dict()
    attrs["callee"] = callee
    p.expect(":")
    in_types = p.parse_type_list_parens()
    p.expect("->")
    names = [r[0] for r in refs]
    res_types, tied, _ = _parse_result_list(p, names, in_types)
    if res_types:
        attrs["tied_operands"] = _index_array(tied)
    return Operation(name, p.resolve_list(refs, in_types), res_types, _sorted(attrs), loc=loc)


def _print_util_call(pr, op):
    pr.write(f" {op.attributes['callee']}(")
    pr.print_operands(op.operands)
    pr.write(")")
    pr.print_attr_dict(op.attributes, elided=("callee", "tied_operands"))
    pr.write(" : (" + ", ".join(str(v.type) for v in op.operands) + ") -> ")
    names = [pr.name_of(v) for v in op.operands]
    rts = op.result_types
    tied = _tied_list(op)
    body = _result_list_str(pr, names, [v.type for v in op.operands], rts, tied, None, False)
    pr.write(body if len(rts) == 1 else body if body.startswith("(") else f"({body})")


# --- util.cmp.eq / ne, util.status.check_ok ----------------------------------------------
def _parse_cmp(p, name, loc):
    refs = p.parse_operand_list()
    attrs = p.parse_optional_attr_dict()
    p.expect(":")
    t = p.parse_type()
    return Operation(name, p.resolve_list(refs, [t] * len(refs)), [T.i1], attrs, loc=loc)


def _print_cmp(pr, op):
    pr.write(" ")
    pr.print_operands(op.operands)
    pr.print_attr_dict(op.attributes)
    pr.write(f" : {op.operands[0].type}")


def _parse_check_ok(p, name, loc):
    ref = p.parse_operand()
    attrs: Dict[str, Attribute] = {}
    if p.try_punct(","):
        attrs["message"] = StringAttr(p.parse_string())
    attrs.update(p.parse_optional_attr_dict())
    return Operation(name, [p.resolve(ref, T.i32)], [], _sorted(attrs), loc=loc)


def _print_check_ok(pr, op):
    pr.write(f" {pr.name_of(op.operands[0])}")
    msg = op.attributes.get("message")
    if isinstance(msg, StringAttr):
        pr.write(", " + str(msg))
    pr.print_attr_dict(op.attributes, elided=("message",) if isinstance(msg, StringAttr) else ())


register("util.func", _parse_util_func, _print_util_func, traits=("isolated",))
register("util.call", _parse_util_call, _print_util_call)
register("util.cmp.eq", _parse_cmp, _print_cmp, traits=("pure",))
register("util.cmp.ne", _parse_cmp, _print_cmp, traits=("pure",))
register("util.status.check_ok", _parse_check_ok, _print_check_ok)
register("util.unfoldable_constant", _parse_unfoldable_constant, _print_unfoldable_constant)
register("util.optimization_barrier",
         lambda p, n, l: _parse_operands_types(p, n, l, True), _print_operands_types)
register("util.null", _parse_null, _print_null, traits=("pure",))
register("util.return", lambda p, n, l: _parse_operands_types(p, n, l, False),
         _print_operands_types, traits=("terminator",))
register("util.global", _parse_global, _print_global)
register("util.global.load", _parse_global_load, _print_global_load)
register("util.global.store", _parse_global_store, _print_global_store)
register("util.global.address", _parse_global_load, _print_global_load, traits=("pure",))
register("util.global.load.indirect", _parse_load_indirect, _print_load_indirect)
register("util.global.store.indirect", _parse_store_indirect, _print_store_indirect)
register("util.initializer", _parse_initializer, _print_initializer, traits=("isolated",))


def _verify_global_access(op: Operation) -> None:
    """The global named by a util.global.load/store/address exists in the enclosing symbol
    table and is a util.global (MLIR: 'util.global.load' op undefined global: @g)."""
    V.referenced_global(op, "util.global")


V.register_verifiers({n: _verify_global_access for n in
                      ("util.global.load", "util.global.store", "util.global.address")})


def global_name(op: Operation) -> str:
    """Name of the global a util.global / util.global.load / .store / .address refers to."""
    a = op.attributes.get("sym_name") or op.attributes.get("global")
    return a.value if isinstance(a, StringAttr) else a.root


def global_type(op: Operation) -> T.Type:
    return op.attributes["type"].value


def is_mutable(op: Operation) -> bool:
    return "is_mutable" in op.attributes


# =====================================================================================
# flow.tensor.* helpers used in the e2e tests' input
# =====================================================================================

def _parse_dynamic_constant(p, name, loc):
    attrs = p.parse_optional_attr_dict()
    v = p.parse_attribute()
    attrs["value"] = v
    p.expect("->")
    tloc = p.loc()
    rt = p.parse_type()
    vt = getattr(v, "type", None)
    if not (isinstance(vt, T.TensorType) and isinstance(rt, T.TensorType)
            and vt.element_type == rt.element_type and rt.shape is not None
            and len(rt.shape) == len(vt.shape)
            and all(r is None or r == d for r, d in zip(rt.shape, vt.shape))):
        raise CompileError(f"'{name}' result type {rt} is not compatible with its value's "
                           f"type {vt}", tloc)
    return Operation(name, [], [rt], _sorted(attrs), loc=loc)


def _print_dynamic_constant(pr, op):
    pr.print_attr_dict(op.attributes, elided=("value",))
    pr.write(f" {op.attributes['value']} -> {op.result_types[0]}")


def _parse_dims(p):
    refs = []
    if p.try_punct("{"):
        if not p.try_punct("}"):
            refs = p.parse_operand_list()
            p.expect("}")
    return p.resolve_list(refs, [T.index] * len(refs))


def _dims_str(pr, vals) -> str:
    return "{" + ", ".join(pr.name_of(v) for v in vals) + "}" if vals else ""


def _parse_tie_shape(p, name, loc):
    ref = p.parse_operand()
    attrs = p.parse_optional_attr_dict()
    p.expect(":")
    t = p.parse_type()
    dims = _parse_dims(p)
    return Operation(name, [p.resolve(ref, t)] + dims, [t], attrs, loc=loc)


def _print_tie_shape(pr, op):
    pr.write(f" {pr.name_of(op.operands[0])}")
    pr.print_attr_dict(op.attributes)
    pr.write(f" : {op.result_types[0]}{_dims_str(pr, op.operands[1:])}")


def _parse_bitcast(p, name, loc):
    ref = p.parse_operand()
    p.expect(":")
    st = p.parse_type()
    sdims = _parse_dims(p)
    p.expect("->")
    rt = p.parse_type()
    rdims = _parse_dims(p)
    attrs = p.parse_optional_attr_dict_with_keyword()
    attrs["operandSegmentSizes"] = DenseArrayAttr(T.i32, (1, len(sdims), len(rdims)))
    return Operation(name, [p.resolve(ref, st)] + sdims + rdims, [rt], _sorted(attrs), loc=loc)


def _print_bitcast(pr, op):
    seg = op.attributes.get("operandSegmentSizes")
    ns, nr = (int(seg.value[1]), int(seg.value[2])) if seg is not None else (0, 0)
    src = op.operands[0]
    pr.write(f" {pr.name_of(src)} : {src.type}{_dims_str(pr, op.operands[1:1 + ns])}"
             f" -> {op.result_types[0]}{_dims_str(pr, op.operands[1 + ns:1 + ns + nr])}")
    pr.print_attr_dict(op.attributes, elided=("operandSegmentSizes",), keyword=True)


def _register_if_free(name, parse, print_, traits=()):
    d = op_def(name)
    if d is None or d.parse is None:
        register(name, parse, print_, traits=traits)


_register_if_free("flow.tensor.dynamic_constant", _parse_dynamic_constant,
                  _print_dynamic_constant)
_register_if_free("flow.tensor.tie_shape", _parse_tie_shape, _print_tie_shape, ("pure",))
_register_if_free("flow.tensor.bitcast", _parse_bitcast, _print_bitcast, ("pure",))

"""ml_program dialect: module-level globals as StableHLO programs use them.

Syntax source: MLIR ``mlir/Dialect/MLProgram/IR/MLProgramOps.td``:

* ``ml_program.global [private|public|nested] [mutable] @name[(<initial value>)] [attr-dict]
  : T`` (attributes ``sym_visibility``, ``is_mutable``, ``sym_name``, ``value``, ``type``);
* ``ml_program.global_load @g : T``, ``ml_program.global_load_const @g : T``
  (attribute ``global``);
* ``ml_program.global_store @g = %v : T``.
"""
from __future__ import annotations

from typing import Dict

from ..ir import verifier as V
from ..ir.attributes import Attribute, StringAttr, TypeAttr, UnitAttr
from ..ir.core import Operation
from .registry import register as _register
from .stablehlo import safe_printer


def register(name, parse=None, print_=None, traits=()):
    _register(name, parse, safe_printer(print_), traits=traits)


def _sorted(attrs):
    return dict(sorted(attrs.items()))


def _parse_global(p, name, loc):
    attrs: Dict[str, Attribute] = {}
    for vis in ("private", "public", "nested"):
        if p.try_keyword(vis):
            attrs["sym_visibility"] = StringAttr(vis)
            break
    if p.try_keyword("mutable"):
        attrs["is_mutable"] = UnitAttr()
    attrs["sym_name"] = StringAttr(p.parse_symbol_name())
    if p.try_punct("("):
        attrs["value"] = p.parse_attribute()
        p.expect(")")
    p.expect(":")
    attrs["type"] = TypeAttr(p.parse_type())
    attrs.update(p.parse_optional_attr_dict())
    return Operation(name, [], [], _sorted(attrs), loc=loc)


def _print_global(pr, op):
    a = op.attributes
    vis = a.get("sym_visibility")
    if vis is not None:
        pr.write(f" {vis.value}")
    if "is_mutable" in a:
        pr.write(" mutable")
    pr.write(" ")
    pr.print_symbol(a["sym_name"].value)
    if "value" in a:
        pr.write(f"({a['value']})")
    pr.write(f" : {a['type'].value}")
    pr.print_attr_dict(a, elided=("sym_visibility", "is_mutable", "sym_name", "value", "type"))


def _parse_load(p, name, loc):
    attrs: Dict[str, Attribute] = {"global": p.parse_symbol_ref()}
    attrs.update(p.parse_optional_attr_dict())
    p.expect(":")
    return Operation(name, [], [p.parse_type()], _sorted(attrs), loc=loc)


def _print_load(pr, op):
    pr.write(f" {op.attributes['global']}")
    pr.print_attr_dict(op.attributes, elided=("global",))
    pr.write(f" : {op.result_types[0]}")


def _parse_store(p, name, loc):
    attrs: Dict[str, Attribute] = {"global": p.parse_symbol_ref()}
    p.expect("=")
    ref = p.parse_operand()
    attrs.update(p.parse_optional_attr_dict())
    p.expect(":")
    t = p.parse_type()
    return Operation(name, [p.resolve(ref, t)], [], _sorted(attrs), loc=loc)


def _print_store(pr, op):
    pr.write(f" {op.attributes['global']} = {pr.name_of(op.operands[0])}")
    pr.print_attr_dict(op.attributes, elided=("global",))
    pr.write(f" : {op.operands[0].type}")


register("ml_program.global", _parse_global, _print_global)
register("ml_program.global_load", _parse_load, _print_load)
register("ml_program.global_load_const", _parse_load, _print_load, traits=("pure",))
register("ml_program.global_store", _parse_store, _print_store)


def _verify_global_access(op: Operation) -> None:
    """The global named by an ml_program.global_load/_load_const/_store exists in the
    enclosing symbol table and is an ml_program.global (MLIR's ``SymbolUserOpInterface``:
    'ml_program.global_store' op undefined global: @g); a store needs a mutable one."""
    g = V.referenced_global(op, "ml_program.global")
    if op.name == "ml_program.global_store" and "is_mutable" not in g.attributes:
        raise V.op_error(op, f"cannot store to an immutable global: {op.attributes['global']}")


V.register_verifiers({n: _verify_global_access for n in
                      ("ml_program.global_load", "ml_program.global_load_const", "ml_program.global_store")})

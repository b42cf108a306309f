"""builtin dialect: ``module``.

Syntax: ``module @name attributes {...} { ... }`` (name and attributes optional).
"""
from ..ir.core import Operation
from .registry import register


def _parse_module(p, name, loc):
    op = Operation("builtin.module", loc=loc)
    if p.peek("@"):
        op.attributes["sym_name"] = _str(p.parse_symbol_name())
    op.attributes.update(p.parse_optional_attr_dict_with_keyword())
    op.add_region(p.parse_region(isolated=True))
    if not op.regions[0].blocks:
        from ..ir.core import Block

        op.regions[0].add_block(Block())
    return op


def _str(s):
    from ..ir.attributes import StringAttr

    return StringAttr(s)


def _print_module(pr, op):
    name = op.attributes.get("sym_name")
    if name is not None:
        pr.write(" ")
        pr.print_symbol(name.value)
    pr.print_attr_dict(op.attributes, elided=("sym_name",), keyword=True)
    pr.write(" ")
    pr.print_region(op.regions[0], print_entry_block_args=False)


register("builtin.module", _parse_module, _print_module, traits=("isolated", "symbol_table"))
register("builtin.unrealized_conversion_cast", traits=("pure",))

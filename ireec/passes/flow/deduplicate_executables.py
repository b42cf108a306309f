"""Merge executables whose kernels are identical up to their names.

Mirrors IREE's ``DeduplicateExecutablesPass``: the first of each group of equal
executables is kept and every ``flow.dispatch`` of the others is redirected to it.
"""
from __future__ import annotations

from ...ir.attributes import SymbolRefAttr
from ...ir.core import Operation
from ...ir.printer import print_op
from ..pass_base import Pass, PassContext, register_pass
from .outline_dispatch_regions import executable_entry, executables


def _body_key(exe: Operation) -> str:
    k = executable_entry(exe)
    text = print_op(k, generic=True)
    return text.replace(k.attributes["sym_name"].value, "@")


@register_pass
class DeduplicateExecutablesPass(Pass):
    name = "iree-flow-deduplicate-executables"

    def run(self, module: Operation, ctx: PassContext) -> None:
        seen = {}
        rename = {}
        for exe in executables(module):
            key = _body_key(exe)
            if key in seen:
                keep = seen[key]
                rename[exe.attributes["sym_name"].value] = SymbolRefAttr(
                    keep.attributes["sym_name"].value, (executable_entry(keep).attributes["sym_name"].value,))
                exe.erase()
            else:
                seen[key] = exe
        if not rename:
            return
        for op in module.walk():
            if op.name == "flow.dispatch":
                ep = op.attributes["entry_point"]
                if ep.root in rename:
                    op.attributes["entry_point"] = rename[ep.root]

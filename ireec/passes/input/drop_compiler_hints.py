"""IREE's compiler hints become plain values.

Mirrors IREE's ``iree-util-drop-compiler-hints`` together with the canonicalizations of the
ops it meets first: ``util.unfoldable_constant`` becomes an ``arith.constant`` (ireec does
not fold through constants, so nothing is lost), ``util.optimization_barrier`` forwards its
operands, and ``flow.tensor.dynamic_constant`` becomes the static constant followed by a
``tensor.cast`` to its dynamic type (which ``canonicalize`` may refine back).
"""
from __future__ import annotations

from ...ir.core import Builder, Operation
from ..pass_base import Pass, PassContext, register_pass


@register_pass
class DropCompilerHintsPass(Pass):
    name = "iree-util-drop-compiler-hints"

    def run(self, module: Operation, ctx: PassContext) -> None:
        for op in list(module.walk()):
            if op.name == "util.unfoldable_constant":
                value = op.attributes["value"]
                c = Builder.before(op).create("arith.constant", [], [op.results[0].type], {"value": value})
                op.replace_with([c.result])
            elif op.name == "util.optimization_barrier":
                op.replace_with(list(op.operands))
            elif op.name == "flow.tensor.dynamic_constant":
                value = op.attributes["value"]
                b = Builder.before(op)
                c = b.create("arith.constant", [], [value.type], {"value": value})
                rt = op.results[0].type
                if rt != value.type:
                    c = b.create("tensor.cast", [c.result], [rt])
                op.replace_with([c.result])


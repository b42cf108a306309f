"""``check.expect_*`` ops become extra results of their test function.

IREE lowers check ops to calls into its ``check`` runtime module (compiler/src/iree/compiler/
Modules/Check), which compares the values on the device. ireec emits no runtime, so the
checked values leave the function as additional results instead, and ``ireec check``
(:mod:`ireec.tools.check`) compares them on the host with the semantics of IREE's check
module. The pass records what to compare in ``ctx.report["checks"][function]``: one entry per
check op, in program order::

    {"op": "expect_eq", "location": "file:line:col", "actual": 0, "expected": 1 or None,
     "expected_value": DenseElementsAttr or None, "type": TensorType (tensor<4xf32>),
     "atol": 1e-4, "rtol": 0.0}

``actual``/``expected`` are indices into the function's results. Scalar operands (``i32`` of
``expect_true``) leave as rank-0 tensors. A check inside control flow (an ``scf.if`` branch,
a loop body, another block) stores its values into private mutable ``util.global``s and sets a
flag global; the function returns what they hold, and ``hit`` indexes the flag (0: the check
did not run, so it cannot fail).
"""
from __future__ import annotations

from typing import Dict, List

from ...dialects import check as check_dialect
from ...dialects.func import func_name, func_type
from ...ir import types as T
import numpy as np

from ...ir.attributes import DenseElementsAttr, StringAttr, SymbolRefAttr, TypeAttr, UnitAttr
from ...ir.core import Builder, Operation, Value
from ...ir.diagnostics import CompileError
from ..pass_base import Pass, PassContext, functions, register_pass


def _as_tensor(b: Builder, v: Value) -> Value:
    if isinstance(v.type, T.TensorType):
        return v
    return b.create("tensor.from_elements", [v], [T.TensorType((), v.type)]).result


@register_pass
class ConvertCheckToResultsPass(Pass):
    name = "iree-check-to-results"

    def run(self, module: Operation, ctx: PassContext) -> None:
        table = ctx.report.setdefault("checks", {})
        for f in functions(module):
            checks = [op for op in f.walk() if op.name.startswith("check.")]
            if checks:
                table[func_name(f)] = self.convert(f, checks)

    @staticmethod
    def convert(f: Operation, checks: List[Operation]) -> List[Dict[str, object]]:
        """Turn the check ops of test function ``f`` into results; returns their table entries.
        CompileError when ``f`` returns from more than one place."""
        ft = func_type(f)
        returns = [op for op in f.walk() if op.name == "func.return" and op.parent_op is f]
        if len(returns) != 1:
            raise CompileError("a test function with check ops must return from exactly one place", f.loc)
        ret = returns[0]
        module = f.parent_op
        entry_b = Builder(f.body, 0, f.loc)
        ret_b = Builder.before(ret)
        new_values: List[Value] = []
        entries: List[Dict[str, object]] = []
        n_results = len(ft.results)
        for k, op in enumerate(checks):
            b = Builder.before(op)
            vals = [_as_tensor(b, v) for v in check_dialect.checked_operands(op)]
            kind = op.name.split(".", 1)[1]
            entry: Dict[str, object] = {"op": kind, "location": str(op.loc),
                                        "type": check_dialect.checked_operands(op)[0].type,
                                        "expected": None, "expected_value": check_dialect.expected_value(op),
                                        "atol": None, "rtol": None, "hit": None}
            if "almost" in kind:
                entry["atol"], entry["rtol"] = check_dialect.tolerances(op)
            if op.parent is not ret.parent:
                # Inside control flow: the values go through module state, with a flag telling
                # whether the check ran at all.
                prefix = f"__check_{func_name(f)}_{k}"
                hit = _global(module, f"{prefix}_hit", T.TensorType((), T.IntegerType(8)))
                zero = entry_b.create("arith.constant", [], [hit.type], {"value": _zeros(hit.type)}).result
                entry_b.create("util.global.store", [zero], [], {"global": SymbolRefAttr(hit.name)})
                one = b.create("arith.constant", [], [hit.type], {
                    "value": DenseElementsAttr(np.ones((), np.int8), hit.type)}).result
                b.create("util.global.store", [one], [], {"global": SymbolRefAttr(hit.name)})
                loaded = []
                for j, v in enumerate(vals):
                    g = _global(module, f"{prefix}_{j}", v.type)
                    b.create("util.global.store", [v], [], {"global": SymbolRefAttr(g.name)})
                    loaded.append(ret_b.create("util.global.load", [], [v.type],
                                               {"global": SymbolRefAttr(g.name)}).result)
                entry["hit"] = n_results + len(new_values)
                new_values.append(ret_b.create("util.global.load", [], [hit.type],
                                               {"global": SymbolRefAttr(hit.name)}).result)
                vals = loaded
            entry["actual"] = n_results + len(new_values)
            new_values.append(vals[0])
            if len(vals) > 1:
                entry["expected"] = n_results + len(new_values)
                new_values.append(vals[1])
            entries.append(entry)
            op.erase()
        ret.set_operands(list(ret.operands) + new_values)
        f.attributes["function_type"] = TypeAttr(T.FunctionType(
            tuple(ft.inputs), tuple(ft.results) + tuple(v.type for v in new_values)))
        return entries


class _Global:
    def __init__(self, name: str, type: T.TensorType):
        self.name = name
        self.type = type


def _zeros(t: T.TensorType) -> DenseElementsAttr:
    return DenseElementsAttr(np.zeros(t.shape, T.numpy_dtype(t.element_type)), t)


def _global(module: Operation, name: str, t: T.TensorType) -> _Global:
    """A private mutable ``util.global`` of type ``t`` (zero-initialized) at the module top."""
    module.body.insert(0, Operation("util.global", attributes={
        "sym_name": StringAttr(name), "sym_visibility": StringAttr("private"), "is_mutable": UnitAttr(),
        "type": TypeAttr(t), "initial_value": _zeros(t)}))
    return _Global(name, t)

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
``expect_true``) leave as rank-0 tensors. A check must sit in a block that returns.
"""
from __future__ import annotations

from typing import Dict, List

from ...dialects import check as check_dialect
from ...dialects.func import func_name, func_type
from ...ir import types as T
from ...ir.attributes import TypeAttr
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
        ft = func_type(f)
        returns = [op for op in f.walk() if op.name == "func.return" and op.parent_op is f]
        new_values: List[Value] = []
        entries: List[Dict[str, object]] = []
        n_results = len(ft.results)
        for op in checks:
            ret = op.parent.terminator
            if op.parent_op is not f or ret is None or ret.name != "func.return" or len(returns) != 1:
                raise CompileError(f"'{op.name}' must be in the block that returns from the test "
                                   "function (checks inside control flow are not supported)", op.loc)
            b = Builder.before(op)
            vals = check_dialect.checked_operands(op)
            kind = op.name.split(".", 1)[1]
            entry: Dict[str, object] = {"op": kind, "location": str(op.loc), "type": vals[0].type,
                                        "expected": None, "expected_value": check_dialect.expected_value(op),
                                        "atol": None, "rtol": None}
            if "almost" in kind:
                entry["atol"], entry["rtol"] = check_dialect.tolerances(op)
            entry["actual"] = n_results + len(new_values)
            new_values.append(_as_tensor(b, vals[0]))
            if len(vals) > 1:
                entry["expected"] = n_results + len(new_values)
                new_values.append(_as_tensor(b, vals[1]))
            entries.append(entry)
            op.erase()
        ret = returns[0]
        ret.set_operands(list(ret.operands) + new_values)
        f.attributes["function_type"] = TypeAttr(T.FunctionType(
            tuple(ft.inputs), tuple(ft.results) + tuple(v.type for v in new_values)))
        return entries

"""IREE's flow dialect, the subset ireec produces: dispatch regions, executables and
dispatches (``flow.dispatch @exe::@entry(%0, %1) : (...) -> ...``), tensor reshapes and the
dispatch-tensor load/store inside executables.
"""
from ..ir.core import Operation
from .registry import register


def _print_dispatch(pr, op):
    pr.write(" ")
    pr.print_attr(op.attributes["entry_point"])
    wl = op.attributes.get("workload")
    if wl is not None and len(wl):
        pr.write("[" + ", ".join(str(v) for v in wl.value) + "]")
    pr.write("(")
    pr.print_operands(op.operands)
    pr.write(")")
    pr.print_attr_dict(op.attributes, elided=("entry_point", "workload"))
    ins = ", ".join(str(v.type) for v in op.operands)
    outs = ", ".join(str(t) for t in op.result_types)
    pr.write(f" : ({ins}) -> " + (outs if len(op.results) == 1 else f"({outs})"))


def _parse_dispatch(p, name, loc):
    from ..ir.attributes import DenseArrayAttr
    from ..ir import types as T

    entry = p.parse_symbol_ref()
    attrs = {"entry_point": entry}
    if p.try_punct("["):
        vals = [p.parse_integer()]
        while p.try_punct(","):
            vals.append(p.parse_integer())
        p.expect("]")
        attrs["workload"] = DenseArrayAttr(T.i64, tuple(vals))
    refs = p.parse_operand_list("()")
    attrs.update(p.parse_optional_attr_dict())
    p.expect(":")
    ins = p.parse_type_list_parens()
    p.expect("->")
    outs = p.parse_result_types()
    return Operation(name, p.resolve_list(refs, ins), outs, attrs, loc=loc)


register("flow.dispatch", _parse_dispatch, _print_dispatch)
register("flow.dispatch.region", traits=())
register("flow.return", traits=("terminator",))
register("flow.executable", traits=("isolated", "symbol_table"))
register("flow.executable.export")
register("flow.dispatch.tensor.load", traits=("pure",))
register("flow.dispatch.tensor.store")
register("flow.tensor.reshape", traits=("pure",))
register("flow.tensor.constant", traits=("pure",))

"""IREE's stream dialect, the subset ireec produces after static memory planning.

ireec's host ABI differs from IREE's in one way: results are buffers the caller provides,
so a function's results are ``stream.resource.result`` slices rather than allocations.
``stream.cmd.dispatch`` prints like iree-opt's:
``stream.cmd.dispatch @exe::@entry[1, 1, 1] { ro %0[0 for 60], wo %3[0 for 36] }``.
"""
from .registry import register


def _print_cmd_dispatch(pr, op):
    pr.write(" ")
    pr.print_attr(op.attributes["entry_point"])
    wg = op.attributes.get("workgroup_count")
    if wg is not None:
        pr.write("[" + ", ".join(str(v) for v in wg.value) + "]")
    pr.write(" {")
    access = [a.value for a in op.attributes["access"].value]
    offs = op.attributes["offsets"].value
    sizes = op.attributes["sizes"].value
    items = []
    for v, a, o, s in zip(op.operands, access, offs, sizes):
        items.append(f"{a} {pr.name_of(v)}[{o} for {s}] : {v.type}")
    pr.indent += 1
    for i, it in enumerate(items):
        pr.newline()
        pr.write(it + ("," if i + 1 < len(items) else ""))
    pr.indent -= 1
    pr.newline()
    pr.write("}")
    pr.print_attr_dict(op.attributes, elided=("entry_point", "workgroup_count", "access", "offsets", "sizes"))


register("stream.cmd.dispatch", print=_print_cmd_dispatch)
register("stream.cmd.copy")
register("stream.tensor.import", traits=("pure",))
register("stream.tensor.export", traits=("pure",))
register("stream.resource.result", traits=("pure",))
register("stream.resource.alloca", traits=("pure",))
register("stream.resource.constants", traits=("pure",))
register("stream.resource.subview", traits=("pure",))
register("stream.executable", traits=("isolated", "symbol_table"))
register("stream.executable.export")
register("stream.binding.subspan", traits=("pure",))

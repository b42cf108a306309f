"""IREE's stream dialect, the subset ireec produces after static memory planning.

ireec's host ABI differs from IREE's in one way: results are buffers the caller provides,
so a function's results are ``stream.resource.result`` slices rather than allocations.
``stream.cmd.dispatch`` prints like iree-opt's:
``stream.cmd.dispatch @exe::@entry[1, 1, 1] { ro %0[0 for 60] : T, wo %3[0 for 36] : T }``
(byte offsets and lengths are static here, so they print as integers where iree-opt prints
index SSA values); every other op prints in the generic form.
"""
from ..ir import types as T
from ..ir.attributes import ArrayAttr, DenseArrayAttr, StringAttr
from ..ir.core import Operation
from .registry import register

_ACCESS = ("ro", "wo", "rw")


def _parse_cmd_dispatch(p, name, loc):
    """Inverse of :func:`_print_cmd_dispatch`: entry point, optional ``[x, y, z]`` workgroup
    count, then ``{access %resource[offset for length] : type, ...}`` and an attr dict."""
    attrs = {"entry_point": p.parse_symbol_ref()}
    if p.try_punct("["):
        wg = [p.parse_integer()]
        while p.try_punct(","):
            wg.append(p.parse_integer())
        p.expect("]")
        attrs["workgroup_count"] = DenseArrayAttr(T.i64, tuple(wg))
    p.expect("{")
    operands, access, offsets, sizes = [], [], [], []
    if not p.try_punct("}"):
        while True:
            access.append(p.parse_keyword_of(_ACCESS))
            ref = p.parse_operand()
            p.expect("[")
            offsets.append(p.parse_integer())
            p.expect_keyword("for")
            sizes.append(p.parse_integer())
            p.expect("]")
            p.expect(":")
            operands.append(p.resolve(ref, p.parse_type()))
            if not p.try_punct(","):
                break
        p.expect("}")
    attrs["access"] = ArrayAttr(tuple(StringAttr(a) for a in access))
    attrs["offsets"] = DenseArrayAttr(T.i64, tuple(offsets))
    attrs["sizes"] = DenseArrayAttr(T.i64, tuple(sizes))
    attrs.update(p.parse_optional_attr_dict())
    return Operation(name, operands, [], attrs, loc=loc)


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


register("stream.cmd.dispatch", _parse_cmd_dispatch, _print_cmd_dispatch)
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

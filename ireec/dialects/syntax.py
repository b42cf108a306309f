"""Custom-syntax pieces several dialects share (not a dialect: it registers no ops)."""
from __future__ import annotations

from ..ir.core import Operation


def parse_terminator(p, name, loc) -> Operation:
    """``op %a, %b {attrs} : t_a, t_b`` (or a bare ``op``): the syntax of linalg.yield,
    tensor.yield, tosa.yield and stablehlo.return."""
    refs = p.parse_operand_list()
    attrs = p.parse_optional_attr_dict()
    types = p.parse_colon_type_list() if refs else []
    return Operation(name, p.resolve_list(refs, types), [], attrs, loc=loc)


def print_terminator(pr, op) -> None:
    """Inverse of :func:`parse_terminator`."""
    if op.operands:
        pr.write(" ")
        pr.print_operands(op.operands)
    pr.print_attr_dict(op.attributes)
    if op.operands:
        pr.write(" : " + ", ".join(str(v.type) for v in op.operands))

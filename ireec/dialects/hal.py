"""IREE's hal dialect, the subset ireec produces: tensor import/export at the ABI boundary,
executables with variants and exports, interface bindings and workgroup ids.

Pretty syntax follows iree-opt, e.g.
``%0 = hal.tensor.import %arg0 "input0" : !hal.buffer_view -> tensor<4xf32>``.
"""
from ..ir.attributes import StringAttr
from ..ir.core import Operation
from .registry import register


def _parse_tensor_import(p, name, loc):
    src = p.parse_operand()
    attrs = {}
    if p.peek('"'):
        attrs["name"] = StringAttr(p.parse_string())
    p.expect(":")
    src_t = p.parse_type()
    p.expect("->")
    dst_t = p.parse_type()
    attrs.update(p.parse_optional_attr_dict())
    return Operation(name, [p.resolve(src, src_t)], [dst_t], attrs, loc=loc)


def _print_tensor_import(pr, op):
    pr.write(" ")
    pr.print_operand(op.operands[0])
    if "name" in op.attributes:
        pr.write(" " + str(op.attributes["name"]))
    pr.write(f" : {op.operands[0].type} -> {op.results[0].type}")
    pr.print_attr_dict(op.attributes, elided=("name",))


register("hal.tensor.import", _parse_tensor_import, _print_tensor_import, traits=("pure",))
register("hal.tensor.export", _parse_tensor_import, _print_tensor_import, traits=("pure",))
register("hal.executable", traits=("isolated", "symbol_table"))
register("hal.executable.variant", traits=("symbol_table",))
register("hal.executable.export")
register("hal.executable.source", traits=("isolated", "symbol_table"))
register("hal.interface.binding.subspan", traits=("pure",))
register("hal.interface.workgroup.id", traits=("pure",))
register("hal.interface.workgroup.count", traits=("pure",))
register("hal.return", traits=("terminator",))

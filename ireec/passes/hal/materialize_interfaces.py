"""``flow.executable`` → ``hal.executable`` with one variant for the target; kernel
arguments become ``hal.interface.binding.subspan`` ops; host dispatches become
``hal.command_buffer.dispatch`` naming ``@exe::@variant::@entry``.

Mirrors IREE's HAL ``MaterializeInterfacesPass`` (and the host side of
``ConvertStreamToHAL``). Binding order: a dispatch's inputs, then its outputs.
"""
from __future__ import annotations

from ...ir import types as T
from ...ir.attributes import IntegerAttr, StringAttr, SymbolRefAttr, TypeAttr
from ...ir.core import Block, Builder, Operation, Region
from ..flow.outline_dispatch_regions import executable_entry, executables
from ..pass_base import Pass, PassContext, register_pass

@register_pass
class MaterializeInterfacesPass(Pass):
    name = "iree-hal-materialize-interfaces"

    def run(self, module: Operation, ctx: PassContext) -> None:
        variant = ctx.target.variant or ctx.target.name
        for exe in executables(module, "flow.executable"):
            kernel = executable_entry(exe)
            entry = kernel.attributes["sym_name"].value
            blk = kernel.body
            b = Builder(blk, 0, kernel.loc)
            for i, a in enumerate(list(blk.args)):
                s = b.create("hal.interface.binding.subspan", [], [a.type], {
                    "binding": IntegerAttr(i, T.index),
                    "descriptor_flags": StringAttr("ReadOnly" if a.type.access == "readonly" else "None")})
                a.replace_all_uses_with(s.result)
            while blk.args:
                blk.erase_arg(len(blk.args) - 1)
            kernel.attributes["function_type"] = TypeAttr(T.FunctionType((), ()))
            inner = kernel.parent_op
            inner.detach()
            vblk = Block()
            vblk.append(Operation("hal.executable.export", attributes={
                "sym_name": StringAttr(entry), "ordinal": IntegerAttr(0, T.index),
                "bindings": IntegerAttr(len(kernel.body.ops and [o for o in kernel.body.ops if o.name == "hal.interface.binding.subspan"]), T.index)},
                loc=kernel.loc))
            vblk.append(inner)
            var = Operation("hal.executable.variant", attributes={
                "sym_name": StringAttr(variant), "target": StringAttr(ctx.target.name)},
                regions=[Region([vblk])], loc=exe.loc)
            hexe = Operation("hal.executable", attributes=dict(exe.attributes),
                             regions=[Region([Block()])], loc=exe.loc)
            hexe.body.append(var)
            module.body.insert(module.body.ops.index(exe), hexe)
            exe.erase()
        for op in list(module.walk()):
            if op.name == "stream.cmd.dispatch":
                ep = op.attributes["entry_point"]
                new = Operation("hal.command_buffer.dispatch", list(op.operands), [], dict(op.attributes), loc=op.loc)
                new.attributes["entry_point"] = SymbolRefAttr(ep.root, (variant,) + tuple(ep.nested))
                op.parent.insert_before(op, new)
                op.erase()

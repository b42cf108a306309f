"""Host functions and kernels → emitc-like ops (C statements as ops).

Mirrors IREE's VM → EmitC conversion (``ConvertVMToEmitC``) and MLIR's SCF/Arith/Math/MemRef
→ EmitC patterns: kernels are lowered by :mod:`.kernel_to_emitc`, host functions by
:mod:`.host_to_emitc`.
"""
from __future__ import annotations

from typing import Dict

from ...emitc.ctypes import c_ident
from ...ir import types as T
from ...ir.attributes import DenseArrayAttr, StringAttr
from ...ir.core import Operation
from ..pass_base import Pass, PassContext, functions, register_pass
from .host_to_emitc import lower_host_function
from .kernel_to_emitc import KernelLowering


@register_pass
class ConvertToEmitCPass(Pass):
    name = "iree-convert-vm-to-emitc"

    def run(self, module: Operation, ctx: PassContext) -> None:
        entries: Dict[str, Operation] = {}
        new_ops = []
        for exe in [op for op in module.body.ops if op.name == "hal.executable"]:
            for exp in [o for o in exe.walk() if o.name == "hal.executable.export"]:
                entry = exp.attributes["sym_name"].value
                kernel = next(o for o in exe.walk() if o.name == "func.func" and o.attributes["sym_name"].value == entry)
                kf = KernelLowering(kernel, c_ident(entry), ctx.target).run()
                kf.attributes["workgroup_count"] = exp.attributes.get(
                    "workgroup_count", DenseArrayAttr(T.i64, (1, 1, 1)))
                kf.attributes["launch"] = StringAttr(c_ident(entry))
                entries[entry] = kf
                new_ops.append(kf)
        hosts = []
        for f in functions(module):
            if "iree.abi.stub" in f.attributes:
                hosts.append(lower_host_function(f, ctx.module_name, entries, ctx.target))
        for op in list(module.body.ops):
            if op.name in ("hal.executable", "func.func"):
                op.drop_all_references()
                op.detach()
        for op in new_ops + hosts:
            module.body.append(op)

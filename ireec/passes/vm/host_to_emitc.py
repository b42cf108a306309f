"""Host functions → emitc-like ops.

Mirrors IREE's VM → EmitC conversion (``ConvertVMToEmitC``) for the sequencing program: a host
function becomes an ``emitc.func`` with the C ABI of design.md (const input pointers, result
pointers, workspace) calling each dispatch's launch function.
"""
from __future__ import annotations


from typing import Dict

from ...dialects.func import func_name
from ...emitc.ctypes import storage_ctype
from ...ir import types as T
from ...ir.attributes import StringAttr, TypeAttr
from ...ir.core import Block, Builder, Operation, Region, Value
from ...ir.diagnostics import CompileError

OPAQUE_PTR = T.OpaqueType("emitc", 'ptr<!emitc.opaque<"void">>')

from .kernel_to_emitc import _str_array, c_ident


def _lower_host(f: Operation, module_name: str, entries: Dict[str, Operation]) -> Operation:
    sig: T.FunctionType = f.attributes["ireec.abi.tensor_type"].value
    fname = func_name(f)
    params = []
    for i, t in enumerate(sig.inputs):
        params.append(f"const {storage_ctype(t.element_type)} *input{i}")
    for j, t in enumerate(sig.results):
        params.append(f"{storage_ctype(t.element_type)} *result{j}")
    params.append("void *workspace")
    blk = Block()
    b = Builder.at_end(blk, f.loc)
    for p in params:
        b.create("emitc.verbatim", [], [], {"value": StringAttr(f"(void){p.split()[-1].lstrip('*')};")})
    base: Dict[Value, str] = {}
    for op in f.body.ops:
        n = op.name
        if n == "stream.tensor.import":
            base[op.results[0]] = f"(const uint8_t *)input{op.attributes['index'].value}"
        elif n == "stream.resource.result":
            base[op.results[0]] = f"(uint8_t *)result{op.attributes['index'].value}"
        elif n == "stream.resource.alloca":
            base[op.results[0]] = "(uint8_t *)workspace"
        elif n == "stream.resource.constants":
            base[op.results[0]] = f"{module_name}_constant_pool"
        elif n == "hal.command_buffer.dispatch":
            ep = op.attributes["entry_point"]
            entry = ep.nested[-1]
            kfn = entries[entry]
            btypes = [x.value for x in kfn.attributes["bindings"].value]
            args = []
            for v, off, bt in zip(op.operands, op.attributes["offsets"].value, btypes):
                args.append(f"({bt} *)({base[v]} + {off})")
            b.create("emitc.call_opaque", [], [], {"callee": StringAttr(f"{module_name}_{c_ident(entry)}"), "args": _str_array(args)})
        elif n == "stream.cmd.copy":
            src, dst = op.operands
            b.create("emitc.call_opaque", [], [], {"callee": StringAttr("memcpy"), "args": _str_array([
                f"{base[dst]} + {op.attributes['target_offset'].value}",
                f"{base[src]} + {op.attributes['source_offset'].value}",
                str(op.attributes["length"].value)])})
        elif n in ("stream.tensor.export", "func.return", "util.global"):
            continue
        else:
            raise CompileError(f"'{n}' cannot be lowered to C in the host program yet", op.loc)
    b.create("emitc.return", [], [], {"value": StringAttr("IREEC_STATUS_OK")})
    return Operation("emitc.func", attributes={
        "sym_name": StringAttr(f"{module_name}_{c_ident(fname)}"), "params": _str_array(params),
        "result": StringAttr("ireec_status_t"), "kind": StringAttr("host"),
        "mlir_name": StringAttr(fname), "function_type": TypeAttr(sig),
    }, regions=[Region([blk])], loc=f.loc)

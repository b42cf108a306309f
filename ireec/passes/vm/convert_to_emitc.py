"""Host functions and kernels → emitc-like ops (C statements as ops).

Mirrors IREE's VM → EmitC conversion (``ConvertVMToEmitC``) and MLIR's SCF/Arith/Math/MemRef
→ EmitC patterns. Kernels become ``emitc.func`` over typed binding pointers and workgroup
ids; host functions become ``emitc.func`` with the C ABI of design.md (const input
pointers, result pointers, workspace) calling each dispatch's launch function.
ireec-specific ops: ``emitc.load`` / ``emitc.store`` index a pointer with the static strides
and offset of the memref they came from.
"""
from __future__ import annotations

from typing import Dict

from ...dialects.func import func_name
from ...emitc.arith_to_c import c_expression
from ...emitc.ctypes import ctype, storage_ctype
from ...ir import types as T
from ...ir.attributes import (ArrayAttr, DenseArrayAttr, IntegerAttr, StringAttr, TypeAttr)
from ...ir.core import Block, Builder, Operation, Region, Value
from ...ir.diagnostics import CompileError
from ..hal.memref_utils import strides_and_offset
from ..pass_base import Pass, PassContext, functions, register_pass

OPAQUE_PTR = T.OpaqueType("emitc", 'ptr<!emitc.opaque<"void">>')


def c_ident(name: str) -> str:
    import re

    return re.sub(r"[^A-Za-z0-9_]", "_", name)


def _str_array(xs):
    return ArrayAttr(tuple(StringAttr(x) for x in xs))


class KernelLowering:
    """Converts one kernel func (memref/scf/arith form) into an emitc.func."""

    def __init__(self, kernel: Operation, entry: str):
        self.kernel = kernel
        self.entry = entry
        self.map: Dict[Value, Value] = {}

    def run(self) -> Operation:
        subspans = [op for op in self.kernel.body.ops if op.name == "hal.interface.binding.subspan"]
        params, arg_types = [], []
        for s in subspans:
            t = s.results[0].type
            const = "const " if s.attributes["descriptor_flags"].value == "ReadOnly" else ""
            params.append(f"{const}{storage_ctype(t.element_type)} *IREEC_RESTRICT binding{s.attributes['binding'].value}")
            arg_types.append(t)
        params += ["int64_t workgroup_id_x", "int64_t workgroup_id_y", "int64_t workgroup_id_z"]
        arg_types += [T.index] * 3
        blk = Block(arg_types)
        for s, a in zip(subspans, blk.args):
            self.map[s.results[0]] = a
        vb = Builder.at_end(blk)
        for p in params[len(subspans):]:
            vb.create("emitc.verbatim", [], [], {"value": StringAttr(f"(void){p.split()[-1]};")})
        self.convert_block(self.kernel.body, blk)
        return Operation("emitc.func", attributes={
            "sym_name": StringAttr(self.entry + "_workgroup"), "specifiers": _str_array(["static"]),
            "params": _str_array(params), "result": StringAttr("void"), "kind": StringAttr("kernel"),
            "bindings": _str_array([p.split(" *")[0] for p in params[: len(subspans)]]),
        }, regions=[Region([blk])], loc=self.kernel.loc)

    def v(self, x: Value) -> Value:
        return self.map.get(x, x)

    def convert_block(self, src: Block, dst: Block) -> None:
        b = Builder.at_end(dst)
        for op in src.ops:
            self.convert_op(op, b)

    def convert_op(self, op: Operation, b: Builder) -> None:
        name = op.name
        b.loc = op.loc
        if name in ("hal.interface.binding.subspan", "func.return", "scf.yield"):
            return
        if name == "memref.subview":
            # Strided types carry absolute offsets from the base pointer.
            self.map[op.results[0]] = self.v(op.operands[0])
            self._types = getattr(self, "_types", {})
            return
        if name == "memref.alloca":
            t = op.results[0].type
            r = b.create("emitc.variable", [], [t], {"array_size": IntegerAttr(t.num_elements, T.index),
                                                       "element": StringAttr(storage_ctype(t.element_type))})
            self.map[op.results[0]] = r.result
            return
        if name in ("memref.load", "memref.store"):
            mem = op.operands[0] if name == "memref.load" else op.operands[1]
            strides, offset = strides_and_offset(mem.type)
            idx = op.operands[1:] if name == "memref.load" else op.operands[2:]
            attrs = {"strides": DenseArrayAttr(T.i64, tuple(strides)), "offset": IntegerAttr(offset, T.index),
                     "element_type": TypeAttr(mem.type.element_type)}
            if name == "memref.load":
                r = b.create("emitc.load", [self.v(mem)] + [self.v(i) for i in idx], [op.results[0].type], attrs)
                self.map[op.results[0]] = r.result
            else:
                b.create("emitc.store", [self.v(op.operands[0]), self.v(mem)] + [self.v(i) for i in idx], [], attrs)
            return
        if name == "scf.for":
            lb, ub, step = (self.v(x) for x in op.operands[:3])
            if len(op.operands) > 3:
                raise CompileError("scf.for with iter_args is not supported in kernels yet", op.loc)
            nb = Block([T.index])
            self.map[op.body.args[0]] = nb.args[0]
            self.convert_block(op.body, nb)
            b.create("emitc.for", [lb, ub, step], [], regions=[Region([nb])])
            return
        if name == "arith.constant":
            t = op.results[0].type
            if isinstance(t, T.ShapedType):
                raise CompileError("a tensor constant reached kernel code generation", op.loc)
            r = b.create("emitc.constant", [], [t], {"value": op.attributes["value"]})
            self.map[op.results[0]] = r.result
            return
        if (op.dialect in ("arith", "math")) and len(op.results) == 1:
            r = b.create("emitc.expression", [self.v(x) for x in op.operands], [op.results[0].type],
                         {"c": StringAttr(c_expression(op))})
            self.map[op.results[0]] = r.result
            return
        raise CompileError(f"'{name}' cannot be lowered to C yet", op.loc)


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
                kf = KernelLowering(kernel, c_ident(entry)).run()
                kf.attributes["workgroup_count"] = exp.attributes.get(
                    "workgroup_count", DenseArrayAttr(T.i64, (1, 1, 1)))
                kf.attributes["launch"] = StringAttr(c_ident(entry))
                entries[entry] = kf
                new_ops.append(kf)
        hosts = []
        for f in functions(module):
            if "iree.abi.stub" in f.attributes:
                hosts.append(_lower_host(f, ctx.module_name, entries))
        for op in list(module.body.ops):
            if op.name in ("hal.executable", "func.func"):
                op.drop_all_references()
                op.detach()
        for op in new_ops + hosts:
            module.body.append(op)

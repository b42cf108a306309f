"""Kernels → emitc-like ops (C statements as ops).

Mirrors MLIR's SCF/Arith/Math/MemRef → EmitC patterns as IREE's C-emitting backends use them:
a kernel becomes an ``emitc.func`` over typed binding pointers and workgroup ids.
ireec-specific ops: ``emitc.load`` / ``emitc.store`` index a pointer with the static strides
and offset of the memref they came from.
"""
from __future__ import annotations


from typing import Dict

from ...emitc.arith_to_c import c_expression
from ...emitc.ctypes import storage_ctype
from ...ir import types as T
from ...ir.attributes import (ArrayAttr, DenseArrayAttr, IntegerAttr, StringAttr, TypeAttr)
from ...ir.core import Block, Builder, Operation, Region, Value
from ...ir.diagnostics import CompileError
from ..hal.memref_utils import strides_and_offset

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

"""Prints emitc-like ops as C99 statements (the role of MLIR's ``mlir-translate
--mlir-to-cpp``). Every SSA value becomes a ``const`` local named ``v<N>``; loops use
``int64_t`` induction variables. Output is deterministic.
"""
from __future__ import annotations

from typing import Dict, List

from ..ir import types as T
from ..ir.core import Block, Operation, Value
from ..ir.diagnostics import CompileError
from .ctypes import c_literal, ctype, storage_ctype


class CPrinter:
    def __init__(self):
        self.lines: List[str] = []
        self.names: Dict[Value, str] = {}
        self.counter = 0
        self.indent = 1

    def fresh(self, prefix="v") -> str:
        self.counter += 1
        return f"{prefix}{self.counter - 1}"

    def emit(self, s: str) -> None:
        self.lines.append("  " * self.indent + s)

    def name(self, v: Value) -> str:
        try:
            return self.names[v]
        except KeyError:
            raise CompileError(f"C printer: value of type {v.type} used before definition") from None

    def print_func(self, f: Operation) -> str:
        """The whole C function definition for an emitc.func."""
        params = [p.value for p in f.attributes["params"].value]
        spec = " ".join(s.value for s in f.attributes["specifiers"].value) + " " if "specifiers" in f.attributes else ""
        blk = f.body
        if f.attributes["kind"].value == "kernel":
            for a, p in zip(blk.args, params):
                self.names[a] = p.split()[-1].lstrip("*")
        _erase_dead(blk)
        head = f"{spec}{f.attributes['result'].value} {f.attributes['sym_name'].value}({', '.join(params) or 'void'})"
        self.print_block(blk)
        return head + " {\n" + "\n".join(self.lines) + "\n}\n"

    def print_block(self, blk: Block) -> None:
        for op in blk.ops:
            self.print_op(op)

    def print_op(self, op: Operation) -> None:
        n = op.name
        if n == "emitc.constant":
            t = op.results[0].type
            v = self.fresh()
            self.names[op.results[0]] = v
            self.emit(f"const {ctype(t)} {v} = {c_literal(op.attributes['value'].value, t)};")
        elif n == "emitc.expression":
            v = self.fresh()
            self.names[op.results[0]] = v
            expr = op.attributes["c"].value.format(*[self.name(x) for x in op.operands])
            self.emit(f"const {ctype(op.results[0].type)} {v} = {expr};")
        elif n in ("emitc.load", "emitc.store"):
            et = op.attributes["element_type"].value
            strides = list(op.attributes["strides"].value)
            off = op.attributes["offset"].value
            if n == "emitc.load":
                ptr, idx = op.operands[0], op.operands[1:]
            else:
                ptr, idx = op.operands[1], op.operands[2:]
            terms = [str(off)] if off else []
            for i, s in zip(idx, strides):
                terms.append(self.name(i) if s == 1 else f"{self.name(i)} * {s}")
            sub = f"{self.name(ptr)}[{' + '.join(terms) or '0'}]"
            if n == "emitc.load":
                v = self.fresh()
                self.names[op.results[0]] = v
                rhs = sub
                if isinstance(et, T.FloatType) and et.name == "f16":
                    rhs = f"ireec_f16_to_f32({sub})"
                elif isinstance(et, T.FloatType) and et.name == "bf16":
                    rhs = f"ireec_bf16_to_f32({sub})"
                elif isinstance(et, T.IntegerType) and et.width == 1:
                    rhs = f"({sub} != 0)"
                self.emit(f"const {ctype(et)} {v} = {rhs};")
            else:
                val = self.name(op.operands[0])
                if isinstance(et, T.FloatType) and et.name == "f16":
                    val = f"ireec_f32_to_f16({val})"
                elif isinstance(et, T.FloatType) and et.name == "bf16":
                    val = f"ireec_f32_to_bf16({val})"
                elif isinstance(et, T.IntegerType) and et.width == 1:
                    val = f"(uint8_t){val}"
                self.emit(f"{sub} = {val};")
        elif n == "emitc.for":
            lb, ub, step = (self.name(x) for x in op.operands)
            iv = self.fresh("i")
            self.names[op.body.args[0]] = iv
            self.emit(f"for (int64_t {iv} = {lb}; {iv} < {ub}; {iv} += {step}) {{")
            self.indent += 1
            self.print_block(op.body)
            self.indent -= 1
            self.emit("}")
        elif n == "emitc.variable":
            v = self.fresh("t")
            self.names[op.results[0]] = v
            self.emit(f"{op.attributes['element'].value} {v}[{op.attributes['array_size'].value}];")
        elif n == "emitc.call_opaque":
            args = ", ".join(a.value for a in op.attributes["args"].value)
            self.emit(f"{op.attributes['callee'].value}({args});")
        elif n == "emitc.return":
            self.emit(f"return {op.attributes['value'].value};")
        elif n == "emitc.verbatim":
            self.emit(op.attributes["value"].value)
        else:
            raise CompileError(f"C printer: unexpected op '{n}'", op.loc)


_PURE = {"emitc.constant", "emitc.expression", "emitc.load", "emitc.variable"}


def _erase_dead(blk: Block) -> None:
    """Drop side-effect-free ops whose results are unused (C warns on unused locals)."""
    changed = True
    while changed:
        changed = False
        for op in reversed(list(_walk_ops(blk))):
            if op.name in _PURE and all(not r.uses for r in op.results):
                op.erase()
                changed = True


def _walk_ops(blk: Block):
    for op in blk.ops:
        yield op
        for r in op.regions:
            for b in r.blocks:
                yield from _walk_ops(b)


def print_function(f: Operation) -> str:
    return CPrinter().print_func(f)


__all__ = ["print_function", "CPrinter", "storage_ctype"]

"""Prints emitc-like ops as C99 statements (the role of MLIR's ``mlir-translate
--mlir-to-cpp``). Every computed SSA value becomes a ``const`` local named ``v<N>``;
scalar constants are printed inline (small index constants as plain ints, and constant
subscripts folded into the offset); mutable scalars (loop-carried values, ``scf.if``
results) are ``s<N>``, local arrays ``t<N>`` (declared with their shape and subscripted
``t[i][j]`` when the kernel lowering asks for it with a ``dims`` attribute: GCC's
vectorizer analyses such register blocks and packed tiles far better than flattened
subscripts), ``static const`` arrays ``c<N>``; loops use
induction variables ``i<N>`` of their IR type (``index`` as the kernel's ``index_ctype``:
``int32_t`` where the kernel lowering proved every index fits, else ``int64_t``), preceded by ``IREEC_IVDEP`` when the
``iree-codegen-mark-independent-loops`` pass proved their iterations independent. Output is deterministic.

The printer prints and never rewrites: dead ops are erased before, by the
``remove-dead-values`` pass (:mod:`ireec.passes.vm.remove_dead_values`).
"""
from __future__ import annotations

from typing import Dict, List

from ..ir import types as T
from ..ir.core import Block, Operation, Value
from ..ir.diagnostics import CompileError
from .ctypes import c_literal, ctype, load_conversion, storage_ctype, store_conversion, unsigned_ctype


class CPrinter:
    """Prints one emitc.func; holds the C name of every value printed so far."""

    def __init__(self):
        self.lines: List[str] = []
        self.names: Dict[Value, str] = {}
        self.counter = 0
        self.indent = 1
        self.int_consts: Dict[Value, int] = {}
        self.shaped: Dict[Value, List[int]] = {}  # local arrays declared multi-dimensional
        self.index_ctype = "int64_t"  # C type of index values (a kernel's "index_ctype")

    def vtype(self, t: T.Type) -> str:
        """C type of a local value of type ``t``: ``index`` as the function's index type."""
        return self.index_ctype if isinstance(t, T.IndexType) else ctype(t)

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
        if "index_ctype" in f.attributes:
            self.index_ctype = f.attributes["index_ctype"].value
        if f.attributes["kind"].value == "kernel":
            for a, n in zip(blk.args, f.attributes["param_names"].value):
                self.names[a] = n.value
        head = f"{spec}{f.attributes['result'].value} {f.attributes['sym_name'].value}({', '.join(params) or 'void'})"
        self.print_block(blk)
        return head + " {\n" + "\n".join(self.lines) + "\n}\n"

    def print_block(self, blk: Block) -> None:
        for op in blk.ops:
            self.print_op(op)

    def plain(self, v: Value) -> str:
        """A loop bound or step: index constants as plain decimals, others by name."""
        c = self.int_consts.get(v)
        if c is not None and isinstance(v.type, T.IndexType):
            return str(c) if c >= 0 else f"({c})"
        return self.name(v)

    def subscript(self, ptr: Value, idx, strides, off: int) -> str:
        """``ptr[off + i0 * s0 + ...]`` with constant indices folded into the offset;
        ``t[i0][i1]`` for a multi-dimensional local array accessed with its own row-major
        strides, ``(&t[0][0])[flat]`` otherwise."""
        dims = self.shaped.get(ptr)
        if dims is not None:
            row = [1] * len(dims)
            for k in range(len(dims) - 2, -1, -1):
                row[k] = row[k + 1] * dims[k + 1]
            if off == 0 and len(idx) == len(dims) and list(strides) == row:
                return self.name(ptr) + "".join(f"[{self.plain(i)}]" for i in idx)
            flat = self._flat(idx, strides, off)
            return f"(&{self.name(ptr)}{'[0]' * len(dims)})[{flat}]"
        return f"{self.name(ptr)}[{self._flat(idx, strides, off)}]"

    def _flat(self, idx, strides, off: int) -> str:
        terms = []
        for i, s in zip(idx, strides):
            c = self.int_consts.get(i)
            if c is not None:
                off += c * s
            elif s != 0:
                terms.append(self.name(i) if s == 1 else f"{self.name(i)} * {s}")
        if off or not terms:
            terms.append(str(off))
        return " + ".join(terms)

    def print_region_block(self, blk: Block) -> None:
        self.indent += 1
        self.print_block(blk)
        self.indent -= 1

    def print_op(self, op: Operation) -> None:
        """Print one op through :data:`PRINTERS` (``{op name: method}``, one per emitc op, as
        MLIR's ``printOperation`` overloads); CompileError for an op without one."""
        fn = PRINTERS.get(op.name)
        if fn is None:
            raise CompileError(f"C printer: unexpected op '{op.name}'", op.loc)
        fn(self, op)

    def _print_constant(self, op: Operation) -> None:
        # Scalar constants are printed inline where they are used.
        t = op.results[0].type
        val = op.attributes["value"].value
        lit = c_literal(val, t)
        if isinstance(t, T.IndexType) and -32768 < int(val) < 32768:
            # Small index constants as plain int literals (their products fit in int).
            lit = str(int(val))
        self.names[op.results[0]] = f"({lit})" if lit.startswith("-") else lit
        if isinstance(t, (T.IndexType, T.IntegerType)) and not (isinstance(t, T.IntegerType) and t.width == 1):
            self.int_consts[op.results[0]] = int(val)

    def _print_expression(self, op: Operation) -> None:
        v = self.fresh()
        self.names[op.results[0]] = v
        expr = op.attributes["c"].value.format(*[self.name(x) for x in op.operands])
        self.emit(f"const {self.vtype(op.results[0].type)} {v} = {expr};")

    def _print_read(self, op: Operation) -> None:
        v = self.fresh()
        self.names[op.results[0]] = v
        self.emit(f"const {self.vtype(op.results[0].type)} {v} = {self.name(op.operands[0])};")

    def _print_assign(self, op: Operation) -> None:
        self.emit(f"{self.name(op.operands[0])} = {self.name(op.operands[1])};")

    def _print_load_store(self, op: Operation) -> None:
        n = op.name
        et = op.attributes["element_type"].value
        strides = list(op.attributes["strides"].value)
        off = op.attributes["offset"].value
        if n == "emitc.load":
            ptr, idx = op.operands[0], op.operands[1:]
        else:
            ptr, idx = op.operands[1], op.operands[2:]
        sub = self.subscript(ptr, idx, strides, off)
        if n == "emitc.load":
            v = self.fresh()
            self.names[op.results[0]] = v
            rhs = sub
            conv = load_conversion(et)
            if conv:
                rhs = f"{conv}({sub})"
            elif isinstance(et, T.IntegerType) and et.width == 1:
                rhs = f"({sub} != 0)"
            self.emit(f"const {ctype(et)} {v} = {rhs};")
        else:
            val = self.name(op.operands[0])
            conv = store_conversion(et)
            if conv:
                val = f"{conv}({val})"
            elif isinstance(et, T.IntegerType) and et.width == 1:
                val = f"(uint8_t){val}"
            self.emit(f"{sub} = {val};")

    def _print_for(self, op: Operation) -> None:
        lb, ub = self.plain(op.operands[0]), self.plain(op.operands[1])
        step_c = self.int_consts.get(op.operands[2])
        it = op.body.args[0].type
        iv = self.fresh("i")
        self.names[op.body.args[0]] = iv
        inc = f"++{iv}" if step_c == 1 else f"{iv} += {self.plain(op.operands[2])}"
        cond = f"{iv} < {ub}"
        if "unsigned" in op.attributes:
            u = "u" + self.index_ctype if isinstance(it, T.IndexType) else unsigned_ctype(it)
            cond = f"({u}){iv} < ({u}){ub}"
        if "ivdep" in op.attributes:
            self.emit("IREEC_IVDEP")
        if "simd_reduction" in op.attributes:
            self.emit(f"IREEC_SIMD_REDUCTION({op.attributes['simd_reduction'].value}, {self.name(op.operands[3])})")
        self.emit(f"for ({self.vtype(it)} {iv} = {lb}; {cond}; {inc}) {{")
        self.print_region_block(op.body)
        self.emit("}")

    def _print_if(self, op: Operation) -> None:
        self.emit(f"if ({self.name(op.operands[0])}) {{")
        self.print_region_block(op.regions[0].blocks[0])
        other = op.regions[1].blocks[0] if len(op.regions) > 1 and op.regions[1].blocks else None
        if other is not None and other.ops:
            self.emit("} else {")
            self.print_region_block(other)
        self.emit("}")

    def _print_loop(self, op: Operation) -> None:
        self.emit("for (;;) {")
        self.print_region_block(op.body)
        self.emit("}")

    def _print_break_unless(self, op: Operation) -> None:
        self.emit(f"if (!{self.name(op.operands[0])}) break;")

    def _print_variable(self, op: Operation) -> None:
        t = op.results[0].type
        if "init_values" in op.attributes:
            v = self.fresh("c")
            self.names[op.results[0]] = v
            vals = [x.value for x in op.attributes["init_values"].value]
            rows = [", ".join(vals[i: i + 16]) for i in range(0, len(vals), 16)]
            pad = "  " * (self.indent + 1)
            body = (",\n" + pad).join(rows)
            self.emit(f"IREEC_ALIGNAS(64) static const {op.attributes['element'].value} "
                      f"{v}[{op.attributes['array_size'].value}] = {{\n{pad}{body}\n{'  ' * self.indent}}};")
        elif "array_size" in op.attributes:
            v = self.fresh("t")
            self.names[op.results[0]] = v
            if "dims" in op.attributes:
                dims = [int(d) for d in op.attributes["dims"].value]
                self.shaped[op.results[0]] = dims
                self.emit(f"IREEC_LOCAL_ALIGN {op.attributes['element'].value} {v}"
                          f"{''.join(f'[{d}]' for d in dims)};")
            else:
                self.emit(f"IREEC_LOCAL_ALIGN {op.attributes['element'].value} {v}"
                          f"[{op.attributes['array_size'].value}];")
        else:
            v = self.fresh("s")
            self.names[op.results[0]] = v
            init = self.name(op.operands[0]) if op.operands else "0"
            self.emit(f"{self.vtype(t)} {v} = {init};")

    def _print_call_opaque(self, op: Operation) -> None:
        # Arguments may name the op's operands as {0}, {1}, ... (C expressions around them).
        names = [self.name(v) for v in op.operands]
        args = ", ".join(a.value.format(*names) if names else a.value for a in op.attributes["args"].value)
        self.emit(f"{op.attributes['callee'].value}({args});")

    def _print_return(self, op: Operation) -> None:
        self.emit(f"return {op.attributes['value'].value};")

    def _print_verbatim(self, op: Operation) -> None:
        self.emit(op.attributes["value"].value)


#: The printer of each emitc op ({op name: CPrinter method}).
PRINTERS = {
    "emitc.constant": CPrinter._print_constant,
    "emitc.expression": CPrinter._print_expression,
    "emitc.read": CPrinter._print_read,
    "emitc.assign": CPrinter._print_assign,
    "emitc.load": CPrinter._print_load_store,
    "emitc.store": CPrinter._print_load_store,
    "emitc.for": CPrinter._print_for,
    "emitc.if": CPrinter._print_if,
    "emitc.loop": CPrinter._print_loop,
    "emitc.break_unless": CPrinter._print_break_unless,
    "emitc.variable": CPrinter._print_variable,
    "emitc.call_opaque": CPrinter._print_call_opaque,
    "emitc.return": CPrinter._print_return,
    "emitc.verbatim": CPrinter._print_verbatim,
}


def print_function(f: Operation) -> str:
    """The C definition of one ``emitc.func`` (kernel or host function). Raises
    CompileError for an op the printer does not know."""
    return CPrinter().print_func(f)


__all__ = ["print_function", "CPrinter", "storage_ctype"]

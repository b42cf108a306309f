"""IR → MLIR text. Registered ops print in their pretty form, all others in generic form.

Value names follow mlir-opt: results ``%0, %1...`` and block arguments ``%arg0...``,
numbered afresh inside each isolated-from-above op (func.func, module...). Output is
deterministic and parses back to the same IR (tested as a round trip).
"""
from __future__ import annotations

import re
from typing import Dict, Iterable, List, Sequence

from .registry import has_trait, load_dialects, op_def
from .attributes import Attribute, UnitAttr, _key_str
from .core import Block, Operation, Region, Value

_PLAIN_SYM = re.compile(r"[A-Za-z_][A-Za-z0-9_$.\-]*")


class _Scope:
    __slots__ = ("next_value", "next_arg")

    def __init__(self):
        self.next_value = 0
        self.next_arg = 0


class Printer:
    """Accumulates text; custom op printers call ``write``/``print_*`` after the op name."""

    def __init__(self, generic: bool = False):
        load_dialects()
        self.generic = generic
        self.parts: List[str] = []
        self.indent = 0
        self.names: Dict[Value, str] = {}
        self.scopes: List[_Scope] = [_Scope()]
        self.block_names: Dict[Block, str] = {}

    # --------------------------------------------------------------- output
    def write(self, s: str) -> None:
        self.parts.append(s)

    def newline(self) -> None:
        self.parts.append("\n" + "  " * self.indent)

    def text(self) -> str:
        return "".join(self.parts)

    # ---------------------------------------------------------------- names
    def name_of(self, v: Value) -> str:
        n = self.names.get(v)
        if n is None:
            # A value used before its definition is printed (e.g. a forward block arg).
            n = self._fresh_value_name()
            self.names[v] = n
        return n

    def _fresh_value_name(self) -> str:
        s = self.scopes[-1]
        n = f"%{s.next_value}"
        s.next_value += 1
        return n

    def _name_results(self, op: Operation) -> None:
        if not op.results:
            return
        if len(op.results) == 1:
            if op.results[0] not in self.names:
                self.names[op.results[0]] = self._fresh_value_name()
            return
        base = self._fresh_value_name()
        for i, r in enumerate(op.results):
            self.names[r] = f"{base}#{i}"

    def name_block_args(self, block: Block) -> None:
        s = self.scopes[-1]
        for a in block.args:
            if a not in self.names:
                self.names[a] = f"%arg{s.next_arg}"
                s.next_arg += 1

    # ------------------------------------------------------------ elements
    def print_operand(self, v: Value) -> None:
        self.write(self.name_of(v))

    def print_operands(self, vals: Iterable[Value]) -> None:
        self.write(", ".join(self.name_of(v) for v in vals))

    def print_type(self, t) -> None:
        self.write(str(t))

    def print_types(self, ts: Iterable) -> None:
        self.write(", ".join(str(t) for t in ts))

    def print_attr(self, a: Attribute) -> None:
        self.write(str(a))

    def print_symbol(self, name: str) -> None:
        self.write("@" + name if _PLAIN_SYM.fullmatch(name) else "@" + str_literal(name))

    def print_attr_dict(self, attrs: Dict[str, Attribute], elided: Sequence[str] = (),
                        keyword: bool = False) -> None:
        items = [(k, v) for k, v in attrs.items() if k not in elided]
        if not items:
            return
        body = ", ".join(_key_str(k) if isinstance(v, UnitAttr) else f"{_key_str(k)} = {v}" for k, v in items)
        self.write((" attributes {" if keyword else " {") + body + "}")

    def print_successor(self, b: Block) -> None:
        self.write(self.block_names.get(b, "^bb?"))

    # ------------------------------------------------------------ regions
    def print_region(self, region: Region, print_entry_block_args: bool = True,
                     print_empty_block: bool = False) -> None:
        self.write("{")
        self.indent += 1
        for i, b in enumerate(region.blocks):
            self.block_names[b] = f"^bb{i}"
        for i, b in enumerate(region.blocks):
            self.name_block_args(b)
            show_header = (i > 0 or (print_entry_block_args and b.args)
                           or (print_empty_block and not b.ops))
            if show_header:
                self.indent -= 1
                self.newline()
                self.write(self.block_names[b])
                if b.args:
                    self.write("(" + ", ".join(f"{self.names[a]}: {a.type}" for a in b.args) + ")")
                self.write(":")
                self.indent += 1
            for op in b.ops:
                self.newline()
                self.print_op(op)
        self.indent -= 1
        self.newline()
        self.write("}")

    # ---------------------------------------------------------- operations
    def print_op(self, op: Operation) -> None:
        isolated = has_trait(op, "isolated")
        self._name_results(op)
        if op.results:
            if len(op.results) == 1:
                self.write(self.names[op.results[0]] + " = ")
            else:
                self.write(self.names[op.results[0]].split("#")[0] + f":{len(op.results)} = ")
        if isolated:
            self.scopes.append(_Scope())
        try:
            d = op_def(op.name)
            if not self.generic and d is not None and d.print is not None:
                self.write(_short_name(op))
                d.print(self, op)
            else:
                self.print_generic(op)
        finally:
            if isolated:
                self.scopes.pop()

    def print_generic(self, op: Operation) -> None:
        self.write(str_literal(op.name) + "(")
        self.print_operands(op.operands)
        self.write(")")
        if op.successors:
            self.write("[" + ", ".join(self.block_names.get(b, "^bb?") for b in op.successors) + "]")
        if op.regions:
            self.write(" (")
            for i, r in enumerate(op.regions):
                if i:
                    self.write(", ")
                self.print_region(r, print_entry_block_args=True, print_empty_block=True)
            self.write(")")
        self.print_attr_dict(op.attributes)
        self.write(" : (" + ", ".join(str(v.type) for v in op.operands) + ") -> ")
        rts = [str(r.type) for r in op.results]
        self.write("(" + ", ".join(rts) + ")")

    def print_module(self, module: Operation) -> str:
        self.print_op(module)
        self.write("\n")
        res = getattr(module, "resources", None)
        if res:
            self.write("\n{-#\n  dialect_resources: {\n    builtin: {\n")
            items = [f"      {k}: \"0x{v.hex().upper()}\"" for k, v in sorted(res.items())]
            self.write(",\n".join(items))
            self.write("\n    }\n  }\n#-}\n")
        return self.text()


def _short_name(op: Operation) -> str:
    """Ops print without dialect prefix where MLIR does (``return`` inside func.func)."""
    if op.name == "builtin.module":
        return "module"
    if op.name == "func.return":
        p = op.parent_op
        if p is not None and p.name == "func.func":
            return "return"
    return op.name


def str_literal(s: str) -> str:
    from .attributes import escape_string

    return escape_string(s)


def print_module(module: Operation, generic: bool = False) -> str:
    """The module as MLIR text (pretty form where registered; generic otherwise)."""
    return Printer(generic=generic).print_module(module)


def print_op(op: Operation, generic: bool = False) -> str:
    p = Printer(generic=generic)
    p.print_op(op)
    return p.text()

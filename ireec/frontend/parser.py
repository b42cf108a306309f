"""MLIR text → IR: a recursive-descent parser over the source string.

Reads the generic form of any op and, through the op registry, the pretty (custom)
form of registered ops. Grammar source: https://mlir.llvm.org/docs/LangRef/
Handles type and attribute aliases, ``loc(...)`` (kept as text), the
``{-# dialect_resources #-}`` section, and forward references to values and blocks.
Errors raise :class:`CompileError` at the offending ``file:line:col``.

The parser is layered by module, each class extending the one before:
:class:`~ireec.frontend.lexer.Lexer` (tokens), :class:`~ireec.frontend.type_parser.TypeParser`
(types), :class:`~ireec.frontend.attribute_parser.AttributeParser` (attributes, affine
maps) and :class:`Parser` here (SSA values, operations, regions, blocks, the module).
Dense literals are checked against their type in :mod:`ireec.frontend.dense`.
"""
from __future__ import annotations

import re
from typing import Dict, List, Optional, Tuple, Union

from ..ir.registry import has_trait, load_dialects, op_def
from ..ir import types as T
from ..ir.attributes import Attribute
from ..ir.core import Block, Operation, Region, Value, make_module
from ..ir.diagnostics import CompileError, Location, register_source
from .attribute_parser import AttributeParser
from .lexer import SUFFIX_ID
from .source import SourceBuffer, load_source

# The parser's public names, importable from here as before the split into modules
# (the dialects register attribute hooks and build dense literals through these).
from ..ir.registry import DIALECT_ATTR_PARSERS, register_dialect_attr_parser  # noqa: E402,F401
from .dense import check_dense_type, check_int_range, hex_float, int_range, make_dense  # noqa: E402,F401
from .lexer import Lexer  # noqa: E402,F401
from .type_parser import MAX_DIM, TypeParser  # noqa: E402,F401

_OPNAME = re.compile(r"[A-Za-z_][A-Za-z0-9_$.]*")
_BLOCK_NAME = re.compile(r"\^[A-Za-z0-9_$.\-]+")


class _Placeholder(Value):
    """A forward-referenced value, replaced when its definition is parsed. ``use_scopes``
    are the value scopes open at the use (innermost last)."""

    __slots__ = ("ref_loc", "use_scopes")


class Parser(AttributeParser):
    """Parses one MLIR source text. Custom op parsers use the ``parse_*``/``try_*`` API.

    ``text``: the source as a str or a :class:`SourceBuffer` (whose long hex literals are
    already decoded: ``self.text`` holds them as ``"0x"``, ``self.source.blobs`` their bytes).
    Locations are the true ``line:col`` of the file either way.
    """

    def __init__(self, text: Union[str, SourceBuffer], filename: str = "<input>"):
        load_dialects()
        super().__init__(text, filename)
        self.resources: Dict[str, bytes] = {}
        self.scopes: List[Dict[str, Value]] = [{}]
        self.forward: Dict[str, _Placeholder] = {}
        self.block_scopes: List[Dict[str, Block]] = []
        self.default_dialects: List[str] = []
        self._block_fwd_locs: Dict[int, Location] = {}
        self._scope_floor = 0  # index of the outermost scope visible (isolated regions)
        register_source(filename, self.text, self.source.display_holes())

    # ------------------------------------------------------------- SSA values
    def parse_operand(self) -> Tuple[str, Location]:
        """An SSA use ``%name`` or ``%name#3``; resolve it later with :meth:`resolve`."""
        loc = self.loc()
        if not self.text.startswith("%", self.pos):
            raise self.error("expected SSA operand")
        m = SUFFIX_ID.match(self.text, self.pos + 1)
        if not m:
            raise self.error("expected SSA operand name")
        name = "%" + m.group(0)
        self.pos = m.end()
        if self.text.startswith("#", self.pos):
            m2 = re.compile(r"#([0-9]+)").match(self.text, self.pos)
            if m2:
                self.pos = m2.end()
                name += "#" + m2.group(1)
        return name, loc

    def peek_operand(self) -> bool:
        return self.peek("%")

    def parse_operand_list(self, delim: Optional[str] = None) -> List[Tuple[str, Location]]:
        """Comma-separated operands, optionally inside ``delim`` ('()' or '[]')."""
        out = []
        if delim:
            self.expect(delim[0])
            if self.try_punct(delim[1]):
                return out
        if delim or self.peek("%"):
            out.append(self.parse_operand())
            while self.try_punct(","):
                out.append(self.parse_operand())
        if delim:
            self.expect(delim[1])
        return out

    def lookup(self, name: str) -> Optional[Value]:
        """The value ``name`` is bound to in the scopes visible here (an isolated-from-above
        region sees none of its ancestors' values), or None."""
        for i in range(len(self.scopes) - 1, self._scope_floor - 1, -1):
            v = self.scopes[i].get(name)
            if v is not None:
                return v
        return None

    def resolve(self, ref: Tuple[str, Location], type: T.Type) -> Value:
        name, loc = ref
        v = self.lookup(name)
        if v is None:
            v = self.forward.get(name)
            if v is None:
                v = _Placeholder(type)
                v.ref_loc = loc
                v.use_scopes = tuple(self.scopes)
                self.forward[name] = v
            return v
        if v.type != type:
            raise CompileError(f"use of value '{name}' expects different type than prior uses: "
                               f"'{type}' vs '{v.type}'", loc)
        return v

    def resolve_list(self, refs, types) -> List[Value]:
        types = list(types)
        if len(refs) != len(types):
            loc = refs[0][1] if refs else self.loc()
            raise CompileError(f"{len(refs)} operands present, but expected {len(types)}", loc)
        return [self.resolve(r, t) for r, t in zip(refs, types)]

    def define(self, name: str, v: Value, loc: Location, block: Optional[Block] = None) -> None:
        """Bind ``name`` to ``v`` (defined at ``loc`` by an op of ``block``), resolving
        forward uses. A use outside the region of the definition is out of its scope:
        CompileError at the use. A forward use inside that region resolves, as in MLIR's
        parser; whether the definition dominates it is the verifier's question."""
        scope = self.scopes[-1]
        if name in scope:
            raise CompileError(f"redefinition of SSA value '{name}'", loc)
        ph = self.forward.pop(name, None)
        if ph is not None:
            if not any(s is scope for s in ph.use_scopes):
                raise CompileError(f"use of value '{name}' outside the region that defines it "
                                   f"(at line {loc.line}, column {loc.col})", ph.ref_loc)
            if ph.type != v.type:
                raise CompileError(f"definition of SSA value '{name}' has type '{v.type}' but "
                                   f"it was used with type '{ph.type}'", ph.ref_loc)
            ph.replace_all_uses_with(v)
        scope[name] = v
        v.name_hint = name[1:].split("#")[0]

    # ----------------------------------------------------------- operations
    def parse_operation(self, block: Block) -> Operation:
        loc = self.loc()
        result_names: List[Tuple[str, int]] = []
        if self.peek("%"):
            while True:
                name, _ = self.parse_operand()
                count = 1
                if self.peek(":") and not self.peek("::"):
                    save = self.pos
                    self.pos += 1
                    n = self.try_integer()
                    if n is None:
                        self.pos = save
                    else:
                        count = n
                result_names.append((name, count))
                if not self.try_punct(","):
                    break
            self.expect("=", "after result names")
            loc = self.loc()
        nres = sum(c for _, c in result_names)
        op = self._parse_op_body(loc, nres)
        self.parse_optional_location()
        if nres != len(op.results):
            raise CompileError(f"operation '{op.name}' defines {len(op.results)} results but was "
                               f"provided {nres} to bind", loc)
        i = 0
        for name, count in result_names:
            if count == 1:
                self.define(name, op.results[i], loc, block)
            else:
                for k in range(count):
                    self.define(f"{name}#{k}", op.results[i + k], loc, block)
                self.scopes[-1][name] = op.results[i]
            i += count
        block.append(op)
        return op

    def _parse_op_body(self, loc: Location, nres: int) -> Operation:
        if self.peek('"'):
            name = self.parse_string()
            op = self.parse_generic_op(name, loc)
        else:
            m = _OPNAME.match(self.text, self.pos)
            if not m:
                raise self.error("expected operation name")
            name = m.group(0)
            self.pos = m.end()
            full = self._resolve_op_name(name)
            d = op_def(full) if full else None
            if d is None or d.parse is None:
                self.pos = m.start()
                raise CompileError(f"custom op '{name}' is unknown (no pretty-form parser is "
                                   f"registered; the generic form \"{name}\"(...) is accepted)", loc)
            self._pending_results = nres
            op = d.parse(self, full, loc)
            op.loc = loc
        return op

    @property
    def pending_result_count(self) -> int:
        """How many results the op being parsed binds (for ops whose types are implicit)."""
        return getattr(self, "_pending_results", 0)

    def _resolve_op_name(self, name: str) -> Optional[str]:
        if op_def(name) is not None:
            return name
        if "." not in name:
            for d in reversed(self.default_dialects):
                if op_def(f"{d}.{name}") is not None:
                    return f"{d}.{name}"
            if op_def(f"builtin.{name}") is not None:
                return f"builtin.{name}"
            if op_def(f"func.{name}") is not None:
                return f"func.{name}"
        return None

    def parse_generic_op(self, name: str, loc: Location) -> Operation:
        refs = self.parse_operand_list("()")
        successors = []
        if self.try_punct("["):
            while True:
                successors.append(self.parse_successor())
                if not self.try_punct(","):
                    break
            self.expect("]")
        attrs: Dict[str, Attribute] = {}
        if self.peek("<{"):
            self.pos += 1
            attrs.update(self.parse_attr_dict())
            self.expect(">")
        op = Operation(name, loc=loc)
        if self.try_punct("("):
            while True:
                op.add_region(self.parse_region(isolated=has_trait(name, "isolated")))
                if not self.try_punct(","):
                    break
            self.expect(")")
        attrs.update(self.parse_optional_attr_dict())
        self.expect(":", "and function type after generic operation")
        ftloc = self.loc()
        ft = self.parse_type()
        if not isinstance(ft, T.FunctionType):
            raise CompileError("expected function type for generic operation", ftloc)
        operands = self.resolve_list(refs, ft.inputs)
        for v in operands:
            op._append_operand(v)
        from ..ir.core import OpResult

        op.results = [OpResult(t, op, i) for i, t in enumerate(ft.results)]
        op.attributes = attrs
        op.successors = successors
        return op

    def parse_successor(self) -> Block:
        self.skip_ws()
        loc = self.loc()
        m = _BLOCK_NAME.match(self.text, self.pos)
        if not m:
            raise self.error("expected block reference (^bb...)")
        name = m.group(0)
        self.pos = m.end()
        scope = self.block_scopes[-1] if self.block_scopes else None
        if scope is None:
            raise CompileError("block reference outside a region", loc)
        b = scope.get(name)
        if b is None:
            b = Block()
            self._block_fwd_locs[id(b)] = loc
            scope[name] = b
        return b

    def parse_successor_with_args(self):
        """``^bb1(%a, %b : i32, f32)`` or ``^bb1``; returns (block, operand values)."""
        b = self.parse_successor()
        vals = []
        if self.peek("("):
            self.expect("(")
            refs = []
            if not self.try_punct(")"):
                refs.append(self.parse_operand())
                while self.try_punct(","):
                    refs.append(self.parse_operand())
                self.expect(":")
                tys = self.parse_type_list()
                self.expect(")")
                vals = self.resolve_list(refs, tys)
        return b, vals

    # --------------------------------------------------------------- regions
    def parse_region(self, entry_args: Optional[List[Tuple[Tuple[str, Location], T.Type]]] = None,
                     isolated: bool = False) -> Region:
        """``{ ops }`` or ``{ ^bb0(...): ops ^bb1: ... }``. ``entry_args`` are (ref, type)
        pairs already parsed in the op's own syntax (func arguments)."""
        self.expect("{")
        region = Region()
        self.scopes.append({})
        self.block_scopes.append({})
        saved_forward = None
        saved_floor = self._scope_floor
        if isolated:
            saved_forward, self.forward = self.forward, {}
            self._scope_floor = len(self.scopes) - 1
        try:
            first = True
            while not self.peek("}"):
                if self.at_end():
                    raise self.error("expected '}' to close region")
                if self.peek("^"):
                    blk = region.add_block(self._parse_block_header())
                elif first:
                    blk = region.add_block(Block())
                    for ref, ty in entry_args or ():
                        self.define(ref[0], blk.add_arg(ty), ref[1])
                else:
                    raise self.error("expected block label (^bb...) or '}'")
                first = False
                while not self.peek("}") and not self.peek("^"):
                    if self.at_end():
                        raise self.error("expected '}' to close region")
                    self.parse_operation(blk)
            if first and entry_args:
                blk = region.add_block(Block())
                for ref, ty in entry_args:
                    blk.add_arg(ty)
            self.expect("}")
            for name, b in self.block_scopes[-1].items():
                if b.parent is None:
                    raise CompileError(f"reference to an undefined block '{name}'", self._block_fwd_locs.get(id(b)))
            if isolated and self.forward:
                name, ph = next(iter(self.forward.items()))
                raise CompileError(f"use of undeclared SSA value name '{name}'", ph.ref_loc)
        finally:
            self.scopes.pop()
            self.block_scopes.pop()
            if isolated:
                self.forward = saved_forward
            self._scope_floor = saved_floor
        return region

    def _parse_block_header(self) -> Block:
        loc = self.loc()
        m = _BLOCK_NAME.match(self.text, self.pos)
        if not m:
            raise self.error("expected block label (^bb...)")
        name = m.group(0)
        self.pos = m.end()
        scope = self.block_scopes[-1]
        blk = scope.get(name)
        if blk is None:
            blk = Block()
            scope[name] = blk
        elif blk.parent is not None:
            raise CompileError(f"redefinition of block '{name}'", loc)
        if self.try_punct("("):
            if not self.try_punct(")"):
                while True:
                    ref = self.parse_operand()
                    self.expect(":")
                    ty = self.parse_type()
                    self.parse_optional_location()
                    a = blk.add_arg(ty)
                    self.define(ref[0], a, ref[1])
                    if not self.try_punct(","):
                        break
                self.expect(")")
        self.expect(":", "after block label")
        return blk

    # ---------------------------------------------------------------- module
    def parse_module(self) -> Operation:
        top = Block()
        self.block_scopes.append({})
        loc0 = self.loc()
        while not self.at_end():
            if self.peek("{-#"):
                self._parse_resources()
                continue
            if self.peek("#") or self.peek("!"):
                self._parse_alias_def()
                continue
            self.parse_operation(top)
        if self.forward:
            name, ph = next(iter(self.forward.items()))
            raise CompileError(f"use of undeclared SSA value name '{name}'", ph.ref_loc)
        ops = top.ops
        if len(ops) == 1 and ops[0].name == "builtin.module":
            module = ops[0]
            module.detach()
        else:
            module = make_module(loc0)
            for op in list(ops):
                op.detach()
                module.body.append(op)
        module.resources = dict(self.resources)
        return module

    def _parse_alias_def(self):
        loc = self.loc()
        kind = self.text[self.pos]
        self.pos += 1
        m = SUFFIX_ID.match(self.text, self.pos)
        if not m:
            raise self.error("expected alias name", loc)
        name = m.group(0)
        self.pos = m.end()
        self.expect("=", f"in alias definition '{kind}{name}'")
        if kind == "!":
            self.type_aliases[name] = self.parse_type()
        else:
            self.attr_aliases[name] = self.parse_attribute()

    def _parse_resources(self):
        self.pos += 3
        while not self.peek("#-}"):
            kind = self.parse_bare_id("resource section kind")
            self.expect(":")
            self.expect("{")
            while not self.try_punct("}"):
                self.parse_bare_id()  # the dialect owning the following blobs
                self.expect(":")
                self.expect("{")
                while not self.try_punct("}"):
                    key = self.parse_string() if self.peek('"') else self.parse_bare_id()
                    self.expect(":")
                    if self.peek('"'):
                        vloc = self.loc()
                        val = self.parse_string_or_blob()
                        if isinstance(val, bytes):
                            if kind == "dialect_resources":
                                self.resources[key] = val
                        elif kind == "dialect_resources" and val.startswith("0x"):
                            try:
                                self.resources[key] = bytes.fromhex(val[2:])
                            except ValueError:
                                raise CompileError(f"resource '{key}' is not valid hex", vloc) from None
                    else:
                        self.parse_attribute()
                    self.try_punct(",")
                self.try_punct(",")
            self.try_punct(",")
        self.expect("#-}")



def parse_source(text: Union[str, SourceBuffer], filename: str = "<input>") -> Operation:
    """Parse MLIR text (a str or a :class:`SourceBuffer`) into a ``builtin.module`` Operation
    (with ``.resources``).

    Raises CompileError (``file:line:col``) on malformed input.
    """
    p = Parser(text, filename)
    try:
        return p.parse_module()
    except RecursionError:
        raise CompileError("input nests too deeply", p.loc()) from None


def parse_file(path: str) -> Operation:
    """Read and parse an MLIR file (long hex literals decoded straight from its bytes, see
    :func:`load_source`). Raises CompileError if it cannot be read or parsed (invalid UTF-8
    at the line and column of the first bad byte)."""
    return parse_source(load_source(path), path)

"""MLIR text → IR: a recursive-descent parser over the source string.

Reads the generic form of any op and, through the op registry, the pretty (custom)
form of registered ops. Grammar source: https://mlir.llvm.org/docs/LangRef/
Handles type and attribute aliases, ``loc(...)`` (kept as text), the
``{-# dialect_resources #-}`` section, and forward references to values and blocks.
Errors raise :class:`CompileError` at the offending ``file:line:col``.
"""
from __future__ import annotations

import re
from typing import Dict, List, Optional, Tuple, Union

import numpy as np

from ..ir.registry import DIALECT_ATTR_PARSERS, has_trait, load_dialects, op_def, register_dialect_attr_parser  # noqa: F401
from ..ir import types as T
from ..ir.affine import AffineBinary, AffineConst, AffineDim, AffineMap, AffineSymbol
from ..ir.attributes import (AffineMapAttr, ArrayAttr, Attribute, BoolAttr, DenseArrayAttr,
                             DenseElementsAttr, DenseResourceAttr, DictAttr, FloatAttr,
                             IntegerAttr, LocationAttr, OpaqueAttr, StringAttr, SymbolRefAttr,
                             TypeAttr, UnitAttr, float_from_bits)
from ..ir.core import Block, Operation, Region, Value, make_module
from ..ir.diagnostics import CompileError, Location, register_source
from .source import SourceBuffer, as_source, load_source

_WS = re.compile(r"(?:\s+|//[^\n]*)*")
_BARE = re.compile(r"[A-Za-z_][A-Za-z0-9_$.\-]*")
_OPNAME = re.compile(r"[A-Za-z_][A-Za-z0-9_$.]*")
_SUFFIX = re.compile(r"[A-Za-z0-9_$.\-]+")
_INT = re.compile(r"-?(?:0x[0-9A-Fa-f]+|[0-9]+)")
_FLOAT = re.compile(r"-?[0-9]+\.[0-9]*(?:[eE][-+]?[0-9]+)?|-?[0-9]+[eE][-+]?[0-9]+")
_DIM = re.compile(r"(\?|[0-9]+)x")
_HEX2 = re.compile(r"[0-9A-Fa-f]{2}")
_BLOCK_NAME = re.compile(r"\^[A-Za-z0-9_$.\-]+")
MAX_DIM = (1 << 63) - 1  # dimensions are int64 in MLIR
_FLOAT_TYPES = ("f16", "bf16", "f32", "f64", "f80", "f128", "tf32", "f8E4M3FN", "f8E5M2",
                "f8E4M3FNUZ", "f8E5M2FNUZ", "f8E4M3B11FNUZ", "f8E4M3", "f8E3M4", "f8E8M0FNU",
                "f4E2M1FN", "f6E2M3FN", "f6E3M2FN")
_INT_TYPE = re.compile(r"(s|u)?i([0-9]+)$")

def _int_literal(s: str) -> int:
    """Decimal (leading zeros allowed, as MLIR does: ``dense<[01, 02]>``) or ``0x`` hex."""
    neg = s.startswith("-")
    body = s[1:] if neg else s
    v = int(body, 16) if body[:2] in ("0x", "0X") else int(body, 10)
    return -v if neg else v


class _Placeholder(Value):
    """A forward-referenced value, replaced when its definition is parsed. ``use_scopes``
    are the value scopes open at the use (innermost last)."""

    __slots__ = ("ref_loc", "use_scopes")


class Parser:
    """Parses one MLIR source text. Custom op parsers use the ``parse_*``/``try_*`` API.

    ``text``: the source as a str or a :class:`SourceBuffer` (whose long hex literals are
    already decoded: ``self.text`` holds them as ``"0x"``, ``self.source.blobs`` their bytes).
    Locations are the true ``line:col`` of the file either way.
    """

    def __init__(self, text: Union[str, SourceBuffer], filename: str = "<input>"):
        load_dialects()
        self.source = as_source(text, filename)
        self.text = self.source.text
        self.filename = filename
        self.pos = 0
        self.type_aliases: Dict[str, T.Type] = {}
        self.attr_aliases: Dict[str, Attribute] = {}
        self.resources: Dict[str, bytes] = {}
        self.scopes: List[Dict[str, Value]] = [{}]
        self.forward: Dict[str, _Placeholder] = {}
        self.block_scopes: List[Dict[str, Block]] = []
        self.default_dialects: List[str] = []
        self._block_fwd_locs: Dict[int, Location] = {}
        self._scope_floor = 0  # index of the outermost scope visible (isolated regions)
        register_source(filename, self.text, self.source.display_holes())

    # ------------------------------------------------------------------ lexing
    def loc_at(self, pos: int) -> Location:
        """The true ``file:line:col`` of position ``pos`` of ``self.text``."""
        return self.source.location(pos)

    def text_between(self, start: int, end: int) -> str:
        """The source text from ``start`` to ``end`` (positions in ``self.text``) as written in
        the file: elided hex literals come back (in upper case)."""
        if not self.source.blobs:
            return self.text[start:end]
        return self.source.original(start, end)

    def loc(self) -> Location:
        self.skip_ws()
        return self.loc_at(self.pos)

    def error(self, msg: str, loc: Optional[Location] = None) -> CompileError:
        return CompileError(msg, loc or self.loc())

    def skip_ws(self) -> None:
        self.pos = _WS.match(self.text, self.pos).end()

    def peek(self, s: str) -> bool:
        self.skip_ws()
        return self.text.startswith(s, self.pos)

    def peek_char(self) -> str:
        self.skip_ws()
        return self.text[self.pos: self.pos + 1]

    def at_end(self) -> bool:
        self.skip_ws()
        return self.pos >= len(self.text)

    def try_punct(self, s: str) -> bool:
        if self.peek(s):
            if s == "-" and self.text.startswith("->", self.pos):
                return False
            self.pos += len(s)
            return True
        return False

    def expect(self, s: str, context: str = "") -> None:
        if not self.try_punct(s):
            found = (self.source.original(self.pos, self.pos + 12, limit=12) if self.source.blobs
                     else self.text[self.pos: self.pos + 12]).split("\n")[0]
            ctx = f" {context}" if context else ""
            raise self.error(f"expected '{s}'{ctx}, found '{found}'" if found else f"expected '{s}'{ctx}, found end of file")

    def peek_bare_id(self) -> Optional[str]:
        self.skip_ws()
        m = _BARE.match(self.text, self.pos)
        return m.group(0) if m else None

    def parse_bare_id(self, what: str = "identifier") -> str:
        self.skip_ws()
        m = _BARE.match(self.text, self.pos)
        if not m:
            raise self.error(f"expected {what}")
        self.pos = m.end()
        return m.group(0)

    def try_keyword(self, kw: str) -> bool:
        self.skip_ws()
        if self.text.startswith(kw, self.pos):
            end = self.pos + len(kw)
            if end >= len(self.text) or not (self.text[end].isalnum() or self.text[end] in "_$."):
                self.pos = end
                return True
        return False

    def expect_keyword(self, kw: str) -> None:
        if not self.try_keyword(kw):
            raise self.error(f"expected '{kw}'")

    def parse_keyword_of(self, options) -> str:
        for o in options:
            if self.try_keyword(o):
                return o
        raise self.error(f"expected one of {', '.join(options)}")

    def parse_string(self) -> str:
        """A string literal's value (escapes ``\\\\ \\" \\n \\t \\XX`` resolved).

        An elided long hex literal (see :class:`SourceBuffer`) comes back as ``"0x"`` and its
        bytes in upper-case hex, whatever their case in the file; :meth:`parse_string_or_blob`
        gives its bytes without building that string.
        """
        self.skip_ws()
        t = self.text
        pos = self.pos
        if not t.startswith('"', pos):
            raise self.error("expected string literal")
        blob = self.source.blobs.get(pos)
        if blob is not None:
            self.pos = pos + 4
            return "0x" + blob.hex().upper()
        end = t.find('"', pos + 1)
        if end >= 0 and t.find("\\", pos + 1, end) < 0 and t.find("\n", pos + 1, end) < 0:
            self.pos = end + 1  # no escape: the value is the text between the quotes
            return t[pos + 1: end]
        i = pos + 1
        out = []
        while True:
            if i >= len(t) or t[i] == "\n":
                raise self.error("unterminated string literal", self.loc_at(self.pos))
            c = t[i]
            if c == '"':
                break
            if c == "\\":
                n = t[i + 1: i + 2]
                if n and n in '"\\':
                    out.append(n)
                    i += 2
                elif n == "n":
                    out.append("\n")
                    i += 2
                elif n == "t":
                    out.append("\t")
                    i += 2
                elif _HEX2.fullmatch(t, i + 1, i + 3):
                    out.append(chr(int(t[i + 1: i + 3], 16)))
                    i += 3
                else:
                    raise self.error("unknown escape in string literal (expected \\\\, \\\", "
                                     "\\n, \\t or two hex digits)", self.loc_at(i))
                continue
            out.append(c)
            i += 1
        self.pos = i + 1
        return "".join(out)

    def parse_string_or_blob(self) -> Union[str, bytes]:
        """A string literal: the bytes of an elided long hex literal ``"0x…"`` (decoded when
        the source was read, see :class:`SourceBuffer`), else its value as
        :meth:`parse_string` gives it (a short hex literal stays text, ``0x`` included)."""
        self.skip_ws()
        blob = self.source.blobs.get(self.pos)
        if blob is not None:
            self.pos += 4
            return blob
        return self.parse_string()

    def try_integer(self) -> Optional[int]:
        self.skip_ws()
        if _FLOAT.match(self.text, self.pos):
            return None
        m = _INT.match(self.text, self.pos)
        if not m:
            return None
        self.pos = m.end()
        return _int_literal(m.group(0))

    def parse_integer(self) -> int:
        v = self.try_integer()
        if v is None:
            raise self.error("expected integer")
        return v

    def parse_number(self):
        """An integer or float literal; returns (value, kind) with kind 'int'|'hex'|'float'."""
        self.skip_ws()
        m = _FLOAT.match(self.text, self.pos)
        if m:
            self.pos = m.end()
            return float(m.group(0)), "float"
        m = _INT.match(self.text, self.pos)
        if m:
            self.pos = m.end()
            s = m.group(0)
            return _int_literal(s), ("hex" if "x" in s else "int")
        if self.try_keyword("inf"):
            return float("inf"), "float"
        if self.try_keyword("nan"):
            return float("nan"), "float"
        raise self.error("expected number")

    def parse_symbol_name(self) -> str:
        """``@name`` or ``@"quoted name"``; returns the name without '@'."""
        self.skip_ws()
        if not self.text.startswith("@", self.pos):
            raise self.error("expected symbol name (@...)")
        self.pos += 1
        if self.text.startswith('"', self.pos):
            return self.parse_string()
        m = _SUFFIX.match(self.text, self.pos)
        if not m:
            raise self.error("expected symbol name")
        self.pos = m.end()
        return m.group(0)

    def parse_symbol_ref(self) -> SymbolRefAttr:
        root = self.parse_symbol_name()
        nested = []
        while self.peek("::@"):
            self.pos += 2
            nested.append(self.parse_symbol_name())
        return SymbolRefAttr(root, tuple(nested))

    def skip_balanced(self, open_ch: str, close_ch: str) -> str:
        """Consume ``open_ch ... close_ch`` (nesting, strings aware); returns the text."""
        self.skip_ws()
        start = self.pos
        if not self.text.startswith(open_ch, self.pos):
            raise self.error(f"expected '{open_ch}'")
        depth = 0
        i = self.pos
        t = self.text
        pairs = {"(": ")", "[": "]", "{": "}", "<": ">"}
        while i < len(t):
            c = t[i]
            if c == '"':
                j = i + 1
                while j < len(t) and t[j] != '"':
                    j += 2 if t[j] == "\\" else 1
                i = j + 1
                continue
            if c == "-" and t.startswith("->", i):
                i += 2
                continue
            if c in pairs:
                depth += 1
            elif c in (")", "]", "}", ">"):
                depth -= 1
                if depth == 0:
                    self.pos = i + 1
                    return self.text_between(start, self.pos)
            i += 1
        raise self.error(f"unbalanced '{open_ch}'", self.loc_at(start))

    # ------------------------------------------------------------- SSA values
    def parse_operand(self) -> Tuple[str, Location]:
        """An SSA use ``%name`` or ``%name#3``; resolve it later with :meth:`resolve`."""
        loc = self.loc()
        if not self.text.startswith("%", self.pos):
            raise self.error("expected SSA operand")
        m = _SUFFIX.match(self.text, self.pos + 1)
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

    # ------------------------------------------------------------------ types
    def try_type(self) -> Optional[T.Type]:
        self.skip_ws()
        c = self.text[self.pos: self.pos + 1]
        if c == "!" or c == "(":
            return self.parse_type()
        m = _BARE.match(self.text, self.pos)
        if not m:
            return None
        w = m.group(0)
        if w in ("tensor", "memref", "vector", "complex", "tuple") and self.text.startswith("<", m.end()):
            return self.parse_type()
        if w in ("index", "none") or w in _FLOAT_TYPES or _INT_TYPE.match(w):
            return self.parse_type()
        return None

    def parse_type(self) -> T.Type:
        loc = self.loc()
        t = self.text
        if t.startswith("!", self.pos):
            return self._parse_dialect_type(loc)
        if t.startswith("(", self.pos):
            ins = self.parse_type_list_parens()
            self.expect("->")
            if self.peek("("):
                outs = self.parse_type_list_parens()
            else:
                outs = [self.parse_type()]
            return T.FunctionType(tuple(ins), tuple(outs))
        m = _BARE.match(t, self.pos)
        if not m:
            raise self.error("expected type")
        w = m.group(0)
        # Element types are followed by '>' or ',' etc.; identifiers never contain '<'.
        if w in ("tensor", "memref", "vector", "complex", "tuple"):
            self.pos = m.end()
            self.expect("<")
            return getattr(self, f"_parse_{w}_body")(loc)
        if "x" in w and not w.startswith(("tensor", "memref")) and _DIM.match(w):
            raise self.error("expected type")
        self.pos = m.end()
        if w == "index":
            return T.IndexType()
        if w == "none":
            return T.NoneType()
        if w in _FLOAT_TYPES:
            return T.FloatType(w)
        mi = _INT_TYPE.match(w)
        if mi:
            return T.IntegerType(int(mi.group(2)), mi.group(1) or "")
        self.pos = m.start()
        raise self.error(f"unknown type '{w}'")

    def _parse_dims(self, allow_unranked=True):
        self.skip_ws()
        if allow_unranked and self.text.startswith("*x", self.pos):
            self.pos += 2
            return None
        dims = []
        while True:
            self.skip_ws()
            m = _DIM.match(self.text, self.pos)
            if not m:
                break
            # "0xi1" vs hex: a dim is digits then 'x' then a type or another dim.
            d = None if m.group(1) == "?" else int(m.group(1))
            if d is not None and d > MAX_DIM:
                raise self.error(f"dimension {d} is too large (dimensions are 64-bit)")
            dims.append(d)
            self.pos = m.end()
        return tuple(dims)

    def _parse_tensor_body(self, loc):
        shape = self._parse_dims()
        et = self.parse_type()
        enc = None
        if self.try_punct(","):
            enc = self.parse_attribute()
        self.expect(">", "to close tensor type")
        return T.TensorType(shape, et, enc)

    def _parse_memref_body(self, loc):
        shape = self._parse_dims()
        et = self.parse_type()
        layout = ms = None
        if self.try_punct(","):
            a = self.parse_attribute()
            if isinstance(a, IntegerAttr) or (isinstance(a, OpaqueAttr) and not a.text.startswith(("strided", "affine"))):
                ms = a
            else:
                layout = a
                if self.try_punct(","):
                    ms = self.parse_attribute()
        self.expect(">", "to close memref type")
        return T.MemRefType(shape, et, layout, ms)

    def _parse_vector_body(self, loc):
        dims, scal = [], []
        while True:
            self.skip_ws()
            m = re.compile(r"\[([0-9]+)\]x").match(self.text, self.pos)
            if m:
                dims.append(int(m.group(1)))
                scal.append(True)
                self.pos = m.end()
                continue
            m = _DIM.match(self.text, self.pos)
            if not m:
                break
            if m.group(1) == "?":
                raise self.error("vector dimensions must be static")
            dims.append(int(m.group(1)))
            scal.append(False)
            self.pos = m.end()
        et = self.parse_type()
        self.expect(">", "to close vector type")
        return T.VectorType(tuple(dims), et, tuple(scal) if any(scal) else ())

    def _parse_complex_body(self, loc):
        et = self.parse_type()
        self.expect(">")
        return T.ComplexType(et)

    def _parse_tuple_body(self, loc):
        ts = []
        if not self.try_punct(">"):
            ts.append(self.parse_type())
            while self.try_punct(","):
                ts.append(self.parse_type())
            self.expect(">")
        return T.TupleType(tuple(ts))

    def _parse_dialect_type(self, loc):
        self.pos += 1
        m = _SUFFIX.match(self.text, self.pos)
        if not m:
            raise self.error("expected dialect type or alias after '!'", loc)
        name = m.group(0)
        self.pos = m.end()
        if "." not in name or name in self.type_aliases:
            if name not in self.type_aliases:
                raise CompileError(f"undefined type alias '!{name}'", loc)
            return self.type_aliases[name]
        dialect, body = name.split(".", 1)
        if self.text.startswith("<", self.pos):
            if name == "flow.dispatch.tensor" or name == "iree_tensor_ext.dispatch.tensor":
                self.pos += 1
                access = self.parse_bare_id()
                self.expect(":")
                tt = self.parse_type()
                self.expect(">")
                return T.DispatchTensorType(access, tt)
            body += self.skip_balanced("<", ">")
        return T.OpaqueType(dialect, body)

    def parse_type_list_parens(self) -> List[T.Type]:
        self.expect("(")
        out = []
        if not self.try_punct(")"):
            out.append(self.parse_type())
            while self.try_punct(","):
                out.append(self.parse_type())
            self.expect(")")
        return out

    def parse_type_list(self) -> List[T.Type]:
        """``t1, t2`` or ``(t1, t2)``."""
        if self.peek("(") and not self._looks_like_function_type():
            return self.parse_type_list_parens()
        out = [self.parse_type()]
        while self.try_punct(","):
            out.append(self.parse_type())
        return out

    def _looks_like_function_type(self) -> bool:
        save = self.pos
        try:
            self.skip_balanced("(", ")")
            return self.peek("->")
        except CompileError:
            return False
        finally:
            self.pos = save

    def parse_colon_type_list(self) -> List[T.Type]:
        self.expect(":")
        return self.parse_type_list()

    def parse_result_types(self) -> List[T.Type]:
        """After '->': ``t`` or ``(t1, t2)``."""
        if self.peek("("):
            return self.parse_type_list_parens()
        return [self.parse_type()]

    # ------------------------------------------------------------- attributes
    def parse_attribute(self, type_hint: Optional[T.Type] = None) -> Attribute:
        loc = self.loc()
        t = self.text
        c = t[self.pos: self.pos + 1]
        if c == "#":
            return self._parse_hash_attr(loc)
        if c == "[":
            self.pos += 1
            items = []
            if not self.try_punct("]"):
                items.append(self.parse_attribute())
                while self.try_punct(","):
                    items.append(self.parse_attribute())
                self.expect("]")
            return ArrayAttr(tuple(items))
        if c == "{":
            return DictAttr(tuple(self.parse_attr_dict().items()))
        if c == '"':
            s = self.parse_string()
            if self.peek(":") and not self.peek("::"):
                save = self.pos
                self.pos += 1
                ty = self.try_type()
                if ty is None:
                    self.pos = save
            return StringAttr(s)
        if c == "@":
            return self.parse_symbol_ref()
        if c == "(":  # a function type: function_type = (i32) -> i32
            return TypeAttr(self.parse_type())
        if c == "-" or c.isdigit():
            return self._parse_number_attr(type_hint)
        w = self.peek_bare_id()
        if w is None:
            raise self.error("expected attribute")
        if w in ("true", "false"):
            self.pos += len(w)
            if self.peek(":") and not self.peek("::"):
                self.pos += 1
                ty = self.parse_type()
                return IntegerAttr(1 if w == "true" else 0, ty)
            return BoolAttr(w == "true")
        if w == "unit":
            self.pos += 4
            return UnitAttr()
        if w in ("inf", "nan"):
            return self._parse_number_attr(type_hint)
        if w == "dense" and t.startswith("<", self.pos + 5):
            self.pos += 5
            return self._parse_dense()
        if w == "dense_resource" and t.startswith("<", self.pos + 14):
            self.pos += 15
            name_loc = self.loc()
            name = self.parse_bare_id("resource name")
            self.expect(">")
            self.expect(":")
            return DenseResourceAttr(name, check_dense_type(self.parse_type(), name_loc))
        if w == "array" and t.startswith("<", self.pos + 5):
            self.pos += 6
            tloc = self.loc()
            et = self.parse_type()
            if not isinstance(et, (T.IntegerType, T.FloatType, T.IndexType)):
                raise CompileError(f"array<> elements must be integers or floats, not {et}", tloc)
            vals = []
            if self.try_punct(":"):
                while True:
                    if isinstance(et, T.IntegerType) and et.width == 1:
                        vals.append(1 if self.parse_keyword_of(("true", "false")) == "true" else 0)
                    else:
                        vloc = self.loc()
                        v, kind = self.parse_number()
                        if isinstance(et, T.FloatType):
                            v = _hex_float(v, et, vloc) if kind == "hex" else float(v)
                        elif kind == "float":
                            raise CompileError(f"floating point value in array of integer type {et}", vloc)
                        else:
                            v = check_int_range(v, et, vloc)
                        vals.append(v)
                    if not self.try_punct(","):
                        break
            self.expect(">")
            return DenseArrayAttr(et, tuple(vals))
        if w == "affine_map" and t.startswith("<", self.pos + 10):
            self.pos += 11
            m = self.parse_affine_map()
            self.expect(">")
            return AffineMapAttr(m)
        if w == "loc" and t.startswith("(", self.pos + 3):
            self.pos += 3
            return LocationAttr("loc" + self.skip_balanced("(", ")"))
        if w in ("affine_set", "strided", "sparse", "distinct", "opaque") or (
                t.startswith("<", self.pos + len(w)) and w not in ("tensor", "memref", "vector", "complex", "tuple")):
            start = self.pos
            self.pos += len(w)
            if self.text.startswith("[", self.pos):
                self.skip_balanced("[", "]")
            self.skip_balanced("<", ">")
            return OpaqueAttr(self.text_between(start, self.pos))
        ty = self.try_type()
        if ty is not None:
            return TypeAttr(ty)
        raise self.error(f"expected attribute, found '{w}'")

    def _parse_hash_attr(self, loc):
        t = self.text
        start = self.pos
        self.pos += 1
        m = _SUFFIX.match(t, self.pos)
        if not m:
            raise self.error("expected attribute alias or dialect attribute after '#'", loc)
        name = m.group(0)
        self.pos = m.end()
        if "." not in name and not t.startswith("<", self.pos):
            if name not in self.attr_aliases:
                raise CompileError(f"undefined attribute alias '#{name}'", loc)
            return self.attr_aliases[name]
        if t.startswith("<", self.pos):
            self.skip_balanced("<", ">")
        text = re.sub(r"\s+", " ", self.text_between(start, self.pos))
        hook = DIALECT_ATTR_PARSERS.get(name.split(".", 1)[0])
        if hook is not None:
            return hook(self, name, text, loc)
        return OpaqueAttr(text)

    def _parse_number_attr(self, type_hint):
        vloc = self.loc()
        v, kind = self.parse_number()
        ty = None
        if self.peek(":") and not self.peek("::"):
            save = self.pos
            self.pos += 1
            ty = self.try_type()
            if ty is None:
                self.pos = save
        if ty is None:
            ty = type_hint
        if ty is None:
            ty = T.f64 if kind == "float" else T.i64
        if isinstance(ty, T.FloatType):
            if kind == "hex":
                return FloatAttr(_hex_float(v, ty, vloc), ty)
            return FloatAttr(float(v), ty)
        if kind == "float":
            raise CompileError(f"floating point literal for integer type {ty}", vloc)
        if not isinstance(ty, (T.IntegerType, T.IndexType)):
            raise CompileError(f"integer literal for non-integer type {ty}", vloc)
        return IntegerAttr(check_int_range(v, ty, vloc), ty)

    def _parse_dense(self):
        self.expect("<")
        lit_loc = self.loc()
        hexstr = raw = None
        elems = None
        if self.peek('"'):
            hexstr = self.parse_string_or_blob()
            if isinstance(hexstr, bytes):
                hexstr, raw = None, hexstr
        elif self.peek(">"):
            elems = []
        else:
            elems = self._parse_dense_literal()
        self.expect(">")
        self.expect(":", "after dense literal")
        ty = check_dense_type(self.parse_type(), lit_loc)
        return make_dense(ty, elems, hexstr, lit_loc, raw=raw)

    def _parse_dense_literal(self):
        if self.try_punct("["):
            out = []
            if not self.try_punct("]"):
                out.append(self._parse_dense_literal())
                while self.try_punct(","):
                    out.append(self._parse_dense_literal())
                self.expect("]")
            return out
        if self.try_punct("("):
            re_ = self._parse_dense_literal()
            self.expect(",")
            im = self._parse_dense_literal()
            self.expect(")")
            return ("complex", re_, im)
        w = self.peek_bare_id()
        if w in ("true", "false"):
            self.pos += len(w)
            return ("int", 1 if w == "true" else 0)
        v, kind = self.parse_number()
        return (kind, v)

    def parse_attr_dict(self) -> Dict[str, Attribute]:
        self.expect("{")
        out: Dict[str, Attribute] = {}
        if self.try_punct("}"):
            return out
        while True:
            self.skip_ws()
            kloc = self.loc()
            if self.peek('"'):
                key = self.parse_string()
            else:
                key = self.parse_bare_id("attribute name")
            if key in out:
                raise CompileError(f"duplicate key '{key}' in dictionary attribute", kloc)
            if self.try_punct("="):
                out[key] = self.parse_attribute()
            else:
                out[key] = UnitAttr()
            if not self.try_punct(","):
                break
        self.expect("}", "to close attribute dictionary")
        return out

    def parse_optional_attr_dict(self) -> Dict[str, Attribute]:
        return self.parse_attr_dict() if self.peek("{") else {}

    def parse_optional_attr_dict_with_keyword(self) -> Dict[str, Attribute]:
        if self.try_keyword("attributes"):
            return self.parse_attr_dict()
        return {}

    # ------------------------------------------------------------ affine maps
    def parse_affine_map(self) -> AffineMap:
        names: Dict[str, AffineDim | AffineSymbol] = {}
        self.expect("(")
        nd = 0
        if not self.try_punct(")"):
            while True:
                names[self.parse_bare_id("dim name")] = AffineDim(nd)
                nd += 1
                if not self.try_punct(","):
                    break
            self.expect(")")
        ns = 0
        if self.try_punct("["):
            if not self.try_punct("]"):
                while True:
                    names[self.parse_bare_id("symbol name")] = AffineSymbol(ns)
                    ns += 1
                    if not self.try_punct(","):
                        break
                self.expect("]")
        self.expect("->")
        self.expect("(")
        results = []
        if not self.try_punct(")"):
            results.append(self._affine_expr(names))
            while self.try_punct(","):
                results.append(self._affine_expr(names))
            self.expect(")")
        return AffineMap(nd, ns, tuple(results))

    def _affine_expr(self, names):
        e = self._affine_term(names)
        while True:
            if self.try_punct("+"):
                e = AffineBinary("+", e, self._affine_term(names))
            elif self.peek("-") and not self.peek("->"):
                self.pos += 1
                r = self._affine_term(names)
                e = AffineBinary("+", e, AffineConst(-r.value) if isinstance(r, AffineConst)
                                 else AffineBinary("*", r, AffineConst(-1)))
            else:
                return e

    def _affine_term(self, names):
        e = self._affine_factor(names)
        while True:
            if self.try_punct("*"):
                e = AffineBinary("*", e, self._affine_factor(names))
                continue
            kw = None
            for k in ("floordiv", "ceildiv", "mod"):
                if self.try_keyword(k):
                    kw = k
                    break
            if kw is None:
                return e
            e = AffineBinary(kw, e, self._affine_factor(names))

    def _affine_factor(self, names):
        if self.try_punct("("):
            e = self._affine_expr(names)
            self.expect(")")
            return e
        if self.peek("-"):
            self.pos += 1
            f = self._affine_factor(names)
            return AffineConst(-f.value) if isinstance(f, AffineConst) else AffineBinary("*", f, AffineConst(-1))
        v = self.try_integer()
        if v is not None:
            return AffineConst(v)
        loc = self.loc()
        n = self.parse_bare_id("affine dim or symbol")
        if n not in names:
            raise CompileError(f"use of undeclared identifier '{n}' in affine map", loc)
        return names[n]

    # ------------------------------------------------------------- locations
    def parse_optional_location(self) -> Optional[LocationAttr]:
        if self.peek("loc(") or (self.peek("loc") and self.text.startswith("(", self.pos + 3)):
            self.pos += 3
            return LocationAttr("loc" + self.skip_balanced("(", ")"))
        return None

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
        m = _SUFFIX.match(self.text, self.pos)
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


def int_range(t: T.Type) -> Tuple[int, int]:
    """Smallest and largest integer literal accepted for ``t``: a signless ``iN`` may be
    written signed or unsigned (``-2**(N-1)`` .. ``2**N - 1``, as MLIR's parser accepts);
    ``siN`` and ``uiN`` take their own range; ``index`` is 64-bit."""
    if isinstance(t, T.IndexType):
        return -(1 << 63), (1 << 64) - 1
    w = t.width
    if t.signedness == "u":
        return 0, (1 << w) - 1
    if t.signedness == "s":
        return -(1 << (w - 1)), (1 << (w - 1)) - 1
    return -(1 << (w - 1)) if w > 1 else -1, (1 << w) - 1


def check_int_range(v: int, t: T.Type, loc: Location) -> int:
    """``v`` if it fits the integer type ``t`` (see :func:`int_range`), else CompileError;
    a CompileError too when ``t`` is not an integer or index type (a complex, a tuple, an
    opaque dialect type), which has no integer range to check against."""
    if not isinstance(t, (T.IntegerType, T.IndexType)):
        raise CompileError(f"integer literal for non-integer type {t}", loc)
    lo, hi = int_range(t)
    if not lo <= v <= hi:
        raise CompileError(f"integer constant {v} is out of range for type {t}", loc)
    return v


def _hex_float(bits: int, t: T.FloatType, loc: Location) -> float:
    """A float given by its bit pattern (``0x7FC00000`` for an f32 NaN)."""
    width = 8 * T.storage_bytes(t) if t.name in ("f16", "bf16", "f32", "f64") else 0
    if not width or not 0 <= bits < (1 << width):
        raise CompileError(f"hexadecimal float literal 0x{bits:X} does not fit type {t}", loc)
    return float_from_bits(bits, t)


def check_dense_type(ty: T.Type, loc: Location) -> T.ShapedType:
    """``ty`` if it can type a ``dense<...>`` or ``dense_resource<...>`` literal: a statically
    shaped type whose elements have an array form (integers of a supported width, index,
    floats, complex f32/f64). Otherwise a CompileError at ``loc`` naming the type, raised
    before any element is read against it."""
    if not isinstance(ty, T.ShapedType) or not ty.has_static_shape:
        raise CompileError(f"dense elements need a static shaped type, got '{ty}'", loc)
    try:
        T.numpy_dtype(ty.element_type)
    except ValueError:
        raise CompileError(f"dense elements of type {ty.element_type} are not supported", loc) from None
    return ty


def make_dense(ty: T.ShapedType, elems, hexstr: Optional[str], loc: Location, *,
               raw: Optional[bytes] = None) -> DenseElementsAttr:
    """Build a DenseElementsAttr from parsed literal elements, a "0x..." hex string, or
    ``raw``: the bytes such a string stands for, already decoded (the array is a read-only
    view of them, not a copy; bool elements excepted).

    One value for a type of many elements is a splat, kept unmaterialised. CompileError at
    ``loc`` when the literal does not fit the type: wrong element count or byte size, a
    value of the wrong kind (float for integers, complex for reals) or out of range.
    """
    et = ty.element_type
    n = ty.num_elements
    try:
        dt = T.numpy_dtype(et)
    except ValueError:
        raise CompileError(f"dense elements of type {et} are not supported", loc) from None
    if n * max(1, dt.itemsize) > MAX_DIM:
        raise CompileError(f"type {ty} has {n} elements, more bytes than a 64-bit size can count", loc)
    if hexstr is not None and raw is None:
        if not hexstr.startswith("0x"):
            raise CompileError("dense string literal must be hex ('0x...')", loc)
        try:
            raw = bytes.fromhex(hexstr[2:])
        except ValueError:
            raise CompileError("dense hex literal is not valid hex", loc) from None
    if raw is not None:
        size = 1 if dt == np.bool_ else dt.itemsize
        if len(raw) % size:
            raise CompileError(f"hex dense literal has {len(raw)} bytes, not a multiple of the "
                               f"{size}-byte elements of {ty}", loc)
        if dt == np.bool_:
            arr = np.frombuffer(raw, np.uint8).astype(np.bool_)
        else:
            arr = np.frombuffer(raw, dt)
        if arr.size == 1 and n != 1:
            return DenseElementsAttr.splat(arr[0], ty)
        if arr.size != n:
            raise CompileError(f"hex dense literal has {arr.size} elements, type {ty} needs {n}", loc)
        return DenseElementsAttr(arr.reshape(ty.shape), ty)
    flat: List = []

    def walk(x, depth):
        if isinstance(x, list):
            for y in x:
                walk(y, depth + 1)
        else:
            flat.append(x)

    walk(elems, 0)
    vals = [_elem_value(x, et, loc) for x in flat]
    if len(vals) != n and not (len(vals) == 1 and n != 1):
        raise CompileError(f"dense literal has {len(vals)} elements, but type {ty} needs {n}", loc)
    if isinstance(et, T.IntegerType) and et.signedness == "" and et.width > 1:
        # Signless ints may be written as unsigned: wrap into the signed range.
        bits = et.width
        vals = [((v + (1 << (bits - 1))) % (1 << bits)) - (1 << (bits - 1)) for v in vals]
    if len(vals) == 1 and n != 1:
        with np.errstate(over="ignore"):
            return DenseElementsAttr.splat(vals[0], ty)
    with np.errstate(over="ignore"):  # e.g. 1e5 in f16 is inf, as MLIR rounds it
        arr = np.array(vals, dtype=dt) if vals else np.zeros(0, dt)
    return DenseElementsAttr(arr.reshape(ty.shape), ty)


def _elem_value(x, et, loc):
    if isinstance(x, tuple) and x[0] == "complex":
        if not isinstance(et, T.ComplexType):
            raise CompileError(f"complex literal (re, im) in dense of non-complex type {et}", loc)
        if not isinstance(x[1], tuple) or not isinstance(x[2], tuple):
            raise CompileError("complex element parts must be numbers", loc)
        return complex(_elem_value(x[1], et.element_type, loc), _elem_value(x[2], et.element_type, loc))
    if isinstance(et, T.ComplexType):
        raise CompileError(f"expected a complex element (re, im) for type {et}", loc)
    kind, v = x
    if isinstance(et, T.FloatType):
        if kind == "hex":
            if et.name == "bf16" or T.is_small_float(et):
                if not 0 <= v < (1 << (8 * T.storage_bytes(et))):
                    raise CompileError(f"hexadecimal float literal 0x{v:X} does not fit type {et}", loc)
                return v
            return _hex_float(v, et, loc)
        if T.is_small_float(et):  # f8/f6/f4: stored as bit patterns, rounded to nearest even
            return T.small_float_to_bits(float(v), et)
        if et.name == "bf16":
            with np.errstate(over="ignore"):
                b = np.array([v], np.float32).view(np.uint32)[0]
            return int((int(b) + 0x7FFF + ((int(b) >> 16) & 1)) >> 16)
        return float(v)
    if kind == "float":
        raise CompileError(f"floating point literal in dense of integer type {et}", loc)
    if not isinstance(et, (T.IntegerType, T.IndexType)):
        raise CompileError(f"integer literal in dense of type {et}", loc)
    check_int_range(v, et, loc)
    if isinstance(et, T.IntegerType) and et.width == 1:
        return bool(v)
    return int(v)


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

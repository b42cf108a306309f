"""MLIR types: the type half of the parser (:class:`TypeParser`).

Builtin types (integers, floats, ``index``, ``none``, function types, ``tensor``,
``memref``, ``vector``, ``complex``, ``tuple``), dialect types ``!dialect.name<...>``
(kept opaque, except ``!flow.dispatch.tensor``) and type aliases ``!name``.
Grammar source: https://mlir.llvm.org/docs/LangRef/#type-system
"""
from __future__ import annotations

import re
from typing import Dict, List, Optional

from ..ir import types as T
from ..ir.attributes import IntegerAttr, OpaqueAttr
from ..ir.diagnostics import CompileError
from .lexer import BARE_ID, SUFFIX_ID, Lexer

_DIM = re.compile(r"(\?|[0-9]+)x")
MAX_DIM = (1 << 63) - 1  # dimensions are int64 in MLIR
_FLOAT_TYPES = ("f16", "bf16", "f32", "f64", "f80", "f128", "tf32", "f8E4M3FN", "f8E5M2",
                "f8E4M3FNUZ", "f8E5M2FNUZ", "f8E4M3B11FNUZ", "f8E4M3", "f8E3M4", "f8E8M0FNU",
                "f4E2M1FN", "f6E2M3FN", "f6E3M2FN")
_INT_TYPE = re.compile(r"(s|u)?i([0-9]+)$")


class TypeParser(Lexer):
    """Parses types over a :class:`Lexer`. ``type_aliases`` maps the alias names defined so
    far (without ``!``) to their types. A tensor encoding and a memref layout or memory
    space are attributes: they are read with ``parse_attribute``, which the subclass
    :class:`ireec.frontend.attribute_parser.AttributeParser` provides.
    """

    def __init__(self, text, filename: str = "<input>"):
        super().__init__(text, filename)
        self.type_aliases: Dict[str, T.Type] = {}

    def try_type(self) -> Optional[T.Type]:
        self.skip_ws()
        c = self.text[self.pos: self.pos + 1]
        if c == "!" or c == "(":
            return self.parse_type()
        m = BARE_ID.match(self.text, self.pos)
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
        m = BARE_ID.match(t, self.pos)
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
        m = SUFFIX_ID.match(self.text, self.pos)
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

"""MLIR attributes: the attribute half of the parser (:class:`AttributeParser`).

Builtin attributes (arrays, dictionaries, strings, symbol references, numbers, booleans,
``unit``, ``dense<...>``, ``dense_resource<...>``, ``array<...>``, ``affine_map<...>``,
``loc(...)``, types), dialect attributes ``#dialect.name<...>`` (through the hooks in
:data:`DIALECT_ATTR_PARSERS`, else kept opaque), attribute aliases ``#name``, attribute
dictionaries and affine maps. Grammar source: https://mlir.llvm.org/docs/LangRef/#attributes
"""
from __future__ import annotations

import re
from typing import Dict, Optional

from ..ir import types as T
from ..ir.affine import AffineBinary, AffineConst, AffineDim, AffineMap, AffineSymbol
from ..ir.attributes import (AffineMapAttr, ArrayAttr, Attribute, BoolAttr, DenseArrayAttr,
                             DenseResourceAttr, DictAttr, FloatAttr, IntegerAttr, LocationAttr,
                             OpaqueAttr, StringAttr, TypeAttr, UnitAttr)
from ..ir.diagnostics import CompileError
from ..ir.registry import DIALECT_ATTR_PARSERS
from .dense import check_dense_type, check_int_range, hex_float, make_dense
from .lexer import SUFFIX_ID
from .type_parser import TypeParser

#: Words that begin an attribute kept as opaque text (``strided<[1], offset: 0>``) even
#: where no ``<`` follows them; and type keywords, which a ``<`` does not make opaque.
_OPAQUE_WORDS = ("affine_set", "strided", "sparse", "distinct", "opaque")
_SHAPED_TYPE_WORDS = ("tensor", "memref", "vector", "complex", "tuple")


class AttributeParser(TypeParser):
    """Parses attributes over a :class:`TypeParser`. ``attr_aliases`` maps the alias names
    defined so far (without ``#``) to their attributes.

    :meth:`parse_attribute` dispatches on the leading character (:attr:`_BY_CHAR`), then on
    the leading keyword (:attr:`_BY_KEYWORD`); what neither table claims is an opaque
    ``word<...>`` attribute or a type.
    """

    def __init__(self, text, filename: str = "<input>"):
        super().__init__(text, filename)
        self.attr_aliases: Dict[str, Attribute] = {}

    def parse_attribute(self, type_hint: Optional[T.Type] = None) -> Attribute:
        """One attribute at the current position. ``type_hint`` types a number written
        without ``: type`` (default ``i64``, ``f64`` for a float literal). CompileError at
        the attribute when none can be read there."""
        loc = self.loc()
        t = self.text
        c = t[self.pos: self.pos + 1]
        by_char = self._BY_CHAR.get(c)
        if by_char is not None:
            return by_char(self, loc, type_hint)
        if c == "-" or c.isdigit():
            return self._parse_number_attr(type_hint)
        w = self.peek_bare_id()
        if w is None:
            raise self.error("expected attribute")
        by_word = self._BY_KEYWORD.get(w)
        if by_word is not None:
            follow, handler = by_word
            if follow is None or t.startswith(follow, self.pos + len(w)):
                return handler(self, w, type_hint)
        if w in _OPAQUE_WORDS or (
                t.startswith("<", self.pos + len(w)) and w not in _SHAPED_TYPE_WORDS):
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

    # ---------------------------------------------- by leading character: (loc, type_hint)
    def _attr_array(self, loc, type_hint):
        """``[a, b, ...]``"""
        self.pos += 1
        items = []
        if not self.try_punct("]"):
            items.append(self.parse_attribute())
            while self.try_punct(","):
                items.append(self.parse_attribute())
            self.expect("]")
        return ArrayAttr(tuple(items))

    def _attr_dict(self, loc, type_hint):
        """``{name = attr, ...}``"""
        return DictAttr(tuple(self.parse_attr_dict().items()))

    def _attr_string(self, loc, type_hint):
        """``"text"``, with an optional ``: type`` read and dropped."""
        s = self.parse_string()
        if self.peek(":") and not self.peek("::"):
            save = self.pos
            self.pos += 1
            ty = self.try_type()
            if ty is None:
                self.pos = save
        return StringAttr(s)

    def _attr_symbol_ref(self, loc, type_hint):
        """``@name`` or ``@root::@nested``"""
        return self.parse_symbol_ref()

    def _attr_function_type(self, loc, type_hint):
        """A function type: ``function_type = (i32) -> i32``."""
        return TypeAttr(self.parse_type())

    def _parse_hash_attr(self, loc, type_hint=None):
        """``#alias`` or a dialect attribute ``#dialect.name<...>``."""
        t = self.text
        start = self.pos
        self.pos += 1
        m = SUFFIX_ID.match(t, self.pos)
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

    # ------------------------------------------------- by leading keyword: (word, type_hint)
    def _attr_bool(self, w, type_hint):
        """``true``/``false``; with ``: type`` an integer of that type (1 or 0)."""
        self.pos += len(w)
        if self.peek(":") and not self.peek("::"):
            self.pos += 1
            ty = self.parse_type()
            return IntegerAttr(1 if w == "true" else 0, ty)
        return BoolAttr(w == "true")

    def _attr_unit(self, w, type_hint):
        self.pos += 4
        return UnitAttr()

    def _attr_special_float(self, w, type_hint):
        """``inf``/``nan``, typed like any number."""
        return self._parse_number_attr(type_hint)

    def _attr_dense(self, w, type_hint):
        self.pos += 5
        return self._parse_dense()

    def _attr_dense_resource(self, w, type_hint):
        """``dense_resource<name> : type``: the bytes are in the ``dialect_resources``."""
        self.pos += 15
        name_loc = self.loc()
        name = self.parse_bare_id("resource name")
        self.expect(">")
        self.expect(":")
        return DenseResourceAttr(name, check_dense_type(self.parse_type(), name_loc))

    def _attr_dense_array(self, w, type_hint):
        """``array<i64: 1, 2>`` (integer, index or float elements; ``i1`` as true/false)."""
        self.pos += 6
        tloc = self.loc()
        et = self.parse_type()
        if not isinstance(et, (T.IntegerType, T.FloatType, T.IndexType)):
            raise CompileError(f"array<> elements must be integers or floats, not {et}", tloc)
        vals = []
        if self.try_punct(":"):
            while True:
                vals.append(self._dense_array_element(et))
                if not self.try_punct(","):
                    break
        self.expect(">")
        return DenseArrayAttr(et, tuple(vals))

    def _dense_array_element(self, et):
        if isinstance(et, T.IntegerType) and et.width == 1:
            return 1 if self.parse_keyword_of(("true", "false")) == "true" else 0
        vloc = self.loc()
        v, kind = self.parse_number()
        if isinstance(et, T.FloatType):
            return hex_float(v, et, vloc) if kind == "hex" else float(v)
        if kind == "float":
            raise CompileError(f"floating point value in array of integer type {et}", vloc)
        return check_int_range(v, et, vloc)

    def _attr_affine_map(self, w, type_hint):
        self.pos += 11
        m = self.parse_affine_map()
        self.expect(">")
        return AffineMapAttr(m)

    def _attr_location(self, w, type_hint):
        """``loc(...)``, kept as text."""
        self.pos += 3
        return LocationAttr("loc" + self.skip_balanced("(", ")"))

    _BY_CHAR = {"#": _parse_hash_attr, "[": _attr_array, "{": _attr_dict, '"': _attr_string,
                "@": _attr_symbol_ref, "(": _attr_function_type}
    #: keyword -> (the character that must follow it, or None; handler)
    _BY_KEYWORD = {"true": (None, _attr_bool), "false": (None, _attr_bool),
                   "unit": (None, _attr_unit),
                   "inf": (None, _attr_special_float), "nan": (None, _attr_special_float),
                   "dense": ("<", _attr_dense), "dense_resource": ("<", _attr_dense_resource),
                   "array": ("<", _attr_dense_array), "affine_map": ("<", _attr_affine_map),
                   "loc": ("(", _attr_location)}

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
                return FloatAttr(hex_float(v, ty, vloc), ty)
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
        nd = self._bind_names(names, ")", "dim name", AffineDim)
        ns = self._bind_names(names, "]", "symbol name", AffineSymbol) if self.try_punct("[") else 0
        self.expect("->")
        self.expect("(")
        results = []
        if not self.try_punct(")"):
            results.append(self._affine_expr(names))
            while self.try_punct(","):
                results.append(self._affine_expr(names))
            self.expect(")")
        return AffineMap(nd, ns, tuple(results))

    def _bind_names(self, names: Dict[str, "AffineDim | AffineSymbol"], close: str, what: str,
                    make) -> int:
        """Read a comma-separated list of bare names up to ``close`` (the opening bracket is
        already read), binding the i-th to ``make(i)`` in ``names``; returns the count."""
        n = 0
        if self.try_punct(close):
            return 0
        while True:
            names[self.parse_bare_id(what)] = make(n)
            n += 1
            if not self.try_punct(","):
                break
        self.expect(close)
        return n

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

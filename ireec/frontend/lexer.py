"""MLIR text, token by token: the lexical layer of the parser (:class:`Lexer`).

Whitespace and ``//`` comments, punctuation, keywords, bare identifiers, string literals
(escapes resolved; elided long hex literals looked up in the :class:`SourceBuffer`),
integer and float literals, symbol names and balanced ``<...>``/``(...)`` runs. Positions
are offsets into :attr:`Lexer.text`; :meth:`Lexer.loc_at` maps one to the true
``file:line:col``. Errors are :class:`CompileError` at the offending location.
"""
from __future__ import annotations

import re
from typing import Optional, Union

from ..ir.attributes import SymbolRefAttr
from ..ir.diagnostics import CompileError, Location
from .source import SourceBuffer, as_source

_WS = re.compile(r"(?:\s+|//[^\n]*)*")
BARE_ID = re.compile(r"[A-Za-z_][A-Za-z0-9_$.\-]*")
SUFFIX_ID = re.compile(r"[A-Za-z0-9_$.\-]+")
_INT = re.compile(r"-?(?:0x[0-9A-Fa-f]+|[0-9]+)")
_FLOAT = re.compile(r"-?[0-9]+\.[0-9]*(?:[eE][-+]?[0-9]+)?|-?[0-9]+[eE][-+]?[0-9]+")
_HEX2 = re.compile(r"[0-9A-Fa-f]{2}")


def _int_literal(s: str) -> int:
    """Decimal (leading zeros allowed, as MLIR does: ``dense<[01, 02]>``) or ``0x`` hex."""
    neg = s.startswith("-")
    body = s[1:] if neg else s
    v = int(body, 16) if body[:2] in ("0x", "0X") else int(body, 10)
    return -v if neg else v


class Lexer:
    """The reading position over one MLIR source text and the token-level ``peek``/``try_*``/
    ``parse_*`` API that custom op parsers use.

    ``text``: the source as a str or a :class:`SourceBuffer` (whose long hex literals are
    already decoded: ``self.text`` holds them as ``"0x"``, ``self.source.blobs`` their bytes).
    Locations are the true ``line:col`` of the file either way.
    """

    def __init__(self, text: Union[str, SourceBuffer], filename: str = "<input>"):
        self.source = as_source(text, filename)
        self.text = self.source.text
        self.filename = filename
        self.pos = 0

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
        m = BARE_ID.match(self.text, self.pos)
        return m.group(0) if m else None

    def parse_bare_id(self, what: str = "identifier") -> str:
        self.skip_ws()
        m = BARE_ID.match(self.text, self.pos)
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
        m = SUFFIX_ID.match(self.text, self.pos)
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

"""MLIR source text with its long hex string literals taken out and decoded.

A model's weights are hex ``dense<"0x…">`` literals (and ``dialect_resources`` blobs):
a 200 MB ``.mlir`` file is mostly a few 100-MB strings. Decoding the file to one ``str``,
matching each literal with a regex and slicing it before ``bytes.fromhex`` would hold the
file three or four times over. :class:`SourceBuffer` instead finds each long hex literal
in the raw bytes with ``bytes.find``, decodes its body straight out of the file's buffer
(``binascii.unhexlify`` over a ``memoryview``) and keeps a text in which that literal is
elided to ``"0x"``; the parser looks the bytes up by position
(:meth:`ireec.frontend.parser.Parser.parse_string_or_blob`). Peak memory is the file's
bytes plus the decoded weights, and the text to parse is the small rest of the file.

Positions in :attr:`SourceBuffer.text` map back to the true ``line:col`` of the file
(:meth:`SourceBuffer.line_col`): an elided body has no newline, so lines are unchanged, and a
column after an elided literal on its line counts the removed characters back in.
"""
from __future__ import annotations

import binascii
import bisect
from typing import Dict, List, Optional, Tuple, Union

from ..ir.diagnostics import CompileError, Location, decode_source

#: Shortest hex body (characters after ``"0x``) that is elided from the text; shorter
#: literals stay inline and are decoded where they are parsed.
MIN_ELIDED_HEX = 4096


class SourceBuffer:
    """The source of one file: ``text`` with each long hex string literal's body elided.

    ``text``: the source (str) where each literal ``"0x<hex>"`` whose body is at least
    :data:`MIN_ELIDED_HEX` valid hex digits (even count, no escape, no newline) is written
    ``"0x"`` — the quotes and ``0x`` stay. ``blobs``: position in ``text`` of the opening
    quote of each elided literal -> its decoded bytes. ``holes``: (position in ``text`` of
    the closing quote of an elided literal, hex characters removed before it), ascending.
    A hex body that is not valid hex (or of odd length) stays in the text, so the parser
    reports it where it is, as for any literal.
    """

    __slots__ = ("text", "filename", "blobs", "holes", "_hole_pos", "_removed_before",
                 "_cache")

    def __init__(self, text: str, filename: str = "<input>",
                 blobs: Optional[Dict[int, bytes]] = None,
                 holes: Optional[List[Tuple[int, int]]] = None):
        self.text = text
        self.filename = filename
        self.blobs: Dict[int, bytes] = blobs or {}
        self.holes: List[Tuple[int, int]] = holes or []
        self._hole_pos = [h for h, _ in self.holes]
        acc = [0]
        for _, r in self.holes:
            acc.append(acc[-1] + r)
        self._removed_before = acc  # [i]: characters removed by holes[:i]
        self._cache = (0, 1)  # (a position, its 1-based line): line_col counts from there

    # ------------------------------------------------------------ construction
    @classmethod
    def from_bytes(cls, data: bytes, filename: str = "<input>") -> "SourceBuffer":
        """The buffer of a file's raw bytes ``data`` (UTF-8, a leading byte-order mark dropped).

        Raises CompileError at the true line and column of the first byte that is not valid
        UTF-8 (the same error as :func:`ireec.ir.diagnostics.decode_source`).
        """
        spans = _hex_spans(data, b'"0x', b'"')
        if not spans:
            return cls(decode_source(data, filename), filename)
        view = memoryview(data)
        pieces: List[str] = []
        blobs: Dict[int, bytes] = {}
        holes: List[Tuple[int, int]] = []
        size = 0
        start = 0
        bom = data.startswith(b"\xef\xbb\xbf")
        try:
            for a, b, blob in spans:  # body data[a:b], quote at a - 3
                piece = str(view[start:a], "utf-8-sig" if start == 0 and bom else "utf-8")
                pieces.append(piece)
                size += len(piece)
                blobs[size - 3] = blob
                holes.append((size, b - a))
                start = b
            piece = str(view[start:], "utf-8-sig" if start == 0 and bom else "utf-8")
        except UnicodeDecodeError:
            decode_source(data, filename)  # raises at the true line:col of the bad byte
            raise
        pieces.append(piece)
        return cls("".join(pieces), filename, blobs, holes)

    @classmethod
    def from_text(cls, text: str, filename: str = "<input>") -> "SourceBuffer":
        """The buffer of source ``text`` already decoded (kept as is when it has no long hex
        literal)."""
        spans = _hex_spans(text, '"0x', '"')
        if not spans:
            return cls(text, filename)
        pieces: List[str] = []
        blobs: Dict[int, bytes] = {}
        holes: List[Tuple[int, int]] = []
        size = 0
        start = 0
        for a, b, blob in spans:
            pieces.append(text[start:a])
            size += a - start
            blobs[size - 3] = blob
            holes.append((size, b - a))
            start = b
        pieces.append(text[start:])
        return cls("".join(pieces), filename, blobs, holes)

    # --------------------------------------------------------------- positions
    def line_col(self, pos: int) -> Tuple[int, int]:
        """1-based (line, column) in the original file of position ``pos`` of ``text``.

        Columns count characters; one after an elided literal on the same line counts the
        literal's removed hex digits. Lines are counted from the last position asked
        (in C, by ``str.count``), so a parse asking in file order costs O(file) overall.
        """
        t = self.text
        last, line = self._cache
        if pos >= last:
            line += t.count("\n", last, pos)
        else:
            line -= t.count("\n", pos, last)
        self._cache = (pos, line)
        start = t.rfind("\n", 0, pos) + 1
        col = pos - start + 1
        if self._hole_pos:
            hi = bisect.bisect_right(self._hole_pos, pos)
            lo = bisect.bisect_left(self._hole_pos, start)
            col += self._removed_before[hi] - self._removed_before[lo]
        return line, col

    def location(self, pos: int) -> Location:
        """The :class:`Location` of position ``pos`` of ``text``."""
        return Location(self.filename, *self.line_col(pos))

    def display_holes(self) -> Dict[int, List[Tuple[int, int]]]:
        """1-based line -> [(1-based column in ``text``'s line of an elided literal's closing
        quote, hex digits removed before it)], for showing a true column on the elided line
        (:func:`ireec.ir.diagnostics.register_source`)."""
        out: Dict[int, List[Tuple[int, int]]] = {}
        t = self.text
        line, last = 1, 0
        for h, r in self.holes:
            line += t.count("\n", last, h)
            last = h
            out.setdefault(line, []).append((h - (t.rfind("\n", 0, h) + 1) + 1, r))
        return out

    # ------------------------------------------------------------------ text
    def original(self, start: int, end: int, limit: Optional[int] = None) -> str:
        """``text[start:end]`` with the elided literals whose body lies in it written out again
        (their hex in upper case: the original's case is not kept). ``limit``: at most that
        many characters are returned (a blob is only written out as far as needed)."""
        t = self.text
        lo = bisect.bisect_right(self._hole_pos, start)  # hex goes before text[h]: start < h < end
        hi = bisect.bisect_left(self._hole_pos, end)
        if lo >= hi:
            s = t[start:end]
            return s if limit is None else s[:limit]
        out: List[str] = []
        n = 0
        at = start
        for h, _ in self.holes[lo:hi]:
            out.append(t[at:h])
            n += h - at
            blob = self.blobs[h - 3]
            if limit is not None:
                need = max(0, limit - n)
                blob = blob[: need // 2 + 1]
            hx = blob.hex().upper()
            out.append(hx)
            n += len(hx)
            at = h
            if limit is not None and n >= limit:
                break
        else:
            out.append(t[at:end])
        s = "".join(out)
        return s if limit is None else s[:limit]


def _hex_spans(data: Union[bytes, str], opener, quote) -> List[Tuple[int, int, bytes]]:
    """(start, end, decoded bytes) of each hex body ``data[start:end]`` of a long literal
    ``"0x<hex>"``: at least :data:`MIN_ELIDED_HEX` hex digits, an even count, up to the next
    quote. A body with an escape, a newline or any other non-hex character fails to decode
    and is skipped (the search goes on after its ``"0x``)."""
    spans: List[Tuple[int, int, bytes]] = []
    view = memoryview(data) if isinstance(data, (bytes, bytearray)) else None
    i = 0
    while True:
        q = data.find(opener, i)
        if q < 0:
            break
        a = q + 3
        b = data.find(quote, a)
        if b < 0:
            break
        if b - a < MIN_ELIDED_HEX:
            i = b + 1
            continue
        try:
            blob = binascii.unhexlify(view[a:b] if view is not None else data[a:b])
        except ValueError:  # binascii.Error, or a non-ASCII str
            i = a
            continue
        spans.append((a, b, blob))
        i = b + 1
    return spans


def load_source(path: str) -> SourceBuffer:
    """The :class:`SourceBuffer` of the file ``path`` (its raw bytes are not kept).

    Raises CompileError if it cannot be read or is not UTF-8 (at the line and column of the
    first bad byte), like :func:`ireec.ir.diagnostics.read_source`.
    """
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise CompileError(f"cannot read input file: {e.strerror}", Location(path, 0, 0)) from None
    buf = SourceBuffer.from_bytes(data, path)
    del data
    return buf


def as_source(text: Union[str, SourceBuffer], filename: str) -> SourceBuffer:
    """``text`` as a :class:`SourceBuffer` named ``filename`` (a buffer of another name is
    shared, not copied, under this one)."""
    if isinstance(text, SourceBuffer):
        if text.filename == filename:
            return text
        return SourceBuffer(text.text, filename, text.blobs, text.holes)
    return SourceBuffer.from_text(text, filename)

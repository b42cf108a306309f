"""Source locations and compile errors printed as ``file:line:col: error: msg`` with a caret.

Every user-facing failure of ireec is a :class:`CompileError`; the CLI prints
:meth:`CompileError.render` and exits with code 1, never a traceback.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple


@dataclass(frozen=True)
class Location:
    """1-based line and column in ``file``; ``source`` is the whole text (for the caret)."""

    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


UNKNOWN = Location("<unknown>", 0, 0)

# File name -> its text, so errors raised after parsing can still show the source line.
_SOURCES: Dict[str, str] = {}
# File name -> 1-based line -> [(column in the shown line where characters were elided,
# how many)], ascending: the shown text is shorter than the file there.
_HOLES: Dict[str, Dict[int, List[Tuple[int, int]]]] = {}


def register_source(file: str, text: str,
                    holes: Optional[Dict[int, List[Tuple[int, int]]]] = None) -> None:
    """Remember the text of ``file`` so errors can show its lines.

    ``holes``: where ``text`` lacks characters of the file (the elided bodies of long hex
    literals, :class:`ireec.frontend.source.SourceBuffer`): 1-based line -> [(1-based column
    in ``text``'s line before which characters were removed, how many)], ascending. A
    location's true column is then shown under the right character of the shorter line.
    """
    _SOURCES[file] = text
    if holes:
        _HOLES[file] = holes
    else:
        _HOLES.pop(file, None)


def _shown_col(file: str, line: int, col: int) -> int:
    """The column of the shown line of ``file`` under which the file's column ``col`` is
    (inside an elided run of characters: the column just after it)."""
    shift = 0
    for at, removed in _HOLES.get(file, {}).get(line, ()):
        true_at = at + shift
        if col < true_at:
            break
        if col < true_at + removed:
            return at
        shift += removed
    return col - shift


class CompileError(Exception):
    """An error in the user's input or an unsupported construct, tied to a location."""

    def __init__(self, message: str, loc: Optional[Location] = None, notes=()):
        super().__init__(message)
        self.message = message
        self.loc = loc or UNKNOWN
        self.notes = list(notes)

    def render(self) -> str:
        """``file:line:col: error: msg``, the source line, and a caret under the column."""
        out = [f"{self.loc}: error: {self.message}"]
        text = _SOURCES.get(self.loc.file)
        if text is not None and self.loc.line > 0:
            lines = text.split("\n")
            if self.loc.line - 1 < len(lines):
                src = lines[self.loc.line - 1].rstrip("\r")
                out.append(src)
                col = _shown_col(self.loc.file, self.loc.line, self.loc.col)
                prefix = "".join(c if c == "\t" else " " for c in src[: max(0, col - 1)])
                out.append(prefix + "^")
        for n in self.notes:
            out.append(f"note: {n}")
        return "\n".join(out)

    def __str__(self) -> str:
        return self.render()


def error(message: str, loc: Optional[Location] = None) -> CompileError:
    """A :class:`CompileError` with ``message`` at ``loc`` (to be raised by the caller)."""
    return CompileError(message, loc)


def decode_source(data: bytes, file: str) -> str:
    """``data`` decoded as UTF-8 (a leading byte-order mark dropped).

    Raises CompileError at the 1-based line and column (in characters) of the first byte
    that is not valid UTF-8, the valid part of the file registered for the caret.
    """
    try:
        return data.decode("utf-8-sig" if data.startswith(b"\xef\xbb\xbf") else "utf-8")
    except UnicodeDecodeError as e:
        good = data[: e.start].decode("utf-8", errors="replace")
        line = good.count("\n") + 1
        col = len(good) - (good.rfind("\n") + 1) + 1
        end = data.find(b"\n", e.start)
        shown = good + data[e.start: end if end >= 0 else len(data)].decode("utf-8", errors="replace")
        register_source(file, shown)
        raise CompileError(f"invalid UTF-8 byte 0x{data[e.start]:02x} in source file "
                           f"({e.reason})", Location(file, line, col)) from None


def read_source(path: str) -> str:
    """The text of the source file ``path``; CompileError if it cannot be read or is not UTF-8."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise CompileError(f"cannot read input file: {e.strerror}", Location(path, 0, 0)) from None
    return decode_source(data, path)

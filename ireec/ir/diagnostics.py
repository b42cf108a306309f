"""Source locations and compile errors printed as ``file:line:col: error: msg`` with a caret.

Every user-facing failure of ireec is a :class:`CompileError`; the CLI prints
:meth:`CompileError.render` and exits with code 1, never a traceback.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Optional


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


def register_source(file: str, text: str) -> None:
    _SOURCES[file] = text


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
                prefix = "".join(c if c == "\t" else " " for c in src[: max(0, self.loc.col - 1)])
                out.append(prefix + "^")
        for n in self.notes:
            out.append(f"note: {n}")
        return "\n".join(out)

    def __str__(self) -> str:
        return self.render()


def error(message: str, loc: Optional[Location] = None) -> CompileError:
    return CompileError(message, loc)

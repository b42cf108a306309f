"""Buffer accesses of host calls as a typed attribute: ``#emitc.access<input0, 64, 128, ro>``.

``convert-vm-to-emitc`` (ireec/passes/vm/host_to_emitc.py) keeps on every host call that
touches buffers (a dispatch's launch, a buffer copy) the byte ranges it reads and writes, from
``hal.command_buffer.dispatch``'s bindings (IREE keeps them on the command buffer's dispatch
for its barriers); ``ireec-form-openmp-host-regions`` orders calls by them. The attribute
prints and parses in the IR (``accesses = [#emitc.access<...>, ...]``), so no pass reads C
text back.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ..ir.attributes import Attribute, OpaqueAttr
from ..ir.diagnostics import CompileError
from ..ir.registry import register_dialect_attr_parser

#: Access modes: read-only, write-only, read-write (``hal.command_buffer.dispatch``'s ``access``).
MODES = ("ro", "wo", "rw")

_SYNTAX = re.compile(r"#emitc\.access<\s*([A-Za-z_]\w*)\s*,\s*(\d+)\s*,\s*(\d+)\s*,\s*(ro|wo|rw)\s*>")


@dataclass(frozen=True)
class BufferAccessAttr(Attribute):
    """``size`` bytes at byte ``offset`` of the buffer named ``buffer`` (``input<i>``,
    ``result<j>``, ``workspace``, ``constants`` or ``globals``), accessed as ``mode``
    (:data:`MODES`)."""

    buffer: str
    offset: int
    size: int
    mode: str

    @property
    def end(self) -> int:
        """The byte after the range."""
        return self.offset + self.size

    @property
    def writes(self) -> bool:
        """Whether the access writes (``wo`` or ``rw``)."""
        return self.mode != "ro"

    def overlaps(self, other: "BufferAccessAttr") -> bool:
        """Whether the two ranges share a byte of the same buffer."""
        return self.buffer == other.buffer and self.offset < other.end and other.offset < self.end

    def __str__(self) -> str:
        return f"#emitc.access<{self.buffer}, {self.offset}, {self.size}, {self.mode}>"


def _hook(p, name: str, text: str, loc):
    """Parse ``#emitc.access<...>``; other ``#emitc`` attributes stay opaque."""
    if name != "emitc.access":
        return OpaqueAttr(text)
    m = _SYNTAX.fullmatch(text)
    if m is None:
        raise CompileError(f"malformed buffer access '{text}' (expected #emitc.access<buffer, "
                           f"offset, size, ro|wo|rw>)", loc)
    return BufferAccessAttr(m.group(1), int(m.group(2)), int(m.group(3)), m.group(4))


register_dialect_attr_parser("emitc", _hook)

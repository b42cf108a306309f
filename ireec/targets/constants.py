"""How the constant pool reaches the artefact: C array, ``.incbin`` blob or external file.

The stream phase pools every constant (weights first of all) into one 64-byte-aligned
read-only blob (``__ireec_constant_pool``, ireec/passes/stream/schedule_allocation.py). A
C target writes it one of three ways, chosen with ``--constants`` (``ctx.options
["constants"]``):

- ``c-array``: a ``static const uint8_t <m>_constant_pool[N] = {0x.., ...}`` in ``<m>.c``.
  Works with any C compiler and no assembler, but gcc 12 -O3 gets through about 0.6 MB of
  data per second that way, at ~130 bytes of memory per byte (a 1 MiB pool: 1.6 s, 137 MB;
  64 KiB: 0.1 s, 27 MB, mostly the compiler itself): right for small pools only.
- ``incbin``: the pool is written as it is to ``<m>_constants.bin`` and ``<m>_constants.S``
  pulls it into the image with the assembler's ``.incbin`` directive (ELF and Mach-O
  spellings; GNU as and clang's integrated assembler), in a read-only section aligned to
  64 bytes. The assembler copies the bytes: building a 400 MB model costs what writing
  the file costs. What Glow's and TVM's bundles do with ``--link-params``.
- ``external``: the weights are not in the code at all. ``<m>_constants.bin`` is shipped
  beside it and the caller hands a pointer to it (mapped file, external flash) to
  ``<m>_set_constants(data, size)`` once before any call; the header gives the size,
  the alignment and a CRC-32 the call checks. Glow's "constant weights" file, TVM's
  ``link-params=false``: weights updated without relinking.
- ``auto`` (the default): ``c-array`` up to :data:`C_ARRAY_MAX_BYTES`, ``incbin`` above.

A ``<M>_CONSTANT_SECTION`` macro (a string literal, e.g. ``-DMODEL_CONSTANT_SECTION=
'".qspi_weights"'``) defined when compiling ``<m>.c`` / assembling ``<m>_constants.S``
puts the pool in a section a linker script can place (external flash, say).

The checksum is CRC-32 as zlib, PNG and Ethernet compute it (reflected polynomial
0xEDB88320, initial value and final XOR 0xFFFFFFFF): ``zlib.crc32`` here,
``ireec_crc32`` in runtime_c/ireec_runtime.h.
"""
from __future__ import annotations

import zlib
from typing import Callable, Dict, Optional

import numpy as np

from ..ir.diagnostics import CompileError

#: ``--constants`` choices.
MODES = ("auto", "c-array", "incbin", "external")
#: Largest pool ``auto`` writes as a C array (bytes): gcc 12 -O3 compiles a 64 KiB array in
#: about 0.1 s; past that the assembler's ``.incbin`` (a copy of the file) is cheaper.
C_ARRAY_MAX_BYTES = 64 * 1024
#: Bytes per row of a C-array initializer.
ROW_BYTES = 24


def constants_mode(option: Optional[str], pool_bytes: int, *, binary_ok: bool = True) -> str:
    """The mode a pool of ``pool_bytes`` is written in, for ``--constants=option`` (None:
    ``auto``). ``binary_ok`` is False for targets whose pool must be C text (cuda's
    ``__device__`` array): ``auto`` is then ``c-array`` and ``incbin``/``external`` a
    CompileError. Raises CompileError for an unknown option."""
    mode = option or "auto"
    if mode not in MODES:
        raise CompileError(f"--constants={mode}: expected one of {', '.join(MODES)}")
    if not binary_ok:
        if mode in ("incbin", "external"):
            raise CompileError(f"--constants={mode} is not supported by this target: its "
                               "constants live in the device image (use c-array or auto)")
        return "c-array"
    if mode == "auto":
        return "c-array" if pool_bytes <= C_ARRAY_MAX_BYTES else "incbin"
    return mode


def crc32(data) -> int:
    """CRC-32 (zlib's) of a bytes-like object, as an unsigned 32-bit int."""
    return zlib.crc32(data) & 0xFFFFFFFF


_HEX_CELLS = np.array([f"0x{i:02x},".encode() for i in range(256)], dtype="S5")
_OCTAL_CELLS = np.array([f"\\{i:03o}".encode() for i in range(256)], dtype="S4")


def _rows(data, per_row: int, cells_of, start: bytes, end: bytes) -> str:
    """The bytes of ``data`` as text cells (``cells_of``: the 256 cells by byte value, all of
    one width), ``per_row`` to a row, each row between ``start`` and ``end`` + newline, rows
    separated by newlines (no final newline); None for no data. Vectorised with numpy:
    about 0.5 s for 100 MB (a Python loop takes a minute)."""
    b = np.frombuffer(data, np.uint8)
    if b.size == 0:
        return None
    width = cells_of.itemsize
    cells = cells_of[b].view(np.uint8).reshape(-1, width)
    full, rest = divmod(b.size, per_row)
    parts = []
    if full:
        rows = np.empty((full, len(start) + width * per_row + len(end) + 1), np.uint8)
        rows[:, :len(start)] = np.frombuffer(start, np.uint8)
        rows[:, len(start):-len(end) - 1] = cells[: full * per_row].reshape(full, width * per_row)
        rows[:, -len(end) - 1:] = np.frombuffer(end + b"\n", np.uint8)
        parts.append(rows.tobytes())
    if rest:
        parts.append(start + cells[full * per_row:].tobytes() + end + b"\n")
    return b"".join(parts)[:-1].decode("ascii")


def hex_rows(data, per_row: int = ROW_BYTES) -> str:
    """``data`` as C initializer text: rows of ``per_row`` ``0x..`` bytes, each row indented
    by two spaces and ended by a comma, rows separated by newlines (no final newline)."""
    return _rows(data, per_row, _HEX_CELLS, b"  ", b"") or ""


def string_rows(data, per_row: int = 64) -> str:
    """``data`` as the rows of one C/C++ string-literal initializer: adjacent literals of
    ``per_row`` bytes, each byte a three-digit octal escape (``\\ooo``: never merged with
    the next character, unlike ``\\x``), rows indented by two spaces and separated by
    newlines (no final newline); ``""`` for no data. The array it initializes needs one
    element more than ``data`` for the terminating NUL (C++ counts it). Compilers read a
    string literal as one token: nvcc takes 1.5 s for a 768 KiB pool written this way
    against 3.4 s for :func:`hex_rows`' 786,688 integer initializers."""
    return _rows(data, per_row, _OCTAL_CELLS, b'  "', b'"') or '  ""'


def pool_files(mode: str, module_name: str, pool) -> Dict[str, object]:
    """The binary files of ``mode``: ``<m>_constants.bin`` (``pool`` itself, a bytes-like
    object, not copied) for ``incbin`` and ``external``, nothing for ``c-array``."""
    if mode in ("incbin", "external") and len(pool):
        return {f"{module_name}_constants.bin": pool}
    return {}


def template_fields(mode: str, pool, rows: Callable[[object], str] = hex_rows) -> dict:
    """Template fields of the pool: ``constants_mode``, ``constant_pool_size`` (bytes),
    ``constant_pool_crc32`` (``0x........``), ``constant_pool_text`` (the C initializer
    rows written by ``rows``: :func:`hex_rows` or :func:`string_rows`; empty unless ``mode``
    is ``c-array``)."""
    return {"constants_mode": mode, "constant_pool_size": len(pool),
            "constant_pool_crc32": f"0x{crc32(pool):08X}",
            "constant_pool_text": rows(pool) if mode == "c-array" else ""}

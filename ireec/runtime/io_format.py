"""IREE's tool syntax for tensors: ``--input=`` parsing and result printing.

This mirrors, byte for byte where the two overlap, what ``iree-run-module`` accepts and
prints (IREE sources, ``runtime/src/iree``):

* ``hal/string_util.c`` — ``iree_hal_parse_shape_and_element_type``,
  ``iree_hal_parse_element_type``, ``iree_hal_parse_buffer_elements`` (the value grammar),
  ``iree_hal_format_element`` (``%G`` for every float type, ``PRIi``/``PRIu`` for ints, hex
  bytes for any other type) and ``iree_hal_format_buffer_elements`` (``[`` ``]`` per outer
  dimension, spaces between leaf elements, ``...`` after a truncated leaf row);
* ``hal/buffer_view_util.c`` — ``iree_hal_buffer_view_format``: ``<shape>x<type>=<elements>``
  (just ``<type>=<elements>`` at rank 0);
* ``tooling/function_io.c`` — ``--input=@f.npy`` / ``+f.npy`` / ``*f.npy``,
  ``4xf32=@raw.bin``, and ``result[i]: hal.buffer_view`` lines; ``--output=`` specs;
* ``tooling/run_module.c`` — the ``EXEC @fn`` line.

Input grammar (``parse_input``)::

    f32=-2                      rank 0
    4xf32=[1 2 3 4]             brackets, spaces and commas are all separators
    4xf32=1,2,3,4
    2x2xi32=[[1 2][3 4]]        nesting is not checked, only the element count
    3x5xf32=1                   one value is splatted over the whole shape
    4xf32=                      no values: zeros (as IREE)
    2xi1=1 0                    i1 takes 0/1/true/false, or IREE's two-hex-digit bytes 00/01
    4xbf16=1.5 2 3 4            bf16 values come back as np.uint16 bit patterns
    @x.npy  +x.npy  *x.npy      numpy files: first array / next array / all arrays
    4xf32=@x.bin  4xf32=+x.bin  raw little-endian bytes (from the start / continuing)

Integers follow C ``strtol(..., base=0)`` as IREE does (``0x1F`` hex, leading ``0`` octal);
unlike IREE the whole token must be a number (IREE silently ignores trailing junk).
Signless ``iN`` accepts the signed and the unsigned range (``i8=255`` stores ``-1``), as
IREE does for i8/i16. Floats follow ``strtof``/``strtod``: decimal, ``inf``, ``nan``,
hex floats (``0x1.8p1``).

Every malformed spec raises :class:`InputError` (a ``ValueError``) with a one-line message.
"""
from __future__ import annotations

import math
import os
import re
import sys
from dataclasses import dataclass
from typing import Dict, IO, Iterable, List, Optional, Sequence, Tuple

import numpy as np

__all__ = [
    "InputError",
    "ElementType",
    "ELEMENT_TYPES",
    "element_type",
    "element_type_for_code",
    "iree_element_type_name",
    "parse_input",
    "parse_inputs",
    "InputStreams",
    "format_result",
    "format_invocation",
    "format_variant",
    "write_outputs",
    "f32_to_bf16_bits",
    "bf16_bits_to_f32",
    "DEFAULT_MAX_ELEMENT_COUNT",
]


def _contiguous(a) -> np.ndarray:
    """``a`` as a C-contiguous array, keeping rank 0 (np.ascontiguousarray makes it 1-D)."""
    a = np.asarray(a)
    return a if a.flags.c_contiguous else a.copy(order="C")


#: ``--output_max_element_count`` (formerly ``--print_max_element_count``) default.
DEFAULT_MAX_ELEMENT_COUNT = 1024

#: How i1 elements print. IREE's ``iree_hal_format_element`` has no case for BOOL_8 and
#: falls back to hex bytes ("01"/"00"); ireec prints 0/1 unless asked for "hex".
DEFAULT_I1_FORMAT = "decimal"


class InputError(ValueError):
    """A malformed ``--input`` spec, an unreadable input file, or a bad ``--output`` spec."""


# ---------------------------------------------------------------------------
# Element types (iree_hal_element_type_t, see runtime_c/ireec_runtime.h)
# ---------------------------------------------------------------------------

def _et(numerical_type: int, bits: int) -> int:
    """IREE_HAL_ELEMENT_TYPE_VALUE(numerical_type, bits)."""
    return (numerical_type << 24) | bits


NUMERICAL_TYPE_UNKNOWN = 0x00
NUMERICAL_TYPE_INTEGER = 0x10
NUMERICAL_TYPE_INTEGER_SIGNED = 0x11
NUMERICAL_TYPE_INTEGER_UNSIGNED = 0x12
NUMERICAL_TYPE_BOOLEAN = 0x13
NUMERICAL_TYPE_FLOAT_IEEE = 0x21
NUMERICAL_TYPE_FLOAT_BRAIN = 0x22
NUMERICAL_TYPE_FLOAT_COMPLEX = 0x23


@dataclass(frozen=True)
class ElementType:
    """One element type: MLIR spelling, IREE code, numpy storage dtype.

    ``kind`` is how values are read and written: 'bool', 'int', 'uint', 'float', 'bf16',
    'complex' or 'raw' (bytes only, printed as hex as IREE does for unknown types).
    """

    name: str          # MLIR spelling: "f32", "si8", "i1", "complex<f32>", ...
    code: int          # iree_hal_element_type_t
    dtype: np.dtype    # numpy storage
    kind: str

    @property
    def byte_size(self) -> int:
        return self.dtype.itemsize

    @property
    def iree_name(self) -> str:
        """The name IREE prints (``iree_hal_format_element_type``)."""
        return iree_element_type_name(self.code)


def _make_table() -> Dict[str, ElementType]:
    t: Dict[str, ElementType] = {}

    def add(name, code, dtype, kind):
        t[name] = ElementType(name, code, np.dtype(dtype), kind)

    add("i1", _et(NUMERICAL_TYPE_BOOLEAN, 8), np.bool_, "bool")
    for bits in (8, 16, 32, 64):
        add(f"i{bits}", _et(NUMERICAL_TYPE_INTEGER, bits), f"int{bits}", "int")
        add(f"si{bits}", _et(NUMERICAL_TYPE_INTEGER_SIGNED, bits), f"int{bits}", "int")
        add(f"ui{bits}", _et(NUMERICAL_TYPE_INTEGER_UNSIGNED, bits), f"uint{bits}", "uint")
    add("index", _et(NUMERICAL_TYPE_INTEGER, 64), np.int64, "int")  # index is i64 at the ABI
    add("f16", _et(NUMERICAL_TYPE_FLOAT_IEEE, 16), np.float16, "float")
    add("f32", _et(NUMERICAL_TYPE_FLOAT_IEEE, 32), np.float32, "float")
    add("f64", _et(NUMERICAL_TYPE_FLOAT_IEEE, 64), np.float64, "float")
    add("bf16", _et(NUMERICAL_TYPE_FLOAT_BRAIN, 16), np.uint16, "bf16")
    add("complex<f32>", _et(NUMERICAL_TYPE_FLOAT_COMPLEX, 64), np.complex64, "complex")
    add("complex<f64>", _et(NUMERICAL_TYPE_FLOAT_COMPLEX, 128), np.complex128, "complex")
    # Small floats: stored as raw bytes (numpy has no such dtypes).
    for name, nt in (("f8E5M2", 0x24), ("f8E4M3FN", 0x25), ("f8E5M2FNUZ", 0x26),
                     ("f8E4M3FNUZ", 0x27), ("f8E8M0FNU", 0x28)):
        add(name, _et(nt, 8), np.uint8, "raw")
    return t


#: MLIR element type spelling -> ElementType.
ELEMENT_TYPES: Dict[str, ElementType] = _make_table()

# IREE's spellings accepted on input in addition to MLIR's.
_IREE_ALIASES = {"cf64": "complex<f32>", "cf128": "complex<f64>"}

_NUMERICAL_PREFIX = {
    NUMERICAL_TYPE_BOOLEAN: "i",
    NUMERICAL_TYPE_INTEGER: "i",
    NUMERICAL_TYPE_INTEGER_SIGNED: "si",
    NUMERICAL_TYPE_INTEGER_UNSIGNED: "ui",
    NUMERICAL_TYPE_FLOAT_IEEE: "f",
    NUMERICAL_TYPE_FLOAT_BRAIN: "bf",
    NUMERICAL_TYPE_FLOAT_COMPLEX: "cf",
}
_SPECIAL_NAMES = {0x24000008: "f8E5M2", 0x25000008: "f8E4M3FN", 0x26000008: "f8E5M2FNUZ",
                  0x27000008: "f8E4M3FNUZ", 0x28000008: "f8E8M0FNU"}


def iree_element_type_name(code: int) -> str:
    """``iree_hal_format_element_type``: "f32", "si8", "i1" (BOOL_8), "cf64", "bf16"..."""
    if code in _SPECIAL_NAMES:
        return _SPECIAL_NAMES[code]
    nt, bits = code >> 24, code & 0xFF
    if nt == NUMERICAL_TYPE_BOOLEAN:
        return "i1"
    return f"{_NUMERICAL_PREFIX.get(nt, '*')}{bits}"


def element_type(name: str) -> ElementType:
    """The ElementType for an MLIR (or IREE) element type name; InputError if unknown."""
    et = ELEMENT_TYPES.get(name) or ELEMENT_TYPES.get(_IREE_ALIASES.get(name, ""))
    if et is None:
        known = " ".join(k for k in ELEMENT_TYPES if not k.startswith("f8"))
        raise InputError(f"unsupported element type '{name}' (supported: {known})")
    return et


def element_type_for_code(code: int) -> Optional[ElementType]:
    """The first ElementType with this IREE code (signless before signed), or None."""
    for et in ELEMENT_TYPES.values():
        if et.code == code and et.name != "index":
            return et
    return None


def _element_type_for_npy(dtype: np.dtype) -> ElementType:
    """IREE's numpy descr mapping (tooling/numpy_io.c): b->i1, i->siN, u->uiN, f->fN, c->cfN."""
    kind = dtype.kind
    bits = dtype.itemsize * 8
    name = {"b": "i1", "i": f"si{bits}", "u": f"ui{bits}", "f": f"f{bits}",
            "c": f"complex<f{bits // 2}>"}.get(kind)
    if name is None or name not in ELEMENT_TYPES:
        raise InputError(f"unsupported numpy dtype {dtype} in .npy input")
    return ELEMENT_TYPES[name]


# ---------------------------------------------------------------------------
# bf16 helpers (numpy has no bfloat16: bf16 tensors are np.uint16 bit patterns)
# ---------------------------------------------------------------------------

def f32_to_bf16_bits(x) -> np.ndarray:
    """float32 -> bfloat16 bits (np.uint16), round to nearest even; NaN stays quiet NaN.

    Same rounding as ``ireec_f32_to_bf16`` in ireec_runtime.h and IREE's
    ``iree_math_f32_to_bf16``.
    """
    a = _contiguous(np.asarray(x, dtype=np.float32))
    u = a.view(np.uint32).astype(np.uint64)
    rounded = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    nan = np.isnan(a)
    if nan.any():
        rounded = np.where(nan, ((u >> 16) | 0x40).astype(np.uint16), rounded)
    return rounded.reshape(a.shape)


def bf16_bits_to_f32(bits) -> np.ndarray:
    """bfloat16 bits (uint16) -> float32 (exact)."""
    b = _contiguous(np.asarray(bits, dtype=np.uint16))
    return (b.astype(np.uint32) << 16).view(np.float32).reshape(b.shape)


# ---------------------------------------------------------------------------
# Parsing
# ---------------------------------------------------------------------------

_SEPARATORS = re.compile(r"[\s,\[\]]+")
_INT_RE = re.compile(r"^([+-]?)(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)$")
_FLOAT_RE = re.compile(
    r"^[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf|infinity|nan(?:\([0-9A-Za-z_]*\))?)$",
    re.IGNORECASE)
_HEXFLOAT_RE = re.compile(r"^([+-]?)0[xX]([0-9a-fA-F]*\.?[0-9a-fA-F]*)(?:[pP]([+-]?[0-9]+))?$")
_HEX_BYTES_RE = re.compile(r"^[0-9a-fA-F]+$")


def _parse_c_int(tok: str) -> Optional[int]:
    """strtol(tok, base=0) over the whole token; None if it is not an integer."""
    m = _INT_RE.match(tok)
    if not m:
        return None
    sign, digits = m.groups()
    if digits[:2] in ("0x", "0X"):
        v = int(digits[2:], 16)
    elif len(digits) > 1 and digits[0] == "0":
        v = int(digits, 8)
    else:
        v = int(digits, 10)
    return -v if sign == "-" else v


def _parse_c_float(tok: str) -> Optional[float]:
    """strtod over the whole token (decimal, inf/nan, hex float); None if not a number."""
    if _FLOAT_RE.match(tok):
        low = tok.lower()
        if "nan" in low:
            return -math.nan if low.startswith("-") else math.nan
        return float(tok)
    m = _HEXFLOAT_RE.match(tok)
    if m and m.group(2) not in ("", "."):
        sign, mant, exp = m.groups()
        try:
            v = float.fromhex(f"0x{mant}p{exp or 0}")
        except (ValueError, OverflowError):
            return None
        return -v if sign == "-" else v
    return None


def _int_range(et: ElementType) -> Tuple[int, int]:
    bits = et.byte_size * 8
    if et.kind == "uint":
        return 0, (1 << bits) - 1
    if et.name.startswith("si"):
        return -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    # Signless: both the signed and the unsigned range (IREE does this for i8/i16).
    return -(1 << (bits - 1)), (1 << bits) - 1


def _parse_elements(tokens: Sequence[str], et: ElementType, spec: str) -> np.ndarray:
    """Tokens -> 1-D array of ``et.dtype``; InputError naming the bad token."""
    def bad(tok, what):
        return InputError(f"invalid {what} '{tok}' for element type {et.name} in `{spec}`")

    if et.kind in ("int", "uint"):
        lo, hi = _int_range(et)
        vals = []
        for tok in tokens:
            v = _parse_c_int(tok)
            if v is None:
                raise bad(tok, "integer")
            if not lo <= v <= hi:
                raise InputError(f"value {tok} out of range for element type {et.name} "
                                 f"[{lo}, {hi}] in `{spec}`")
            vals.append(v)
        bits = et.byte_size * 8
        if et.kind == "int":  # wrap the unsigned half of signless types
            vals = [v - (1 << bits) if v >= (1 << (bits - 1)) else v for v in vals]
        return np.array(vals, dtype=et.dtype)
    if et.kind == "bool":
        vals = []
        for tok in tokens:
            low = tok.lower()
            if low in ("0", "false"):
                vals.append(False)
            elif low in ("1", "true"):
                vals.append(True)
            elif len(tok) == 2 and _HEX_BYTES_RE.match(tok):  # IREE's hex byte form
                vals.append(int(tok, 16) != 0)
            else:
                raise bad(tok, "boolean (0, 1, true, false)")
        return np.array(vals, dtype=np.bool_)
    if et.kind in ("float", "bf16"):
        vals = []
        for tok in tokens:
            v = _parse_c_float(tok)
            if v is None:
                raise bad(tok, "number")
            vals.append(v)
        f64 = np.array(vals, dtype=np.float64)
        with np.errstate(over="ignore"):
            if et.kind == "bf16":  # strtof, then iree_math_f32_to_bf16
                return f32_to_bf16_bits(f64.astype(np.float32))
            if et.name == "f16":  # strtof, then iree_math_f32_to_f16
                return f64.astype(np.float32).astype(np.float16)
            return f64.astype(et.dtype)
    # complex and raw types: IREE's fallback, each element as hex bytes in memory order.
    width = et.byte_size * 2
    raw = bytearray()
    for tok in tokens:
        if len(tok) != width or not _HEX_BYTES_RE.match(tok):
            raise InputError(f"element type {et.name} takes {width} hex digits per element "
                             f"(IREE's binary form), got '{tok}' in `{spec}`")
        raw += bytes.fromhex(tok)
    return np.frombuffer(bytes(raw), dtype=et.dtype).copy()


def _parse_shape_and_type(meta: str, spec: str) -> Tuple[Tuple[int, ...], ElementType]:
    """``iree_hal_parse_shape_and_element_type``: ``AxBx<type>`` or ``<type>`` (rank 0).

    IREE splits at the last 'x'; type names that contain an 'x' themselves (``index``) are
    matched as a whole first.
    """
    meta = meta.strip()
    if not meta:
        raise InputError(f"missing shape and element type in `{spec}` (e.g. 4xf32=1 2 3 4)")
    names = sorted(list(ELEMENT_TYPES) + list(_IREE_ALIASES), key=len, reverse=True)
    shape_str, type_str = None, None
    for name in names:
        if meta == name:
            shape_str, type_str = "", name
            break
        if meta.endswith("x" + name):
            shape_str, type_str = meta[: -len(name) - 1], name
            break
    if type_str is None:
        last_x = meta.rfind("x")
        shape_str, type_str = ("", meta) if last_x < 0 else (meta[:last_x], meta[last_x + 1:])
    shape: List[int] = []
    if shape_str:
        for part in shape_str.split("x"):
            if not part.isdigit():
                if part == "?":
                    raise InputError(f"dynamic dimension '?' in `{spec}`: inputs need a static shape")
                raise InputError(f"invalid shape specification '{shape_str}' in `{spec}`")
            shape.append(int(part))
    try:
        et = element_type(type_str)
    except InputError as e:
        raise InputError(f"{e} in `{spec}`") from None
    return tuple(shape), et


def _npy_load(f: IO[bytes], path: str) -> np.ndarray:
    try:
        arr = np.load(f, allow_pickle=False)
    except (ValueError, OSError, EOFError) as e:
        raise InputError(f"cannot read a numpy array from '{path}': {e}") from None
    if not isinstance(arr, np.ndarray):
        raise InputError(f"'{path}' is an .npz archive; inputs take .npy files")
    if arr.dtype.byteorder == ">":
        raise InputError(f"big-endian data type '{arr.dtype.str}' in '{path}' unsupported")
    _element_type_for_npy(arr.dtype)  # validates the dtype
    return _contiguous(arr)


class InputStreams:
    """Files opened by ``@``/``+``/``*`` specs, so ``+f.npy`` continues where the last
    read of ``f.npy`` stopped (IREE's ``iree_io_stream_list_t``). Use as a context manager."""

    def __init__(self) -> None:
        self._files: Dict[str, IO[bytes]] = {}

    def open(self, path: str, append: bool) -> IO[bytes]:
        key = os.path.abspath(path)
        f = self._files.get(key)
        if f is not None and append:
            return f
        if f is not None:
            f.close()
        try:
            f = open(path, "rb")
        except OSError as e:
            raise InputError(f"cannot open input file '{path}': {e.strerror or e}") from None
        self._files[key] = f
        return f

    def close(self) -> None:
        for f in self._files.values():
            f.close()
        self._files.clear()

    def __enter__(self) -> "InputStreams":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _at_eof(f: IO[bytes]) -> bool:
    pos = f.tell()
    more = f.read(1)
    f.seek(pos)
    return not more


def _parse_one(spec: str, streams: InputStreams) -> List[np.ndarray]:
    original = spec
    spec = spec.strip()
    if spec.startswith('"') and spec.endswith('"') and len(spec) >= 2:
        spec = spec[1:-1].strip()
    if not spec:
        raise InputError("no value specified for input")
    if spec in ("(null)", "(ignored)"):
        raise InputError(f"`{spec}` inputs are not supported: ireec functions take tensors")
    if spec[0] in "@+*":
        path = spec[1:]
        if not path.endswith(".npy"):
            raise InputError(f"only numpy (.npy) files are supported for metadata-less input "
                             f"`{original}`; raw files need a shape: 4xf32=@{path}")
        f = streams.open(path, append=spec[0] != "@")
        if spec[0] != "*":
            if _at_eof(f):
                raise InputError(f"no more arrays in '{path}' for input `{original}`")
            return [_npy_load(f, path)]
        out = []
        while not _at_eof(f):
            out.append(_npy_load(f, path))
        return out
    if "=" not in spec and "x" not in spec:
        raise InputError(f"invalid tensor specification `{spec}`, requires at least a "
                         "shape/type (`4x2xf32=...`)")
    meta, _, data = spec.partition("=")
    shape, et = _parse_shape_and_type(meta, spec)
    count = int(np.prod(shape, dtype=np.int64)) if shape else 1
    data = data.strip()
    if data[:1] in ("@", "+"):
        path = data[1:]
        f = streams.open(path, append=data[0] == "+")
        nbytes = count * et.byte_size
        raw = f.read(nbytes)
        if len(raw) != nbytes:
            raise InputError(f"'{path}' ended after {len(raw)} bytes; `{spec}` needs {nbytes}")
        return [np.frombuffer(raw, dtype=et.dtype).reshape(shape).copy()]
    tokens = [t for t in _SEPARATORS.split(data) if t]
    if not tokens:
        return [np.zeros(shape, dtype=et.dtype)]  # IREE: empty data -> zeros
    if len(tokens) > count:
        raise InputError(f"`{spec}` has {len(tokens)} values but a tensor of shape "
                         f"{_shape_str(shape)} holds {count}")
    values = _parse_elements(tokens, et, spec)
    if len(tokens) == 1 and count > 1:
        return [np.full(shape, values[0], dtype=et.dtype)]  # splat
    if len(tokens) < count:
        raise InputError(f"`{spec}` has {len(tokens)} values but a tensor of shape "
                         f"{_shape_str(shape)} needs {count} (or 1 to splat)")
    return [values.reshape(shape)]


def _shape_str(shape: Sequence[int]) -> str:
    return "x".join(str(d) for d in shape) if shape else "()"


def parse_input(spec: str, streams: Optional[InputStreams] = None) -> np.ndarray:
    """Parse one ``--input=`` value into a numpy array (see the module docstring).

    bf16 comes back as np.uint16 bits, i1 as np.bool_, f16 as np.float16; ``index`` as
    int64. A ``.npy`` input keeps the file's dtype. ``*f.npy`` (all arrays) needs
    :func:`parse_inputs`. Raises InputError.
    """
    own = streams is None
    streams = streams or InputStreams()
    try:
        if spec.strip().startswith("*"):
            raise InputError(f"`{spec}` expands to several inputs; use parse_inputs()")
        return _parse_one(spec, streams)[0]
    finally:
        if own:
            streams.close()


def parse_inputs(specs: Iterable[str]) -> List[np.ndarray]:
    """Parse every ``--input=`` value in order (``+``/``*`` file specs share open files)."""
    out: List[np.ndarray] = []
    with InputStreams() as streams:
        for spec in specs:
            out.extend(_parse_one(spec, streams))
    return out


# ---------------------------------------------------------------------------
# Formatting
# ---------------------------------------------------------------------------

def _format_float(v: float) -> str:
    """C printf("%G") of a double, as glibc prints it (NAN, -NAN, INF, -INF)."""
    if v != v:
        return "-NAN" if math.copysign(1.0, v) < 0 else "NAN"
    return "%G" % v


def _element_formatter(et: ElementType, i1_format: str):
    if et.kind == "bool":
        if i1_format == "hex":
            return lambda v: "01" if v else "00"
        return lambda v: "1" if v else "0"
    if et.kind in ("int", "uint"):
        return lambda v: str(int(v))
    if et.kind == "float":
        return lambda v: _format_float(float(v))
    if et.kind == "bf16":  # format_result widens the bits to float32 first
        return lambda v: _format_float(float(v))
    # complex / raw: hex bytes in memory order, upper case (iree_hal_bytes_to_hex_string).
    return lambda v: np.asarray(v, dtype=et.dtype).tobytes().hex().upper()


def _format_elements(flat: np.ndarray, shape: Sequence[int], fmt, budget: List[int]) -> str:
    """iree_hal_format_buffer_elements_recursive over the row-major ``flat`` array."""
    if len(shape) == 0:
        shape = (1,)
    if len(shape) > 1:
        inner = int(np.prod(shape[1:], dtype=np.int64))
        parts = []
        for i in range(shape[0]):
            parts.append("[" + _format_elements(flat[i * inner:(i + 1) * inner], shape[1:],
                                                fmt, budget) + "]")
        return "".join(parts)
    n = min(budget[0], shape[0])
    budget[0] -= n
    text = " ".join(fmt(v) for v in flat[:n].tolist()) if n else ""
    if n < shape[0]:
        text += "..."
    return text


def format_result(arr, mlir_type_name: Optional[str] = None, *,
                  max_element_count: int = DEFAULT_MAX_ELEMENT_COUNT,
                  i1_format: str = DEFAULT_I1_FORMAT) -> str:
    """One buffer view as IREE prints it: ``4xf32=3 4 5 6``, ``f32=2``,
    ``3x3xf32=[52 52 52][52 52 52][52 52 52]``.

    ``mlir_type_name`` is the element type ("f32", "si8", "bf16", "i1", "complex<f32>"...);
    when None it is taken from the numpy dtype. bf16 expects uint16 bits. Floats print
    with C ``%G`` (6 significant digits, ``1E-05``, ``INF``, ``NAN``), ints in decimal.
    At most ``max_element_count`` elements print; a leaf row cut short ends in ``...``.
    ``i1_format``: "decimal" (0/1, default) or "hex" (IREE's 00/01).
    """
    a = np.asarray(arr)
    if mlir_type_name is None:
        et = _element_type_for_npy(a.dtype)
        if et.name.startswith("si"):
            et = ELEMENT_TYPES[et.name[1:]]  # plain numpy ints print as signless iN
    else:
        et = element_type(mlir_type_name)
    if a.dtype != et.dtype:
        if a.dtype.itemsize != et.dtype.itemsize and et.kind in ("bf16", "raw"):
            raise ValueError(f"{et.name} data must be {et.dtype} bits, got {a.dtype}")
        a = a.astype(et.dtype)
    shape = tuple(int(d) for d in a.shape)
    head = (_shape_str(shape) + "x" if shape else "") + et.iree_name
    flat = _contiguous(a).reshape(-1)
    if et.kind == "bf16":
        flat = bf16_bits_to_f32(flat)
    budget = [max(0, int(max_element_count))]
    return head + "=" + _format_elements(flat, shape, _element_formatter(et, i1_format), budget)


def format_variant(arr, mlir_type_name: Optional[str] = None, **kw) -> str:
    """``iree_tooling_format_variant`` of a buffer view: ``hal.buffer_view\\n<value>``."""
    return "hal.buffer_view\n" + format_result(arr, mlir_type_name, **kw)


def format_invocation(function_name: str, results: Sequence, type_names: Sequence[str], *,
                      max_element_count: int = DEFAULT_MAX_ELEMENT_COUNT,
                      i1_format: str = DEFAULT_I1_FORMAT) -> str:
    """The whole stdout of ``iree-run-module`` for one call::

        EXEC @add
        result[0]: hal.buffer_view
        4xf32=3 4 5 6

    ``results``: the result arrays in order; ``type_names``: their element types.
    Ends with a newline.
    """
    lines = [f"EXEC @{function_name}"]
    for i, (r, t) in enumerate(zip(results, type_names)):
        lines.append(f"result[{i}]: " + format_variant(r, t, max_element_count=max_element_count,
                                                         i1_format=i1_format))
    return "\n".join(lines) + "\n"


def write_outputs(results: Sequence, type_names: Sequence[str], specs: Sequence[str],
                  stdout: Optional[IO[str]] = None, *,
                  max_element_count: int = DEFAULT_MAX_ELEMENT_COUNT,
                  i1_format: str = DEFAULT_I1_FORMAT) -> None:
    """Handle ``--output=`` specs as ``iree_tooling_write_variants``: one spec per result;
    ``""`` ignores it, ``-`` prints ``hal.buffer_view`` and the value, ``@f.npy``/``+f.npy``
    (over)writes/appends an ndarray, ``@f.bin``/``+f.bin`` raw bytes. InputError on misuse."""
    stdout = stdout if stdout is not None else sys.stdout
    if len(specs) != len(results):
        raise InputError(f"{len(specs)} outputs specified but the function has "
                         f"{len(results)} results")
    for arr, tname, spec in zip(results, type_names, specs):
        spec = spec.strip()
        if spec == "":
            continue
        if spec == "-":
            stdout.write(format_variant(arr, tname, max_element_count=max_element_count,
                                        i1_format=i1_format) + "\n")
            continue
        if spec[0] not in "@+":
            raise InputError(f"unsupported output mode specification '{spec}' "
                             "(use -, @file.npy, +file.npy, @file.bin or +file.bin)")
        path, mode = spec[1:], ("wb" if spec[0] == "@" else "ab")
        et = element_type(tname)
        a = _contiguous(np.asarray(arr, dtype=et.dtype))
        try:
            with open(path, mode) as f:
                if path.endswith(".npy"):
                    # bf16 has no numpy dtype: its bits go out as '<u2' (IREE refuses
                    # bf16 npy output); everything else keeps its dtype.
                    np.save(f, a, allow_pickle=False)
                else:
                    f.write(a.tobytes())
        except OSError as e:
            raise InputError(f"cannot write output file '{path}': {e.strerror or e}") from None

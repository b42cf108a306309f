"""MLIR builtin attributes. ``str(a)`` gives MLIR syntax that parses back to an equal attribute.

Dense elements are backed by numpy arrays (C order). Syntax source:
https://mlir.llvm.org/docs/Dialects/Builtin/#attributes
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Dict, Optional, Tuple

import numpy as np

from .affine import AffineMap
from .diagnostics import CompileError
from .types import (ComplexType, FloatType, IndexType, IntegerType, ShapedType, Type, is_small_float,
                    numpy_dtype)


class Attribute:
    __slots__ = ()

    def __repr__(self) -> str:
        return f"<{self}>"


def format_float(value: float, t: Optional[Type] = None) -> str:
    """Shortest MLIR float literal that parses back to the same value of type ``t``.

    Non-finite values print as the bit pattern in hex (``0x7FC00000``), as MLIR does.
    """
    v = float(value)
    if not math.isfinite(v):
        return float_bits_hex(v, t)
    if isinstance(t, FloatType) and t.name == "f32":
        s = np.format_float_scientific(np.float32(v), unique=True, exp_digits=2)
    elif isinstance(t, FloatType) and t.name == "f16":
        s = np.format_float_scientific(np.float16(v), unique=True, exp_digits=2)
    else:
        s = np.format_float_scientific(np.float64(v), unique=True, exp_digits=2)
    mant, _, exp = s.partition("e")
    if mant.endswith("."):
        mant += "0"
    return f"{mant}e{exp}"


def float_bits_hex(v: float, t: Optional[Type]) -> str:
    """Hex bit pattern of ``v`` in the storage of float type ``t`` (f64 if None)."""
    name = t.name if isinstance(t, FloatType) else "f64"
    if name == "f32":
        return "0x%08X" % np.array([v], np.float32).view(np.uint32)[0]
    if name == "f16":
        return "0x%04X" % np.array([v], np.float16).view(np.uint16)[0]
    if name == "bf16":
        return "0x%04X" % (np.array([v], np.float32).view(np.uint32)[0] >> 16)
    return "0x%016X" % np.array([v], np.float64).view(np.uint64)[0]


def float_from_bits(bits: int, t: Type) -> float:
    """Inverse of :func:`float_bits_hex` for f16/bf16/f32/f64."""
    name = t.name if isinstance(t, FloatType) else "f64"
    if name == "f32":
        return float(np.array([bits], np.uint32).view(np.float32)[0])
    if name == "f16":
        return float(np.array([bits], np.uint16).view(np.float16)[0])
    if name == "bf16":
        return float(np.array([bits << 16], np.uint32).view(np.float32)[0])
    return float(np.array([bits], np.uint64).view(np.float64)[0])


@dataclass(frozen=True)
class UnitAttr(Attribute):
    def __str__(self) -> str:
        return "unit"


@dataclass(frozen=True)
class BoolAttr(Attribute):
    value: bool

    def __str__(self) -> str:
        return "true" if self.value else "false"


@dataclass(frozen=True)
class IntegerAttr(Attribute):
    value: int
    type: Type

    def __str__(self) -> str:
        if isinstance(self.type, IntegerType) and self.type.width == 1 and self.type.signedness == "":
            return "true" if self.value else "false"
        if isinstance(self.type, IntegerType) and self.type.width == 64 and self.type.signedness == "":
            return str(self.value)
        return f"{self.value} : {self.type}"


@dataclass(frozen=True)
class FloatAttr(Attribute):
    value: float
    type: Type

    def __str__(self) -> str:
        if isinstance(self.type, FloatType) and self.type.name == "f64" and math.isfinite(self.value):
            return format_float(self.value, self.type)
        return f"{format_float(self.value, self.type)} : {self.type}"

    def __eq__(self, o):  # NaN-aware, bitwise
        return (isinstance(o, FloatAttr) and self.type == o.type
                and float_bits_hex(self.value, self.type) == float_bits_hex(o.value, o.type))

    def __hash__(self):
        return hash((float_bits_hex(self.value, self.type), self.type))


def escape_string(s: str) -> str:
    out = []
    for ch in s:
        o = ord(ch)
        if ch == '"' or ch == "\\":
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif o < 0x20 or o == 0x7F:
            out.append("\\%02X" % o)
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


@dataclass(frozen=True)
class StringAttr(Attribute):
    value: str

    def __str__(self) -> str:
        return escape_string(self.value)


@dataclass(frozen=True)
class TypeAttr(Attribute):
    value: Type

    def __str__(self) -> str:
        return str(self.value)


@dataclass(frozen=True)
class ArrayAttr(Attribute):
    value: Tuple[Attribute, ...]

    def __str__(self) -> str:
        return "[" + ", ".join(str(a) for a in self.value) + "]"

    def __iter__(self):
        return iter(self.value)

    def __len__(self):
        return len(self.value)

    def __getitem__(self, i):
        return self.value[i]


@dataclass(frozen=True)
class DenseArrayAttr(Attribute):
    """``array<i64: 1, 2, 3>``; ``value`` is a tuple of Python numbers."""

    element_type: Type
    value: Tuple

    def __str__(self) -> str:
        if not self.value:
            return f"array<{self.element_type}>"
        if isinstance(self.element_type, FloatType):
            vals = ", ".join(format_float(v, self.element_type) for v in self.value)
        elif self.element_type == IntegerType(1):
            vals = ", ".join("true" if v else "false" for v in self.value)
        else:
            vals = ", ".join(str(int(v)) for v in self.value)
        return f"array<{self.element_type}: {vals}>"

    def __iter__(self):
        return iter(self.value)

    def __len__(self):
        return len(self.value)

    def __getitem__(self, i):
        return self.value[i]


def _key_str(k: str) -> str:
    import re

    return k if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_$.\-]*", k) else escape_string(k)


@dataclass(frozen=True)
class DictAttr(Attribute):
    value: Tuple[Tuple[str, Attribute], ...]

    def __str__(self) -> str:
        return "{" + ", ".join(
            _key_str(k) if isinstance(v, UnitAttr) else f"{_key_str(k)} = {v}" for k, v in self.value
        ) + "}"

    def as_dict(self) -> Dict[str, Attribute]:
        return dict(self.value)

    def get(self, k, default=None):
        for kk, v in self.value:
            if kk == k:
                return v
        return default


def _sym(s: str) -> str:
    import re

    return "@" + (s if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_$.\-]*", s) else escape_string(s))


@dataclass(frozen=True)
class SymbolRefAttr(Attribute):
    root: str
    nested: Tuple[str, ...] = ()

    def __str__(self) -> str:
        return _sym(self.root) + "".join("::" + _sym(n) for n in self.nested)


@dataclass(frozen=True)
class AffineMapAttr(Attribute):
    value: AffineMap

    def __str__(self) -> str:
        return f"affine_map<{self.value}>"


@dataclass(frozen=True)
class OpaqueAttr(Attribute):
    """A dialect attribute kept as text: ``#stablehlo<comparison_direction GT>``.

    ``text`` is the whole spelling, starting with ``#``.
    """

    text: str

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class LocationAttr(Attribute):
    """A ``loc(...)`` kept as its text; ireec reports positions in the input file instead."""

    text: str

    def __str__(self) -> str:
        return self.text


# Dense elements --------------------------------------------------------------

MAX_LIST_ELEMENTS = 1 << 16  # elements of a list-valued attribute (dims, paddings) at most
HEX_PRINT_THRESHOLD = 64  # more elements than this print as "0x..." like MLIR's large attrs


def _element_str(v, et: Type) -> str:
    if isinstance(et, FloatType):
        if et.name == "bf16" or is_small_float(et):
            return float_bits_hex(float_from_bits(int(v), et), et) if et.name == "bf16" else "0x%02X" % int(v)
        return format_float(float(v), et)
    if isinstance(et, ComplexType):
        return f"({_element_str(v.real, et.element_type)}, {_element_str(v.imag, et.element_type)})"
    if isinstance(et, IntegerType) and et.width == 1:
        return "true" if v else "false"
    return str(int(v))


def wrap_int(value: int, t: Type) -> int:
    """``value`` reduced modulo 2**width into the range of integer type ``t`` (MLIR's
    two's-complement semantics: signed range for signless and ``si`` types, unsigned for
    ``ui``, 0/1 for 1-bit types; ``index`` is 64-bit). Python ints never overflow, so this
    is the one place where a wider result (a fold of ``127 + 1 : i8``) becomes the value the
    type holds (``-128``)."""
    w = 64 if isinstance(t, IndexType) else t.width
    v = int(value) & ((1 << w) - 1)
    if w > 1 and getattr(t, "signedness", "") != "u" and v >> (w - 1):
        v -= 1 << w
    return v


def int_array(values, t: Type) -> np.ndarray:
    """Integers ``values`` (Python ints, nested lists or any integer/bool array) as a numpy
    array of ``t``'s dtype, every element wrapped as :func:`wrap_int` does. numpy itself
    raises OverflowError for out-of-range Python ints (``np.int8(128)``) and silently
    truncates arrays, so every int → numpy conversion of the compiler goes through here."""
    dt = numpy_dtype(t)
    if isinstance(values, np.ndarray) and values.dtype == dt:
        return values
    try:
        a = np.asarray(values)
    except OverflowError:
        a = np.asarray(values, dtype=object)
    if a.dtype == dt:
        return a
    if a.dtype.kind == "f":
        a = a.astype(np.int64)
    if a.dtype.kind == "O":
        flat = [wrap_int(int(v), t) for v in a.reshape(-1)]
        return np.array(flat, dtype=dt).reshape(a.shape)
    w = 64 if isinstance(t, IndexType) else t.width
    u = a.astype(np.uint64)  # modulo 2**64, as two's complement
    if w < 64:
        u &= np.uint64((1 << w) - 1)
    if dt == np.bool_:
        return u.astype(np.bool_)
    if dt.kind == "u":
        return u.astype(dt)
    if w == 64:
        return u.view(np.int64).astype(dt, copy=False)
    s = u.astype(np.int64)
    s = np.where(s >= (1 << (w - 1)), s - (1 << w), s)
    return s.astype(dt)


def _is_int_type(t: Type) -> bool:
    return isinstance(t, (IntegerType, IndexType))


def to_raw_bytes(arr: np.ndarray, et: Type) -> bytes:
    """Bytes of ``arr`` as MLIR stores element type ``et`` (i1 one byte per element)."""
    return np.ascontiguousarray(arr).astype(numpy_dtype(et), copy=False).tobytes()


def _is_broadcast(a: np.ndarray) -> bool:
    """Whether ``a`` repeats one element through zero strides (a lazily held splat)."""
    return a.size > 1 and all(st == 0 for st in a.strides)


class DenseElementsAttr(Attribute):
    """``dense<...> : tensor<...>``; ``array`` has the type's shape and numpy dtype.

    A splat (one value for every element) is held as a read-only broadcast view of that one
    value (:meth:`splat`), so ``dense<1.0> : tensor<65536x256x256xf32>`` costs one element
    of memory; reading it (``array.reshape(-1)[0]``, ``is_splat``) never materialises it.
    """

    __slots__ = ("array", "type", "_hash")

    def __init__(self, array: np.ndarray, type: ShapedType):
        shape = tuple(type.shape)
        dt = numpy_dtype(type.element_type)
        if _is_int_type(type.element_type) and not (isinstance(array, np.ndarray) and array.dtype == dt):
            array = int_array(array, type.element_type)
        if isinstance(array, np.ndarray) and _is_broadcast(array) and array.dtype == dt:
            self.array = np.broadcast_to(array.reshape(-1)[:1].reshape(()), shape)
        else:
            self.array = np.ascontiguousarray(array, dtype=dt).reshape(shape)
        self.type = type
        self._hash = None

    @classmethod
    def splat(cls, value, type: ShapedType) -> "DenseElementsAttr":
        """Every element of ``type`` equal to ``value``, without allocating the elements."""
        et = type.element_type
        one = (int_array(value, et) if _is_int_type(et) else np.array(value, dtype=numpy_dtype(et))).reshape(())
        return cls(np.broadcast_to(one, tuple(type.shape)), type)

    @property
    def is_splat(self) -> bool:
        a = self.array.reshape(-1)
        if a.size == 0:
            return False
        if _is_broadcast(a):
            return True
        if a.dtype == np.bool_:
            return bool(np.all(a == a[0]))
        b = a.view(np.uint8).reshape(a.size, -1)
        return bool(np.all(b == b[0]))

    def splat_value(self):
        """The first element (the value of every element when :attr:`is_splat`)."""
        return self.array.reshape(-1)[0]

    def int_list(self, limit: int = MAX_LIST_ELEMENTS) -> list:
        """The elements as Python ints, for attributes that hold a short list (dimensions,
        paddings, shapes). CompileError (located by the caller's pass) when there are more
        than ``limit``: such a list would not describe any tensor's dimensions."""
        n = self.array.size
        if n > limit:
            raise CompileError(f"attribute {self.type} has {n} elements where a list of at most "
                               f"{limit} integers is expected")
        return [int(x) for x in self.array.reshape(-1).tolist()]

    def _key(self) -> bytes:
        a = self.array
        return (b"splat:" + a.reshape(-1)[:1].tobytes()) if _is_broadcast(a) else a.tobytes()

    def __eq__(self, o):
        if not (isinstance(o, DenseElementsAttr) and self.type == o.type):
            return False
        if _is_broadcast(self.array) or _is_broadcast(o.array):
            return self.is_splat and o.is_splat and (self.array.reshape(-1)[:1].tobytes()
                                                     == o.array.reshape(-1)[:1].tobytes())
        return self.array.tobytes() == o.array.tobytes()

    def __hash__(self):
        if self._hash is None:
            self._hash = hash((self.type, self._key() if _is_broadcast(self.array) or not self.is_splat
                               else b"splat:" + self.array.reshape(-1)[:1].tobytes()))
        return self._hash

    def literal(self) -> str:
        """The part inside ``dense<...>``."""
        et = self.type.element_type
        flat = self.array.reshape(-1)
        if flat.size == 0:
            return "" if self.type.rank <= 1 else "[" * 1 + "]"
        if self.is_splat and flat.size > 1:
            return _element_str(flat[0], et)
        if flat.size > HEX_PRINT_THRESHOLD and not isinstance(et, ComplexType):
            return '"0x' + to_raw_bytes(flat, et).hex().upper() + '"'
        if self.type.rank == 0:
            return _element_str(flat[0], et)

        def rec(a):
            if a.ndim == 1:
                return "[" + ", ".join(_element_str(v, et) for v in a) + "]"
            return "[" + ", ".join(rec(x) for x in a) + "]"

        return rec(self.array)

    def __str__(self) -> str:
        return f"dense<{self.literal()}> : {self.type}"

    def __repr__(self) -> str:
        return f"<dense {self.type}>"


@dataclass(frozen=True)
class DenseResourceAttr(Attribute):
    """``dense_resource<name> : tensor<...>``; the bytes live in the module's resources."""

    name: str
    type: ShapedType

    def __str__(self) -> str:
        return f"dense_resource<{self.name}> : {self.type}"


def int_attr(v: int, t: Type = IntegerType(64)) -> IntegerAttr:
    return IntegerAttr(int(v), t)


def index_attr(v: int) -> IntegerAttr:
    return IntegerAttr(int(v), IndexType())


def i64_array(vals) -> DenseArrayAttr:
    return DenseArrayAttr(IntegerType(64), tuple(int(v) for v in vals))


def str_array(vals) -> ArrayAttr:
    return ArrayAttr(tuple(StringAttr(v) for v in vals))


def attr_to_python(a: Attribute):
    """Convert simple attributes to Python values (ints, floats, strings, lists)."""
    if isinstance(a, (IntegerAttr, FloatAttr, BoolAttr, StringAttr)):
        return a.value
    if isinstance(a, (ArrayAttr, DenseArrayAttr)):
        return [attr_to_python(x) if isinstance(x, Attribute) else x for x in a.value]
    if isinstance(a, DenseElementsAttr):
        return a.array.tolist()
    if isinstance(a, AffineMapAttr):
        return a.value
    if isinstance(a, TypeAttr):
        return a.value
    return a


class MissingAttributeError(CompileError, KeyError):
    """A required attribute is absent: a located CompileError that is also a KeyError, so
    code probing with ``try: attrs[k] except KeyError`` keeps working."""

    def __str__(self) -> str:
        return CompileError.__str__(self)


class OpAttributes(dict):
    """The attribute dictionary of one operation (``Operation.attributes``).

    Reading a missing name (``op.attributes["permutation"]``) raises
    :class:`MissingAttributeError` at the op's location, MLIR-style
    (``'stablehlo.transpose' op requires attribute 'permutation'``), so every lowering
    reports a misspelled or missing attribute as a user error. ``get``/``in`` are unchanged.
    """

    __slots__ = ("op",)

    def __init__(self, op, items=()):
        super().__init__(items)
        self.op = op

    def __missing__(self, key):
        op = self.op
        raise MissingAttributeError(f"'{op.name}' op requires attribute '{key}'", op.loc)

    def __reduce__(self):  # pickles/copies as a plain dict
        return (dict, (dict(self),))

"""MLIR builtin types and the dialect types ireec knows.

Types are immutable, hashable value objects; ``str(t)`` gives MLIR syntax. Dynamic
dimensions are ``None`` in shapes and print as ``?``.
Source of the syntax: https://mlir.llvm.org/docs/Dialects/Builtin/#types
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Tuple

import numpy as np


class Type:
    """Base of all types."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"<{self}>"


@dataclass(frozen=True, eq=True)
class IntegerType(Type):
    """``iN`` (signless), ``siN`` or ``uiN``; ``signedness`` is '', 's' or 'u'."""

    width: int
    signedness: str = ""

    def __str__(self) -> str:
        return f"{self.signedness}i{self.width}"


@dataclass(frozen=True, eq=True)
class IndexType(Type):
    def __str__(self) -> str:
        return "index"


@dataclass(frozen=True, eq=True)
class FloatType(Type):
    """``f16``, ``bf16``, ``f32``, ``f64`` and the small float kinds (``f8E4M3FN``...)."""

    name: str

    @property
    def width(self) -> int:
        if self.name == "bf16":
            return 16
        if self.name in ("f16", "f32", "f64", "f80", "f128"):
            return int(self.name[1:])
        if self.name == "tf32":
            return 19
        return int(self.name[1])  # f8E4M3FN, f6E3M2FN, f4E2M1FN...

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, eq=True)
class NoneType(Type):
    def __str__(self) -> str:
        return "none"


@dataclass(frozen=True, eq=True)
class ComplexType(Type):
    element_type: Type

    def __str__(self) -> str:
        return f"complex<{self.element_type}>"


def _shape_str(shape) -> str:
    return "".join(("?" if d is None else str(d)) + "x" for d in shape)


@dataclass(frozen=True, eq=True)
class ShapedType(Type):
    """Common base of tensor, memref and vector types."""

    shape: Tuple[Optional[int], ...]
    element_type: Type

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def has_static_shape(self) -> bool:
        return all(d is not None for d in self.shape)

    @property
    def num_elements(self) -> int:
        """Product of the static dims; raises ValueError on a dynamic shape."""
        if not self.has_static_shape:
            raise ValueError(f"{self} has a dynamic shape")
        n = 1
        for d in self.shape:
            n *= d
        return n


@dataclass(frozen=True, eq=True)
class TensorType(ShapedType):
    """``tensor<4x?xf32>``; ``shape`` None means unranked (``tensor<*xf32>``)."""

    encoding: Optional[object] = None

    def __str__(self) -> str:
        if self.shape is None:
            return f"tensor<*x{self.element_type}>"
        enc = f", {self.encoding}" if self.encoding is not None else ""
        return f"tensor<{_shape_str(self.shape)}{self.element_type}{enc}>"

    @property
    def has_static_shape(self) -> bool:
        return self.shape is not None and all(d is not None for d in self.shape)


@dataclass(frozen=True, eq=True)
class MemRefType(ShapedType):
    """``memref<4x8xf32, strided<[8, 1], offset: ?>, 1>``; layout and memory space as
    attributes (or None)."""

    layout: Optional[object] = None
    memory_space: Optional[object] = None

    def __str__(self) -> str:
        if self.shape is None:
            ms = f", {self.memory_space}" if self.memory_space is not None else ""
            return f"memref<*x{self.element_type}{ms}>"
        s = f"memref<{_shape_str(self.shape)}{self.element_type}"
        if self.layout is not None:
            s += f", {self.layout}"
        if self.memory_space is not None:
            s += f", {self.memory_space}"
        return s + ">"


@dataclass(frozen=True, eq=True)
class VectorType(ShapedType):
    scalable: Tuple[bool, ...] = ()

    def __str__(self) -> str:
        dims = ""
        for i, d in enumerate(self.shape):
            sc = self.scalable[i] if i < len(self.scalable) else False
            dims += (f"[{d}]" if sc else str(d)) + "x"
        return f"vector<{dims}{self.element_type}>"


@dataclass(frozen=True, eq=True)
class FunctionType(Type):
    inputs: Tuple[Type, ...]
    results: Tuple[Type, ...]

    def __str__(self) -> str:
        ins = ", ".join(str(t) for t in self.inputs)
        if len(self.results) == 1 and not isinstance(self.results[0], FunctionType):
            return f"({ins}) -> {self.results[0]}"
        return f"({ins}) -> ({', '.join(str(t) for t in self.results)})"


@dataclass(frozen=True, eq=True)
class TupleType(Type):
    types: Tuple[Type, ...]

    def __str__(self) -> str:
        return f"tuple<{', '.join(str(t) for t in self.types)}>"


@dataclass(frozen=True, eq=True)
class OpaqueType(Type):
    """A dialect type ireec keeps as text: ``!hal.buffer_view``, ``!stablehlo.token``.

    ``dialect`` is the prefix before the first dot, ``body`` the rest verbatim.
    """

    dialect: str
    body: str

    def __str__(self) -> str:
        return f"!{self.dialect}.{self.body}"


@dataclass(frozen=True, eq=True)
class DispatchTensorType(Type):
    """``!flow.dispatch.tensor<readonly:tensor<4xf32>>`` (IREE's binding view type)."""

    access: str
    tensor: TensorType

    def __str__(self) -> str:
        return f"!flow.dispatch.tensor<{self.access}:{self.tensor}>"


# Canonical instances ---------------------------------------------------------
i1 = IntegerType(1)
i8 = IntegerType(8)
i16 = IntegerType(16)
i32 = IntegerType(32)
i64 = IntegerType(64)
index = IndexType()
f16 = FloatType("f16")
bf16 = FloatType("bf16")
f32 = FloatType("f32")
f64 = FloatType("f64")
BUFFER_VIEW = OpaqueType("hal", "buffer_view")


def is_float(t: Type) -> bool:
    return isinstance(t, FloatType)


def is_int(t: Type) -> bool:
    return isinstance(t, IntegerType)


def is_int_or_index(t: Type) -> bool:
    return isinstance(t, (IntegerType, IndexType))


def element_type(t: Type) -> Type:
    """The element type of a shaped type, or ``t`` itself for a scalar."""
    return t.element_type if isinstance(t, ShapedType) else t


def bit_width(t: Type) -> int:
    """Storage bits of a scalar type (index is 64 bits; complex is twice its part)."""
    if isinstance(t, IntegerType):
        return t.width
    if isinstance(t, IndexType):
        return 64
    if isinstance(t, FloatType):
        return t.width
    if isinstance(t, ComplexType):
        return 2 * bit_width(t.element_type)
    raise ValueError(f"type {t} has no bit width")


def storage_bytes(t: Type) -> int:
    """Bytes one element of scalar type ``t`` takes in memory (i1 takes a byte)."""
    return max(1, (bit_width(t) + 7) // 8)


_NP = {
    ("", 1): np.bool_, ("", 8): np.int8, ("", 16): np.int16, ("", 32): np.int32,
    ("", 64): np.int64, ("s", 8): np.int8, ("s", 16): np.int16, ("s", 32): np.int32,
    ("s", 64): np.int64, ("u", 8): np.uint8, ("u", 16): np.uint16, ("u", 32): np.uint32,
    ("u", 64): np.uint64, ("s", 1): np.bool_, ("u", 1): np.bool_,
}


def numpy_dtype(t: Type) -> np.dtype:
    """numpy dtype holding elements of scalar type ``t``.

    Signless integers map to signed numpy ints; bf16 is held as uint16 bit patterns
    (numpy has no bfloat16), the small floats (f8*, f6*, f4E2M1FN) as uint8 bit patterns in
    the low bits of one byte per element. Raises ValueError for types with no numpy form.
    """
    if isinstance(t, IntegerType):
        if t.width == 4 or t.width == 2:
            return np.dtype(np.int8 if t.signedness != "u" else np.uint8)
        try:
            return np.dtype(_NP[(t.signedness, t.width)])
        except KeyError:
            raise ValueError(f"no numpy dtype for {t}") from None
    if isinstance(t, IndexType):
        return np.dtype(np.int64)
    if isinstance(t, FloatType):
        if t.name == "f16":
            return np.dtype(np.float16)
        if t.name == "f32":
            return np.dtype(np.float32)
        if t.name == "f64":
            return np.dtype(np.float64)
        if t.name == "bf16":
            return np.dtype(np.uint16)
        if t.width <= 8:  # f8*, f6*, f4E2M1FN: bit patterns, one element per byte
            return np.dtype(np.uint8)
    if isinstance(t, ComplexType):
        if t.element_type == f32:
            return np.dtype(np.complex64)
        if t.element_type == f64:
            return np.dtype(np.complex128)
    raise ValueError(f"no numpy dtype for {t}")


# Small float formats ----------------------------------------------------------
# MLIR name -> (exponent bits, mantissa bits, bias, kind). Kinds (LLVM APFloat's
# fltNonfiniteBehavior and the FNUZ convention): "ieee" (inf and NaNs), "fn" (no inf, NaN is
# all ones), "fnuz" (no inf, no -0, 0x80 is NaN), "finite" (no inf/NaN), "e8m0" (unsigned
# powers of two, 0xFF NaN). Sources: OCP OFP8 1.0 and OCP MX 1.0 specifications, LLVM
# APFloat semantics. runtime_c/ireec_runtime.h implements the same conversions in C.
SMALL_FLOAT_FORMATS = {
    "f8E5M2": (5, 2, 15, "ieee"), "f8E4M3": (4, 3, 7, "ieee"), "f8E3M4": (3, 4, 3, "ieee"),
    "f8E4M3FN": (4, 3, 7, "fn"), "f8E5M2FNUZ": (5, 2, 16, "fnuz"),
    "f8E4M3FNUZ": (4, 3, 8, "fnuz"), "f8E4M3B11FNUZ": (4, 3, 11, "fnuz"),
    "f8E8M0FNU": (8, 0, 127, "e8m0"), "f6E3M2FN": (3, 2, 3, "finite"),
    "f6E2M3FN": (2, 3, 1, "finite"), "f4E2M1FN": (2, 1, 1, "finite"),
}


def is_small_float(t: Type) -> bool:
    """True for the f8/f6/f4 float types (stored as bit patterns, one per byte)."""
    return isinstance(t, FloatType) and t.name in SMALL_FLOAT_FORMATS


def small_float_from_bits(bits: int, t: FloatType) -> float:
    """The value of bit pattern ``bits`` (low bits of a byte) of small float type ``t``.
    Raises KeyError for other types."""
    import math

    eb, mb, bias, kind = SMALL_FLOAT_FORMATS[t.name]
    nbits = eb + mb + (0 if kind == "e8m0" else 1)
    bits &= (1 << nbits) - 1
    sign = -1.0 if kind != "e8m0" and bits >> (nbits - 1) else 1.0
    e = (bits >> mb) & ((1 << eb) - 1)
    m = bits & ((1 << mb) - 1)
    if kind == "e8m0":
        return math.nan if e == 0xFF else math.ldexp(1.0, e - bias)
    if kind == "fnuz" and bits == 1 << (nbits - 1):
        return math.nan
    if kind == "fn" and e == (1 << eb) - 1 and m == (1 << mb) - 1:
        return math.nan
    if kind == "ieee" and e == (1 << eb) - 1:
        return math.nan if m else sign * math.inf
    if e == 0:
        return sign * math.ldexp(m, 1 - bias - mb)
    return sign * math.ldexp(m | (1 << mb), e - bias - mb)


def small_float_to_bits(value: float, t: FloatType) -> int:
    """Bit pattern of ``value`` rounded to small float type ``t`` (nearest, ties to even;
    overflow: inf for "ieee" kinds, NaN for fn/fnuz, the largest value for "finite"; as
    LLVM APFloat and ml_dtypes). Raises KeyError for other types."""
    import math

    eb, mb, bias, kind = SMALL_FLOAT_FORMATS[t.name]
    nbits = eb + mb + (0 if kind == "e8m0" else 1)
    signbit = 0 if kind == "e8m0" else 1 << (nbits - 1)
    all_ones = (1 << (eb + mb)) - 1
    maxb = {"ieee": all_ones - (1 << mb), "fn": all_ones - 1, "e8m0": all_ones - 1}.get(kind, all_ones)
    v = float(value)
    sign = signbit if math.copysign(1.0, v) < 0 else 0
    if kind == "e8m0":
        nan = 0xFF
    elif kind in ("fnuz", "finite"):
        nan = signbit
    elif kind == "fn":
        nan = sign | (signbit - 1)
    else:
        nan = sign | (((1 << eb) - 1) << mb) | (1 << (mb - 1) if mb else 0)
    if math.isnan(v):
        return nan
    if kind == "e8m0" and (v <= 0 or math.isinf(v)):
        return 0xFF
    overflow = sign | (maxb + 1) if kind == "ieee" else (sign | maxb if kind == "finite" else nan)
    if math.isinf(v):
        return overflow
    a = abs(v)
    if a == 0.0:
        return 0 if kind == "fnuz" else sign
    emin = -bias if kind == "e8m0" else 1 - bias
    e = max(math.frexp(a)[1] - 1, emin)
    q = math.ldexp(1.0, e - mb)
    r = round(a / q) * q  # Python's round() is half-to-even
    if r == 0.0:
        return 0 if kind in ("fnuz", "e8m0") else sign
    if r > small_float_from_bits(maxb, t):
        return overflow
    e = math.frexp(r)[1] - 1
    if kind != "e8m0" and e < emin:
        return sign | int(math.ldexp(r, mb - emin))
    return sign | ((e + bias) << mb) | (int(math.ldexp(r, mb - e)) - (1 << mb))

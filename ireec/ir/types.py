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
        if self.name.startswith("f8"):
            return 8
        if self.name.startswith("f4") or self.name.startswith("f6"):
            return int(self.name[1])
        return int(self.name[1:])

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
    (numpy has no bfloat16). Raises ValueError for types with no numpy form.
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
        if t.width == 8:
            return np.dtype(np.uint8)
    if isinstance(t, ComplexType):
        if t.element_type == f32:
            return np.dtype(np.complex64)
        if t.element_type == f64:
            return np.dtype(np.complex128)
    raise ValueError(f"no numpy dtype for {t}")

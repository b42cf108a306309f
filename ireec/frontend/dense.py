"""``dense<...>`` literals as arrays: element values checked against their type.

:func:`make_dense` builds a :class:`DenseElementsAttr` from the parsed elements of a dense
literal or from its hex bytes; :func:`check_int_range` and :func:`hex_float` check one
integer or hex float literal against its type. Errors are :class:`CompileError` at the
literal's location.
"""
from __future__ import annotations

from typing import List, Optional, Tuple

import numpy as np

from ..ir import types as T
from ..ir.attributes import DenseElementsAttr, float_from_bits
from ..ir.diagnostics import CompileError, Location
from .type_parser import MAX_DIM


def int_range(t: T.Type) -> Tuple[int, int]:
    """Smallest and largest integer literal accepted for ``t``: a signless ``iN`` may be
    written signed or unsigned (``-2**(N-1)`` .. ``2**N - 1``, as MLIR's parser accepts);
    ``siN`` and ``uiN`` take their own range; ``index`` is 64-bit."""
    if isinstance(t, T.IndexType):
        return -(1 << 63), (1 << 64) - 1
    w = t.width
    if t.signedness == "u":
        return 0, (1 << w) - 1
    if t.signedness == "s":
        return -(1 << (w - 1)), (1 << (w - 1)) - 1
    return -(1 << (w - 1)) if w > 1 else -1, (1 << w) - 1


def check_int_range(v: int, t: T.Type, loc: Location) -> int:
    """``v`` if it fits the integer type ``t`` (see :func:`int_range`), else CompileError;
    a CompileError too when ``t`` is not an integer or index type (a complex, a tuple, an
    opaque dialect type), which has no integer range to check against."""
    if not isinstance(t, (T.IntegerType, T.IndexType)):
        raise CompileError(f"integer literal for non-integer type {t}", loc)
    lo, hi = int_range(t)
    if not lo <= v <= hi:
        raise CompileError(f"integer constant {v} is out of range for type {t}", loc)
    return v


def hex_float(bits: int, t: T.FloatType, loc: Location) -> float:
    """A float given by its bit pattern (``0x7FC00000`` for an f32 NaN)."""
    width = 8 * T.storage_bytes(t) if t.name in ("f16", "bf16", "f32", "f64") else 0
    if not width or not 0 <= bits < (1 << width):
        raise CompileError(f"hexadecimal float literal 0x{bits:X} does not fit type {t}", loc)
    return float_from_bits(bits, t)


def check_dense_type(ty: T.Type, loc: Location) -> T.ShapedType:
    """``ty`` if it can type a ``dense<...>`` or ``dense_resource<...>`` literal: a statically
    shaped type whose elements have an array form (integers of a supported width, index,
    floats, complex f32/f64). Otherwise a CompileError at ``loc`` naming the type, raised
    before any element is read against it."""
    if not isinstance(ty, T.ShapedType) or not ty.has_static_shape:
        raise CompileError(f"dense elements need a static shaped type, got '{ty}'", loc)
    try:
        T.numpy_dtype(ty.element_type)
    except ValueError:
        raise CompileError(f"dense elements of type {ty.element_type} are not supported", loc) from None
    return ty


def make_dense(ty: T.ShapedType, elems, hexstr: Optional[str], loc: Location, *,
               raw: Optional[bytes] = None) -> DenseElementsAttr:
    """Build a DenseElementsAttr from parsed literal elements, a "0x..." hex string, or
    ``raw``: the bytes such a string stands for, already decoded (the array is a read-only
    view of them, not a copy; bool elements excepted).

    One value for a type of many elements is a splat, kept unmaterialised. CompileError at
    ``loc`` when the literal does not fit the type: wrong element count or byte size, a
    value of the wrong kind (float for integers, complex for reals) or out of range.
    """
    et = ty.element_type
    n = ty.num_elements
    try:
        dt = T.numpy_dtype(et)
    except ValueError:
        raise CompileError(f"dense elements of type {et} are not supported", loc) from None
    if n * max(1, dt.itemsize) > MAX_DIM:
        raise CompileError(f"type {ty} has {n} elements, more bytes than a 64-bit size can count", loc)
    if hexstr is not None and raw is None:
        if not hexstr.startswith("0x"):
            raise CompileError("dense string literal must be hex ('0x...')", loc)
        try:
            raw = bytes.fromhex(hexstr[2:])
        except ValueError:
            raise CompileError("dense hex literal is not valid hex", loc) from None
    if raw is not None:
        size = 1 if dt == np.bool_ else dt.itemsize
        if len(raw) % size:
            raise CompileError(f"hex dense literal has {len(raw)} bytes, not a multiple of the "
                               f"{size}-byte elements of {ty}", loc)
        if dt == np.bool_:
            arr = np.frombuffer(raw, np.uint8).astype(np.bool_)
        else:
            arr = np.frombuffer(raw, dt)
        if arr.size == 1 and n != 1:
            return DenseElementsAttr.splat(arr[0], ty)
        if arr.size != n:
            raise CompileError(f"hex dense literal has {arr.size} elements, type {ty} needs {n}", loc)
        return DenseElementsAttr(arr.reshape(ty.shape), ty)
    flat: List = []

    def walk(x, depth):
        if isinstance(x, list):
            for y in x:
                walk(y, depth + 1)
        else:
            flat.append(x)

    walk(elems, 0)
    vals = [_elem_value(x, et, loc) for x in flat]
    if len(vals) != n and not (len(vals) == 1 and n != 1):
        raise CompileError(f"dense literal has {len(vals)} elements, but type {ty} needs {n}", loc)
    if isinstance(et, T.IntegerType) and et.signedness == "" and et.width > 1:
        # Signless ints may be written as unsigned: wrap into the signed range.
        bits = et.width
        vals = [((v + (1 << (bits - 1))) % (1 << bits)) - (1 << (bits - 1)) for v in vals]
    if len(vals) == 1 and n != 1:
        with np.errstate(over="ignore"):
            return DenseElementsAttr.splat(vals[0], ty)
    with np.errstate(over="ignore"):  # e.g. 1e5 in f16 is inf, as MLIR rounds it
        arr = np.array(vals, dtype=dt) if vals else np.zeros(0, dt)
    return DenseElementsAttr(arr.reshape(ty.shape), ty)


def _elem_value(x, et, loc):
    if isinstance(x, tuple) and x[0] == "complex":
        if not isinstance(et, T.ComplexType):
            raise CompileError(f"complex literal (re, im) in dense of non-complex type {et}", loc)
        if not isinstance(x[1], tuple) or not isinstance(x[2], tuple):
            raise CompileError("complex element parts must be numbers", loc)
        return complex(_elem_value(x[1], et.element_type, loc), _elem_value(x[2], et.element_type, loc))
    if isinstance(et, T.ComplexType):
        raise CompileError(f"expected a complex element (re, im) for type {et}", loc)
    kind, v = x
    if isinstance(et, T.FloatType):
        if kind == "hex":
            if et.name == "bf16" or T.is_small_float(et):
                if not 0 <= v < (1 << (8 * T.storage_bytes(et))):
                    raise CompileError(f"hexadecimal float literal 0x{v:X} does not fit type {et}", loc)
                return v
            return hex_float(v, et, loc)
        if T.is_small_float(et):  # f8/f6/f4: stored as bit patterns, rounded to nearest even
            return T.small_float_to_bits(float(v), et)
        if et.name == "bf16":
            with np.errstate(over="ignore"):
                b = np.array([v], np.float32).view(np.uint32)[0]
            return int((int(b) + 0x7FFF + ((int(b) >> 16) & 1)) >> 16)
        return float(v)
    if kind == "float":
        raise CompileError(f"floating point literal in dense of integer type {et}", loc)
    if not isinstance(et, (T.IntegerType, T.IndexType)):
        raise CompileError(f"integer literal in dense of type {et}", loc)
    check_int_range(v, et, loc)
    if isinstance(et, T.IntegerType) and et.width == 1:
        return bool(v)
    return int(v)


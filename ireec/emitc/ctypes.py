"""C spellings of IR types and constants used by the emitc lowering and the C printer."""
from __future__ import annotations

import math
import re
from typing import Optional

from ..ir import types as T
from ..ir.attributes import float_bits_hex
from ..ir.diagnostics import CompileError


def ctype(t: T.Type) -> str:
    """C type of a scalar value in registers (i1 is ``bool``; f16, bf16 and the small floats
    f8*/f6*/f4E2M1FN compute as float; sub-byte integers iN/siN (1 < N < 8) are ``int8_t``
    holding the value sign-extended from N bits, uiN ``uint8_t`` holding it zero-extended,
    the same form in memory, one element per byte)."""
    if isinstance(t, T.IndexType):
        return "int64_t"
    if isinstance(t, T.IntegerType):
        if t.width == 1:
            return "bool"
        if 1 < t.width < 8:  # sub-byte integers live in a byte (see subbyte_wrap)
            return "uint8_t" if t.signedness == "u" else "int8_t"
        if t.width not in (8, 16, 32, 64):
            raise CompileError(f"integer type {t} has no C type")
        return f"{'u' if t.signedness == 'u' else ''}int{t.width}_t"
    if isinstance(t, T.FloatType):
        if t.name == "f64":
            return "double"
        if t.name in ("f32", "f16", "bf16") or T.is_small_float(t):
            return "float"
    raise CompileError(f"type {t} is not supported in generated C")


def storage_ctype(t: T.Type) -> str:
    """C type of an element in memory (i1 is a byte, f16/bf16 are 16-bit patterns, the small
    floats are bit patterns in one byte)."""
    if isinstance(t, T.IntegerType) and t.width == 1:
        return "uint8_t"
    if T.is_small_float(t):
        return "uint8_t"
    if isinstance(t, T.FloatType) and t.name in ("f16", "bf16"):
        return "uint16_t"
    return ctype(t)


def runtime_type_name(t: T.Type) -> str:
    """The lower-case name the runtime header's helpers use for a float type stored as a
    bit pattern: ``f16``, ``bf16``, ``f8e4m3fn``... (KeyError-free: any FloatType)."""
    return t.name.lower()


def load_conversion(t: T.Type) -> Optional[str]:
    """Name of the ireec_runtime.h function turning a stored element of type ``t`` into its
    register value (``ireec_f16_to_f32``, ``ireec_f8e4m3fn_to_f32``...), or None when the
    stored and register forms are the same C value."""
    if isinstance(t, T.FloatType) and (t.name in ("f16", "bf16") or T.is_small_float(t)):
        return f"ireec_{runtime_type_name(t)}_to_f32"
    return None


def store_conversion(t: T.Type) -> Optional[str]:
    """Inverse of :func:`load_conversion` (``ireec_f32_to_f16``...): rounds a float register
    value to nearest-even in ``t`` and returns its bit pattern."""
    if isinstance(t, T.FloatType) and (t.name in ("f16", "bf16") or T.is_small_float(t)):
        return f"ireec_f32_to_{runtime_type_name(t)}"
    return None


def rounding_function(t: T.Type) -> Optional[str]:
    """Name of the runtime helper that rounds a float register value to the nearest value
    of ``t`` (f16, bf16, small floats), or None for f32/f64 and non-floats."""
    if isinstance(t, T.FloatType) and t.name in ("f16", "bf16"):
        return f"ireec_round_to_{t.name}"
    if T.is_small_float(t):
        return f"ireec_round_to_{runtime_type_name(t)}"
    return None


def is_subbyte_int(t: T.Type) -> bool:
    """True for integer types of 2..7 bits (i4, ui2...), stored one element per byte."""
    return isinstance(t, T.IntegerType) and 1 < t.width < 8


def subbyte_mask(t: T.Type) -> int:
    """``2^N - 1`` for a sub-byte integer type iN (the bits that hold its value)."""
    return (1 << t.width) - 1


def subbyte_wrap(t: T.Type, expr: str) -> str:
    """C expression reducing integer expression ``expr`` modulo 2^N into the register form of
    sub-byte type ``t`` (arith's two's complement wrap-around): signless/signed values are
    sign-extended from bit N-1 with ``((x & M) ^ H) - H`` (M = 2^N - 1, H = 2^(N-1)),
    unsigned ones zero-extended with ``x & M``. ``expr`` may have any C integer type."""
    m = subbyte_mask(t)
    if t.signedness == "u":
        return f"(({ctype(t)})(({expr}) & {m}))"
    h = 1 << (t.width - 1)
    return f"(({ctype(t)})(((({expr}) & {m}) ^ {h}) - {h}))"


def unsigned_ctype(t: T.Type) -> str:
    """C unsigned type of the same storage width as integer type ``t`` (``uint8_t`` for
    sub-byte integers; callers mask those with :func:`subbyte_mask`)."""
    if isinstance(t, T.IndexType):
        return "uint64_t"
    if is_subbyte_int(t):
        return "uint8_t"
    if isinstance(t, T.IntegerType) and t.width > 1:
        return f"uint{t.width}_t"
    return ctype(t)


def c_literal(value, t: T.Type) -> str:
    """A C literal of ``value`` with type ``t`` (exact for floats; NaN/Inf via bit casts)."""
    if isinstance(t, T.FloatType):
        v = float(value)
        if t.name == "f64":
            if math.isnan(v) or math.isinf(v):
                return f"ireec_f64_from_bits(UINT64_C({float_bits_hex(v, t)}))"
            return repr(v) if "e" in repr(v) or "." in repr(v) else repr(v) + ".0"
        if math.isnan(v) or math.isinf(v):
            return f"ireec_f32_from_bits(UINT32_C({float_bits_hex(v, T.f32)}))"
        import numpy as np

        r = repr(float(np.float32(v)))
        if "e" not in r and "." not in r:
            r += ".0"
        return r + "f"
    if isinstance(t, T.IntegerType) and t.width == 1:
        return "true" if value else "false"
    v = int(value)
    if is_subbyte_int(t):  # the register form: sign-extended (iN/siN) or masked (uiN)
        v &= subbyte_mask(t)
        if t.signedness != "u" and v >> (t.width - 1):
            v -= 1 << t.width
    if isinstance(t, (T.IndexType,)) or (isinstance(t, T.IntegerType) and t.width == 64):
        if t == T.IntegerType(64, "u"):
            return f"UINT64_C({v})"
        if v == -(1 << 63):
            return "INT64_MIN"
        return f"INT64_C({v})"
    if isinstance(t, T.IntegerType) and t.width == 32 and v == -(1 << 31):
        return "INT32_MIN"
    return f"(({ctype(t)}){v})"


#: Bytes of the C scalar and storage types the generated code declares locals of.
C_TYPE_BYTES = {"float": 4, "double": 8, "int8_t": 1, "uint8_t": 1, "int16_t": 2, "uint16_t": 2,
                "int32_t": 4, "uint32_t": 4, "int64_t": 8, "uint64_t": 8, "bool": 1, "_Bool": 1,
                "int": 4, "size_t": 8, "ptrdiff_t": 8, "intptr_t": 8, "uintptr_t": 8}


def c_type_bytes(name: str) -> int:
    """Bytes of a C type the generated code uses (``float``, ``int64_t``, pointers: 8)."""
    name = name.replace("const", "").strip()
    if name.endswith("*"):
        return 8
    return C_TYPE_BYTES.get(name, 8)


def c_ident(name: str) -> str:
    """A C identifier from an MLIR symbol name: every character other than a letter, digit or
    ``_`` becomes ``_`` (``main$async`` → ``main_async``)."""
    return re.sub(r"[^A-Za-z0-9_]", "_", name)

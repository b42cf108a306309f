"""C spellings of IR types and constants used by the emitc lowering and the C printer."""
from __future__ import annotations

import math

from ..ir import types as T
from ..ir.attributes import float_bits_hex
from ..ir.diagnostics import CompileError


def ctype(t: T.Type) -> str:
    """C type of a scalar value in registers (i1 is ``bool``, f16/bf16 compute as float)."""
    if isinstance(t, T.IndexType):
        return "int64_t"
    if isinstance(t, T.IntegerType):
        if t.width == 1:
            return "bool"
        if t.width not in (8, 16, 32, 64):
            raise CompileError(f"integer type {t} has no C type")
        return f"{'u' if t.signedness == 'u' else ''}int{t.width}_t"
    if isinstance(t, T.FloatType):
        if t.name == "f64":
            return "double"
        if t.name in ("f32", "f16", "bf16"):
            return "float"
    raise CompileError(f"type {t} is not supported in generated C")


def storage_ctype(t: T.Type) -> str:
    """C type of an element in memory (i1 is a byte, f16/bf16 are 16-bit patterns)."""
    if isinstance(t, T.IntegerType) and t.width == 1:
        return "uint8_t"
    if isinstance(t, T.FloatType) and t.name in ("f16", "bf16"):
        return "uint16_t"
    return ctype(t)


def unsigned_ctype(t: T.Type) -> str:
    if isinstance(t, T.IndexType):
        return "uint64_t"
    if isinstance(t, T.IntegerType) and t.width > 1:
        return f"uint{t.width}_t"
    return ctype(t)


def c_literal(value, t: T.Type) -> str:
    """A C literal of ``value`` with type ``t`` (exact for floats; NaN/Inf via bit casts)."""
    if isinstance(t, T.FloatType):
        v = float(value)
        if t.name == "f64":
            if math.isnan(v) or math.isinf(v):
                return f"ireec_f64_from_bits_(UINT64_C({float_bits_hex(v, t)}))"
            return repr(v) if "e" in repr(v) or "." in repr(v) else repr(v) + ".0"
        if math.isnan(v) or math.isinf(v):
            return f"ireec_f32_from_bits_(UINT32_C({float_bits_hex(v, T.f32)}))"
        import numpy as np

        r = repr(float(np.float32(v)))
        if "e" not in r and "." not in r:
            r += ".0"
        return r + "f"
    if isinstance(t, T.IntegerType) and t.width == 1:
        return "true" if value else "false"
    v = int(value)
    if isinstance(t, (T.IndexType,)) or (isinstance(t, T.IntegerType) and t.width == 64):
        if t == T.IntegerType(64, "u"):
            return f"UINT64_C({v})"
        if v == -(1 << 63):
            return "INT64_MIN"
        return f"INT64_C({v})"
    if isinstance(t, T.IntegerType) and t.width == 32 and v == -(1 << 31):
        return "INT32_MIN"
    return f"(({ctype(t)}){v})"

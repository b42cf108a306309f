"""C expressions for scalar arith / math ops (the patterns of ArithToEmitC / MathToEmitC).

Each entry gives a format string over the operands ``{0}, {1}, ...``; ``{T}`` is the C
result type, ``{U}`` its unsigned counterpart, ``{S}``/``{SU}`` the first operand's C type
and unsigned type, ``{f}`` the libm suffix ('f' for float, '' for double), ``{d}`` the suffix
of ireec_runtime.h's float/double helper pairs ('f' / 'd'), ``{W}`` the operand's bit width.
Signless integer add/sub/mul/shl wrap (two's complement), computed in unsigned C types
to avoid C's signed-overflow undefined behaviour. Integer divisions never trap: a zero
divisor (and -1 under a most negative dividend) is replaced by 1 (:func:`_safe_divisor`).
Predicates use upstream's enum order.

f16, bf16 and the small floats (f8*, f6*, f4E2M1FN) live in ``float`` registers; every op
whose result has one of those types is rounded to it (``ireec_round_to_<type>``), so each op
gives the value the narrow type's own arithmetic gives (IREE's CPU backends compute them as
extf -> f32 op -> truncf), and arith.truncf rounds. Loads and stores convert with the
helpers named by :func:`ireec.emitc.ctypes.load_conversion` / ``store_conversion``.

Sub-byte integers (i2, i4, ui4...) live in ``int8_t`` sign-extended from their N bits
(``uint8_t`` zero-extended for uiN): unsigned views of them are masked to N bits and every
result that may leave the N-bit range is wrapped back (``ctypes.subbyte_wrap``), which gives
arith's two's complement modulo 2^N semantics.

``arith.scaling_extf`` / ``arith.scaling_truncf`` (OCP MX block scaling) follow the MLIR arith
definition (ArithOps.td and its ExpandOps expansion): the scale is first rounded to
f8E8M0FNU (a power of two), then ``extf(in) * scale`` and ``truncf(in / scale)``.
"""
from __future__ import annotations

import re
from typing import Optional

from ..ir import types as T
from ..ir.core import Operation
from ..ir.diagnostics import CompileError
from .ctypes import (ctype, is_subbyte_int, load_conversion, rounding_function, store_conversion,
                     subbyte_mask, subbyte_wrap, unsigned_ctype)

BINARY = {
    "arith.addf": "{0} + {1}", "arith.subf": "{0} - {1}", "arith.mulf": "{0} * {1}",
    "arith.divf": "{0} / {1}", "arith.remf": "fmod{f}({0}, {1})",
    "arith.addi": "({T})(({U}){0} + ({U}){1})", "arith.subi": "({T})(({U}){0} - ({U}){1})",
    "arith.muli": "({T})(({U}){0} * ({U}){1})",
    "arith.divsi": "{0} / {D}", "arith.remsi": "{0} % {D}",
    "arith.divui": "({T})(({U}){0} / {D})", "arith.remui": "({T})(({U}){0} % {D})",
    "arith.floordivsi": "({0} / {D} - (({0} % {D} != 0) && (({0} < 0) != ({D} < 0))))",
    "arith.ceildivsi": "({0} / {D} + (({0} % {D} != 0) && (({0} < 0) == ({D} < 0))))",
    "arith.ceildivui": "({T})((({U}){0} / {D}) + ((({U}){0} % {D}) != 0))",
    "arith.andi": "{0} & {1}", "arith.ori": "{0} | {1}", "arith.xori": "{0} ^ {1}",
    "arith.shli": "({1} >= {W} ? ({T})0 : ({T})(({U}){0} << {1}))",
    "arith.shrsi": "({0} >> ({1} >= {W} ? {W} - 1 : {1}))",
    "arith.shrui": "({1} >= {W} ? ({T})0 : ({T})(({U}){0} >> {1}))",
    "arith.maxsi": "({0} > {1} ? {0} : {1})", "arith.minsi": "({0} < {1} ? {0} : {1})",
    "arith.maxui": "(({U}){0} > ({U}){1} ? {0} : {1})", "arith.minui": "(({U}){0} < ({U}){1} ? {0} : {1})",
    "arith.maximumf": "ireec_maximum{d}({0}, {1})", "arith.minimumf": "ireec_minimum{d}({0}, {1})",
    "arith.maxnumf": "fmax{f}({0}, {1})", "arith.minnumf": "fmin{f}({0}, {1})",
    "math.powf": "pow{f}({0}, {1})", "math.atan2": "atan2{f}({0}, {1})",
    "math.copysign": "copysign{f}({0}, {1})",
    "math.fpowi": "pow{f}({0}, ({T}){1})",
}

UNARY = {
    "arith.negf": "-{0}", "math.absf": "fabs{f}({0})", "math.absi": "({0} < 0 ? ({T})(-({U}){0}) : {0})",
    "math.exp": "exp{f}({0})", "math.exp2": "exp2{f}({0})", "math.expm1": "expm1{f}({0})",
    "math.log": "log{f}({0})", "math.log2": "log2{f}({0})", "math.log10": "log10{f}({0})",
    "math.log1p": "log1p{f}({0})", "math.sqrt": "sqrt{f}({0})", "math.rsqrt": "(({T})1 / sqrt{f}({0}))",
    "math.cbrt": "cbrt{f}({0})", "math.sin": "sin{f}({0})", "math.cos": "cos{f}({0})",
    "math.tan": "tan{f}({0})", "math.tanh": "tanh{f}({0})", "math.sinh": "sinh{f}({0})",
    "math.cosh": "cosh{f}({0})", "math.asin": "asin{f}({0})", "math.acos": "acos{f}({0})",
    "math.atan": "atan{f}({0})", "math.asinh": "asinh{f}({0})", "math.acosh": "acosh{f}({0})",
    "math.atanh": "atanh{f}({0})", "math.erf": "erf{f}({0})", "math.erfc": "erfc{f}({0})",
    "math.floor": "floor{f}({0})", "math.ceil": "ceil{f}({0})", "math.round": "round{f}({0})",
    "math.trunc": "trunc{f}({0})", "math.roundeven": "ireec_roundeven{d}({0})",
    "math.isnan": "isnan({0})", "math.isinf": "isinf({0})", "math.isfinite": "isfinite({0})",
}

#: Integer divisions: ``{D}`` is their divisor made safe for C (see :func:`_safe_divisor`).
DIVISIONS = {"arith.divsi", "arith.remsi", "arith.floordivsi", "arith.ceildivsi",
             "arith.divui", "arith.remui", "arith.ceildivui"}
_UNSIGNED_DIVISIONS = {"arith.divui", "arith.remui", "arith.ceildivui"}
_INT_MIN = {"int32_t": "INT32_MIN", "int64_t": "INT64_MIN"}

TERNARY = {"arith.select": "{0} ? {1} : {2}", "math.fma": "fma{f}({0}, {1}, {2})"}

# Results that are exactly representable in the operands' type: no rounding needed.
_EXACT = {"arith.negf", "math.absf", "math.copysign", "math.floor", "math.ceil", "math.round",
          "math.trunc", "math.roundeven", "arith.maximumf", "arith.minimumf", "arith.maxnumf",
          "arith.minnumf", "arith.select", "arith.extf"}

CMPF = ["false", "{0} == {1}", "{0} > {1}", "{0} >= {1}", "{0} < {1}", "{0} <= {1}",
        "({0} < {1} || {0} > {1})", "({0} == {0} && {1} == {1})", "!({0} < {1} || {0} > {1})",
        "!({0} <= {1})", "!({0} < {1})", "!({0} >= {1})", "!({0} > {1})", "{0} != {1}",
        "({0} != {0} || {1} != {1})", "true"]
CMPI = ["{0} == {1}", "{0} != {1}", "{0} < {1}", "{0} <= {1}", "{0} > {1}", "{0} >= {1}",
        "({SU}){0} < ({SU}){1}", "({SU}){0} <= ({SU}){1}", "({SU}){0} > ({SU}){1}", "({SU}){0} >= ({SU}){1}"]

CASTS = {
    "arith.extf": "({T}){0}", "arith.truncf": "({T}){0}", "arith.sitofp": "({T}){0}",
    "arith.fptosi": "({T}){0}", "arith.extsi": "({T}){0}", "arith.trunci": "({T}){0}",
    "arith.index_cast": "({T}){0}", "arith.index_castui": "({T})({SU}){0}",
    "arith.extui": "({T})({SU}){0}", "arith.uitofp": "({T})({SU}){0}", "arith.fptoui": "({T})({U}){0}",
}


def _bit_ops(name: str, t: T.Type) -> str:
    """math.ctpop / ctlz / cttz on an integer of width 2..64 (runtime header helpers; sub-byte
    operands are masked to their N bits by the caller)."""
    w = T.bit_width(t)
    big = w > 32
    if name == "math.ctpop":
        return f"({{T}})ireec_ctpop{64 if big else 32}(({'uint64_t' if big else 'uint32_t'})({{U}}){{0}})"
    if name == "math.ctlz":
        return (f"({{T}})(ireec_clz{64 if big else 32}(({'uint64_t' if big else 'uint32_t'})({{U}}){{0}})"
                f" - {(64 if big else 32) - w})")
    return (f"({{T}})({{0}} == 0 ? {w} : ireec_ctz{64 if big else 32}"
            f"(({'uint64_t' if big else 'uint32_t'})({{U}}){{0}}))")


# Operand views that must see a sub-byte integer's N bits only: ``({U}){i}`` / ``({SU}){i}``.
_UNSIGNED_VIEW = re.compile(r"\(\{(U|SU)\}\)\{(\d)\}")

# Integer ops whose result stays in a sub-byte type's range when the operands are (no wrap).
_SUBBYTE_EXACT = {"arith.select", "arith.maxsi", "arith.minsi", "arith.maxui", "arith.minui",
                  "arith.andi", "arith.ori", "arith.xori", "arith.shrsi", "arith.extsi",
                  "arith.extui", "arith.cmpi"}


def _mask_subbyte_views(tmpl: str, st: T.Type, rt: T.Type) -> str:
    """Replace the unsigned casts ``({U}){i}`` / ``({SU}){i}`` of integer operands by masks
    to the operand type's N bits when that type is a sub-byte integer."""
    def sub(m):
        t = rt if m.group(1) == "U" else st
        if not is_subbyte_int(t):
            return m.group(0)
        return f"((uint8_t)({{{m.group(2)}}} & {subbyte_mask(t)}))"
    return _UNSIGNED_VIEW.sub(sub, tmpl)


def _scaling_cast(name: str, op: Operation) -> str:
    """arith.scaling_extf / scaling_truncf: the scale (operand 1) rounded to f8E8M0FNU
    unless it already is one, then ``extf(in) * scale`` or ``in / scale`` (rounded to the
    result type by the caller). Source: MLIR ArithOps.td, Arith ExpandOps."""
    sc_t = op.operands[1].type
    scale = "{1}"
    if not (isinstance(sc_t, T.FloatType) and sc_t.name == "f8E8M0FNU"):
        scale = "ireec_round_to_f8e8m0fnu((float){1})"
    if name == "arith.scaling_extf":
        return f"(({{T}}){{0}} * ({{T}}){scale})"
    return f"({{T}})(({{S}}){{0}} / ({{S}}){scale})"


def _bitcast(st: T.Type, rt: T.Type) -> str:
    """arith.bitcast between same-width scalars; narrow floats go through their bit
    patterns with the runtime header's conversions."""
    src = f"({{0}} & {subbyte_mask(st)})" if is_subbyte_int(st) else "{0}"
    conv = store_conversion(st)
    if conv is not None:
        src = f"{conv}({{0}})"
        st_c = "uint16_t" if T.bit_width(st) == 16 else "uint8_t"
    else:
        st_c = ctype(st)
    conv = load_conversion(rt)
    if conv is not None:
        bits_c = "uint16_t" if T.bit_width(rt) == 16 else "uint8_t"
        return f"{conv}(({bits_c}){src})"
    if st_c == ctype(rt) or (isinstance(st, T.IntegerType) and isinstance(rt, T.IntegerType)):
        return f"({{T}}){src}"
    return f"((union {{{{ {st_c} a; {{T}} b; }}}}){{{{ .a = {src} }}}}).b"


def _constant_int(v) -> Optional[int]:
    """The value of ``v`` when an ``arith.constant`` integer defines it, else None."""
    owner = v.owner
    if isinstance(owner, Operation) and owner.name == "arith.constant":
        val = getattr(owner.attributes.get("value"), "value", None)
        if isinstance(val, (int, bool)):
            return int(val)
    return None


def _constant_float(v) -> Optional[float]:
    """The value of ``v`` when an ``arith.constant`` float defines it, else None."""
    owner = v.owner
    if isinstance(owner, Operation) and owner.name == "arith.constant":
        val = getattr(owner.attributes.get("value"), "value", None)
        if isinstance(val, float):
            return val
    return None


#: maximumf / minimumf against a constant that is neither NaN nor a zero: one compare and a
#: select (a clamp's vmaxps / vminps). ``{k}`` is the constant's operand, ``{x}`` the other.
#: A NaN ``x`` compares false and is returned; ``x == k`` returns ``x``, equal to ``k``, and
#: with ``k`` nonzero no signed-zero ordering is involved: IEEE-754-2019 maximum/minimum.
_CLAMP = {"arith.maximumf": "({x} < {k} ? {k} : {x})", "arith.minimumf": "({x} > {k} ? {k} : {x})"}


def _clamp_by_constant(op: Operation) -> Optional[str]:
    """The :data:`_CLAMP` template of ``op`` when one operand is such a constant."""
    for k in (1, 0):
        c = _constant_float(op.operands[k])
        if c is not None and c == c and c != 0.0:
            return _CLAMP[op.name].format(x="{%d}" % (1 - k), k="{%d}" % k)
    return None


def _safe_divisor(op: Operation, st: T.Type) -> str:
    """The divisor ``{1}`` of integer division ``op`` as C that never traps.

    C's ``/`` and ``%`` trap (SIGFPE on x86) for a zero divisor and for INT_MIN / -1 in
    ``int``/``long`` ranks; arith defines both cases as poison (MLIR ArithOps.td: divsi,
    remsi, divui...), so any result will do and the divisor is replaced by 1 there: a
    branch-free select, no trap. Narrower signed types promote to ``int`` and cannot
    overflow. StableHLO's defined results for these cases (x / 0 = -1, x % 0 = x,
    INT_MIN / -1 = INT_MIN) are selected around the arith op by its lowering
    (ireec/passes/input/stablehlo/common.py). A constant divisor that is neither 0 nor -1
    needs no guard (index arithmetic by tile sizes stays plain)."""
    c = _constant_int(op.operands[1])
    unsigned = op.name in _UNSIGNED_DIVISIONS
    int_min = None if unsigned else _INT_MIN.get(ctype(st))
    if c is not None and c != 0 and (int_min is None or c != -1):
        return "({U}){1}" if unsigned else "{1}"
    if unsigned:
        return "(({U}){1} == 0 ? ({U})1 : ({U}){1})"
    if int_min is None:
        return "({1} == 0 ? 1 : {1})"
    return f"(({{1}} == 0 || ({{0}} == {int_min} && {{1}} == -1)) ? ({{S}})1 : {{1}})"


def accumulation_expression(name: str) -> str:
    """The C template of float op ``name`` (``arith.addf``, ``arith.mulf``) left in its
    ``float`` register, not rounded to a narrow result type: the step of a reduction that
    accumulates f16/bf16 values in f32 (``iree-llvmcpu-reassociate-fp-reductions``)."""
    return BINARY[name]


def c_expression(op: Operation) -> str:
    """The C expression template of a scalar arith/math op; CompileError if unsupported."""
    name = op.name
    rt = op.results[0].type
    st = op.operands[0].type if op.operands else rt
    if name in BINARY:
        tmpl = BINARY[name]
        if name in DIVISIONS:
            tmpl = tmpl.replace("{D}", _safe_divisor(op, st))
        elif name in _CLAMP:
            tmpl = _clamp_by_constant(op) or tmpl
    elif name in UNARY:
        tmpl = UNARY[name]
    elif name in TERNARY:
        tmpl = TERNARY[name]
    elif name in ("math.ctpop", "math.ctlz", "math.cttz"):
        tmpl = _bit_ops(name, rt)
    elif name == "math.ipowi":
        tmpl = ("({T})ireec_ipowi64({0}, {1})" if T.bit_width(rt) > 32
                else "({T})ireec_ipowi32({0}, {1})")
    elif name == "arith.cmpf":
        tmpl = CMPF[op.attributes["predicate"].value]
    elif name == "arith.cmpi":
        tmpl = CMPI[op.attributes["predicate"].value]
    elif name in CASTS:
        tmpl = CASTS[name]
        if isinstance(rt, T.IntegerType) and rt.width == 1:
            tmpl = "({0} & 1)" if not isinstance(st, T.FloatType) else "({0} != 0)"
        elif name == "arith.extsi" and isinstance(st, T.IntegerType) and st.width == 1:
            tmpl = "({T})(-({T}){0})"
        elif isinstance(st, T.IntegerType) and st.width == 1:
            tmpl = "({T}){0}"
    elif name == "arith.bitcast":
        tmpl = _bitcast(st, rt)
    elif name in ("arith.scaling_extf", "arith.scaling_truncf"):
        tmpl = _scaling_cast(name, op)
    else:
        raise CompileError(f"'{name}' cannot be lowered to C yet", op.loc)
    ft = rt if isinstance(rt, T.FloatType) else st
    is_f64 = isinstance(ft, T.FloatType) and ft.name == "f64"
    f = "" if is_f64 else "f"
    if isinstance(rt, T.IntegerType) and rt.width == 1 and name in ("arith.addi", "arith.subi", "arith.xori"):
        tmpl = "{0} ^ {1}"
    if isinstance(rt, T.IntegerType) and rt.width == 1 and name == "arith.muli":
        tmpl = "{0} & {1}"
    if is_subbyte_int(rt) and name in ("arith.fptosi", "arith.fptoui"):
        tmpl = "(int64_t){0}"  # in range by arith's rules (else poison); wrapped below
    elif name in ("arith.fptosi", "arith.fptoui") and isinstance(rt, T.IntegerType) and 1 < rt.width < 32:
        # Through int32_t (the value is in range by arith's rules, else poison): GCC 12
        # vectorizes float -> int32 -> int8 (vcvttps2dq, vpmovdb), not float -> int8 directly.
        tmpl = "({T})(int32_t){0}"
    if is_subbyte_int(st) and name in ("arith.shli", "arith.shrsi", "arith.shrui"):
        tmpl = tmpl.replace("{1}", f"((uint8_t)({{1}} & {subbyte_mask(st)}))")
    if is_subbyte_int(st) or is_subbyte_int(rt):
        tmpl = _mask_subbyte_views(tmpl, st, rt)
    if is_subbyte_int(rt) and name not in _SUBBYTE_EXACT:
        tmpl = subbyte_wrap(rt, tmpl)
    rnd = rounding_function(rt)
    if rnd is not None and name not in _EXACT and name != "arith.bitcast":
        tmpl = f"{rnd}({tmpl})"
    width = str(T.bit_width(st)) if isinstance(st, (T.IntegerType, T.IndexType)) else "0"
    return (tmpl.replace("{T}", ctype(rt)).replace("{U}", unsigned_ctype(rt))
            .replace("{SU}", unsigned_ctype(st)).replace("{S}", ctype(st)).replace("{f}", f)
            .replace("{d}", "d" if is_f64 else "f").replace("{W}", width))

"""C expressions for scalar arith / math ops (the patterns of ArithToEmitC / MathToEmitC).

Each entry gives a format string over the operands ``{0}, {1}, ...``; ``{T}`` is the C
result type, ``{U}`` its unsigned counterpart, ``{S}``/``{SU}`` the first operand's C type
and unsigned type, ``{f}`` the libm suffix ('f' for float, '' for double).
Signless integer add/sub/mul/shl wrap (two's complement), computed in unsigned C types
to avoid C's signed-overflow undefined behaviour. Predicates use upstream's enum order.
"""
from __future__ import annotations

from ..ir import types as T
from ..ir.core import Operation
from ..ir.diagnostics import CompileError
from .ctypes import ctype, unsigned_ctype

BINARY = {
    "arith.addf": "{0} + {1}", "arith.subf": "{0} - {1}", "arith.mulf": "{0} * {1}",
    "arith.divf": "{0} / {1}", "arith.remf": "fmod{f}({0}, {1})",
    "arith.addi": "({T})(({U}){0} + ({U}){1})", "arith.subi": "({T})(({U}){0} - ({U}){1})",
    "arith.muli": "({T})(({U}){0} * ({U}){1})",
    "arith.divsi": "{0} / {1}", "arith.remsi": "{0} % {1}",
    "arith.divui": "({T})(({U}){0} / ({U}){1})", "arith.remui": "({T})(({U}){0} % ({U}){1})",
    "arith.floordivsi": "({0} / {1} - (({0} % {1} != 0) && (({0} < 0) != ({1} < 0))))",
    "arith.ceildivsi": "({0} / {1} + (({0} % {1} != 0) && (({0} < 0) == ({1} < 0))))",
    "arith.ceildivui": "({T})((({U}){0} + ({U}){1} - 1) / ({U}){1})",
    "arith.andi": "{0} & {1}", "arith.ori": "{0} | {1}", "arith.xori": "{0} ^ {1}",
    "arith.shli": "({T})(({U}){0} << {1})", "arith.shrsi": "{0} >> {1}",
    "arith.shrui": "({T})(({U}){0} >> {1})",
    "arith.maxsi": "({0} > {1} ? {0} : {1})", "arith.minsi": "({0} < {1} ? {0} : {1})",
    "arith.maxui": "(({U}){0} > ({U}){1} ? {0} : {1})", "arith.minui": "(({U}){0} < ({U}){1} ? {0} : {1})",
    "arith.maximumf": "ireec_maximum{f}_({0}, {1})", "arith.minimumf": "ireec_minimum{f}_({0}, {1})",
    "arith.maxnumf": "fmax{f}({0}, {1})", "arith.minnumf": "fmin{f}({0}, {1})",
    "math.powf": "pow{f}({0}, {1})", "math.atan2": "atan2{f}({0}, {1})",
    "math.copysign": "copysign{f}({0}, {1})",
}

UNARY = {
    "arith.negf": "-{0}", "math.absf": "fabs{f}({0})", "math.absi": "({0} < 0 ? ({T})(-({U}){0}) : {0})",
    "math.exp": "exp{f}({0})", "math.exp2": "exp2{f}({0})", "math.expm1": "expm1{f}({0})",
    "math.log": "log{f}({0})", "math.log2": "log2{f}({0})", "math.log10": "log10{f}({0})",
    "math.log1p": "log1p{f}({0})", "math.sqrt": "sqrt{f}({0})", "math.rsqrt": "(1 / sqrt{f}({0}))",
    "math.cbrt": "cbrt{f}({0})", "math.sin": "sin{f}({0})", "math.cos": "cos{f}({0})",
    "math.tan": "tan{f}({0})", "math.tanh": "tanh{f}({0})", "math.sinh": "sinh{f}({0})",
    "math.cosh": "cosh{f}({0})", "math.asin": "asin{f}({0})", "math.acos": "acos{f}({0})",
    "math.atan": "atan{f}({0})", "math.asinh": "asinh{f}({0})", "math.acosh": "acosh{f}({0})",
    "math.atanh": "atanh{f}({0})", "math.erf": "erf{f}({0})", "math.erfc": "erfc{f}({0})",
    "math.floor": "floor{f}({0})", "math.ceil": "ceil{f}({0})", "math.round": "round{f}({0})",
    "math.trunc": "trunc{f}({0})", "math.roundeven": "ireec_roundeven{f}_({0})",
    "math.isnan": "isnan({0})", "math.isinf": "isinf({0})", "math.isfinite": "isfinite({0})",
    "math.ctpop": "ireec_ctpop_({0})",
}

TERNARY = {"arith.select": "{0} ? {1} : {2}", "math.fma": "fma{f}({0}, {1}, {2})"}

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


def c_expression(op: Operation) -> str:
    """The C expression template of a scalar arith/math op; CompileError if unsupported."""
    name = op.name
    rt = op.results[0].type
    st = op.operands[0].type if op.operands else rt
    if name in BINARY:
        tmpl = BINARY[name]
    elif name in UNARY:
        tmpl = UNARY[name]
    elif name in TERNARY:
        tmpl = TERNARY[name]
    elif name == "arith.cmpf":
        tmpl = CMPF[op.attributes["predicate"].value]
    elif name == "arith.cmpi":
        tmpl = CMPI[op.attributes["predicate"].value]
    elif name in CASTS:
        tmpl = CASTS[name]
        if isinstance(rt, T.IntegerType) and rt.width == 1:
            tmpl = "({0} & 1)"
        elif name == "arith.extsi" and isinstance(st, T.IntegerType) and st.width == 1:
            tmpl = "({T})(-({T}){0})"
        elif isinstance(st, T.IntegerType) and st.width == 1:
            tmpl = "({T}){0}"
    elif name == "arith.bitcast":
        tmpl = "((union {{ {S} a; {T} b; }}){{ .a = {0} }}).b"
    else:
        raise CompileError(f"'{name}' cannot be lowered to C yet", op.loc)
    ft = rt if isinstance(rt, T.FloatType) else st
    f = "" if isinstance(ft, T.FloatType) and ft.name == "f64" else "f"
    if isinstance(rt, T.IntegerType) and rt.width == 1 and name in ("arith.addi", "arith.subi", "arith.xori"):
        tmpl = "{0} ^ {1}"
    if isinstance(rt, T.IntegerType) and rt.width == 1 and name == "arith.muli":
        tmpl = "{0} & {1}"
    return (tmpl.replace("{T}", ctype(rt)).replace("{U}", unsigned_ctype(rt))
            .replace("{SU}", unsigned_ctype(st)).replace("{S}", ctype(st)).replace("{f}", f))

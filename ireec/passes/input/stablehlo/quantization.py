"""StableHLO → linalg patterns: ``uniform_quantize`` and ``uniform_dequantize``.

A quantized tensor (element type ``!quant.uniform<storage:expressed, scale:zero_point>``,
optionally ``storage<min:max>`` and per-axis ``:axis, {s0:z0, s1:z1, ...}``) is held as its
storage integers, as StableHLO's ``stablehlo-legalize-quant-to-int`` does. The spec's
formulas (section "Quantization"):

* ``quantize(x) = convert(round_nearest_even(clamp(storage_min, x / scale + zero_point,
  storage_max)), storage)``;
* ``dequantize(q) = (convert(q, expressed) - zero_point) * scale``;
* ``uniform_quantize`` of a quantized operand requantizes: dequantize, then quantize.

A ``uniform_quantize`` is lowered together with the ``uniform_dequantize`` ops reading it,
the quantized tensor living only as storage integers between them. Other ops on quantized
tensors are not lowered (a CompileError at their location).
"""
from __future__ import annotations

import re
from typing import List, Optional, Tuple

from ....ir import types as T
from ....ir.core import Builder, Operation, Value
from ....ir.diagnostics import CompileError
from ._indexing import Payload, empty, static_shape, tensor_of
from .common import generic, scalar_const
from ....ir.affine import AffineMap

_QUANT = re.compile(
    r"^uniform<\s*(?P<storage>[iu]i?\d+|si\d+|ui\d+|i\d+)(?:<\s*(?P<smin>-?\d+)\s*:\s*(?P<smax>-?\d+)\s*>)?"
    r"\s*:\s*(?P<expressed>\w+)\s*(?::\s*(?P<axis>\d+))?\s*,\s*(?P<params>.*)>$", re.S)
_PAIR = re.compile(r"\s*(?P<scale>[-+0-9.eE]+)\s*(?::\s*(?P<zp>-?\d+))?\s*")


class QuantType:
    """A parsed ``!quant.uniform`` element type."""

    def __init__(self, t: T.Type, loc):
        if not (isinstance(t, T.OpaqueType) and t.dialect == "quant"):
            raise CompileError(f"expected a !quant.uniform element type, got {t}", loc)
        m = _QUANT.match(t.body)
        if m is None:
            raise CompileError(f"unsupported quantized type {t}", loc)
        st = m.group("storage")
        sign = "u" if st.startswith("u") else ("s" if st.startswith("s") else "")
        width = int(re.sub(r"\D", "", st))
        self.storage = T.IntegerType(width, "" if sign == "s" else sign)
        self.unsigned = sign == "u"
        lo, hi = (0, (1 << width) - 1) if self.unsigned else (-(1 << (width - 1)), (1 << (width - 1)) - 1)
        self.smin = int(m.group("smin")) if m.group("smin") is not None else lo
        self.smax = int(m.group("smax")) if m.group("smax") is not None else hi
        exp = {"f32": T.f32, "f16": T.f16, "f64": T.f64, "bf16": T.bf16}.get(m.group("expressed"))
        if exp is None:
            raise CompileError(f"unsupported expressed type in {t}", loc)
        self.expressed = exp
        self.axis = int(m.group("axis")) if m.group("axis") is not None else None
        params = m.group("params").strip()
        if self.axis is not None:
            params = params.strip("{}")
        pairs = []
        for part in params.split(","):
            pm = _PAIR.fullmatch(part)
            if pm is None:
                raise CompileError(f"unsupported quantized type {t}", loc)
            pairs.append((float(pm.group("scale")), int(pm.group("zp") or 0)))
        self.params = pairs


def _quant_of(v: Value, op: Operation) -> Optional[QuantType]:
    t = v.type
    et = t.element_type if isinstance(t, T.TensorType) else t
    if isinstance(et, T.OpaqueType) and et.dialect == "quant":
        return QuantType(et, op.loc)
    return None


def _params_body(p: Payload, q: QuantType, rank: int) -> Tuple[Value, Value]:
    """(scale, zero point) for the current element, in the expressed type."""
    sb = p.sb
    ft = q.expressed
    if q.axis is None or len(q.params) == 1:
        s, z = q.params[0]
        return scalar_const(sb, s, ft), scalar_const(sb, float(z), ft)
    i = p.loop(q.axis)
    s_v, z_v = scalar_const(sb, q.params[-1][0], ft), scalar_const(sb, float(q.params[-1][1]), ft)
    for k in reversed(range(len(q.params) - 1)):
        hit = p.cmp("eq", i, p.const(k))
        s_v = p.select(hit, scalar_const(sb, q.params[k][0], ft), s_v)
        z_v = p.select(hit, scalar_const(sb, float(q.params[k][1]), ft), z_v)
    return s_v, z_v


def _dequantize_scalar(p: Payload, x: Value, q: QuantType, rank: int) -> Value:
    sb = p.sb
    ft = q.expressed
    s, z = _params_body(p, q, rank)
    f = sb.op("arith.uitofp" if q.unsigned else "arith.sitofp", [x], ft)
    return sb.op("arith.mulf", [sb.op("arith.subf", [f, z], ft), s], ft)


def _quantize_scalar(p: Payload, x: Value, q: QuantType, rank: int) -> Value:
    sb = p.sb
    ft = q.expressed
    if x.type != ft:
        x = sb.cast(x, ft)
    s, z = _params_body(p, q, rank)
    v = sb.op("arith.addf", [sb.op("arith.divf", [x, s], ft), z], ft)
    v = sb.op("arith.maximumf", [v, scalar_const(sb, float(q.smin), ft)], ft)
    v = sb.op("arith.minimumf", [v, scalar_const(sb, float(q.smax), ft)], ft)
    v = sb.op("math.roundeven", [v], ft)
    return sb.op("arith.fptoui" if q.unsigned else "arith.fptosi", [v], q.storage)


def _convert(op: Operation, b: Builder, x: Value, q_in: Optional[QuantType],
             q_out: Optional[QuantType]) -> Value:
    """One generic: dequantize by ``q_in`` (if any), then quantize by ``q_out`` (if any)."""
    shape = static_shape(op.results[0], op, "the result")
    rank = len(shape)
    out_et = q_out.storage if q_out is not None else op.results[0].type.element_type

    def body(sb, args):
        p = Payload(sb)
        v = args[0]
        if q_in is not None:
            v = _dequantize_scalar(p, v, q_in, rank)
        if q_out is not None:
            v = _quantize_scalar(p, v, q_out, rank)
        return [v]

    ident = AffineMap.identity(rank)
    return generic(b, [x], [empty(b, tensor_of(shape, out_et))], [ident, ident], ["parallel"] * rank,
                   body).results[0]


def lower_uniform_quantize(op: Operation, b: Builder) -> None:
    """``uniform_quantize`` (float → quantized, or requantize) and the
    ``uniform_dequantize`` ops reading its result (the quantized tensor exists only as storage
    integers between them); other users of a quantized tensor are a CompileError."""
    q_out = QuantType(op.results[0].type.element_type, op.loc)
    users = list(op.results[0].users)
    for u in users:
        if u.name != "stablehlo.uniform_dequantize":
            raise CompileError(f"a quantized tensor used by '{u.name}' is not supported (only by "
                               "'stablehlo.uniform_dequantize')", u.loc)
    stored = _convert(op, b, op.operands[0], _quant_of(op.operands[0], op), q_out)
    for u in users:
        u.replace_with([_convert(u, Builder.before(u), stored, q_out, None)])
    op.erase()
    return None


def lower_uniform_dequantize(op: Operation, b: Builder) -> List[Value]:
    """``uniform_dequantize`` of a value still typed quantized (e.g. a block argument)."""
    q_in = _quant_of(op.operands[0], op)
    if q_in is None:
        raise CompileError("'stablehlo.uniform_dequantize' needs a quantized operand", op.loc)
    return [_convert(op, b, op.operands[0], q_in, None)]


PATTERNS = {
    "stablehlo.uniform_quantize": lower_uniform_quantize,
    "stablehlo.uniform_dequantize": lower_uniform_dequantize,
}

"""StableHLO's dynamic ops with constant shape operands become their static forms.

Mirrors StableHLO's ``stablehlo-canonicalize-dynamism`` (written from the StableHLO spec,
https://openxla.org/stablehlo/spec): when the operands that carry shapes, offsets or
paddings are constants,

* ``dynamic_reshape(x, shape)`` → ``reshape``;
* ``dynamic_broadcast_in_dim(x, shape)`` → ``broadcast_in_dim`` (same dims);
* ``real_dynamic_slice(x, start, limit, strides)`` → ``slice``;
* ``dynamic_pad(x, v, low, high, interior)`` → ``pad``;
* ``dynamic_gather(x, indices, slice_sizes)`` → ``gather``;
* ``dynamic_conv(lhs, rhs, padding)`` → ``convolution``.

The static op's result type takes the sizes the constants give; where that is more static
than the declared type, a ``tensor.cast`` back to the declared type keeps the users valid
(``stablehlo-refine-shapes`` and ``canonicalize`` fold it later). Ops whose operands are
not constants are left as they are for the dynamic-shape support.
"""
from __future__ import annotations

from typing import Callable, Dict, List, Optional

import numpy as np

from ...dialects import stablehlo as shlo
from ...ir import types as T
from ...ir.attributes import DenseArrayAttr, DenseElementsAttr
from ...ir.core import Builder, Operation, Value
from ...ir.diagnostics import CompileError
from ..pass_base import Pass, PassContext, is_attached, register_pass


def _ints(v: Value) -> Optional[List[int]]:
    """The integers of a constant 1-D operand, else None."""
    o = v.owner
    if isinstance(o, Operation) and o.name in ("stablehlo.constant", "arith.constant"):
        a = o.attributes.get("value")
        if isinstance(a, DenseElementsAttr):
            return a.int_list()
    return None


def _arr(vals) -> DenseArrayAttr:
    return DenseArrayAttr(T.i64, tuple(int(v) for v in vals))


def _static(op: Operation, b: Builder, name: str, operands, shape, attrs, regions=()) -> List[Value]:
    """Build ``name`` with result shape ``shape`` (declared element type); cast back to the
    declared type when that is less static."""
    rt = op.results[0].type
    if not isinstance(rt, T.TensorType):
        raise CompileError(f"'{op.name}' needs a tensor result, got {rt}", op.loc)
    if rt.shape is not None and len(rt.shape) != len(shape):
        raise CompileError(f"'{op.name}': its constant operands give rank {len(shape)}, the result "
                           f"type {rt} has another", op.loc)
    for d, n in zip(rt.shape or (), shape):
        if d is not None and d != n:
            raise CompileError(f"'{op.name}': its constant operands give shape {tuple(shape)}, "
                               f"incompatible with the result type {rt}", op.loc)
    st = T.TensorType(tuple(shape), rt.element_type)
    new = b.create(name, list(operands), [st], attrs, regions=list(regions)).result
    if st != rt:
        new = b.create("tensor.cast", [new], [rt]).result
    return [new]


def _dynamic_reshape(op: Operation, b: Builder):
    shape = _ints(op.operands[1])
    if shape is None:
        return None
    return _static(op, b, "stablehlo.reshape", [op.operands[0]], shape, {})


def _dynamic_broadcast_in_dim(op: Operation, b: Builder):
    shape = _ints(op.operands[1])
    if shape is None:
        return None
    if "broadcast_dimensions" not in op.attributes:
        raise CompileError("'stablehlo.dynamic_broadcast_in_dim' requires attribute 'broadcast_dimensions'", op.loc)
    dims = shlo.i64_list(op.attributes["broadcast_dimensions"])
    return _static(op, b, "stablehlo.broadcast_in_dim", [op.operands[0]], shape,
                   {"broadcast_dimensions": _arr(dims)})


def _real_dynamic_slice(op: Operation, b: Builder):
    x, *rest = op.operands
    vals = [_ints(v) for v in rest]
    if any(v is None for v in vals):
        return None
    start, limit, strides = vals
    shape = [max(0, -(-(hi - lo) // s)) for lo, hi, s in zip(start, limit, strides)]
    return _static(op, b, "stablehlo.slice", [x], shape, {
        "start_indices": _arr(start), "limit_indices": _arr(limit), "strides": _arr(strides)})


def _dynamic_pad(op: Operation, b: Builder):
    x, pv, *rest = op.operands
    vals = [_ints(v) for v in rest]
    if any(v is None for v in vals) or not isinstance(x.type, T.TensorType) or not x.type.has_static_shape:
        return None
    low, high, interior = vals
    shape = [lo + hi + n + max(0, n - 1) * it for n, lo, hi, it in zip(x.type.shape, low, high, interior)]
    return _static(op, b, "stablehlo.pad", [x, pv], shape, {
        "edge_padding_low": _arr(low), "edge_padding_high": _arr(high), "interior_padding": _arr(interior)})


def _dynamic_gather(op: Operation, b: Builder):
    x, idx, sizes_v = op.operands
    sizes = _ints(sizes_v)
    rt = op.results[0].type
    if sizes is None or not isinstance(rt, T.TensorType) or not rt.has_static_shape:
        return None
    attrs = {k: v for k, v in op.attributes.items()}
    attrs["slice_sizes"] = _arr(sizes)
    return _static(op, b, "stablehlo.gather", [x, idx], rt.shape, attrs)


def _dynamic_conv(op: Operation, b: Builder):
    lhs, rhs, pad_v = op.operands
    pads = _ints(pad_v)
    rt = op.results[0].type
    if pads is None or not isinstance(rt, T.TensorType) or not rt.has_static_shape:
        return None
    attrs = {k: v for k, v in op.attributes.items()}
    n = len(pads) // 2
    attrs["padding"] = DenseElementsAttr(np.array(pads, np.int64).reshape(n, 2), T.TensorType((n, 2), T.i64))
    return _static(op, b, "stablehlo.convolution", [lhs, rhs], rt.shape, attrs)


PATTERNS: Dict[str, Callable] = {
    "stablehlo.dynamic_reshape": _dynamic_reshape,
    "stablehlo.dynamic_broadcast_in_dim": _dynamic_broadcast_in_dim,
    "stablehlo.real_dynamic_slice": _real_dynamic_slice,
    "stablehlo.dynamic_pad": _dynamic_pad,
    "stablehlo.dynamic_gather": _dynamic_gather,
    "stablehlo.dynamic_conv": _dynamic_conv,
}


@register_pass
class StableHloCanonicalizeDynamismPass(Pass):
    """``stablehlo-canonicalize-dynamism``: dynamic ops with constant shape operands become
    static ops (see the module docstring)."""

    name = "stablehlo-canonicalize-dynamism"

    def run(self, module: Operation, ctx: PassContext) -> None:
        for op in list(module.walk()):
            lower = PATTERNS.get(op.name)
            if lower is None or not is_attached(op, module):
                continue
            new = lower(op, Builder.before(op))
            if new is not None:
                op.replace_with(new)

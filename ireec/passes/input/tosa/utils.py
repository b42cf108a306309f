"""Helpers shared by the TOSA → linalg patterns: constants, empty/filled tensors,
broadcasting indexing maps and elementwise ``linalg.generic`` construction.

Everything here builds ops at a :class:`~ireec.ir.core.Builder` insertion point and raises
:class:`~ireec.ir.diagnostics.CompileError` at the TOSA op's location for input the
conversion does not support.
"""
from __future__ import annotations

import re
from typing import Callable, List, Optional, Sequence

import numpy as np

from ....dialects import linalg as L
from ....dialects.arith import ScalarBuilder
from ....ir import types as T
from ....ir.affine import AffineConst, AffineDim, AffineMap
from ....ir.attributes import (MAX_LIST_ELEMENTS, Attribute, DenseArrayAttr, DenseElementsAttr, FloatAttr,
                               IntegerAttr, StringAttr)
from ....ir.core import Builder, Operation, Value
from ....ir.diagnostics import CompileError
from ....dialects.tensor import i64_array, segment_sizes

INDEX = T.IndexType()
I1 = T.IntegerType(1)
I32 = T.IntegerType(32)
I64 = T.IntegerType(64)


def fail(op: Operation, msg: str) -> CompileError:
    """A CompileError at ``op``'s location, prefixed with the op name."""
    return CompileError(f"'{op.name}' {msg}", op.loc)


def ranked(op: Operation, v: Value) -> T.TensorType:
    """The ranked tensor type of ``v``; CompileError for anything else."""
    t = v.type
    if not isinstance(t, T.TensorType) or t.shape is None:
        raise fail(op, f"needs ranked tensor operands and results, got {t}")
    return t


def static(op: Operation, v: Value) -> T.TensorType:
    """The statically shaped tensor type of ``v``; CompileError for dynamic shapes."""
    t = ranked(op, v)
    if not t.has_static_shape:
        raise fail(op, f"with a dynamic shape ({t}) is not supported")
    return t


def is_float(t: T.Type) -> bool:
    """True for float element types."""
    return isinstance(t, T.FloatType)


def is_bool(t: T.Type) -> bool:
    """True for ``i1``."""
    return isinstance(t, T.IntegerType) and t.width == 1


def scalar_attr(value, et: T.Type) -> Attribute:
    """A typed scalar attribute (FloatAttr for float types, IntegerAttr otherwise)."""
    if is_float(et):
        return FloatAttr(float(value), et)
    return IntegerAttr(int(value), et)


def is_unsigned(et: T.Type) -> bool:
    """Whether ``et`` is an integer compared without sign: ``uiN`` or ``i1``."""
    return isinstance(et, T.IntegerType) and (et.signedness == "u" or et.width == 1)


def lowest(et: T.Type):
    """Identity of max: -inf for floats, the smallest signed value for integers."""
    if is_float(et):
        return float("-inf")
    if is_unsigned(et):
        return 0
    return -(1 << (et.width - 1))


def highest(et: T.Type):
    """Identity of min: +inf for floats, the largest signed value for integers."""
    if is_float(et):
        return float("inf")
    if is_unsigned(et):
        return (1 << et.width) - 1
    return (1 << (et.width - 1)) - 1


def constant(b: Builder, value, et: T.Type) -> Value:
    """``arith.constant`` scalar of type ``et``."""
    a = scalar_attr(value, et)
    return b.create("arith.constant", [], [et], {"value": a}).result


def const_array(v: Value) -> Optional[np.ndarray]:
    """The numpy value of ``v`` when it is produced by ``tosa.const`` / ``tosa.const_shape``
    / ``arith.constant`` with dense elements; None otherwise (a runtime value)."""
    owner = v.owner if hasattr(v, "owner") else None
    if not isinstance(owner, Operation):
        return None
    if owner.name in ("tosa.const", "tosa.const_shape", "arith.constant"):
        a = owner.attributes.get("values", owner.attributes.get("value"))
        if isinstance(a, DenseElementsAttr):
            return a.array
    return None


def const_ints(op: Operation, v: Value, what: str) -> List[int]:
    """Integer values of a constant operand (shape operands, zero points...)."""
    arr = const_array(v)
    if arr is None:
        raise fail(op, f"needs a constant {what} (tosa.const / tosa.const_shape)")
    if arr.size > MAX_LIST_ELEMENTS:
        raise fail(op, f"{what} has {arr.size} elements, more than any list of dimensions")
    return [int(x) for x in np.asarray(arr).reshape(-1).tolist()]


def int_array_attr(op: Operation, name: str) -> Optional[List[int]]:
    """An integer list attribute (``array<i64: ...>``, ``dense<...>`` or ``[...]``)."""
    a = op.attributes.get(name)
    if a is None:
        return None
    if isinstance(a, DenseArrayAttr):
        return [int(x) for x in a.value]
    if isinstance(a, DenseElementsAttr):
        return a.int_list()
    vals = getattr(a, "value", None)
    if isinstance(vals, (tuple, list)):
        return [int(getattr(x, "value", x)) for x in vals]
    raise fail(op, f"has an unexpected '{name}' attribute {a}")


def int_attr(op: Operation, name: str, default=None):
    """An integer (or bool) attribute's value, or ``default`` when absent."""
    a = op.attributes.get(name)
    if a is None:
        return default
    v = getattr(a, "value", None)
    if isinstance(v, (bool, int)):
        return int(v)
    raise fail(op, f"has an unexpected '{name}' attribute {a}")


def enum_attr(op: Operation, name: str, default: str) -> str:
    """The case name of an enum attribute: ``#tosa<kind NAME>``, ``#tosa.kind<NAME>`` or the
    string ``"NAME"``; ``default`` when absent."""
    a = op.attributes.get(name)
    if a is None:
        return default
    text = a.value if isinstance(a, StringAttr) else str(a)
    words = re.findall(r"[A-Z][A-Z0-9_]*", text)
    if not words:
        raise fail(op, f"has an unexpected '{name}' attribute {a}")
    return words[-1]


def empty(b: Builder, t: T.TensorType, like: Sequence[Value] = ()) -> Value:
    """``tensor.empty`` of type ``t``; dynamic dims take ``tensor.dim`` of the first value
    in ``like`` that has the same rank and a dynamic size there."""
    dyn = []
    for i, d in enumerate(t.shape):
        if d is not None:
            continue
        src = next((v for v in like if isinstance(v.type, T.TensorType) and v.type.rank == t.rank
                    and v.type.shape[i] is None), None)
        if src is None:
            raise CompileError(f"cannot size dynamic dim {i} of {t}", b.loc)
        idx = b.create("arith.constant", [], [INDEX], {"value": IntegerAttr(i, INDEX)}).result
        dyn.append(b.create("tensor.dim", [src, idx], [INDEX]).result)
    return b.create("tensor.empty", dyn, [t]).result


def fill(b: Builder, value: Value, init: Value) -> Value:
    """``linalg.fill ins(value) outs(init)``."""
    region = L.build_named_region("fill", [value.type], [init.type], {}, b.loc)
    return b.create("linalg.fill", [value, init], [init.type],
                    {"operandSegmentSizes": segment_sizes(1, 1)}, regions=[region]).result


def filled(b: Builder, t: T.TensorType, value, like: Sequence[Value] = ()) -> Value:
    """A tensor of type ``t`` filled with the scalar ``value`` (python number)."""
    return fill(b, constant(b, value, t.element_type), empty(b, t, like))


def named(b: Builder, short: str, ins: Sequence[Value], outs: Sequence[Value],
          attrs: Optional[dict] = None) -> Value:
    """A named linalg op ``linalg.<short>`` with upstream's payload region."""
    a = dict(attrs or {})
    if short in L.MAPS_ATTR_OPS and "indexing_maps" not in a:
        a["indexing_maps"] = L.maps_attr(L.default_maps(short))
    a["operandSegmentSizes"] = segment_sizes(len(ins), len(outs))
    region = L.build_named_region(short, [v.type for v in ins], [v.type for v in outs], a, b.loc)
    return b.create(f"linalg.{short}", list(ins) + list(outs), [outs[0].type], a,
                    regions=[region]).result


def broadcast_map(src: T.TensorType, dst_shape: Sequence[Optional[int]]) -> AffineMap:
    """Indexing map reading a rank-equal operand of shape ``src`` at every point of
    ``dst_shape``: size-1 dims that the result extends read index 0 (TOSA broadcasting)."""
    n = len(dst_shape)
    exprs = []
    for i, (s, d) in enumerate(zip(src.shape, dst_shape)):
        exprs.append(AffineConst(0) if s == 1 and d != 1 else AffineDim(i))
    return AffineMap(n, 0, tuple(exprs))


BodyFn = Callable[[ScalarBuilder, List[Value]], Sequence[Value]]


def elementwise(op: Operation, b: Builder, operands: Sequence[Value], result_type: T.Type,
                body: BodyFn) -> Value:
    """A parallel ``linalg.generic`` computing ``body`` per element, with TOSA's implicit
    broadcasting of size-1 dims (operands must have the result's rank; a rank-1 size-1
    operand such as a zero point may also be passed and is read at index 0).
    ``body(sb, args)`` gets the operand elements followed by the output element."""
    rt = ranked(op, op.results[0]) if result_type is None else result_type
    rank = rt.rank
    maps = []
    for v in operands:
        t = ranked(op, v)
        if t.rank == rank:
            maps.append(broadcast_map(t, rt.shape))
        elif t.rank == 1 and t.shape[0] == 1:
            maps.append(AffineMap(rank, 0, (AffineConst(0),)))
        else:
            raise fail(op, f"operand {t} does not broadcast to {rt}")
    maps.append(AffineMap.identity(rank))
    like = [v for v in operands if v.type.shape == rt.shape]
    init = empty(b, rt, like or operands)
    g = L.build_generic(list(operands), [init], maps, ["parallel"] * rank,
                        lambda sb, args: list(body(sb, args)), builder=b)
    return g.results[0]


def reassociation_attr(groups: Sequence[Sequence[int]]):
    """``[[0, 1], [2]]`` as the ArrayAttr of i64 ArrayAttrs tensor ops carry."""
    from ....ir.attributes import ArrayAttr

    return ArrayAttr(tuple(ArrayAttr(tuple(IntegerAttr(i, I64) for i in g)) for g in groups))


def collapse(b: Builder, v: Value, groups: Sequence[Sequence[int]], t: T.TensorType) -> Value:
    """``tensor.collapse_shape`` of ``v`` into ``t`` with reassociation ``groups``."""
    return b.create("tensor.collapse_shape", [v], [t],
                    {"reassociation": reassociation_attr(groups)}).result


def expand(b: Builder, v: Value, groups: Sequence[Sequence[int]], t: T.TensorType) -> Value:
    """``tensor.expand_shape`` of ``v`` into static type ``t``."""
    return b.create("tensor.expand_shape", [v], [t],
                    {"reassociation": reassociation_attr(groups),
                     "static_output_shape": i64_array(list(t.shape))}).result


def reassociation(src: Sequence[int], dst: Sequence[int]) -> Optional[List[List[int]]]:
    """Groups of ``src`` dims whose products are ``dst``'s dims, in order (``src`` has the
    higher rank; trailing unit dims join the last group); None when the two static shapes
    are not related by a single collapse."""
    if len(dst) == 0:
        return [] if all(s == 1 for s in src) else None
    groups: List[List[int]] = []
    i = 0
    for d in dst:
        if i >= len(src):
            return None
        g, prod = [i], src[i]
        i += 1
        while prod < d and i < len(src):
            g.append(i)
            prod *= src[i]
            i += 1
        if prod != d:
            return None
        groups.append(g)
    while i < len(src):
        if src[i] != 1:
            return None
        groups[-1].append(i)
        i += 1
    return groups


def linalg_index(sb: ScalarBuilder, dim: int) -> Value:
    """``linalg.index dim`` inside a payload."""
    return sb.op("linalg.index", [], INDEX, {"dim": IntegerAttr(dim, I64)})


def extract(sb: ScalarBuilder, t: Value, indices: Sequence[Value]) -> Value:
    """``tensor.extract %t[indices]`` inside a payload."""
    return sb.op("tensor.extract", [t] + list(indices), t.type.element_type)


def index_const(sb: ScalarBuilder, i: int) -> Value:
    """``arith.constant i : index`` inside a payload."""
    return sb.constant(IntegerAttr(i, INDEX))

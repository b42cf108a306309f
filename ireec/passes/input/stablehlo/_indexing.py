"""Shared helpers of the gather/scatter/sort/control-flow/complex/random patterns.

:class:`Payload` builds the scalar index arithmetic inside a ``linalg.generic`` body:
loop indices (``linalg.index``), ``index`` constants, clamps, comparisons and
``tensor.extract`` reads of other tensors at computed positions (the form the backend
lowers to plain loads). The module-level functions create tensor-level ops at a
:class:`~ireec.ir.core.Builder` (``tensor.empty``, casts between static and dynamic types)
and check the static shapes the lowerings need.
"""
from __future__ import annotations

from typing import Dict, Optional, Sequence, Tuple

from ....dialects.arith import CMPI_PREDICATES, ScalarBuilder
from ....ir import types as T
from ....ir.affine import AffineConst, AffineDim, AffineMap
from ....ir.attributes import DenseElementsAttr, IntegerAttr
from ....ir.core import Builder, Operation, Value
from ....ir.diagnostics import CompileError


def signed_int(value: int, width: int) -> int:
    """``value`` wrapped to a ``width``-bit two's complement signed integer (so that
    constants such as 0xD2511F53 : i32 are stored as the negative int they denote)."""
    value &= (1 << width) - 1
    return value - (1 << width) if value >= 1 << (width - 1) else value


def is_unsigned(t: T.Type) -> bool:
    """Whether scalar/element type ``t`` is an unsigned integer (``uiN``) or ``i1``."""
    t = T.element_type(t)
    return isinstance(t, T.IntegerType) and (t.signedness == "u" or t.width == 1)


class Payload:
    """Appends index/scalar ops to a linalg.generic body through a ScalarBuilder.

    All index values are of type ``index``; integer tensor elements are converted with
    ``arith.index_cast`` (``index_castui`` for unsigned types).
    """

    def __init__(self, sb: ScalarBuilder):
        self.sb = sb
        self._consts: Dict[Tuple[int, T.Type], Value] = {}
        self._loop: Dict[int, Value] = {}

    def const(self, value: int, t: T.Type = T.index) -> Value:
        """``arith.constant value : t`` (integer or index), created once per body."""
        key = (value, t)
        if key not in self._consts:
            v = signed_int(value, t.width) if isinstance(t, T.IntegerType) else value
            self._consts[key] = self.sb.constant(IntegerAttr(v, t))
        return self._consts[key]

    def loop(self, d: int) -> Value:
        """``linalg.index d`` (created once per body)."""
        if d not in self._loop:
            self._loop[d] = self.sb.op("linalg.index", [], T.index, {"dim": IntegerAttr(d, T.i64)})
        return self._loop[d]

    def to_index(self, v: Value) -> Value:
        """An integer scalar as ``index``."""
        if isinstance(v.type, T.IndexType):
            return v
        name = "arith.index_castui" if is_unsigned(v.type) else "arith.index_cast"
        return self.sb.op(name, [v], T.index)

    def add(self, a: Value, b: Value) -> Value:
        return self.sb.op("arith.addi", [a, b], a.type)

    def sub(self, a: Value, b: Value) -> Value:
        return self.sb.op("arith.subi", [a, b], a.type)

    def mul(self, a: Value, b: Value) -> Value:
        return self.sb.op("arith.muli", [a, b], a.type)

    def cmp(self, pred: str, a: Value, b: Value) -> Value:
        """``arith.cmpi pred, a, b`` (pred: eq, ne, slt, sle, sgt, sge, ult...)."""
        return self.sb.op("arith.cmpi", [a, b], T.i1,
                          {"predicate": IntegerAttr(CMPI_PREDICATES.index(pred), T.i64)})

    def and_(self, a: Optional[Value], b: Value) -> Value:
        """``a && b`` on i1; ``a`` None means true."""
        return b if a is None else self.sb.op("arith.andi", [a, b], T.i1)

    def or_(self, a: Optional[Value], b: Value) -> Value:
        return b if a is None else self.sb.op("arith.ori", [a, b], T.i1)

    def not_(self, a: Value) -> Value:
        return self.sb.op("arith.xori", [a, self.const(1, T.i1)], T.i1)

    def select(self, c: Value, a: Value, b: Value) -> Value:
        return self.sb.op("arith.select", [c, a, b], a.type)

    def clamp(self, v: Value, lo: int, hi: int) -> Value:
        """``min(max(v, lo), hi)`` on index values (signed)."""
        v = self.sb.op("arith.maxsi", [v, self.const(lo)], T.index)
        return self.sb.op("arith.minsi", [v, self.const(hi)], T.index)

    def in_range(self, v: Value, lo: int, hi: int) -> Value:
        """``lo <= v && v < hi`` (i1)."""
        return self.and_(self.cmp("sge", v, self.const(lo)), self.cmp("slt", v, self.const(hi)))

    def extract(self, tensor: Value, indices: Sequence[Value]) -> Value:
        """``tensor.extract %tensor[indices]`` (the element scalar)."""
        return self.sb.op("tensor.extract", [tensor] + list(indices), tensor.type.element_type)

    def extract_index(self, tensor: Value, indices: Sequence[Value]) -> Value:
        """An integer element of ``tensor`` as ``index``."""
        return self.to_index(self.extract(tensor, indices))


# ----------------------------------------------------------------- tensor-level helpers
def static_shape(v: Value, op: Operation, what: str) -> Tuple[int, ...]:
    """The static shape of ranked tensor ``v``; CompileError (at ``op``) otherwise."""
    t = v.type
    if not isinstance(t, T.TensorType) or t.shape is None or not t.has_static_shape:
        raise CompileError(f"'{op.name}': {what} must have a static shape, got {t}", op.loc)
    return tuple(t.shape)


def empty(b: Builder, t: T.TensorType) -> Value:
    """``tensor.empty() : t`` (static ``t``)."""
    return b.create("tensor.empty", [], [t]).results[0]


def cast_to(b: Builder, v: Value, t: T.Type) -> Value:
    """``v`` as type ``t``: itself when equal, else ``tensor.cast`` (static ↔ dynamic dims)."""
    if v.type == t:
        return v
    return b.create("tensor.cast", [v], [t]).results[0]


def with_static_source(b: Builder, v: Value) -> Value:
    """``v`` with a static type when its producer makes the shape known: the source of a
    ``tensor.cast`` from a static type, or an ``arith.constant`` of the value of a
    ``flow.tensor.dynamic_constant`` (whose dims are dynamic only to exercise dynamic code
    paths). Otherwise ``v`` itself."""
    t = v.type
    if isinstance(t, T.TensorType) and t.has_static_shape:
        return v
    d = v.owner if isinstance(v.owner, Operation) else None
    if d is not None and d.name == "tensor.cast" and d.operands[0].type.has_static_shape:
        return d.operands[0]
    if d is not None and d.name == "flow.tensor.dynamic_constant":
        attr = next((a for a in d.attributes.values() if isinstance(a, DenseElementsAttr)), None)
        if attr is not None:
            return b.create("arith.constant", [], [attr.type], {"value": attr}).results[0]
    return v


def map_of(num_dims: int, exprs: Sequence) -> AffineMap:
    """Affine map ``(d0..d{n-1}) -> exprs``; ints in ``exprs`` are dims, ``('c', k)`` the
    constant ``k``."""
    res = []
    for e in exprs:
        if isinstance(e, tuple):
            res.append(AffineConst(e[1]))
        else:
            res.append(AffineDim(e))
    return AffineMap(num_dims, 0, tuple(res))


def tensor_of(shape: Sequence[int], et: T.Type) -> T.TensorType:
    return T.TensorType(tuple(shape), et)

"""Strided memref layouts (``memref<4x8xf32, strided<[16, 1], offset: 4>>``), the loop
order kernels are nested in, which follows the operands' strides, and the small queries on
memref ``linalg.generic`` ops the hal passes lowering them share.

Only static strides and offsets are produced by ireec (all shapes are static).
"""
from __future__ import annotations

import re
from typing import Dict, List, Optional, Sequence, Tuple

from ...dialects import linalg as L
from ...dialects.linalg import indexing_maps
from ...ir import types as T
from ...ir.affine import AffineBinary, AffineConst, AffineDim, AffineExpr, AffineMap
from ...ir.attributes import OpaqueAttr
from ...ir.core import Operation, Value
from ...ir.diagnostics import CompileError

_STRIDED = re.compile(r"strided<\[([^\]]*)\](?:,\s*offset:\s*(-?\d+))?>")


def identity_strides(shape: Sequence[int]) -> List[int]:
    """Row-major strides in elements."""
    strides, acc = [], 1
    for d in reversed(shape):
        strides.append(acc)
        acc *= d
    return strides[::-1]


def strides_and_offset(t: T.MemRefType) -> Tuple[List[int], int]:
    """Strides (elements) and offset (elements) of a memref type."""
    if t.layout is None:
        return identity_strides(t.shape), 0
    m = _STRIDED.fullmatch(str(t.layout))
    if not m:
        raise ValueError(f"unsupported memref layout {t.layout}")
    strides = [int(s) for s in m.group(1).split(",")] if m.group(1).strip() else []
    return strides, int(m.group(2) or 0)


def strided_memref(shape, et, strides, offset) -> T.MemRefType:
    """``memref<shape x et, strided<strides, offset: offset>>`` (strides and offset in elements)."""
    if list(strides) == identity_strides(shape) and offset == 0:
        return T.MemRefType(tuple(shape), et)
    return T.MemRefType(tuple(shape), et, OpaqueAttr(
        f"strided<[{', '.join(str(s) for s in strides)}], offset: {offset}>"))


def memref_for(t: T.TensorType) -> T.MemRefType:
    """The identity-layout memref of a static tensor type."""
    return T.MemRefType(tuple(t.shape), t.element_type)


def _coeff_strides(e: AffineExpr, stride: int, acc: Dict[int, int]) -> None:
    """Add to ``acc[d]`` how far one step of loop ``d`` moves index expression ``e`` (times
    the dim's element ``stride``); products with constants scale, other terms count once."""
    if isinstance(e, AffineDim):
        acc[e.pos] = acc.get(e.pos, 0) + stride
    elif isinstance(e, AffineBinary):
        if e.kind == "*" and isinstance(e.rhs, AffineConst):
            _coeff_strides(e.lhs, stride * abs(e.rhs.value), acc)
        elif e.kind == "*" and isinstance(e.lhs, AffineConst):
            _coeff_strides(e.rhs, stride * abs(e.lhs.value), acc)
        elif e.kind == "+":
            _coeff_strides(e.lhs, stride, acc)
            _coeff_strides(e.rhs, stride, acc)
        else:
            _coeff_strides(e.lhs, stride, acc)
            _coeff_strides(e.rhs, stride, acc)


def loop_order(op, n: int, parallel_inner: bool = False) -> List[int]:
    """Loop dims ``0..n-1`` of generic ``op``, outermost first: sorted by the sum over
    operands of the element stride one step of the dim moves the operand by (largest
    outermost, ties by dim), so the innermost loop walks contiguous memory. Memref operands
    count with their layout's strides, static tensors (the same op before bufferization)
    with row-major ones; other operands do not count.

    With ``parallel_inner`` (the order ``convert-linalg-to-loops`` nests), reduction dims go
    before parallel dims of the same stride sum: a stride-1 convolution's ``ow`` and ``kw``
    both move the image by one element, and ``ow`` innermost (the window outside it) is
    the loop that also walks the output and leaves the filter invariant, so the compiler
    vectorizes it. And with reduction dims the outputs' strides count half: the outputs are
    read and written once per block of the reduction (accumulated in registers or a local
    block, :mod:`..hal.register_blocking`), the inputs on every step, so a pool over NHWC
    written ``[c, h]`` runs ``c`` (contiguous in the input, 16 in the output) inside ``w``
    (16 in the input). Each output element still sees its reduction steps in the same
    order.

    Without reduction dims (a copy, a transpose, an elementwise op) the outputs' strides
    decide first and the inputs' break ties: the innermost loop writes contiguous memory and
    gathers its reads. A transpose of a 16 x 1024 image into 1024 x 16 took 12.0 us with the
    input's rows innermost (every store 64 bytes from the last) and 2.5 us with the output's
    (gcc 12, AVX-512, one thread)."""
    acc: Dict[int, float] = {}
    out_acc: Dict[int, float] = {}
    its = L.iterator_types(op)
    n_in = len(L.inputs(op))
    elementwise = L.REDUCTION not in its
    out_weight = 0.5 if parallel_inner and not elementwise else 1
    for k, (v, m) in enumerate(zip(op.operands, indexing_maps(op))):
        t = v.type
        if isinstance(t, T.MemRefType):
            strides, _ = strides_and_offset(t)
        elif isinstance(t, T.TensorType) and t.has_static_shape:
            strides = identity_strides(t.shape)
        else:
            continue
        for e, st in zip(m.results, strides):
            if k >= n_in and elementwise:
                _coeff_strides(e, st, out_acc)
            else:
                _coeff_strides(e, st if k < n_in else st * out_weight, acc)
    if not parallel_inner:
        return sorted(range(n), key=lambda d: (-out_acc.get(d, 0), -acc.get(d, 0), d))
    return sorted(range(n), key=lambda d: (-out_acc.get(d, 0), -acc.get(d, 0), its[d] != L.REDUCTION, d))


def zero_fill_before(op, c) -> Optional["Operation"]:
    """The memref ``linalg.generic`` just before ``op`` (arith constants between are skipped)
    that fills all of ``c`` with +0.0 (integer 0 for an integer ``c``), if any: the init a
    micro-kernel without its accumulate flag replaces (IREE's ukernels start from zero unless
    told to accumulate)."""
    blk = op.parent
    i = blk.ops.index(op) - 1
    while i >= 0 and blk.ops[i].name == "arith.constant":
        i -= 1
    if i < 0:
        return None
    f = blk.ops[i]
    if f.name != "linalg.generic" or L.outputs(f) != [c] or len(L.inputs(f)) != 1:
        return None
    src = L.inputs(f)[0].owner
    body = list(L.payload(f).ops)
    if (len(body) != 1 or body[0].operands[0] is not L.payload(f).args[0]
            or src is None or getattr(src, "name", None) != "arith.constant"):
        return None
    val = src.attributes["value"].value
    integer = isinstance(T.element_type(c.type), T.IntegerType)
    if integer:
        if isinstance(val, bool) or not isinstance(val, int) or val != 0:
            return None
    elif not isinstance(val, float) or val != 0.0 or str(val).startswith("-"):
        return None
    out_map = L.indexing_maps(f)[1]
    if [getattr(e, "pos", None) for e in out_map.results] != list(range(len(c.type.shape))):
        return None
    return f


def generic_maps(op: Operation) -> List[AffineMap]:
    """The indexing maps of generic ``op``, one per operand."""
    return [a.value for a in op.attributes["indexing_maps"].value]


def generic_loop_ranges(op: Operation) -> List[int]:
    """Static size of each iteration dimension, from the first operand dim it indexes.
    Raises CompileError when a dimension indexes no operand dim directly."""
    maps = generic_maps(op)
    n = maps[0].num_dims if maps else 0
    ranges: List = [None] * n
    for v, m in zip(op.operands, maps):
        shape = getattr(v.type, "shape", ())
        for k, e in enumerate(m.results):
            if isinstance(e, AffineDim) and ranges[e.pos] is None:
                ranges[e.pos] = shape[k]
    if any(r is None for r in ranges):
        raise CompileError("cannot infer the loop range of a linalg.generic dimension", op.loc)
    return ranges


def const_index(v: Value) -> Optional[int]:
    """The value of ``v`` when an ``arith.constant`` defines it, else None."""
    o = v.owner
    if isinstance(o, Operation) and o.name == "arith.constant":
        return o.attributes["value"].value
    return None


def pointer_strides(values) -> Optional[List]:
    """The element strides of each memref of ``values`` (a micro-kernel's operands, passed as
    pointers), or None when one is a kernel-local constant (it may fold to scalars: no pointer
    to pass) or has no static layout."""
    if any(isinstance(v.owner, Operation) and v.owner.name in ("memref.get_global", "arith.constant")
           for v in values):
        return None
    try:
        return [strides_and_offset(v.type)[0] for v in values]
    except ValueError:
        return None


def op_before(op: Operation) -> Optional[Operation]:
    """The op of ``op``'s block before it, constants skipped."""
    blk = op.parent
    i = blk.ops.index(op) - 1
    while i >= 0 and blk.ops[i].name == "arith.constant":
        i -= 1
    return blk.ops[i] if i >= 0 else None

"""Fake-quantized contractions become integer contractions (QDQ fusion).

Mirrors ONNX Runtime's QDQ selector-action transformer (``QDQSelectorActionTransformer``:
a ``DequantizeLinear -> Conv / MatMul`` node group becomes ``QLinearConv`` /
``MatMulIntegerToFloat``), the integer form IREE's ``iree-global-opt-quantized-conv-to-conv``
and ``-quantized-matmul-to-matmul`` start from. A QDQ export (ONNX Runtime's static
quantizer, brought to linalg by torch-mlir) keeps its convolutions and matmuls in f32
between dequantizations::

    x[i]    = f32(qx[i] - zx) * sx                   a dequantize generic; qx i8 / u8
    w[f, k] = f32(qw[f, k] - zw) * sw[f]             constant int8 weights, a scale per channel
    y[p, f] = init[p, f] + sum_k x[p, k] * w[f, k]   an f32 contraction

and computes them here as the quantized model means them::

    acc[p, f] = sum_k (qx[p, k] - zx) * (qw[f, k] - zw)   8-bit x 8-bit -> i32 (ireec_uk_igemm)
    y[p, f]   = f32(acc[p, f]) * (sx * sw[f])   [+ init[p, f]]

A bias that is itself a dequantized i32 tensor with scale ``sx * sw[f]`` (bitwise, in f32)
and zero point 0 (what ONNX's and TFLite's quantizers emit) is the integer start of ``acc``,
as in ``QLinearConv``; any other ``init`` (a zero fill goes) is added in f32 after the
scaling. The sum is then exact, where the f32 contraction rounds every partial sum: the
result is the real-number value of the quantized model's contraction rounded once (to
f32) and once more by the scaling (to f32), which is what ONNX Runtime computes too; under
``--strict-fp`` (the f32 program's own rounding, bit for bit) the pass does nothing.

An operand qualifies when it is computed from an 8-bit integer tensor ``q`` by

- a ``linalg.generic`` dequantization: all loops parallel, ``q`` read by the identity map,
  the payload ``(tofp(ext(q) - zi) - zf) * s`` (each of ``ext``, ``- zi`` and ``- zf``
  optional, ``tofp`` ``sitofp``/``uitofp``), the zero points and the scale constants (a
  scalar, a captured value, or a constant tensor varying along at most one dim, as
  TOSA's ``8x1x1x1`` scales), the zero point the same for every element, the scale per
  tensor or per element of one dim (per channel). TOSA writes the dequantization as a
  chain of elementwise ops (cast, subtract, cast, multiply): a chain of single-use
  elementwise generics that starts from an 8-bit tensor (an integer constant for a bias) is
  fused into one first (:func:`.elementwise_op_fusion.fuse_single_use_producer`);
- followed by any of ``linalg.transpose``; ``tensor.pad`` with 0.0 (the padding becomes
  the zero point, which dequantizes to 0) that pads no per-channel dim; and
  ``tensor.collapse_shape`` / ``expand_shape`` (a per-channel dim is found again after a
  collapse to 1-d and an expand when the same dim, with as many elements inside it,
  reappears).

The contraction is a ``linalg.generic`` or named op multiplying two f32 inputs and adding
into its f32 output (matmuls, convolutions of every layout; not depthwise-specific: any
whose per-channel dims are parallel dims of the output), on static shapes, whose two
inputs qualify, whose reduction has at least :data:`MIN_REDUCTION` steps and whose sum
cannot overflow i32 (the reduction extent times the largest products, plus the largest
bias). The bias start is a ``linalg.broadcast`` or a broadcasting generic (TOSA's) of the
dequantized i32 vector.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from math import prod
from typing import Callable, List, Optional, Tuple

import numpy as np

from ...dialects import linalg as L
from ...dialects import tensor as TD
from ...dialects.tensor import segment_sizes
from ...ir import types as T
from ...ir.affine import AffineDim, AffineMap
from ...ir.attributes import DenseElementsAttr, FloatAttr, IntegerAttr, i64_array
from ...ir.core import Builder, Operation, Value
from ..common import constant_evaluator as CE
from ..common.distribution import is_contraction_like
from ..common.linalg_generalize_named_ops import generalize
from ..pass_base import Pass, PassContext, functions, register_pass
from .elementwise_op_fusion import blocks_of, fuse_single_use_producer

I32 = T.IntegerType(32)
#: Ops a dequantize payload's leaves may pass through (zero points read as i8 and widened).
_INT_CASTS = ("arith.extsi", "arith.extui", "arith.trunci")
_TO_FP = ("arith.sitofp", "arith.uitofp")


@dataclass
class Quantized:
    """A tensor that is ``(q - zp) * scale`` elementwise: ``q`` an integer tensor (of the
    same shape), ``zp`` one integer, ``scale`` f32, 0-d (per tensor) or 1-d along dim
    ``axis`` of the tensor (per channel). ``build(b)`` creates the integer ops giving
    ``q`` at ``b`` (the view's transposes and pads on ``q``); ``ops`` are the f32 ops it
    replaces (erased once unused)."""

    q_type: T.TensorType
    unsigned: bool
    zp: int
    scale: np.ndarray
    axis: Optional[int]
    build: Callable[[Builder], Value]
    ops: List[Operation] = field(default_factory=list)
    source: Optional[Value] = None
    #: ``(shape, axis)`` of a per-channel scale a reshape lost track of (collapsed into a
    #: bigger dim): a later reshape may bring the dim back (TOSA's collapse to 1-d and
    #: expand of a filter); no other use of such a view qualifies.
    pending: Optional[Tuple[Tuple[int, ...], int]] = None


class _Consts:
    """Constant values of one module (``arith.constant`` results, resource blobs read)."""

    def __init__(self, resources):
        self.resources = resources

    def array(self, v: Value) -> Optional[np.ndarray]:
        op = v.owner
        if not isinstance(op, Operation) or op.name != "arith.constant":
            return None
        try:
            return CE.attr_array(op.attributes.get("value"), v.type, self.resources)
        except CE.Unsupported:
            return None


def _leaf(consts: _Consts, op: Operation, v: Value) -> Optional[Tuple[np.ndarray, Optional[int]]]:
    """The value of payload scalar ``v`` of generic ``op`` when it is a constant: ``(array,
    loop dim)``, the array 0-d (the same for every element) or 1-d along that loop dim;
    through integer casts (a zero point read as i8 and widened). None otherwise."""
    blk = L.payload(op)
    owner = v.owner
    if isinstance(owner, Operation) and owner.parent is blk and owner.name in _INT_CASTS:
        inner = _leaf(consts, op, owner.operands[0])
        if inner is None:
            return None
        a = inner[0].astype(np.int64)
        width = owner.operands[0].type.width if owner.name == "arith.extui" else owner.results[0].type.width
        if owner.name != "arith.extsi":  # extui reads the bits unsigned; trunci wraps
            a = a % (1 << width)
            if owner.name == "arith.trunci":
                a = np.where(a >= 1 << (width - 1), a - (1 << width), a)
        return a, inner[1]
    if isinstance(owner, Operation) and owner.name == "arith.constant":
        a = consts.array(v)
        return None if a is None or a.ndim else (a, None)
    if v not in blk.args:
        return None
    k = blk.args.index(v)
    ins = L.inputs(op)
    if k >= len(ins):
        return None
    a = consts.array(ins[k])
    if a is None:
        return None
    flat = a.reshape(-1)
    if flat.size and np.all(flat == flat[0]):
        return flat[0].reshape(()), None  # one value (a splat, or TOSA's 1x1x1x1 operand)
    m = L.indexing_maps(op)[k]
    varying = [(e, n) for e, n in zip(m.results, a.shape) if n > 1]
    if len(varying) != 1 or not isinstance(varying[0][0], AffineDim):
        return None
    return flat, varying[0][0].pos


def _uniform(a: np.ndarray) -> Optional[int]:
    """The one integer every element of ``a`` holds, else None."""
    flat = np.asarray(a).reshape(-1)
    if flat.size == 0 or not np.all(flat == flat[0]) or float(flat[0]) != int(flat[0]):
        return None
    return int(flat[0])


def _dequantize(consts: _Consts, op: Operation) -> Optional[Quantized]:
    """The :class:`Quantized` form of dequantize generic ``op``'s result (module docstring)."""
    if op.name != "linalg.generic" or len(op.results) != 1:
        return None
    ins, outs = L.inputs(op), L.outputs(op)
    out_t = outs[0].type if len(outs) == 1 else None
    if not isinstance(out_t, T.TensorType) or not out_t.has_static_shape or out_t.element_type != T.f32:
        return None
    if any(it != L.PARALLEL for it in L.iterator_types(op)) or not L.indexing_maps(op)[len(ins)].is_identity():
        return None
    blk = L.payload(op)
    body = list(blk.ops)
    if not body or body[-1].name != "linalg.yield" or len(body[-1].operands) != 1:
        return None
    chain = [body[-1]]
    mul = body[-1].operands[0].owner
    if not isinstance(mul, Operation) or mul.parent is not blk or mul.name != "arith.mulf":
        return None
    chain.append(mul)
    scale = None
    for x, s in (mul.operands, reversed(mul.operands)):
        scale = _leaf(consts, op, s)
        if scale is not None and isinstance(x.owner, Operation) and x.owner.parent is blk:
            break
        scale = None
    if scale is None:
        return None
    x = x.owner
    zp = 0
    if x.name == "arith.subf":
        z = _leaf(consts, op, x.operands[1])
        if z is None or _uniform(z[0]) is None:
            return None
        zp += _uniform(z[0])
        chain.append(x)
        x = x.operands[0].owner
        if not isinstance(x, Operation) or x.parent is not blk:
            return None
    if x.name not in _TO_FP:
        return None
    chain.append(x)
    unsigned = x.name == "arith.uitofp"
    v = x.operands[0]
    sub = v.owner
    if isinstance(sub, Operation) and sub.parent is blk and sub.name == "arith.subi":
        z = _leaf(consts, op, sub.operands[1])
        if z is None or _uniform(z[0]) is None:
            return None
        zp += _uniform(z[0])
        chain.append(sub)
        v = sub.operands[0]
    while isinstance(v.owner, Operation) and v.owner.parent is blk and v.owner.name in ("arith.extsi", "arith.extui"):
        chain.append(v.owner)
        unsigned = v.owner.name == "arith.extui"
        v = v.owner.operands[0]
    if v not in blk.args:
        return None
    k = blk.args.index(v)
    if k >= len(ins) or not L.indexing_maps(op)[k].is_identity():
        return None
    q = ins[k]
    qt = q.type
    if not (isinstance(qt, T.TensorType) and isinstance(qt.element_type, T.IntegerType)
            and qt.element_type.width in (8, 32)):
        return None
    # Every payload op is on the chain, except the casts of the zero points and scales.
    leaves = [o for o in body if o not in chain]
    if any(o.name not in _INT_CASTS + ("arith.constant",) for o in leaves):
        return None
    arr, dim = scale
    if arr.dtype != np.float32:
        return None
    if dim is not None and not np.all(arr == arr.reshape(-1)[0]):
        axis = dim
    else:
        arr, axis = np.asarray(arr.reshape(-1)[0], np.float32), None
    return Quantized(qt, unsigned, zp, arr, axis, lambda b, q=q: q, [op], q)


def _tensor(t: T.TensorType, shape=None, elem=None) -> T.TensorType:
    return T.TensorType(tuple(t.shape if shape is None else shape), t.element_type if elem is None else elem)


def _transpose(view: Quantized, op: Operation) -> Optional[Quantized]:
    perm = list(op.attributes["permutation"].value)
    shape = [view.q_type.shape[p] for p in perm]
    rt = _tensor(view.q_type, shape)

    def build(b: Builder, inner=view.build) -> Value:
        q = inner(b)
        init = b.create("tensor.empty", [], [rt]).result
        return b.create("linalg.transpose", [q, init], [rt], {"permutation": op.attributes["permutation"]},
                        regions=[L.identity_region([q.type, rt])]).result

    axis = None if view.axis is None else perm.index(view.axis)
    return Quantized(rt, view.unsigned, view.zp, view.scale, axis, build, view.ops + [op], view.source)


def _integer(v: int, t: T.IntegerType) -> int:
    """``v`` as the signless value of ``t`` holds it (u8 255 is i8 -1)."""
    m = 1 << t.width
    v %= m
    return v - m if v >= m // 2 else v


def _pad(view: Quantized, op: Operation) -> Optional[Quantized]:
    value = TD.pad_value(op)
    pad = getattr(value, "owner", None)
    if not isinstance(pad, Operation) or pad.name != "arith.constant":
        return None
    attr = pad.attributes.get("value")
    if not isinstance(attr, FloatAttr) or attr.value != 0.0:
        return None
    low, high = TD.pad_low_high(op)
    if any(x < 0 for x in low + high):
        return None
    if view.axis is not None and (low[view.axis] or high[view.axis]):
        return None
    rt = _tensor(view.q_type, op.results[0].type.shape)
    et = view.q_type.element_type

    def build(b: Builder, inner=view.build) -> Value:
        q = inner(b)
        c = b.create("arith.constant", [], [et], {"value": IntegerAttr(_integer(view.zp, et), et)}).result
        new = b.insert(op.clone({op.operands[0]: q}))
        new.results[0].type = rt
        blk = new.regions[0].blocks[0]
        blk.terminator.set_operand(0, c)
        for o in reversed(list(blk.ops)[:-1]):
            o.erase()
        return new.results[0]

    return Quantized(rt, view.unsigned, view.zp, view.scale, view.axis, build, view.ops + [op], view.source)


def _reshaped_axis(old: Tuple[int, ...], new: Tuple[int, ...], axis: int) -> Optional[int]:
    """The dim of row-major shape ``new`` that holds dim ``axis`` of ``old`` after a reshape
    (the same size and the same number of elements inside it), else None."""
    n, inner = old[axis], prod(old[axis + 1:])
    for b, m in enumerate(new):
        if m == n and prod(new[b + 1:]) == inner:
            return b
    return None


def _reshape(view: Quantized, op: Operation) -> Optional[Quantized]:
    rt = _tensor(view.q_type, op.results[0].type.shape)
    home = view.pending or (None if view.axis is None else (tuple(view.q_type.shape), view.axis))
    axis = pending = None
    if home is not None:
        axis = _reshaped_axis(home[0], tuple(rt.shape), home[1])
        pending = home if axis is None else None

    def build(b: Builder, inner=view.build) -> Value:
        new = b.insert(op.clone({op.operands[0]: inner(b)}))
        new.results[0].type = rt
        return new.results[0]

    return Quantized(rt, view.unsigned, view.zp, view.scale, axis, build, view.ops + [op], view.source,
                     pending)


#: The layout ops a quantized operand may pass through on its way to the contraction.
_VIEWS = {
    "linalg.transpose": _transpose,
    "tensor.pad": _pad,
    "tensor.collapse_shape": _reshape,
    "tensor.expand_shape": _reshape,
}


def _chain_input(consts: _Consts, op: Operation) -> Optional[int]:
    """The input of elementwise generic ``op`` a dequantization chain runs through: its one
    tensor input that is not a constant or holds integers (a constant weight's or bias's
    start), when there is exactly one."""
    if op.name != "linalg.generic" or len(op.results) != 1 or any(
            it != L.PARALLEL for it in L.iterator_types(op)):
        return None
    tensors = [(k, x) for k, x in enumerate(L.inputs(op)) if isinstance(x.type, T.TensorType)]
    rest = [k for k, x in tensors if consts.array(x) is None]
    if not rest:
        rest = [k for k, x in tensors if _is_int(x.type)]
    return rest[0] if len(rest) == 1 else None


def _is_int(t) -> bool:
    return isinstance(t.element_type, T.IntegerType)


def _chain_start(consts: _Consts, v: Value) -> bool:
    """Whether a dequantization chain starts at ``v``: an 8-bit tensor, or an integer
    constant (a bias quantized to i32)."""
    return _is_int(v.type) and (v.type.element_type.width == 8 or consts.array(v) is not None)


#: Fewest reduction steps (the window of a convolution, K of a matmul) of a contraction
#: made integer. Below it the integer form would be the loop nest, not the micro-kernel
#: (``hal/im2col.py``'s ``INT_MIN_K``), and a loop nest of 32-bit integer products
#: (``vpmulld``) is slower than the f32 one it replaces: cnn_int8's one-channel 3x3
#: convolution (K = 9) took 31 us as integers, 14 us in f32 (gcc 12, AVX-512).
MIN_REDUCTION = 16

#: Most elementwise generics a dequantization may be split into (TOSA: cast, subtract the
#: zero point, cast, multiply by the scale).
MAX_CHAIN = 6


def _fuse_chain(consts: _Consts, op: Operation) -> Operation:
    """``op`` with the chain of single-use elementwise generics feeding it fused in, when
    that chain starts from an 8-bit integer tensor within :data:`MAX_CHAIN` generics (a
    dequantization written as separate TOSA ops), or from an integer constant (a bias);
    ``op`` unchanged otherwise."""
    cur, n = op, 0
    while True:
        i = _chain_input(consts, cur)
        if i is None or n > MAX_CHAIN:
            return op
        src = L.inputs(cur)[i]
        if _chain_start(consts, src):
            break
        cur, n = src.owner, n + 1
        if not isinstance(cur, Operation):
            return op
    while True:
        i = _chain_input(consts, op)
        if _chain_start(consts, L.inputs(op)[i]):
            return op
        fused = fuse_single_use_producer(op, i)
        if fused is None:
            return op
        op = fused


def quantized(consts: _Consts, v: Value, depth: int = 0) -> Optional[Quantized]:
    """``v`` as a :class:`Quantized` (module docstring), else None."""
    op = v.owner
    if not isinstance(op, Operation) or depth > 8 or not isinstance(v.type, T.TensorType):
        return None
    rule = _VIEWS.get(op.name)
    if rule is None and L.is_pure_broadcast(op) and op.name == "linalg.generic":
        return None
    if rule is None:
        return _dequantize(consts, _fuse_chain(consts, op))
    inner = quantized(consts, op.operands[0], depth + 1)
    if inner is None or (inner.pending is not None and rule is not _reshape):
        return None
    return rule(inner, op)


def _is_mac(op: Operation) -> bool:
    """Whether contraction ``op``'s payload is ``out + a * b`` in f32."""
    short = op.name[len("linalg."):]
    if op.name != "linalg.generic":
        spec = L.NAMED_SPECS.get(short)
        return spec is not None and spec.body == "mac"
    blk = L.payload(op)
    body = list(blk.ops)
    if len(body) != 3 or body[0].name != "arith.mulf" or body[1].name != "arith.addf":
        return False
    a, b, out = blk.args
    return (set(map(id, body[0].operands)) == {id(a), id(b)} and len(body[0].operands) == 2
            and {id(x) for x in body[1].operands} == {id(out), id(body[0].results[0])}
            and body[2].operands[0] is body[1].results[0])


def _range(view: Quantized) -> int:
    """The largest ``|q - zp|`` of an 8-bit operand."""
    lo, hi = (0, 255) if view.unsigned else (-128, 127)
    return max(abs(lo - view.zp), abs(hi - view.zp))


def _channel_dim(m: AffineMap, view: Quantized, its, out_dims) -> Optional[int]:
    """The output position the per-channel scale of ``view`` (read through map ``m``) varies
    along; -1 for a per-tensor scale; None when its dim is not a parallel output dim."""
    if view.axis is None:
        return -1
    e = m.results[view.axis]
    if not isinstance(e, AffineDim) or its[e.pos] != L.PARALLEL or e.pos not in out_dims:
        return None
    return out_dims.index(e.pos)


def _scale(views, positions) -> Tuple[np.ndarray, List[int]]:
    """The f32 product of the operands' scales and the output positions it varies along."""
    axes = sorted({p for p in positions if p >= 0})
    total = np.ones([1] * len(axes), np.float32)
    for view, p in zip(views, positions):
        s = view.scale
        if p >= 0:
            shape = [1] * len(axes)
            shape[axes.index(p)] = s.size
            s = s.reshape(shape)
        total = (total * s).astype(np.float32)
    return total, axes


def _broadcast_dims(op: Operation) -> Optional[List[int]]:
    """The output dims a broadcast adds (``linalg.broadcast``'s ``dimensions``, or those a
    broadcasting generic's input map leaves out: TOSA's bias), else None."""
    if op.name == "linalg.broadcast":
        return list(op.attributes["dimensions"].value)
    if op.name != "linalg.generic" or not L.is_pure_broadcast(op) or len(L.inputs(op)) != 1:
        return None
    m_in, m_out = L.indexing_maps(op)
    if not m_out.is_identity() or not all(isinstance(e, AffineDim) for e in m_in.results):
        return None
    kept = [e.pos for e in m_in.results]
    if kept != sorted(kept):
        return None
    return [d for d in range(m_out.num_dims) if d not in kept]


def _bias(consts: _Consts, init: Value, scale: np.ndarray, axes: List[int]):
    """``(build, ops, bound)`` for an integer accumulator start equal to ``init`` (a
    broadcast of a dequantized i32 vector, zero point 0, whose scale is bitwise ``scale``
    along the same output position; ``bound`` its largest magnitude), else None."""
    op = init.owner
    dims = _broadcast_dims(op) if isinstance(op, Operation) else None
    if dims is None:
        return None
    view = quantized(consts, L.inputs(op)[0])
    if view is None or view.pending is not None or view.zp or view.q_type.element_type != I32:
        return None
    kept = [d for d in range(init.type.rank) if d not in dims]
    if view.axis is None:
        if axes or scale.reshape(-1)[0].tobytes() != view.scale.tobytes():
            return None
    elif axes != [kept[view.axis]] or scale.reshape(-1).tobytes() != view.scale.astype(np.float32).tobytes():
        return None
    values = consts.array(view.source)
    if values is None:
        return None
    rt = _tensor(init.type, elem=I32)

    def build(b: Builder) -> Value:
        q = view.build(b)
        empty = b.create("tensor.empty", [], [rt]).result
        return b.create("linalg.broadcast", [q, empty], [rt], {"dimensions": i64_array(dims)},
                        regions=[L.identity_region([q.type, rt])]).result

    return build, view.ops + [op], int(np.abs(values.astype(np.int64)).max(initial=0))


def _zero_fill(consts: _Consts, init: Value) -> bool:
    op = init.owner
    if not isinstance(op, Operation) or op.name != "linalg.fill":
        return False
    a = consts.array(op.operands[0])
    return a is not None and a.ndim == 0 and float(a) == 0.0


@dataclass
class _Match:
    """What :func:`_match` found: the two operands' views, the product scale (f32, varying
    along output positions ``axes``) and the integer bias start (``(build, ops, bound)`` of
    :func:`_bias`) when there is one."""

    views: List[Quantized]
    scale: np.ndarray
    axes: List[int]
    bias: Optional[tuple]


def _match(consts: _Consts, op: Operation) -> Optional[_Match]:
    """The :class:`_Match` of contraction ``op`` when it qualifies (module docstring)."""
    if not (op.name == "linalg.generic" or L.is_named_structured(op)) or not is_contraction_like(op):
        return None
    ins, outs = L.inputs(op), L.outputs(op)
    if len(ins) != 2 or len(outs) != 1 or len(op.results) != 1 or not _is_mac(op):
        return None
    if not all(isinstance(v.type, T.TensorType) and v.type.has_static_shape and v.type.element_type == T.f32
               for v in ins + outs):
        return None
    views = [quantized(consts, v) for v in ins]
    if any(v is None or v.pending is not None or v.q_type.element_type.width != 8 for v in views):
        return None
    maps, its = L.indexing_maps(op), L.iterator_types(op)
    if not all(isinstance(e, AffineDim) for e in maps[2].results):
        return None
    out_dims = [e.pos for e in maps[2].results]
    positions = [_channel_dim(maps[k], views[k], its, out_dims) for k in (0, 1)]
    if None in positions:
        return None
    scale, axes = _scale(views, positions)
    k_extent = prod(r for r, it in zip(L.loop_ranges(op), its) if it == L.REDUCTION)
    if k_extent < MIN_REDUCTION:
        return None
    bound = k_extent * _range(views[0]) * _range(views[1])
    bias = _bias(consts, outs[0], scale, axes)
    if bias is not None:
        bound += bias[2]
    return _Match(views, scale, axes, bias) if bound < 2 ** 31 else None


def _integer_contraction(op: Operation, m: _Match, b: Builder) -> Value:
    """The i32 result of generic ``op``'s contraction on the views' integer tensors, starting
    from the bias (or zero), with the nonzero zero points as scalar i32 inputs."""
    maps, views = L.indexing_maps(op), m.views
    acc_t = _tensor(op.results[0].type, elem=I32)
    qa, qb = (v.build(b) for v in views)
    if m.bias is not None:
        acc_init = m.bias[0](b)
    else:
        zero = b.create("arith.constant", [], [I32], {"value": IntegerAttr(0, I32)}).result
        empty = b.create("tensor.empty", [], [acc_t]).result
        acc_init = b.create("linalg.fill", [zero, empty], [acc_t],
                            {"operandSegmentSizes": segment_sizes(1, 1)},
                            regions=[L.build_named_region("fill", [I32], [I32], {})]).result
    zps = [b.create("arith.constant", [], [I32], {"value": IntegerAttr(v.zp, I32)}).result
           for v in views if v.zp]
    scalar_map = AffineMap(maps[0].num_dims, 0, ())

    def body(sb, args):
        zs = iter(args[2:2 + len(zps)])
        factors = []
        for x, v in zip(args[:2], views):
            x = sb.cast(x, I32, unsigned=v.unsigned)
            if v.zp:
                x = sb.op("arith.subi", [x, next(zs)], I32)
            factors.append(x)
        return [sb.op("arith.addi", [args[-1], sb.op("arith.muli", factors, I32)], I32)]

    return L.build_generic([qa, qb] + zps, [acc_init], maps[:2] + [scalar_map] * len(zps) + [maps[2]],
                           L.iterator_types(op), body, loc=op.loc, builder=b).results[0]


def _scaling(acc: Value, m: _Match, addend: Optional[Value], out_t: T.TensorType, b: Builder,
             loc) -> Operation:
    """``f32(acc) * scale [+ addend]``, elementwise over the output."""
    rank = out_t.rank
    ident = AffineMap.identity(rank)
    ins, maps = [acc], [ident]
    if m.scale.size > 1:
        st = T.TensorType(tuple(m.scale.shape), T.f32)
        ins.append(b.create("arith.constant", [], [st], {"value": DenseElementsAttr(m.scale, st)}).result)
        maps.append(AffineMap(rank, 0, tuple(AffineDim(p) for p in m.axes)))
    if addend is not None:
        ins.append(addend)
        maps.append(ident)
    empty = b.create("tensor.empty", [], [out_t]).result
    s0 = float(m.scale.reshape(-1)[0])

    def body(sb, args):
        y = sb.op("arith.sitofp", [args[0]], T.f32)
        s = args[1] if m.scale.size > 1 else sb.constant(FloatAttr(s0, T.f32))
        y = sb.op("arith.mulf", [y, s], T.f32)
        if addend is not None:
            y = sb.op("arith.addf", [args[len(ins) - 1], y], T.f32)
        return [y]

    return L.build_generic(ins, [empty], maps + [ident], [L.PARALLEL] * rank, body, loc=loc, builder=b)


def _fuse(consts: _Consts, op: Operation) -> bool:
    """Rewrite contraction ``op`` as the module docstring describes; whether it did."""
    m = _match(consts, op)
    if m is None:
        return False
    init = L.outputs(op)[0]
    op = generalize(op)
    b = Builder.before(op)
    acc = _integer_contraction(op, m, b)
    addend = None if m.bias is not None or _zero_fill(consts, init) else init
    res = _scaling(acc, m, addend, op.results[0].type, b, op.loc)
    op.replace_with(res.results)
    dead = [o for v in m.views for o in v.ops] + (m.bias[1] if m.bias is not None else [])
    _erase_unused(dead + [init.owner])
    return True


def _erase_unused(ops: List[Operation]) -> None:
    """Erase those of ``ops`` (and the producers of their operands and captured values,
    transitively) whose results nobody uses any more."""
    work = [o for o in ops if isinstance(o, Operation)]
    while work:
        o = work.pop()
        if o.parent is None or any(r.uses for r in o.results):
            continue
        # Operands, and the values its payload captures (a dequantization's scale).
        producers = [v.owner for inner in o.walk() for v in inner.operands
                     if isinstance(v.owner, Operation) and v.owner.parent is o.parent]
        o.erase()
        work.extend(p for p in producers if p.name in _ERASABLE or L.is_linalg_structured(p))


_ERASABLE = ("arith.constant", "tensor.empty", "tensor.pad", "tensor.collapse_shape", "tensor.expand_shape")


@register_pass
class FuseQDQContractionsPass(Pass):
    """ONNX Runtime's QDQ fusion for linalg: f32 contractions of dequantized 8-bit tensors
    become 8-bit integer contractions and an f32 scaling (module docstring)."""

    name = "fuse-qdq-contractions"

    def run(self, module: Operation, ctx: PassContext) -> None:
        if getattr(ctx.target, "strict_fp", False):
            return
        consts = _Consts(getattr(module, "resources", {}) or {})
        for f in functions(module):
            for blk in blocks_of(f):
                for op in list(blk.ops):
                    if op.parent is blk:
                        _fuse(consts, op)

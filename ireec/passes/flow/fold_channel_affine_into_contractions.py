"""Per-channel scales and shifts after a convolution or matmul are folded into its constant
filter and a bias start.

Mirrors TVM's ``FoldScaleAxis`` (relay/transforms/fold_scale_axis.cc: a channel-wise
multiply after a ``conv2d``/``dense`` folded into the weight) together with ONNX Runtime's
``ConvBNFusion``, ``ConvMulFusion`` and ``ConvAddFusion`` graph transformers
(onnxruntime/core/optimizer): an inference-mode BatchNorm exported as elementwise ops,
``(conv(x, W) - mean[c]) * inv_std[c] * gamma[c] + beta[c]`` (torch-mlir's form: one
``linalg.generic`` per op, each reading a per-channel constant), becomes
``conv(x, W * s[f]) + b[f]`` with ``s = inv_std * gamma`` and
``b = beta - mean * inv_std * gamma``, both computed from constants (constant evaluation
folds the scaled filter and the shift vector next). The one addition left fuses with the
activation after it into the contraction's epilogue (a bias and clamp the micro-kernels
apply as they store), in place of four operations and four operands.

What is folded: the chain of ops that the contraction's result runs through, each the only
user of the previous one's result, each a ``linalg.generic`` with parallel loops whose
output and contraction-result maps are the identity and whose payload is one
``arith.mulf`` / ``divf`` (by the constant) / ``addf`` / ``subf`` (either way round)
of the contraction result and a constant-derived operand. That operand is a tensor varying
along one output dim at most (a ``tensor<Cx1x1xf32>`` read as ``(d1, 0, 0)``, a rank-0 tensor)
or a scalar constant captured from outside the payload. The dim it varies along must be a
parallel loop dim of the contraction that indexes its filter (the constant-derived input:
``f`` of an FCHW filter, ``c`` of a depthwise filter, ``n`` of a matmul's constant ``B``);
then every output element along it is a sum of products with that filter slice, and
scaling the slice scales the sum. The contraction's init must be a zero fill or a broadcast
of a vector along that dim (a convolution's own bias, which joins the shift; the
contraction then starts from zero). Divisions divide the filter and the shift by the
constant. Every reader of the chain's result must be an elementwise generic (the
activation, a residual addition): read by another contraction instead (MobileNetV2's linear
bottleneck), the one addition left is cheap enough for elementwise fusion to recompute in
that contraction's loops, which then no longer match a micro-kernel, so such chains stay.

A chain of uniform operands only (a scalar scale: the quantization step of a QDQ export
before its rounding) is left alone: folded, it saves one multiply per output and moved
cnn_int8's TOSA form from 7.7 to 18.7 us in its first convolution (c, one thread).

Numerics: the products and their sum round differently from the unfolded ops (as in ONNX
Runtime and TVM); differences are at the last bits of f32. Not run under ``--strict-fp``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

from ...dialects import linalg as L
from ...ir import types as T
from ...ir.affine import AffineConst, AffineDim, AffineMap
from ...ir.attributes import FloatAttr
from ...ir.core import Builder, Operation, Value
from ..common.distribution import is_contraction_like
from ..pass_base import Pass, PassContext, functions, register_pass
from .convert_conv_filter_to_channels_last import is_constant
from .elementwise_op_fusion import blocks_of

#: Payload ops folded, with whether the contraction result may be their second operand.
_FOLDABLE = {"arith.mulf": True, "arith.divf": False, "arith.addf": True, "arith.subf": True}


@dataclass
class _Chain:
    """A contraction and the per-channel ops after it: ``filter_pos`` is the filter's input
    position, ``channel`` the contraction loop dim the chain varies along (None while only
    uniform ops were seen), ``steps`` the (payload op name, its constant operand, whether the
    chain's value is the payload's second operand) of each folded generic, in order, and
    ``generics`` those generics."""

    op: Operation
    filter_pos: int
    channels: Dict[int, int]  # contraction loop dim -> extent, for dims that may be the channel
    channel: Optional[int] = None
    steps: List[Tuple[str, "_Operand", bool]] = field(default_factory=list)
    generics: List[Operation] = field(default_factory=list)


@dataclass
class _Operand:
    """A generic's constant operand: a tensor ``value`` read through a map whose ``results``
    are each a loop dim or a constant 0, the channel dim at position ``channel_result``
    (None: the tensor is uniform), or a captured scalar ``value``."""

    value: Value
    results: Tuple = ()
    channel_result: Optional[int] = None  # position in ``results`` of the channel dim
    scalar: bool = False


def _filter_position(op: Operation) -> Optional[int]:
    """The input position of the constant-derived operand of f32 contraction ``op``."""
    if not (op.name == "linalg.generic" or L.is_named_structured(op)) or not is_contraction_like(op):
        return None
    ins, outs = L.inputs(op), L.outputs(op)
    if len(ins) != 2 or len(outs) != 1 or len(op.results) != 1:
        return None
    if not all(isinstance(v.type, T.TensorType) and v.type.has_static_shape
               and v.type.element_type == T.f32 for v in ins + outs):
        return None
    consts = [i for i, v in enumerate(ins) if is_constant(v)]
    return consts[0] if len(consts) == 1 else None


def _channel_dims(op: Operation, filter_pos: int) -> Dict[int, int]:
    """Parallel loop dims of ``op`` that index its filter and its output directly, with
    their extents."""
    maps, its = L.indexing_maps(op), L.iterator_types(op)
    out_map, flt_map = maps[-1], maps[filter_pos]
    out_t = L.outputs(op)[0].type
    found = {}
    for i, e in enumerate(out_map.results):
        if (isinstance(e, AffineDim) and its[e.pos] == L.PARALLEL
                and any(isinstance(f, AffineDim) and f.pos == e.pos for f in flt_map.results)):
            found[e.pos] = out_t.shape[i]
    return found


def _constant_operand(v: Value, m: AffineMap) -> Optional[Tuple[_Operand, Optional[int]]]:
    """``v``, read by a generic through ``m``, as an :class:`_Operand` and the loop dim
    of ``g`` it varies along (None: uniform), when it is constant-derived and varies along
    one dim at most."""
    if not isinstance(v.type, T.TensorType) or not is_constant(v):
        return None
    varying, pos = None, None
    for i, e in enumerate(m.results):
        if isinstance(e, AffineDim) and v.type.shape[i] != 1:
            if varying is not None:
                return None
            varying, pos = e.pos, i
        elif not (isinstance(e, AffineConst) and e.value == 0 or isinstance(e, AffineDim)):
            return None
    return _Operand(v, tuple(m.results), pos), varying


def _step(chain: _Chain, result: Value) -> Optional[Tuple[Operation, str, _Operand, bool]]:
    """The folded generic using ``result`` (the chain's value so far), when it qualifies
    (module docstring): (generic, payload op name, its constant operand, result second)."""
    uses = list(result.uses)
    if len(uses) != 1:
        return None
    g, idx = uses[0]
    if g.name != "linalg.generic" or len(g.results) != 1 or any(it != L.PARALLEL for it in L.iterator_types(g)):
        return None
    ins = L.inputs(g)
    if idx >= len(ins) or len(ins) > 2:
        return None
    maps = L.indexing_maps(g)
    rank = result.type.rank
    ident = AffineMap.identity(rank)
    if maps[idx] != ident or maps[-1] != ident or g.results[0].type != result.type:
        return None
    body = L.payload(g)
    if len(body.ops) != 2 or body.ops[1].name != "linalg.yield":
        return None
    p = body.ops[0]
    if p.name not in _FOLDABLE or len(p.operands) != 2 or body.ops[1].operands[0] is not p.results[0]:
        return None
    if body.args[-1].uses:
        return None
    x = body.args[idx]
    if p.operands[0] is x:
        other, second = p.operands[1], False
    elif p.operands[1] is x and _FOLDABLE[p.name]:
        other, second = p.operands[0], True
    else:
        return None
    if other is x:
        return None
    if len(ins) == 2 and other is body.args[1 - idx]:
        found = _constant_operand(ins[1 - idx], maps[1 - idx])
        if found is None:
            return None
        operand, varying = found
    elif len(ins) == 1 and isinstance(other.owner, Operation) and other.owner.name == "arith.constant" \
            and other.owner.parent is not body and other.type == T.f32:
        operand, varying = _Operand(other, scalar=True), None
    else:
        return None
    if varying is not None:
        # The output dim it varies along, as a loop dim of the contraction.
        e = L.indexing_maps(chain.op)[-1].results[varying]
        if e.pos not in chain.channels or (chain.channel is not None and chain.channel != e.pos):
            return None
        chain.channel = e.pos
    return g, p.name, operand, second


def _bias_vector(chain: _Chain) -> Tuple[bool, Optional[_Operand]]:
    """Whether the contraction's init may start the fold, and the bias vector it holds (None
    for a zero fill)."""
    init = L.outputs(chain.op)[0]
    op = init.owner
    if not isinstance(op, Operation):
        return False, None
    if op.name == "linalg.fill":
        c = op.operands[0].owner
        ok = (isinstance(c, Operation) and c.name == "arith.constant"
              and isinstance(c.attr("value"), FloatAttr) and c.attr("value").value == 0.0)
        return ok, None
    if not (L.is_pure_broadcast(op) and len(L.inputs(op)) == 1 and len(op.results[0].uses) == 1):
        return False, None
    if op.name == "linalg.generic":
        body = L.payload(op)
        if body.ops[0].operands[0] is not body.args[0]:
            return False, None
        m = L.indexing_maps(op)[0]
    else:
        dims = set(op.attr("dimensions").value)
        m = AffineMap(init.type.rank, 0, tuple(AffineDim(d) for d in range(init.type.rank) if d not in dims))
    found = _constant_operand(L.inputs(op)[0], m)
    if found is None:
        return False, None
    operand, varying = found
    if varying is not None:
        e = L.indexing_maps(chain.op)[-1].results[varying]
        if e.pos not in chain.channels:
            return False, None
        chain.channel = e.pos
    return True, operand


def _vector(b: Builder, operand: _Operand, extent: int, loc) -> Value:
    """``operand`` as a ``tensor<extent x f32>`` along the channel."""
    t = T.TensorType((extent,), T.f32)
    if operand.scalar:
        return L.build_fill(operand.value, t, b)
    if operand.value.type == t and operand.channel_result == 0:
        return operand.value  # already the vector (a bias): no copy for constant evaluation to add
    res = tuple(AffineDim(0) if i == operand.channel_result else AffineConst(0)
                for i in range(len(operand.results)))
    empty = b.create("tensor.empty", [], [t]).result
    return L.build_generic([operand.value], [empty], [AffineMap(1, 0, res), AffineMap.identity(1)],
                           [L.PARALLEL], lambda sb, a: [a[0]], loc=loc, builder=b).results[0]


def _apply(b: Builder, name: str, target: Value, other: Optional[Value], other_map: AffineMap, loc) -> Value:
    """Elementwise ``name(target, other)`` over ``target``'s shape, ``other`` read through
    ``other_map`` (``name(target)`` when ``other`` is None): the channel vectors' arithmetic,
    the filter's scaling and the shift's addition."""
    rank = target.type.rank
    ident = AffineMap.identity(rank)
    ins, maps = ([target], [ident]) if other is None else ([target, other], [ident, other_map])
    empty = b.create("tensor.empty", [], [target.type]).result
    return L.build_generic(ins, [empty], maps + [ident], [L.PARALLEL] * rank,
                           lambda sb, x: [sb.op(name, x[:len(ins)], T.f32)], loc=loc, builder=b).results[0]


def _combine(b: Builder, name: str, a: Value, c: Value, loc) -> Value:
    """Elementwise ``name(a, c)`` of two channel vectors."""
    return _apply(b, name, a, c, AffineMap.identity(1), loc)


def _negate(b: Builder, a: Value, loc) -> Value:
    return _apply(b, "arith.negf", a, None, AffineMap.identity(1), loc)


def _one(b: Builder, extent: int, loc) -> Value:
    one = b.create("arith.constant", [], [T.f32], {"value": FloatAttr(1.0, T.f32)}).result
    return L.build_fill(one, T.TensorType((extent,), T.f32), b)


def _position(m: AffineMap, dim: int) -> int:
    """The result position of ``m`` that is loop dim ``dim``."""
    return next(i for i, e in enumerate(m.results) if isinstance(e, AffineDim) and e.pos == dim)


def _fold(chain: _Chain, bias: Optional[_Operand]) -> None:
    """Rewrite ``chain`` (at least one step): the scale and shift vectors, the scaled filter,
    a copy of the contraction reading it (from zero) and the addition of the shift, in place
    of the last generic."""
    op, last = chain.op, chain.generics[-1]
    loc = op.loc
    b = Builder.before(last)
    maps = L.indexing_maps(op)
    channel = chain.channel if chain.channel is not None else min(chain.channels)
    extent = chain.channels[channel]
    # The chain so far is x * scale + shift (scale None: 1, shift None: 0).
    scale: Optional[Value] = None
    shift: Optional[Value] = None if bias is None else _vector(b, bias, extent, loc)
    for name, operand, second in chain.steps:
        k = _vector(b, operand, extent, loc)
        if name in ("arith.mulf", "arith.divf"):
            if scale is None and name == "arith.mulf":
                scale = k
            else:
                scale = _combine(b, name, scale if scale is not None else _one(b, extent, loc), k, loc)
            if shift is not None:
                shift = _combine(b, name, shift, k, loc)
        elif name == "arith.addf" or not second:  # x + k, x - k
            if shift is not None:
                shift = _combine(b, name, shift, k, loc)
            else:
                shift = k if name == "arith.addf" else _negate(b, k, loc)
        else:  # k - (x * scale + shift) = x * -scale + (k - shift)
            scale = _negate(b, scale if scale is not None else _one(b, extent, loc), loc)
            shift = k if shift is None else _combine(b, name, k, shift, loc)
    mapping = {}
    if scale is not None:
        flt = L.inputs(op)[chain.filter_pos]
        j = _position(maps[chain.filter_pos], channel)
        mapping[flt] = _apply(b, "arith.mulf", flt, scale, AffineMap(flt.type.rank, 0, (AffineDim(j),)), loc)
    init = L.outputs(op)[0]
    if bias is not None:
        # The bias is in the shift now: the contraction starts from zero.
        zero = b.create("arith.constant", [], [T.f32], {"value": FloatAttr(0.0, T.f32)}).result
        mapping[init] = L.build_fill(zero, init.type, b)
    new = op.clone(mapping)
    last.parent.insert_before(last, new)
    result = new.results[0]
    if shift is not None:
        # One addition of the shift along the channel: with the activation after it,
        # elementwise fusion makes the contraction's bias (+ clamp) epilogue.
        i = _position(maps[-1], channel)
        result = _apply(Builder.before(last), "arith.addf", result, shift,  # after the copy
                        AffineMap(init.type.rank, 0, (AffineDim(i),)), loc)
    last.results[0].replace_all_uses_with(result)
    for g in reversed(chain.generics):
        g.erase()
    for o in [op, init.owner]:
        if isinstance(o, Operation) and o.parent is not None and not any(r.uses for r in o.results):
            o.erase()


def _ends_in_elementwise(value: Value) -> bool:
    """Whether every user of the chain's result is an elementwise generic (the activation, a
    residual addition): the shift left after the fold then fuses with it into the
    contraction's epilogue. Read by another contraction instead (MobileNetV2's linear
    bottleneck), the one addition would be cheap enough for elementwise fusion to recompute
    inside that contraction's loops, which then no longer match a micro-kernel (the
    1280 x 160 projection took 133 us instead of 38)."""
    users = [u for u, _ in value.uses]
    return bool(users) and all(u.name == "linalg.generic" and all(
        it == L.PARALLEL for it in L.iterator_types(u)) for u in users)


def fold(op: Operation) -> bool:
    """Fold the per-channel ops after contraction ``op`` (module docstring); whether any was."""
    pos = _filter_position(op)
    if pos is None:
        return False
    chain = _Chain(op, pos, _channel_dims(op, pos))
    if not chain.channels:
        return False
    ok, bias = _bias_vector(chain)
    if not ok:
        return False
    value = op.results[0]
    while True:
        step = _step(chain, value)
        if step is None:
            break
        g, name, operand, second = step
        chain.steps.append((name, operand, second))
        chain.generics.append(g)
        value = g.results[0]
    if not any(operand.channel_result is not None for _, operand, _ in chain.steps) \
            or not _ends_in_elementwise(value):
        return False
    _fold(chain, bias)
    return True


@register_pass
class FoldChannelAffineIntoContractionsPass(Pass):
    """TVM's FoldScaleAxis / ONNX Runtime's Conv+BatchNorm fusion: per-channel scales and
    shifts after a contraction with a constant filter go into the filter and one addition
    of a shift vector (module docstring)."""

    name = "fold-channel-affine-into-contractions"

    def run(self, module: Operation, ctx: PassContext) -> None:
        if getattr(ctx.target, "strict_fp", False):
            return
        for f in functions(module):
            for blk in blocks_of(f):
                for op in list(blk.ops):
                    if op.parent is blk:
                        fold(op)

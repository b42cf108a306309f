"""An elementwise consumer of a contraction applied inside the micro-kernel: recognition.

IREE fuses the elementwise consumer of a contraction into the contraction's tile loop
(``iree-codegen-tile-and-fuse`` of the consumer, then vectorization), so a bias and an
activation are applied to each tile while it is in registers; ONNX Runtime's MLAS and
oneDNN do the same through "post-ops" of their GEMM kernels. ireec's contractions call the
precompiled ``ireec_uk_sgemm`` (:mod:`.ukernels`), which cannot take an arbitrary body, so the
consumers it can apply are a fixed family, MLAS's (bias, then a ReLU / ReLU6 / hardtanh
clamp) — ``ireec_uk_sgemm_fused`` of ``runtime_c/ireec_ukernel.h``::

    x = C[i, j]                  (the finished sum)
    x = x + bias[i or j]         optional: ``arith.addf`` with the generic's other input
    x = x > lo ? x : lo          optional: ``cmpf ogt x, lo`` (or ``olt lo, x``) + ``select x, lo``;
                                 ``arith.maximumf(x, lo)`` keeps a NaN (lo not -0.0)
    x = hi < x ? hi : x          optional: ``cmpf olt hi, x`` (or ``ogt x, hi``) + ``select hi, x``,
                                 or ``arith.minimumf(x, hi)``; ``cmpf olt x, hi`` (or ``ogt hi, x``)
                                 + ``select x, hi`` replaces a NaN by hi

in that order, each at most once, f32, constant bounds. Every step is the scalar operation
of the consumer's body, rounded as it is, so the fused results are bit-identical to the
stored sum going through the consumer afterwards (``arith.maximumf`` and the `?:` form agree
on every input but lo = -0.0 with x = +0.0, which is not fused).

Taking the consumer (:func:`consumer_epilogue`, :func:`fusable_epilogue`): it must be the op
right after the micro-kernel op (constants skipped), rewrite its output in place over the
same workgroup tile, and its bias be readable by the micro-kernel
(:func:`ukernel_bias_strides`). A bias broadcast into the whole output right before the
micro-kernel op (:func:`bias_init`) can be the call's start instead
(:mod:`.fold_ukernel_accumulator_inits` marks it, :func:`take_bias_init` takes it).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Tuple

from ...dialects import linalg as L
from ...dialects.arith import CMPF_PREDICATES
from ...ir import types as T
from ...ir.affine import AffineConst, AffineDim, AffineMap
from ...ir.attributes import DenseArrayAttr, FloatAttr, UnitAttr
from ...ir.core import Operation, Value
from .memref_utils import generic_loop_ranges, generic_maps, loop_order, op_before, pointer_strides
from .ukernels import loop_stride, match_dwconv, match_sgemm


@dataclass
class EpilogueMatch:
    """The consumer's steps (module docstring): ``bias`` — its input index in the generic
    (None: no bias); ``lo`` / ``hi`` — the clamp bounds (None: no such step);
    ``lo_keeps_nan`` (``arith.maximumf``), ``hi_replaces_nan`` (``x < hi ? x : hi``)."""

    bias: Optional[int] = None
    lo: Optional[float] = None
    lo_keeps_nan: bool = False
    hi: Optional[float] = None
    hi_replaces_nan: bool = False


def _f32_constant(v: Value) -> Optional[float]:
    """The value of an f32 ``arith.constant`` scalar ``v`` (not NaN), else None."""
    o = v.owner
    if not isinstance(o, Operation) or o.name != "arith.constant":
        return None
    a = o.attributes.get("value")
    t = getattr(a, "type", None)
    if not isinstance(t, T.FloatType) or t.name != "f32" or not isinstance(a.value, float):
        return None
    return None if math.isnan(a.value) else a.value


def _same(v: Value, k: float) -> bool:
    """``v`` is an f32 constant with the bits of ``k`` (constants are often one op per use)."""
    w = _f32_constant(v)
    return w is not None and w == k and math.copysign(1.0, w) == math.copysign(1.0, k)


def _other(op: Operation, x: Value) -> Optional[Value]:
    """The operand of binary ``op`` that is not ``x`` (None unless exactly one is ``x``)."""
    a, b = op.operands
    if (a is x) == (b is x):
        return None
    return b if a is x else a


class _Chain:
    """Walks the body's ops from the output's block argument ``x`` (module docstring)."""

    def __init__(self, ops: List[Operation], x: Value, bias_arg: Optional[Value]):
        self.ops, self.x, self.bias_arg = ops, x, bias_arg
        self.m = EpilogueMatch()
        self.stage = 0  # 1: bias seen, 2: lo seen, 3: hi seen

    def advance(self, stage: int, new_x: Value, used: Tuple[Operation, ...]) -> bool:
        """Move to ``stage`` with ``x`` now ``new_x``; the old ``x`` and the ops' other
        results must have no use outside ``used``."""
        if stage <= self.stage:
            return False
        if any(u not in used for u, _ in self.x.uses):
            return False
        self.stage, self.x = stage, new_x
        return True


def _addf(c: _Chain, i: int) -> int:
    op = c.ops[i]
    b = _other(op, c.x)
    if b is None or b is not c.bias_arg or not c.advance(1, op.results[0], (op,)):
        return 0
    c.m.bias = -1  # filled in by the caller (the generic's input index)
    return 1


def _maximumf(c: _Chain, i: int) -> int:
    op = c.ops[i]
    o = _other(op, c.x)
    k = None if o is None else _f32_constant(o)
    if k is None or (k == 0.0 and math.copysign(1.0, k) < 0) or not c.advance(2, op.results[0], (op,)):
        return 0
    c.m.lo, c.m.lo_keeps_nan = k, True
    return 1


def _minimumf(c: _Chain, i: int) -> int:
    op = c.ops[i]
    o = _other(op, c.x)
    k = None if o is None else _f32_constant(o)
    if k is None or not c.advance(3, op.results[0], (op,)):
        return 0
    c.m.hi = k
    return 1


def _cmpf_select(c: _Chain, i: int) -> int:
    """``cmpf`` then ``select`` on its result: a lo or hi clamp (module docstring)."""
    if i + 1 >= len(c.ops):
        return 0
    cmp, sel = c.ops[i], c.ops[i + 1]
    if sel.name != "arith.select" or sel.operands[0] is not cmp.results[0]:
        return 0
    if [u for u, _ in cmp.results[0].uses] != [sel]:
        return 0
    pred = CMPF_PREDICATES[cmp.attributes["predicate"].value]
    lhs, rhs = cmp.operands
    # "x > k" or "x < k", whichever side x is on.
    if lhs is c.x and rhs is not c.x:
        k_v, greater = rhs, {"ogt": True, "olt": False}.get(pred)
    elif rhs is c.x and lhs is not c.x:
        k_v, greater = lhs, {"ogt": False, "olt": True}.get(pred)
    else:
        return 0
    k = _f32_constant(k_v)
    t, f = sel.operands[1], sel.operands[2]
    if greater is None or k is None:
        return 0
    if t is c.x and _same(f, k):
        if greater:  # x > k ? x : k
            stage, set_ = 2, lambda m: setattr(m, "lo", k)
        else:  # x < k ? x : k
            stage, set_ = 3, lambda m: (setattr(m, "hi", k), setattr(m, "hi_replaces_nan", True))
    elif f is c.x and _same(t, k) and greater:  # x > k ? k : x
        stage, set_ = 3, lambda m: setattr(m, "hi", k)
    else:
        return 0  # x < k ? k : x keeps a NaN but differs from maximumf on signed zeros
    if not c.advance(stage, sel.results[0], (cmp, sel)):
        return 0
    set_(c.m)
    return 2


#: Body op name → step recognizer: ops consumed (0: not an epilogue step).
_STEPS: Dict[str, Callable[[_Chain, int], int]] = {
    "arith.addf": _addf,
    "arith.maximumf": _maximumf,
    "arith.minimumf": _minimumf,
    "arith.cmpf": _cmpf_select,
}


def match_epilogue(g: Operation, c: Value) -> Optional[EpilogueMatch]:
    """The epilogue form of memref ``linalg.generic`` ``g`` when it rewrites ``c`` in place
    (``c`` its only output and one input, through the same map, which is a permutation of
    all its loops, every loop parallel) with at most one other input, f32 throughout, and
    its body is the module docstring's chain; else None. Constants in the body are
    ``arith.constant`` ops (inside it or captured)."""
    if g.name != "linalg.generic" or L.outputs(g) != [c] or not L.is_linalg_structured(g):
        return None
    ins = L.inputs(g)
    maps = L.indexing_maps(g)
    out_map = maps[len(ins)]
    if any(t != L.PARALLEL for t in L.iterator_types(g)):
        return None
    dims = [getattr(e, "pos", None) for e in out_map.results]
    if sorted(d for d in dims if d is not None) != list(range(out_map.num_dims)) or None in dims:
        return None
    c_idx = [k for k, v in enumerate(ins) if v is c]
    others = [k for k, v in enumerate(ins) if v is not c]
    if len(c_idx) != 1 or maps[c_idx[0]] != out_map or len(others) > 1:
        return None
    if not all(isinstance(v.type, T.ShapedType) and v.type.element_type == T.f32 for v in ins):
        return None
    body = L.payload(g)
    ops = list(body.ops)
    if not ops or ops[-1].name != "linalg.yield" or body.args[len(ins)].uses:
        return None
    chain = _Chain(ops[:-1], body.args[c_idx[0]], body.args[others[0]] if others else None)
    i = 0
    while i < len(chain.ops):
        op = chain.ops[i]
        if op.name == "arith.constant":
            i += 1
            continue
        step = _STEPS.get(op.name)
        n = step(chain, i) if step is not None else 0
        if n == 0:
            return None
        i += n
    if chain.stage == 0 or list(ops[-1].operands) != [chain.x]:
        return None
    if others and chain.m.bias is None:
        return None  # an input the chain does not read as a bias
    if chain.m.bias is not None:
        chain.m.bias = others[0]
    return chain.m


def consumer_epilogue(op: Operation, c: Value, c_map: AffineMap):
    """The elementwise consumer of micro-kernel op ``op`` (output ``c`` through ``c_map``)
    that the micro-kernel can apply to its finished results (:func:`match_epilogue`): the
    next op of the block (constants skipped), rewriting ``c`` in place over the same
    workgroup tile (same distributed dims). Returns ``(consumer, match, bias)``, ``bias``
    None or ``(memref, its indexing map over op's loops)``; else None."""
    blk = op.parent
    i = blk.ops.index(op) + 1
    while i < len(blk.ops) and blk.ops[i].name == "arith.constant":
        i += 1
    if i >= len(blk.ops):
        return None
    g = blk.ops[i]
    em = match_epilogue(g, c)
    if em is None:
        return None
    g_maps = generic_maps(g)
    out_pos = [e.pos for e in g_maps[-1].results]  # g's loop -> dim position of c
    if distributed_positions(g, g_maps[-1]) != distributed_positions(op, c_map):
        return None  # the consumer and the call cover different parts of c
    if em.bias is None:
        return g, em, None
    bias = L.inputs(g)[em.bias]
    # The bias's indices in op's loops: through c's dim positions.
    results = []
    for e in g_maps[em.bias].results:
        if isinstance(e, AffineDim):
            results.append(c_map.results[out_pos.index(e.pos)])
        elif isinstance(e, AffineConst):
            results.append(e)
        else:
            return None
    if bias is c or pointer_strides((bias,)) is None:
        return None
    return g, em, (bias, AffineMap(c_map.num_dims, 0, tuple(results)))


def distributed_positions(op: Operation, out_map: AffineMap) -> List[int]:
    """Per distributed dim of ``op`` (``ireec.distribute``), the position in its output
    (indexed through ``out_map``) of the loop carrying it, -1 where none does: two ops with
    equal lists write the same workgroup tile of that output."""
    d = op.attributes.get("ireec.distribute")
    return [out_map.results.index(AffineDim(x)) if x >= 0 and AffineDim(x) in out_map.results else -1
            for x in (list(d.value) if d is not None else [])]


def epilogue_attrs(em, bias_strides) -> Dict[str, object]:
    """The micro-kernel op's attributes of epilogue ``em`` (ireec/dialects/iree_codegen.py)."""
    attrs = {}
    if bias_strides is not None:
        attrs["bias_strides"] = DenseArrayAttr(T.i64, bias_strides)
    if em.lo is not None:
        attrs["clamp_lo"] = FloatAttr(em.lo, T.f32)
        if em.lo_keeps_nan:
            attrs["lo_keeps_nan"] = UnitAttr()
    if em.hi is not None:
        attrs["clamp_hi"] = FloatAttr(em.hi, T.f32)
        if em.hi_replaces_nan:
            attrs["hi_replaces_nan"] = UnitAttr()
    return attrs


def fusable_epilogue(op: Operation, plan):
    """:func:`consumer_epilogue` of micro-kernel contraction ``op`` (its
    :func:`.ukernels.sgemm_plan` ``plan``) when the call covers the whole
    static reduction (no filter taps looped around it, at least one k step), with the bias's
    strides along i and j (a j stride of 0 or 1, as ``ireec_uk_sgemm_fused`` reads it)."""
    match, (_a, _b, c), (_am, _bm, c_map), _st = plan
    if match.taps:
        return None
    k_range = generic_loop_ranges(op)[match.k]
    if not isinstance(k_range, int) or k_range < 1:
        return None
    found = consumer_epilogue(op, c, c_map)
    if found is None or found[2] is None:
        return found
    g, em, (bias, b_map) = found
    strides = ukernel_bias_strides(op, bias, b_map)
    return None if strides is None else (g, em, (bias, b_map, strides))


def ukernel_bias_strides(op: Operation, bias: Value, b_map: AffineMap) -> Optional[Tuple[int, ...]]:
    """The ``bias_strides`` of a bias memref indexed through ``b_map`` (over micro-kernel op
    ``op``'s loops) as the micro-kernel reads it: along i and j for ``ireec_uk_sgemm``
    (j: 0 or 1), ``(1,)`` for ``ireec_uk_dwconv`` (a contiguous per-channel vector, constant
    along the output pixels); None when it cannot."""
    st = pointer_strides((bias,))
    if st is None:
        return None
    maps = generic_maps(op)
    if "ireec.ukernel_blocking" in op.attributes:
        match = match_sgemm(op, loop_order(op, maps[0].num_dims))
        if match is None:
            return None
        bi, bj = loop_stride(b_map, st[0], match.i), loop_stride(b_map, st[0], match.j)
        return None if bi is None or bj not in (0, 1) else (bi, bj)
    match = match_dwconv(op, loop_order(op, maps[0].num_dims))
    if match is None or loop_stride(b_map, st[0], match.c) != 1 or any(
            loop_stride(b_map, st[0], d) != 0 for d in (match.y, match.x) if d is not None):
        return None
    return (1,)


def bias_init(op: Operation, out: Value, out_map: AffineMap):
    """``(broadcast, bias, its indexing map over op's loops)`` when the op right before
    micro-kernel op ``op`` broadcasts an f32 memref into all of ``out`` (its output, through
    ``out_map``) over the same workgroup tile, the micro-kernel can read that bias
    (:func:`ukernel_bias_strides`) and no epilogue bias follows; else None."""
    g = op_before(op)
    if g is None or g.name != "linalg.generic" or L.outputs(g) != [out] or len(L.inputs(g)) != 1:
        return None
    bias = L.inputs(g)[0]
    body = L.payload(g)
    ops = list(body.ops)
    if (any(t != L.PARALLEL for t in L.iterator_types(g)) or len(ops) != 1
            or list(ops[0].operands) != [body.args[0]] or bias is out
            or not isinstance(bias.type, T.MemRefType) or bias.type.element_type != T.f32):
        return None
    maps = generic_maps(g)
    if [getattr(e, "pos", None) for e in maps[1].results] != list(range(maps[1].num_dims)):
        return None  # the broadcast's loops are the output's dims, in order
    if distributed_positions(g, maps[1]) != distributed_positions(op, out_map):
        return None
    results = []
    for e in maps[0].results:
        if isinstance(e, AffineDim):
            results.append(out_map.results[e.pos])
        elif isinstance(e, AffineConst):
            results.append(e)
        else:
            return None
    b_map = AffineMap(out_map.num_dims, 0, tuple(results))
    if ukernel_bias_strides(op, bias, b_map) is None:
        return None
    after = consumer_epilogue(op, out, out_map)
    if after is not None and after[2] is not None:
        return None  # one bias per call: the consumer's
    return g, bias, b_map


def add_bias_init(init, operands: List, attrs: Dict[str, object]) -> None:
    """Append the bias of a taken bias init (:func:`take_bias_init`) to a micro-kernel
    call's ``operands`` and its ``bias_strides`` / ``bias_init`` to ``attrs``."""
    operands.append(init[1])
    attrs.update({"bias_strides": DenseArrayAttr(T.i64, init[2]), "bias_init": UnitAttr()})


def take_bias_init(op: Operation, out: Value, out_map: AffineMap):
    """For ``op`` marked by :mod:`.fold_ukernel_accumulator_inits`: ``(broadcast, (bias, its
    map), bias_strides)`` for its call; else None."""
    if "ireec.ukernel_bias_init" not in op.attributes:
        return None
    found = bias_init(op, out, out_map)
    if found is None:
        return None
    g, bias, b_map = found
    return g, (bias, b_map), ukernel_bias_strides(op, bias, b_map)

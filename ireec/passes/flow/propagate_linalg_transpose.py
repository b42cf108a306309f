"""Transposes move through elementwise ops and pads until they meet their inverse.

Mirrors IREE's ``iree-global-opt-propagate-linalg-transpose``
(GlobalOptimization/PropagateLinalgTranspose.cpp): after
:mod:`.convert_conv_to_channels_last` every convolution it converted sits between a transpose
of its image into NHWC and one of its result back to NCHW. The patterns below sink the result's
transpose down through what follows the convolution (its activation, the residual add, the
padding of the next convolution) until it reaches the next convolution's image transpose,
with which it cancels; what is left is one transpose at the network's input and one where the
channels-last values meet an op these patterns do not cross (a global pool, a reshape, the
function's result), which elementwise fusion then fuses into that consumer. Each pattern is
one function, chosen by op name (:data:`PATTERNS`), in two phases each run until none of its
patterns applies: the sinking ones, then the hoisting of the transposes left above pads.

``transpose(v, p)`` is ``linalg.transpose`` with ``permutation = p``: result dim ``i`` is
``v``'s dim ``p[i]``.

* **compose** ``transpose(transpose(v, p1), p2)`` is ``transpose(v, [p1[p2[i]]])``, or ``v``
  when that is the identity.
* **fold into its source**: a transpose of ``tensor.empty``, of a ``linalg.fill`` of one, or
  of a broadcast (``linalg.broadcast``, or a ``linalg.generic`` reading only operands of lower
  rank: the bias a convolution starts from) is that op built at the transposed shape.
* **sink through an elementwise generic**: a ``linalg.generic`` with parallel loops only, one
  result written through the identity map and not read, whose full-size inputs (those read
  through a permutation of all its loops) all come from transposes with the same permutation
  ``p``, is rebuilt over the transposes' sources with its loops renumbered (loop ``k``
  becomes ``p[k]``, in every map and ``linalg.index``): its result is then in the sources'
  layout, and a transpose by ``p`` after it gives the old value. Inputs of lower rank (a
  per-channel scale, a scalar) only have their maps renumbered.
* **sink through a slice**: ``extract_slice(transpose(v, p))`` (every dim kept) is
  ``transpose(extract_slice'(v), p)`` with the offsets, sizes and strides permuted (TOSA's
  strided 1x1 convolution reads a slice of its image).
* **sink through a pad**: ``pad(transpose(v, p))`` is ``transpose(pad'(v), p)`` with the
  padding amounts permuted (``low'[p[i]] = low[i]``); and a transpose of a pad of anything
  else goes above it (``transpose(pad(v), p)`` is ``pad'(transpose(v, p))``), so the pad meets
  the convolution it feeds, into whose dispatch it is fused.

Every rewrite moves data, never changes a value; the payloads are kept as they are. Ops
with dynamic shapes are left alone.
"""
from __future__ import annotations

from typing import Callable, Dict, List, Optional, Sequence, Tuple

from ...dialects import linalg as L
from ...dialects.tensor import pad_low_high, static_list
from ...ir import types as T
from ...ir.affine import AffineDim, AffineMap
from ...ir.attributes import IntegerAttr, i64_array
from ...ir.core import Builder, Operation, Value
from ..common.distribution import substitute
from ..pass_base import Pass, PassContext, functions, register_pass
from .elementwise_op_fusion import blocks_of


def transpose(b: Builder, v: Value, perm: Sequence[int]) -> Value:
    """``linalg.transpose ins(v) outs(tensor.empty) permutation = perm`` at ``b``: result dim
    ``i`` is ``v``'s dim ``perm[i]``."""
    t = v.type
    rt = _transposed(t, perm)
    init = b.create("tensor.empty", [], [rt]).result
    return b.create("linalg.transpose", [v, init], [rt], {"permutation": i64_array(list(perm))},
                    regions=[L.identity_region([t, rt])]).result


def permutation(op: Operation) -> Optional[Tuple[int, ...]]:
    """The permutation of ``linalg.transpose`` ``op`` (None for any other op)."""
    if not isinstance(op, Operation) or op.name != "linalg.transpose":
        return None
    return tuple(op.attributes["permutation"].value)


def _inverse(p: Sequence[int]) -> Tuple[int, ...]:
    q = [0] * len(p)
    for i, x in enumerate(p):
        q[x] = i
    return tuple(q)


def _moved(values: Sequence[int], p: Sequence[int]) -> List[int]:
    """Per-dim ``values`` of a transpose's result (padding, slice offsets...) moved to its
    source's dims: source dim ``p[i]`` gets ``values[i]``."""
    return [values[i] for i in _inverse(p)]


def _transposed(t: T.TensorType, p: Sequence[int]) -> T.TensorType:
    return T.TensorType(tuple(t.shape[x] for x in p), t.element_type)


def _replace(op: Operation, v: Value) -> None:
    """Replace ``op``'s one result with ``v`` and erase ``op``."""
    op.results[0].replace_all_uses_with(v)
    op.erase()


def _is_transpose_of(v: Value, rank: int) -> Optional[Tuple[int, ...]]:
    p = permutation(v.owner)
    return p if p is not None and len(p) == rank else None


# ------------------------------------------------------------------------ transpose
def _compose(op: Operation) -> bool:
    """transpose(transpose(v, p1), p2) -> transpose(v, p1 . p2), or v."""
    inner = op.operands[0].owner
    p1, p2 = permutation(inner), permutation(op)
    if p1 is None:
        return False
    src = inner.operands[0]
    c = tuple(p1[x] for x in p2)
    if c == tuple(range(len(c))):
        _replace(op, src)
    else:
        b = Builder.before(op)
        _replace(op, transpose(b, src, c))
    return True


def _fold_into_source(op: Operation) -> bool:
    """A transpose of an empty tensor, a fill of one or a broadcast: that op, transposed."""
    src = op.operands[0]
    producer = src.owner
    if not isinstance(producer, Operation) or len(src.uses) != 1:
        return False
    p, rt = permutation(op), op.results[0].type
    b = Builder.before(op)
    if producer.name == "tensor.empty" and not producer.operands:
        _replace(op, b.create("tensor.empty", [], [rt]).result)
        return True
    if producer.name == "linalg.fill" and _empty(L.outputs(producer)[0]):
        _replace(op, L.build_fill(L.inputs(producer)[0], rt, b))
        return True
    if producer.name == "linalg.broadcast" and _empty(L.outputs(producer)[0]):
        dims = set(producer.attributes["dimensions"].value)
        kept = [x for x in p if x not in dims]
        if kept != sorted(kept):
            return False  # the input's dims would change order: not a broadcast
        added = [i for i, x in enumerate(p) if x in dims]
        x = L.inputs(producer)[0]
        init = b.create("tensor.empty", [], [rt]).result
        new = b.create("linalg.broadcast", [x, init], [rt], {"dimensions": i64_array(added)},
                       regions=[L.identity_region([x.type, rt])])
        _replace(op, new.results[0])
        producer.erase()
        return True
    if producer.name == "linalg.generic" and _broadcast_only(producer):
        new = _renumbered(producer, _inverse(p), {}, b)
        _replace(op, new.results[0])
        producer.erase()
        return True
    return False


def _empty(v: Value) -> bool:
    return isinstance(v.owner, Operation) and v.owner.name == "tensor.empty" and not v.owner.operands


def _elementwise(op: Operation) -> bool:
    """One result through the identity map, parallel loops only, its init not read."""
    if len(op.results) != 1 or len(L.outputs(op)) != 1:
        return False
    if any(it != L.PARALLEL for it in L.iterator_types(op)):
        return False
    maps = L.indexing_maps(op)
    out_map, rank = maps[-1], len(L.iterator_types(op))
    if out_map != AffineMap.identity(rank) or not isinstance(op.results[0].type, T.TensorType):
        return False
    out_arg = L.payload(op).args[-1]
    return not out_arg.uses


def _full(m: AffineMap) -> bool:
    """Whether ``m`` reads a whole operand of the loops' rank (a permutation of all loops).
    A map with a constant 0 among its results (TOSA's per-channel ``tensor<1xCx1x1xf32>``
    read as ``(d0, d1, 0, 0)``) reads a broadcast, not a whole operand."""
    return (len(m.results) == m.num_dims and all(isinstance(e, AffineDim) for e in m.results)
            and m.is_projected_permutation())


def _broadcast_only(op: Operation) -> bool:
    """An elementwise generic none of whose inputs has the result's size (a broadcast)."""
    if not _elementwise(op) or not _empty(L.outputs(op)[0]):
        return False
    return not any(_full(m) for m in L.indexing_maps(op)[:-1])


def _renumbered(op: Operation, p: Sequence[int], sources: Dict[int, Value],
                b: Builder) -> Operation:
    """Elementwise generic ``op`` rebuilt (at ``b``) with old loop ``k`` as new loop ``p[k]``,
    in every map and in the payload's ``linalg.index``: its result is the old one transposed
    by ``inverse(p)`` (new dim ``j`` is old dim ``q[j]``). Input ``i`` in ``sources`` is
    replaced by that value, the source of the transpose by ``p`` the input was; the payload
    region is moved over."""
    rank = len(p)
    q = _inverse(p)
    rename = [AffineDim(p[k]) for k in range(rank)]
    maps = L.indexing_maps(op)
    ins = list(L.inputs(op))
    new_maps: List[AffineMap] = []
    for i, m in enumerate(maps[:-1]):
        res = tuple(substitute(e, rename) for e in m.results)
        if i in sources:
            ins[i] = sources[i]
            res = tuple(res[x] for x in q)
        new_maps.append(AffineMap(rank, m.num_symbols, res))
    new_maps.append(AffineMap.identity(rank))
    rt = _transposed(op.results[0].type, q)
    init = b.create("tensor.empty", [], [rt]).result
    region = op.regions.pop(0)
    for inner in (o for blk in region.blocks for top in blk.ops for o in top.walk()):
        if inner.name == "linalg.index":
            inner.attributes["dim"] = IntegerAttr(p[inner.attributes["dim"].value], T.i64)
    attrs = {k: a for k, a in op.attributes.items()
             if k not in ("indexing_maps", "iterator_types", "operandSegmentSizes")}
    return L.build_generic(ins, [init], new_maps, L.iterator_types(op), region,
                           result_types=[rt], attrs=attrs, loc=op.loc, builder=b)


def _transpose(op: Operation) -> bool:
    if permutation(op.operands[0].owner) is not None:
        return _compose(op)
    return _fold_into_source(op)


# --------------------------------------------------------------------------- generic
def _sink_through_elementwise(op: Operation) -> bool:
    """generic(transpose(v, p), ...) -> transpose(generic'(v, ...), p) (module docstring)."""
    if not _elementwise(op):
        return False
    rank = len(L.iterator_types(op))
    maps = L.indexing_maps(op)
    ins = L.inputs(op)
    p = None
    sources: Dict[int, Value] = {}
    for i, (v, m) in enumerate(zip(ins, maps)):
        if not _full(m):
            continue
        vp = _is_transpose_of(v, rank)
        if vp is None or m != AffineMap.identity(rank) or (p is not None and vp != p):
            return False
        p = vp
        sources[i] = v.owner.operands[0]
    if p is None:
        return False
    b = Builder.before(op)
    new = _renumbered(op, p, sources, b)
    _replace(op, transpose(b, new.results[0], p))
    return True


# ------------------------------------------------------------------------------- pad
def _static_pad(op: Operation) -> Optional[Tuple[List[int], List[int]]]:
    """The static padding of ``op``, when its region yields a value from outside it."""
    if len(op.operands) != 1:
        return None
    blk = op.regions[0].blocks[0]
    if any(a.uses for a in blk.args) or len(blk.ops) != 1:
        return None
    return pad_low_high(op)


def _pad(b: Builder, pad: Operation, src: Value, p: Sequence[int]) -> Value:
    """A copy of ``pad`` (at ``b``, its region moved over) padding ``src``: ``src``'s dim
    ``p[i]`` gets the padding of ``pad``'s dim ``i``."""
    nl, nh = (_moved(v, p) for v in _static_pad(pad))
    shape = tuple(n + lo + hi for n, lo, hi in zip(src.type.shape, nl, nh))
    rt = T.TensorType(shape, src.type.element_type)
    attrs = {k: a for k, a in pad.attributes.items()}
    attrs["static_low"] = i64_array(nl)
    attrs["static_high"] = i64_array(nh)
    region = pad.regions.pop(0)
    return b.create("tensor.pad", [src], [rt], attrs, regions=[region]).result


def _sink_through_pad(op: Operation) -> bool:
    """pad(transpose(v, p)) -> transpose(pad'(v), p)."""
    src = op.operands[0]
    p = permutation(src.owner)
    if p is None or _static_pad(op) is None:
        return False
    b = Builder.before(op)
    padded = _pad(b, op, src.owner.operands[0], p)
    _replace(op, transpose(b, padded, p))
    return True


def _sink_through_slice(op: Operation) -> bool:
    """extract_slice(transpose(v, p)) -> transpose(extract_slice'(v), p), for a slice that
    keeps every dim (its offsets, sizes and strides permuted: ``s'[p[i]] = s[i]``)."""
    src = op.operands[0]
    p = permutation(src.owner)
    if p is None or len(op.operands) != 1 or op.results[0].type.rank != src.type.rank:
        return False
    b = Builder.before(op)
    moved = [_moved(static_list(op, n), p) for n in ("static_offsets", "static_sizes", "static_strides")]
    source = src.owner.operands[0]
    rt = T.TensorType(tuple(moved[1]), source.type.element_type)
    attrs = {k: a for k, a in op.attributes.items() if k not in ("static_offsets", "static_sizes", "static_strides")}
    attrs.update({"static_offsets": i64_array(moved[0]), "static_sizes": i64_array(moved[1]),
                  "static_strides": i64_array(moved[2])})
    sliced = b.create("tensor.extract_slice", [source], [rt], attrs).result
    _replace(op, transpose(b, sliced, p))
    return True


def _hoist_above_pad(op: Operation) -> bool:
    """transpose(pad(v), p) -> pad'(transpose(v, p)), for a pad of a non-transpose used once."""
    pad = op.operands[0].owner
    if not (isinstance(pad, Operation) and pad.name == "tensor.pad") or len(pad.results[0].uses) != 1:
        return False
    if permutation(pad.operands[0].owner) is not None or _static_pad(pad) is None:
        return False
    p = permutation(op)
    b = Builder.before(op)
    moved = transpose(b, pad.operands[0], p)
    _replace(op, _pad(b, pad, moved, _inverse(p)))
    pad.erase()
    return True


def _static_result(fn: Callable[[Operation], bool]) -> Callable[[Operation], bool]:
    """``fn`` applied to ops whose first result has a static shape only (the new empty
    tensors and pads the patterns build take no dynamic sizes)."""
    def pattern(op: Operation) -> bool:
        t = op.results[0].type if op.results else None
        return isinstance(t, T.TensorType) and t.has_static_shape and fn(op)
    pattern.__doc__ = fn.__doc__
    return pattern


#: The patterns run on each op, by op name, in two phases: the transposes sink as far as they
#: go, then those left go above the pads before them (the other direction: run together,
#: the two pad patterns would undo each other).
SINK: Dict[str, Callable[[Operation], bool]] = {
    "linalg.transpose": _static_result(_transpose),
    "linalg.generic": _static_result(_sink_through_elementwise),
    "tensor.pad": _static_result(_sink_through_pad),
    "tensor.extract_slice": _static_result(_sink_through_slice),
}
HOIST: Dict[str, Callable[[Operation], bool]] = {
    "linalg.transpose": _static_result(lambda op: _transpose(op) or _hoist_above_pad(op)),
}
PATTERNS = (SINK, HOIST)

#: Ops erased once nothing reads them (what the patterns leave behind).
_DEAD = ("linalg.transpose", "tensor.empty", "linalg.fill", "linalg.broadcast", "tensor.pad")


def propagate(blk) -> None:
    """Apply each phase of :data:`PATTERNS` in ``blk`` until none of its patterns applies,
    then erase the dead ops."""
    for patterns in PATTERNS:
        changed = True
        while changed:
            changed = False
            for op in list(blk.ops):
                fn = patterns.get(op.name)
                if op.parent is blk and fn is not None and fn(op):
                    changed = True
    for op in reversed(list(blk.ops)):
        if op.name in _DEAD and not any(r.uses for r in op.results):
            op.erase()


@register_pass
class PropagateLinalgTransposePass(Pass):
    """IREE's ``iree-global-opt-propagate-linalg-transpose``: see the module docstring."""

    name = "iree-global-opt-propagate-linalg-transpose"

    def run(self, module: Operation, ctx: PassContext) -> None:
        for f in functions(module):
            for blk in blocks_of(f):
                propagate(blk)

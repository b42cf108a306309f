"""Tensors inside each kernel become memrefs: destination-passing bufferization.

Mirrors IREE's ``IREEComprehensiveBufferizePass`` (one-shot bufferize with IREE's
"destination = the output binding" analysis). A backward walk gives each tensor its
preferred buffer (the output binding it is stored to, passed on to the init operand of the
op producing it and to the destination of insert_slice); a forward walk then rewrites ops:
``flow.dispatch.tensor.load`` is the binding memref, ``tensor.extract_slice`` a
``memref.subview``, ``linalg.generic`` runs on memrefs writing its destination (after
copying a live init value in), ``tensor.pad`` fills (the border, or the whole result when its rows are short:
:func:`pad_fills`) then copies the source into a subview (a pad fused into its
convolution's kernel, distributed along its unpadded dims, writes one padded tile into a
per-tile temporary: the views of that temporary carry its ``ireec.tile_dims``).
A tensor with no preferred buffer gets a ``memref.alloca`` (a stack temporary); in a kernel
distributed over workgroups (``ireec.distribution``, see :mod:`.select_lowering_strategy`)
the temporary holds one tile only: tile size along the dims carrying a distributed dim
(recorded as ``ireec.tile_dims`` on the alloca), full size along the others. An all-parallel
generic whose input is produced in the kernel, read at the output's index and used only
there, writes in place into that input's buffer. ``tensor.empty`` gets a buffer only when it
is read. Copies inserted here carry ``ireec.distribute`` like the ops they serve.
Expects named linalg ops to be generalized first.
"""
from __future__ import annotations

from typing import Dict, List

from ...ir import types as T
from ...ir.affine import AffineMap
from ...ir.attributes import DenseArrayAttr
from ...ir.core import Builder, Operation, Value
from ...ir.diagnostics import CompileError
from ...dialects.linalg import build_generic
from ...dialects.memref import build_alloc
from ...ir.affine import AffineDim
from ..pass_base import Pass, PassContext, register_pass
from .memref_utils import memref_for, strided_memref, strides_and_offset

KDYNAMIC = -9223372036854775808


def segment_sizes(op: Operation):
    """(#inputs, #outputs) of a linalg op."""
    a = op.attributes.get("operandSegmentSizes")
    return list(a.value) if a is not None else [len(op.operands) - len(op.results), len(op.results)]


def emit_copy(b: Builder, src: Value, dst: Value, distribute=None) -> Operation:
    """dst[...] = src[...] as a linalg.generic on memrefs (identity maps); ``distribute``
    (loop dim per distributed dim) restricts it to the workgroup's tile."""
    rank = src.type.rank
    attrs = {"ireec.distribute": DenseArrayAttr(T.i64, tuple(distribute))} if distribute else None
    return build_generic([src], [dst], [AffineMap.identity(rank)] * 2, ["parallel"] * rank,
                         lambda bb, args: [args[0]], result_types=[], attrs=attrs, builder=b)


def emit_fill(b: Builder, value: Value, dst: Value, distribute=None) -> Operation:
    """dst[...] = value as a linalg.generic on memrefs; ``distribute`` as in :func:`emit_copy`."""
    rank = dst.type.rank
    attrs = {"ireec.distribute": DenseArrayAttr(T.i64, tuple(distribute))} if distribute else None
    return build_generic([value], [dst], [AffineMap(rank, 0, ()), AffineMap.identity(rank)],
                         ["parallel"] * rank, lambda bb, args: [args[0]], result_types=[], attrs=attrs, builder=b)


def subview(b: Builder, src: Value, offsets, sizes, strides, result_shape=None) -> Value:
    """memref.subview of ``src``; ``result_shape`` drops unit dims for rank-reducing views."""
    src_strides, src_off = strides_and_offset(src.type)
    off = src_off + sum(o * s for o, s in zip(offsets, src_strides))
    new_strides = [s * st for s, st in zip(src_strides, strides)]
    shape = list(sizes)
    if result_shape is not None and len(result_shape) != len(shape):
        # Rank-reducing view: drop unit dims (any choice is equivalent: their index is 0).
        drops = len(shape) - len(result_shape)
        keep = []
        for i, d in enumerate(shape):
            if d == 1 and drops > 0:
                drops -= 1
            else:
                keep.append(i)
        shape = [shape[i] for i in keep]
        new_strides = [new_strides[i] for i in keep]
    t = strided_memref(shape, src.type.element_type, new_strides, off)
    return b.create("memref.subview", [src], [t], {
        "operandSegmentSizes": DenseArrayAttr(T.i32, (1, 0, 0, 0)),
        "static_offsets": DenseArrayAttr(T.i64, tuple(offsets)),
        "static_sizes": DenseArrayAttr(T.i64, tuple(sizes)),
        "static_strides": DenseArrayAttr(T.i64, tuple(strides))}).result


def _static(op, name):
    vals = list(op.attributes[name].value)
    if any(v == KDYNAMIC for v in vals):
        raise CompileError(f"dynamic {name} in {op.name} are not supported", op.loc)
    return vals


@register_pass
class BufferizePass(Pass):
    name = "iree-codegen-iree-comprehensive-bufferize"

    def run(self, module: Operation, ctx: PassContext) -> None:
        for exe in [op for op in module.body.ops if op.name == "hal.executable"]:
            for k in [op for op in exe.walk() if op.name == "func.func"]:
                self.bufferize(k)

    def bufferize(self, kernel: Operation) -> None:
        blk = kernel.body
        ops = list(blk.ops)
        pref: Dict[Value, Value] = {}
        buf: Dict[Value, Value] = {}
        dist = kernel.attributes.get("ireec.distribution")
        flat = list(dist.value) if dist is not None else []
        self.tiles = [min(flat[i], flat[i + 1]) for i in range(0, len(flat), 2)]
        self.carry: Dict[Value, List[int]] = {}
        # Bindings become memrefs (type change in place).
        for op in ops:
            if op.name == "hal.interface.binding.subspan":
                op.results[0].type = memref_for(op.results[0].type.tensor)
        # Backward: preferred destinations.
        for op in reversed(ops):
            if op.name == "flow.dispatch.tensor.store":
                v, target = op.operands
                if v not in pref and isinstance(v.owner, Operation) and v.owner.name != "flow.dispatch.tensor.load":
                    pref[v] = target
            elif op.name == "linalg.generic":
                n_in, n_out = segment_sizes(op)
                for r, init in zip(op.results, op.operands[n_in:]):
                    if r in pref and len(init.uses) == 1 and init not in pref:
                        pref[init] = pref[r]
                self._in_place_input(op, pref)
            elif op.name == "tensor.insert_slice":
                r, dest = op.results[0], op.operands[1]
                if r in pref and len(dest.uses) == 1:
                    pref[dest] = pref[r]
        for op in ops:
            if op.name in ("linalg.generic", "tensor.pad") and "ireec.distribute" in op.attributes:
                self._record_carry(op)
        nuses = {r: len(r.uses) for op in ops for r in op.results}
        st = _OpBufferizer(self, buf, pref, nuses, Builder(blk, 0, kernel.loc))
        for op in ops:
            st.b = Builder.before(op)
            fn = _BUFFERIZE.get(op.name)
            if fn is None:
                if any(isinstance(r.type, T.TensorType) for r in op.results):
                    raise CompileError(f"'{op.name}' is not supported inside a dispatch yet", op.loc)
                continue
            if fn(st, op) is _KEEP:
                continue
            for r in op.results:
                r.uses.clear()
            op.drop_all_references()
            op.detach()

    def _record_carry(self, op: Operation) -> None:
        """For each result of distributed ``op``: the loop dim (= identity-copy loop) of each
        distributed dim, i.e. the result's tensor dim carrying it."""
        from ...dialects.linalg import indexing_maps

        dims = list(op.attributes["ireec.distribute"].value)
        if op.name == "tensor.pad":  # its distributed dims are unpadded: the result's own dims
            self.carry[op.results[0]] = dims
            return
        maps = indexing_maps(op)
        n_in, _ = segment_sizes(op)
        for k, r in enumerate(op.results):
            m = maps[n_in + k]
            pos = []
            for d in dims:
                at = [t for t, e in enumerate(m.results) if isinstance(e, AffineDim) and e.pos == d]
                pos.append(at[0] if at else -1)
            if all(p >= 0 for p in pos):
                self.carry[r] = pos

    @staticmethod
    def _in_place_input(op: Operation, pref: Dict[Value, Value]) -> None:
        """An all-parallel generic writing ``r`` into a preferred buffer may compute in place
        over an input produced in the kernel, read at the same index, used only here."""
        from ...dialects.linalg import indexing_maps, iterator_types

        if len(op.results) != 1 or op.results[0] not in pref:
            return
        if any(it != "parallel" for it in iterator_types(op)):
            return
        n_in, _ = segment_sizes(op)
        init = op.operands[n_in]
        if not (isinstance(init.owner, Operation) and init.owner.name == "tensor.empty") or op.body.args[n_in].uses:
            return
        maps = indexing_maps(op)
        r = op.results[0]
        for v, m in zip(op.operands[:n_in], maps[:n_in]):
            p = v.owner
            if (isinstance(p, Operation) and p.name == "linalg.generic" and len(v.uses) == 1 and v not in pref
                    and v.type == r.type and m == maps[n_in]):
                pref[v] = pref[r]
                return

    @staticmethod
    def _loads_in_body(generic: Operation, buf: Dict[Value, Value]) -> None:
        """``tensor.extract`` of a kernel tensor inside a payload reads its buffer."""
        for inner in list(generic.walk()):
            if inner.name == "tensor.extract" and inner.operands[0] in buf:
                ld = Builder.before(inner).create("memref.load", [buf[inner.operands[0]]] + list(inner.operands[1:]),
                                                  [inner.results[0].type])
                inner.replace_with([ld.result])

    def _tile_shape(self, v: Value):
        """(shape of one tile of ``v``, distributed dim per tensor dim or -1)."""
        shape = list(v.type.shape)
        tile_dims = [-1] * len(shape)
        for j, t in enumerate(self.carry.get(v, [])):
            if t < 0:
                continue  # not carried: a pad each workgroup computes whole along it
            shape[t] = min(shape[t], self.tiles[j])
            tile_dims[t] = j
        return shape, tile_dims

    def _dest(self, b: Builder, v: Value, pref: Dict[Value, Value]) -> Value:
        """The buffer ``v`` is computed into: its preferred destination, else a stack
        temporary (one tile of ``v`` when it carries distributed dims)."""
        d = pref.get(v)
        if d is not None:
            return d
        shape, tile_dims = self._tile_shape(v)
        attrs = {}
        if any(t >= 0 for t in tile_dims):
            attrs["ireec.tile_dims"] = DenseArrayAttr(T.i64, tuple(tile_dims))
        return build_alloc(b, "memref.alloca", T.MemRefType(tuple(shape), v.type.element_type), attrs=attrs).result

    def _pad(self, b, op, buf, pref):
        src = op.operands[0]
        low = _static(op, "static_low")
        dst = self._dest(b, op.results[0], pref)
        yield_op = op.body.terminator
        pad_val = yield_op.operands[0]
        if pad_val.owner is not None and isinstance(pad_val.owner, Operation) and pad_val.owner.parent is op.body:
            raise CompileError("tensor.pad with a computed padding value is not supported", op.loc)
        dist = op.attributes.get("ireec.distribute")  # unpadded dims: the same in both views
        dims = list(dist.value) if dist is not None else None
        src_shape = list(src.type.shape)
        td = dst.owner.attributes.get("ireec.tile_dims") if isinstance(dst.owner, Operation) else None
        attrs = {}
        if td is not None:
            # A per-tile temporary (the pad fused into its consumer's kernel): one tile along
            # the distributed (unpadded, low = 0) dims, indexed locally there like the
            # temporary, so its views carry the same ``ireec.tile_dims``.
            attrs["ireec.tile_dims"] = td
            src_shape = [dst.type.shape[i] if k >= 0 else n for i, (k, n) in enumerate(zip(td.value, src_shape))]
        for offsets, sizes in pad_fills(low, src_shape, list(dst.type.shape)):
            view = subview(b, dst, offsets, sizes, [1] * len(low))
            view.owner.attributes.update(attrs)
            emit_fill(b, pad_val, view, dims)
        view = subview(b, dst, low, src_shape, [1] * len(low))
        view.owner.attributes.update(attrs)
        emit_copy(b, buf[src], view, dims)
        buf[op.results[0]] = dst


#: Longest innermost dim of a pad's result that is filled whole before the source's copy,
#: when that dim is padded: the border slabs along it are runs of a few elements, one short
#: loop per row, where one fill is a run of vector stores. MobileNetV2's depthwise
#: convolutions of 4x4 and 2x2 NCHW images padded by one (their dispatches, gcc 12, one
#: thread, minimum of 40 rounds): 192 channels 5.2 -> 4.7 us, 480 channels 5.6 -> 5.0 us.
WHOLE_FILL_ROW = 64


def pad_fills(low, src_shape, dst_shape):
    """(offsets, sizes) of the fills a pad writes before copying its source (of ``src_shape``
    at ``low`` in its result of ``dst_shape``): the whole result when its innermost dim is
    padded and at most :data:`WHOLE_FILL_ROW` long (the copy then overwrites the interior),
    else the border slabs (:func:`_pad_borders`, each element once)."""
    inner_padded = bool(low) and (low[-1] > 0 or src_shape[-1] < dst_shape[-1])
    if inner_padded and dst_shape[-1] <= WHOLE_FILL_ROW and all(n > 0 for n in dst_shape):
        return [([0] * len(low), list(dst_shape))]
    return _pad_borders(low, src_shape, dst_shape)


def _pad_borders(low, src_shape, dst_shape):
    """(offsets, sizes) of the slabs of a pad's result outside the source's copy, each element
    in exactly one: for each padded dim d, the part before and after the source along d,
    spanning the source's range along the dims before d and everything along those after
    (so the pad writes every element once: the border with the padding value, the interior
    from the source). Empty slabs are left out."""
    slabs = []
    rank = len(low)
    for d in range(rank):
        before = low[d]
        after = dst_shape[d] - low[d] - src_shape[d]
        for start, size in ((0, before), (low[d] + src_shape[d], after)):
            if size <= 0:
                continue
            offsets = [low[k] if k < d else 0 for k in range(rank)]
            sizes = [src_shape[k] if k < d else dst_shape[k] for k in range(rank)]
            offsets[d], sizes[d] = start, size
            if all(n > 0 for n in sizes):
                slabs.append((offsets, sizes))
    return slabs


def _index(x):
    from ...ir.attributes import IntegerAttr

    return IntegerAttr(int(x), T.index)


#: Returned by an :class:`_OpBufferizer` method for an op that stays in place.
_KEEP = object()


class _OpBufferizer:
    """The per-op rewrites of one kernel's bufferization ({op name: method} in
    :data:`_BUFFERIZE`): each tensor op is replaced by memref ops writing into ``buf[value]``
    (its buffer; ``pref``: preferred destinations; ``nuses``: use counts before rewriting);
    ``b`` inserts before the op being rewritten."""

    def __init__(self, owner, buf, pref, nuses, b):
        self.owner = owner
        self.buf = buf
        self.pref = pref
        self.nuses = nuses
        self.b = b

    def get(self, v: Value) -> Value:
        """The buffer of tensor ``v`` (a ``tensor.empty`` gets its destination on first read)."""
        if self.buf.get(v) is None:
            self.buf[v] = self.owner._dest(self.b, v, self.pref)
        return self.buf[v]

    def keep(self, op):
        return _KEEP

    def load(self, op):
        b, buf = self.b, self.buf
        src = op.operands[0]
        offs, sizes, strides = (_static(op, n) for n in ("static_offsets", "static_sizes", "static_strides"))
        if all(o == 0 for o in offs) and list(sizes) == list(src.type.shape):
            buf[op.results[0]] = src
        else:
            buf[op.results[0]] = subview(b, src, offs, sizes, strides, op.results[0].type.shape)

    def store(self, op):
        b, buf = self.b, self.buf
        v, target = op.operands
        offs, sizes, strides = (_static(op, n) for n in ("static_offsets", "static_sizes", "static_strides"))
        dst = target
        if not (all(o == 0 for o in offs) and list(sizes) == list(target.type.shape)):
            dst = subview(b, target, offs, sizes, strides, v.type.shape)
        if self.get(v) is not dst:
            emit_copy(b, buf[v], dst, self.owner.carry.get(v))

    def empty(self, op):
        self.buf[op.results[0]] = None  # allocated on first read (see get)

    def generic(self, op):
        b, buf, pref, get, owner = self.b, self.buf, self.pref, self.get, self.owner
        n_in, n_out = segment_sizes(op)
        ins = [get(v) if isinstance(v.type, T.TensorType) else v for v in op.operands[:n_in]]
        outs = []
        body = op.body
        for k, (r, init) in enumerate(zip(op.results, op.operands[n_in:])):
            own = buf.get(init)
            if (r not in pref and self.nuses.get(init) == 1 and own is not None
                    and isinstance(own.owner, Operation) and own.owner.name == "memref.alloca"
                    and own.type.shape == tuple(owner._tile_shape(r)[0])):
                dst = own  # the init's own temporary is the destination
            else:
                dst = owner._dest(b, r, pref)
            reads_init = bool(body.args[n_in + k].uses)
            init_is_empty = isinstance(init.owner, Operation) and init.owner.name == "tensor.empty"
            if reads_init and not init_is_empty and get(init) is not dst:
                emit_copy(b, buf[init], dst, owner.carry.get(r))
            outs.append(dst)
            buf[r] = dst
        new = Operation("linalg.generic", ins + outs, [], dict(op.attributes), loc=op.loc)
        new.add_region(op.regions[0])
        op.regions.clear()
        b.insert(new)
        owner._loads_in_body(new, buf)

    def extract_slice(self, op):
        offs, sizes, strides = (_static(op, n) for n in ("static_offsets", "static_sizes", "static_strides"))
        self.buf[op.results[0]] = subview(self.b, self.get(op.operands[0]), offs, sizes, strides,
                                          op.results[0].type.shape)

    def insert_slice(self, op):
        b, buf, get = self.b, self.buf, self.get
        src, dest = op.operands[0], op.operands[1]
        dst = self.owner._dest(b, op.results[0], self.pref)
        dest_is_empty = isinstance(dest.owner, Operation) and dest.owner.name == "tensor.empty"
        if not dest_is_empty and get(dest) is not dst:
            emit_copy(b, buf[dest], dst)
        offs, sizes, strides = (_static(op, n) for n in ("static_offsets", "static_sizes", "static_strides"))
        emit_copy(b, get(src), subview(b, dst, offs, sizes, strides, src.type.shape))
        buf[op.results[0]] = dst

    def pad(self, op):
        self.get(op.operands[0])
        self.owner._pad(self.b, op, self.buf, self.pref)

    def from_elements(self, op):
        b = self.b
        dst = self.owner._dest(b, op.results[0], self.pref)
        shape = op.results[0].type.shape
        for i, v in enumerate(op.operands):
            idx = []
            rem = i
            for d in reversed(shape):
                idx.append(rem % d)
                rem //= d
            ivals = [b.create("arith.constant", [], [T.index], {"value": _index(x)}).result for x in reversed(idx)]
            b.create("memref.store", [v, dst] + ivals, [])
        self.buf[op.results[0]] = dst


#: How each op of a kernel is bufferized ({op name: _OpBufferizer method}); ops not named
#: here must have no tensor results and stay as they are.
_BUFFERIZE = {
    "hal.interface.binding.subspan": _OpBufferizer.keep,
    "arith.constant": _OpBufferizer.keep,
    "func.return": _OpBufferizer.keep,
    "flow.dispatch.tensor.load": _OpBufferizer.load,
    "flow.dispatch.tensor.store": _OpBufferizer.store,
    "tensor.empty": _OpBufferizer.empty,
    "linalg.generic": _OpBufferizer.generic,
    "tensor.extract_slice": _OpBufferizer.extract_slice,
    "tensor.insert_slice": _OpBufferizer.insert_slice,
    "tensor.pad": _OpBufferizer.pad,
    "tensor.from_elements": _OpBufferizer.from_elements,
}

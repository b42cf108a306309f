"""Tensors inside each kernel become memrefs: destination-passing bufferization.

Mirrors IREE's ``IREEComprehensiveBufferizePass`` (one-shot bufferize with IREE's
"destination = the output binding" analysis). A backward walk gives each tensor its
preferred buffer (the output binding it is stored to, passed on to the init operand of the
op producing it and to the destination of insert_slice); a forward walk then rewrites ops:
``flow.dispatch.tensor.load`` is the binding memref, ``tensor.extract_slice`` a
``memref.subview``, ``linalg.generic`` runs on memrefs writing its destination (after
copying a live init value in), ``tensor.pad`` fills then copies the source into a subview.
A tensor with no preferred buffer gets a ``memref.alloca`` (a stack temporary).
Expects named linalg ops to be generalized first.
"""
from __future__ import annotations

from typing import Dict

from ...ir import types as T
from ...ir.affine import AffineMap
from ...ir.attributes import DenseArrayAttr
from ...ir.core import Builder, Operation, Value
from ...ir.diagnostics import CompileError
from ..common.linalg_build import build_generic, segment_sizes
from ..pass_base import Pass, PassContext, register_pass
from .memref_utils import memref_for, strided_memref, strides_and_offset

KDYNAMIC = -9223372036854775808


def emit_copy(b: Builder, src: Value, dst: Value) -> None:
    """dst[...] = src[...] as a linalg.generic on memrefs (identity maps)."""
    rank = src.type.rank
    build_generic(b, [src], [dst], [AffineMap.identity(rank)] * 2, ["parallel"] * rank,
                  lambda bb, args: [args[0]])


def emit_fill(b: Builder, value: Value, dst: Value) -> None:
    rank = dst.type.rank
    build_generic(b, [value], [dst], [AffineMap(rank, 0, ()), AffineMap.identity(rank)],
                  ["parallel"] * rank, lambda bb, args: [args[0]])


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
            elif op.name == "tensor.insert_slice":
                r, dest = op.results[0], op.operands[1]
                if r in pref and len(dest.uses) == 1:
                    pref[dest] = pref[r]
        b = Builder(blk, 0, kernel.loc)
        for op in ops:
            b = Builder.before(op)
            name = op.name
            if name == "hal.interface.binding.subspan":
                continue
            if name == "flow.dispatch.tensor.load":
                src = op.operands[0]
                offs, sizes, strides = (_static(op, n) for n in ("static_offsets", "static_sizes", "static_strides"))
                if all(o == 0 for o in offs) and list(sizes) == list(src.type.shape):
                    buf[op.results[0]] = src
                else:
                    buf[op.results[0]] = subview(b, src, offs, sizes, strides, op.results[0].type.shape)
            elif name == "flow.dispatch.tensor.store":
                v, target = op.operands
                offs, sizes, strides = (_static(op, n) for n in ("static_offsets", "static_sizes", "static_strides"))
                dst = target
                if not (all(o == 0 for o in offs) and list(sizes) == list(target.type.shape)):
                    dst = subview(b, target, offs, sizes, strides, v.type.shape)
                if buf[v] is not dst:
                    emit_copy(b, buf[v], dst)
            elif name == "tensor.empty":
                buf[op.results[0]] = self._dest(b, op.results[0], pref)
            elif name == "linalg.generic":
                n_in, n_out = segment_sizes(op)
                ins = [buf[v] if isinstance(v.type, T.TensorType) else v for v in op.operands[:n_in]]
                outs = []
                body = op.body
                for k, (r, init) in enumerate(zip(op.results, op.operands[n_in:])):
                    dst = self._dest(b, r, pref)
                    init_buf = buf[init]
                    reads_init = bool(body.args[n_in + k].uses)
                    init_is_empty = isinstance(init.owner, Operation) and init.owner.name == "tensor.empty"
                    if init_buf is not dst and reads_init and not init_is_empty:
                        emit_copy(b, init_buf, dst)
                    outs.append(dst)
                    buf[r] = dst
                new = Operation("linalg.generic", ins + outs, [], dict(op.attributes), loc=op.loc)
                new.add_region(op.regions[0])
                op.regions.clear()
                b.insert(new)
                self._loads_in_body(new, buf)
            elif name == "tensor.extract_slice":
                offs, sizes, strides = (_static(op, n) for n in ("static_offsets", "static_sizes", "static_strides"))
                buf[op.results[0]] = subview(b, buf[op.operands[0]], offs, sizes, strides, op.results[0].type.shape)
            elif name == "tensor.insert_slice":
                src, dest = op.operands[0], op.operands[1]
                dst = self._dest(b, op.results[0], pref)
                if buf[dest] is not dst:
                    emit_copy(b, buf[dest], dst)
                offs, sizes, strides = (_static(op, n) for n in ("static_offsets", "static_sizes", "static_strides"))
                emit_copy(b, buf[src], subview(b, dst, offs, sizes, strides, src.type.shape))
                buf[op.results[0]] = dst
            elif name == "tensor.pad":
                self._pad(b, op, buf, pref)
            elif name == "tensor.from_elements":
                dst = self._dest(b, op.results[0], pref)
                shape = op.results[0].type.shape
                for i, v in enumerate(op.operands):
                    idx = []
                    rem = i
                    for d in reversed(shape):
                        idx.append(rem % d)
                        rem //= d
                    ivals = [b.create("arith.constant", [], [T.index], {"value": _index(x)}).result for x in reversed(idx)]
                    b.create("memref.store", [v, dst] + ivals, [])
                buf[op.results[0]] = dst
            elif name == "arith.constant" or name == "func.return":
                continue
            else:
                if any(isinstance(r.type, T.TensorType) for r in op.results):
                    raise CompileError(f"'{name}' is not supported inside a dispatch yet", op.loc)
                continue
            if name not in ("arith.constant", "func.return", "hal.interface.binding.subspan"):
                for r in op.results:
                    r.uses.clear()
                op.drop_all_references()
                op.detach()

    @staticmethod
    def _loads_in_body(generic: Operation, buf: Dict[Value, Value]) -> None:
        """``tensor.extract`` of a kernel tensor inside a payload reads its buffer."""
        for inner in list(generic.walk()):
            if inner.name == "tensor.extract" and inner.operands[0] in buf:
                ld = Builder.before(inner).create("memref.load", [buf[inner.operands[0]]] + list(inner.operands[1:]),
                                                  [inner.results[0].type])
                inner.replace_with([ld.result])

    @staticmethod
    def _dest(b: Builder, v: Value, pref: Dict[Value, Value]) -> Value:
        d = pref.get(v)
        if d is not None:
            return d
        return b.create("memref.alloca", [], [memref_for(v.type)],
                        {"operandSegmentSizes": DenseArrayAttr(T.i32, (0, 0))}).result

    def _pad(self, b, op, buf, pref):
        src = op.operands[0]
        low, high = _static(op, "static_low"), _static(op, "static_high")
        dst = self._dest(b, op.results[0], pref)
        yield_op = op.body.terminator
        pad_val = yield_op.operands[0]
        if pad_val.owner is not None and isinstance(pad_val.owner, Operation) and pad_val.owner.parent is op.body:
            raise CompileError("tensor.pad with a computed padding value is not supported", op.loc)
        emit_fill(b, pad_val, dst)
        emit_copy(b, buf[src], subview(b, dst, low, list(src.type.shape), [1] * len(low)))
        buf[op.results[0]] = dst


def _index(x):
    from ...ir.attributes import IntegerAttr

    return IntegerAttr(int(x), T.index)

"""Static memory plan of each host function: every tensor gets a fixed place.

Mirrors IREE's Stream ``ScheduleAllocationPass`` + ``LayoutSlicesPass`` (whose packing
cites TFLite's greedy-by-size planner, tensorflow/lite/simple_memory_arena.cc). Inputs
live in the caller's buffers, results are written in place into the caller's result
buffers, constants are pooled into one read-only blob (64-byte aligned entries), and all
other tensors are transients packed into one workspace arena: buffers sorted by size
(largest first) take the lowest 64-byte aligned offset that does not overlap a buffer
live at the same time. Reshapes alias their source.

After the pass, the host function holds ``stream.*`` resource ops and
``stream.cmd.dispatch`` / ``stream.cmd.copy`` with byte offsets and sizes.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

import numpy as np

from ...dialects.func import func_name
from ...ir import types as T
from ...ir.attributes import (ArrayAttr, DenseArrayAttr, DenseElementsAttr, DenseResourceAttr,
                              IntegerAttr, StringAttr, SymbolRefAttr, TypeAttr, to_raw_bytes)
from ...ir.core import Builder, Operation, Value
from ...ir.diagnostics import CompileError
from ..pass_base import Pass, PassContext, functions, register_pass

ALIGNMENT = 64  # bytes; IREE's default resource alignment (stream.alignment = 64)
RESOURCE_EXTERNAL = T.OpaqueType("stream", "resource<external>")
RESOURCE_TRANSIENT = T.OpaqueType("stream", "resource<transient>")
RESOURCE_CONSTANT = T.OpaqueType("stream", "resource<constant>")


def align(n: int, a: int = ALIGNMENT) -> int:
    return (n + a - 1) // a * a


def tensor_bytes(t: T.TensorType) -> int:
    return t.num_elements * T.storage_bytes(t.element_type)


@dataclass
class Slot:
    """Where a tensor lives: kind 'arg'|'result'|'transient'|'constant', buffer index, byte offset."""

    kind: str
    index: int
    offset: int
    size: int


def pack_greedy_by_size(buffers: List[Tuple[int, int, int]]) -> Tuple[List[int], int]:
    """Offsets for buffers given as (size, first_use, last_use), and the arena size.

    Greedy by size (TFLite's ArenaPlanner strategy): largest first, each at the lowest
    aligned offset whose byte range does not overlap any placed buffer with an
    intersecting live interval [first_use, last_use].
    """
    order = sorted(range(len(buffers)), key=lambda i: (-buffers[i][0], buffers[i][1], i))
    placed: List[Tuple[int, int, int, int]] = []  # (offset, end, first, last)
    offsets = [0] * len(buffers)
    for i in order:
        size, first, last = buffers[i]
        live = sorted((o, e) for o, e, f, l in placed if not (l < first or last < f))
        off = 0
        for o, e in live:
            if off + size <= o:
                break
            off = max(off, align(e))
        offsets[i] = off
        placed.append((off, off + size, first, last))
    arena = align(max((o + s for o, (s, _, _) in zip(offsets, buffers)), default=0))
    return offsets, arena


def peak_live_bytes(buffers: List[Tuple[int, int, int]]) -> int:
    """The most bytes live at any one point: a lower bound for any arena."""
    events = set()
    for _, f, l in buffers:
        events.add(f)
    return max((sum(align(s) for s, f, l in buffers if f <= t <= l) for t in events), default=0)


def constant_bytes(op: Operation, module: Operation) -> bytes:
    v = op.attributes["value"]
    if isinstance(v, DenseElementsAttr):
        return to_raw_bytes(v.array, v.type.element_type)
    if isinstance(v, DenseResourceAttr):
        blob = getattr(module, "resources", {}).get(v.name)
        if blob is None:
            raise CompileError(f"dense_resource '{v.name}' has no blob in the dialect_resources section", op.loc)
        data = blob[4:]  # the first 4 bytes of a blob are its alignment
        need = tensor_bytes(v.type)
        if len(data) != need:
            raise CompileError(f"dense_resource '{v.name}' holds {len(data)} bytes, {v.type} needs {need}", op.loc)
        return data
    raise CompileError(f"unsupported constant {v}", op.loc)


_HOST_OPS = {"hal.tensor.import", "hal.tensor.export", "flow.dispatch", "flow.tensor.reshape",
             "arith.constant", "func.return"}


@register_pass
class ScheduleAllocationPass(Pass):
    name = "iree-stream-schedule-allocation"

    def run(self, module: Operation, ctx: PassContext) -> None:
        self.pool = bytearray()
        self.pool_index: Dict[bytes, int] = {}
        self.module = module
        report = ctx.report.setdefault("functions", {})
        for f in functions(module):
            if f.regions and f.regions[0].blocks and "iree.abi.stub" in f.attributes:
                report[func_name(f)] = self.plan(f)
        if self.pool:
            module.resources = dict(getattr(module, "resources", {}))
            module.resources["__ireec_constant_pool"] = (ALIGNMENT).to_bytes(4, "little") + bytes(self.pool)
            pool_t = T.TensorType((len(self.pool),), T.IntegerType(8))
            module.body.insert(0, Operation("util.global", attributes={
                "sym_name": StringAttr("__constant_pool"), "sym_visibility": StringAttr("private"),
                "type": TypeAttr(pool_t), "initial_value": DenseResourceAttr("__ireec_constant_pool", pool_t)}))
        ctx.report["constant_pool_bytes"] = len(self.pool)

    def _pool_offset(self, data: bytes) -> int:
        off = self.pool_index.get(data)
        if off is None:
            self.pool.extend(b"\0" * (align(len(self.pool)) - len(self.pool)))
            off = len(self.pool)
            self.pool.extend(data)
            self.pool_index[data] = off
        return off

    def plan(self, f: Operation) -> dict:
        if len(f.regions[0].blocks) != 1:
            raise CompileError("control flow in a public function is not supported yet", f.loc)
        blk = f.body
        ops = list(blk.ops)
        for op in ops:
            if op.name not in _HOST_OPS and not (op.name == "arith.constant"):
                raise CompileError(f"'{op.name}' cannot run in the host program (it is not inside a dispatch)", op.loc)
        slots: Dict[Value, Slot] = {}
        alias_root: Dict[Value, Value] = {}
        pos = {id(op): i for i, op in enumerate(ops)}

        def root(v):
            while v in alias_root:
                v = alias_root[v]
            return v

        # Results written in place: the value each export reads, if a dispatch produces it.
        result_of: Dict[Value, int] = {}
        for op in ops:
            if op.name == "flow.tensor.reshape":
                alias_root[op.results[0]] = op.operands[0]
        ret = blk.terminator
        exported = []  # (result index j, value)
        for op in ops:
            if op.name == "hal.tensor.export":
                j = [u for u in ret.operands].index(op.results[0]) if op.results[0] in ret.operands else None
                if j is None:
                    raise CompileError("exported tensor is not returned", op.loc)
                exported.append((j, op.operands[0]))
        for j, v in exported:
            r = root(v)
            owner = r.owner
            if isinstance(owner, Operation) and owner.name == "flow.dispatch" and r not in result_of:
                result_of[r] = j
        # Assign slots.
        transients: List[Value] = []
        for op in ops:
            if op.name == "hal.tensor.import":
                a = op.operands[0]
                slots[op.results[0]] = Slot("arg", a.index, 0, tensor_bytes(op.results[0].type))
            elif op.name == "arith.constant" and isinstance(op.results[0].type, T.TensorType):
                data = constant_bytes(op, self.module)
                slots[op.results[0]] = Slot("constant", 0, self._pool_offset(data), len(data))
            elif op.name == "flow.dispatch":
                for r in op.results:
                    if r in result_of:
                        slots[r] = Slot("result", result_of[r], 0, tensor_bytes(r.type))
                    else:
                        transients.append(r)
        # Liveness over op positions (uses through reshapes extend the source's life).
        last_use: Dict[Value, int] = {}
        for op in ops:
            for v in op.operands:
                r = root(v)
                last_use[r] = max(last_use.get(r, 0), pos[id(op)])
        bufs = [(tensor_bytes(v.type), pos[id(v.owner)], last_use.get(v, pos[id(v.owner)])) for v in transients]
        offsets, arena = pack_greedy_by_size(bufs)
        for v, off, (size, _, _) in zip(transients, offsets, bufs):
            slots[v] = Slot("transient", 0, off, size)
        self._rewrite(f, ops, slots, root, exported, arena)
        return {"arena_bytes": arena, "lower_bound_bytes": peak_live_bytes(bufs),
                "transient_sum_bytes": sum(align(s) for s, _, _ in bufs), "transients": len(bufs)}

    def _rewrite(self, f, ops, slots, root, exported, arena):
        blk = f.body
        ret = blk.terminator
        b = Builder(blk, 0, f.loc)
        resources: Dict[Tuple[str, int], Value] = {}
        tensor_sig = f.attributes["ireec.abi.tensor_type"].value
        for i, a in enumerate(blk.args):
            resources[("arg", i)] = b.create("stream.tensor.import", [a], [RESOURCE_EXTERNAL], {
                "index": IntegerAttr(i, T.index), "size": IntegerAttr(tensor_bytes(tensor_sig.inputs[i]), T.index)}).result
        for j, t in enumerate(tensor_sig.results):
            resources[("result", j)] = b.create("stream.resource.result", [], [RESOURCE_EXTERNAL], {
                "index": IntegerAttr(j, T.index), "size": IntegerAttr(tensor_bytes(t), T.index)}).result
        if arena:
            resources[("transient", 0)] = b.create("stream.resource.alloca", [], [RESOURCE_TRANSIENT], {
                "size": IntegerAttr(arena, T.index)}).result
        if any(s.kind == "constant" for s in slots.values()):
            resources[("constant", 0)] = b.create("stream.resource.constants", [], [RESOURCE_CONSTANT], {
                "pool": SymbolRefAttr("__constant_pool")}).result
        for op in ops:
            if op.name != "flow.dispatch":
                continue
            ob = Builder.before(op)
            vals, access, offs, sizes = [], [], [], []
            for v in op.operands:
                s = slots[root(v)]
                vals.append(resources[(s.kind, s.index)])
                access.append("ro")
                offs.append(s.offset)
                sizes.append(s.size)
            for r in op.results:
                s = slots[r]
                vals.append(resources[(s.kind, s.index)])
                access.append("wo")
                offs.append(s.offset)
                sizes.append(s.size)
            ob.create("stream.cmd.dispatch", vals, [], {
                "entry_point": op.attributes["entry_point"],
                "access": ArrayAttr(tuple(StringAttr(a) for a in access)),
                "offsets": DenseArrayAttr(T.i64, tuple(offs)),
                "sizes": DenseArrayAttr(T.i64, tuple(sizes))})
        # Exports not already in place get a copy into the result buffer.
        rb = Builder.before(ret)
        outs = []
        for j, v in sorted(exported):
            s = slots[root(v)]
            if not (s.kind == "result" and s.index == j):
                rb.create("stream.cmd.copy", [resources[(s.kind, s.index)], resources[("result", j)]], [], {
                    "source_offset": IntegerAttr(s.offset, T.index), "target_offset": IntegerAttr(0, T.index),
                    "length": IntegerAttr(s.size, T.index)})
            outs.append(rb.create("stream.tensor.export", [resources[("result", j)]], [T.BUFFER_VIEW], {
                "index": IntegerAttr(j, T.index)}).result)
        ret.set_operands(outs)
        # The tensor-level ops are replaced by the resource ops above.
        for op in reversed(ops):
            if op is not ret:
                op.drop_operands()
        for op in reversed(ops):
            if op is not ret:
                for r in op.results:
                    r.uses.clear()
                op.detach()

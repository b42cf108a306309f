"""Static memory plan of each host function: every tensor gets a fixed place.

Mirrors IREE's Stream ``ScheduleAllocationPass`` + ``LayoutSlicesPass`` (whose packing
cites TFLite's greedy-by-size planner, tensorflow/lite/simple_memory_arena.cc). Inputs
live in the caller's buffers, results are written in place into the caller's result
buffers, constants are pooled into one read-only blob (64-byte aligned entries), and all
other tensors are transients packed into one workspace arena: buffers placed greedily
(largest, longest-lived or first-used first) at a 64-byte aligned offset that does not
overlap a buffer live at the same time; the smallest of those arenas wins. Reshapes alias
their source.

After the pass, the host function holds ``stream.*`` resource ops and
``stream.cmd.dispatch`` / ``stream.cmd.copy`` with byte offsets and sizes.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Tuple


from ...dialects.func import func_name
from ...ir import types as T
from ...ir.attributes import (ArrayAttr, DenseArrayAttr, DictAttr, DenseElementsAttr, DenseResourceAttr,
                              IntegerAttr, StringAttr, SymbolRefAttr, TypeAttr, UnitAttr, to_raw_bytes)
from ...ir.core import Builder, Operation, Value
from ...ir.diagnostics import CompileError
from ..common.cost_model import executable_flops
from ..pass_base import Pass, PassContext, defined_functions, register_pass

ALIGNMENT = 64  # bytes; IREE's default resource alignment (stream.alignment = 64)
RESOURCE_EXTERNAL = T.OpaqueType("stream", "resource<external>")
RESOURCE_TRANSIENT = T.OpaqueType("stream", "resource<transient>")
RESOURCE_CONSTANT = T.OpaqueType("stream", "resource<constant>")
RESOURCE_VARIABLE = T.OpaqueType("stream", "resource<variable>")


def align(n: int, a: int = ALIGNMENT) -> int:
    """``n`` rounded up to a multiple of ``a`` bytes (default: the 64-byte resource alignment)."""
    return (n + a - 1) // a * a


def tensor_bytes(t: T.TensorType) -> int:
    """Bytes of a static tensor as stored (i1 and sub-byte elements take a byte each)."""
    return t.num_elements * T.storage_bytes(t.element_type)


@dataclass
class Slot:
    """Where a tensor lives: kind 'arg'|'result'|'transient'|'constant', buffer index, byte offset."""

    kind: str
    index: int
    offset: int
    size: int


class _IntervalIndex:
    """Closed integer intervals ``[first, last]`` with payloads, queried for those that
    intersect a given interval in O(log T + k) (T: the largest time, k: the answer's size).

    A segment tree over times 0..T: an interval is stored in the O(log T) nodes that cover it
    exactly (for stabbing queries) and in the O(log T) nodes above the leaf of its first
    time (for start-range queries). The intervals meeting [a, b] are those containing a
    plus those starting in (a, b]; the two sets are disjoint, so each is reported once."""

    def __init__(self, max_time: int):
        self.size = 1
        while self.size <= max_time:
            self.size *= 2
        self.cover: Dict[int, list] = {}
        self.starts: Dict[int, list] = {}

    def _canonical(self, lo: int, hi: int):
        """Segment-tree nodes exactly covering times lo..hi (inclusive)."""
        lo += self.size
        hi += self.size + 1
        while lo < hi:
            if lo & 1:
                yield lo
                lo += 1
            if hi & 1:
                hi -= 1
                yield hi
            lo //= 2
            hi //= 2

    def add(self, first: int, last: int, payload) -> None:
        for node in self._canonical(first, last):
            self.cover.setdefault(node, []).append(payload)
        node = first + self.size
        while node:
            self.starts.setdefault(node, []).append(payload)
            node //= 2

    def query(self, first: int, last: int) -> list:
        """Payloads of the stored intervals intersecting [first, last]."""
        out = []
        node = first + self.size
        while node:
            out.extend(self.cover.get(node, ()))
            node //= 2
        if last > first:
            for node in self._canonical(first + 1, last):
                out.extend(self.starts.get(node, ()))
        return out


def _place(buffers: List[Tuple[int, int, int]], order: List[int], best_fit: bool) -> Tuple[List[int], int]:
    """Offsets of ``buffers`` (size, first_use, last_use) placed one by one in ``order``:
    each takes an aligned offset that does not overlap any placed buffer with an
    intersecting live interval [first_use, last_use]: the lowest such offset (first fit), or
    the one in the smallest gap it fits (best fit; the top of the arena counts as an
    unbounded gap). The placed buffers live at the same time come from an interval index:
    O(n log n + overlaps). Returns the offsets and the aligned arena size."""
    placed = _IntervalIndex(max((b[2] for b in buffers), default=0))  # payload (offset, end)
    offsets = [0] * len(buffers)
    for i in order:
        size, first, last = buffers[i]
        live = sorted(placed.query(first, last))
        off, best = 0, None
        for o, e in live:
            if off + size <= o:
                if not best_fit:
                    break
                if best is None or o - off < best[0]:
                    best = (o - off, off)
            off = max(off, align(e))
        if best_fit and best is not None:
            off = best[1]
        offsets[i] = off
        placed.add(first, last, (off, off + size))
    arena = align(max((o + s for o, (s, _, _) in zip(offsets, buffers)), default=0))
    return offsets, arena


#: Orders tried by :func:`pack_transients`, each with first fit and best fit. "size" is
#: TFLite's greedy-by-size (tensorflow/lite/simple_memory_arena.cc, ArenaPlanner);
#: "breadth" (size x lifetime, largest first) and "first use" are the other two greedy
#: orders of Pisarchyk & Lee, "Efficient Memory Management for Deep Neural Net Inference"
#: (2020), whose best-of several heuristics is what TFLite's planners converge to.
PACKING_ORDERS = (
    ("size", lambda b, i: (-b[i][0], b[i][1], i)),
    ("breadth", lambda b, i: (-b[i][0] * (b[i][2] - b[i][1] + 1), -b[i][0], i)),
    ("first use", lambda b, i: (b[i][1], -b[i][0], i)),
)

#: Above this many transients only greedy-by-size is tried.
PACKING_TRIES_MAX_BUFFERS = 512


def pack_greedy_by_size(buffers: List[Tuple[int, int, int]]) -> Tuple[List[int], int]:
    """Offsets for buffers given as (size, first_use, last_use), and the arena size, by
    TFLite's greedy-by-size strategy: largest first, each at the lowest aligned offset
    whose byte range does not overlap any placed buffer with an intersecting live interval."""
    order = sorted(range(len(buffers)), key=lambda i: PACKING_ORDERS[0][1](buffers, i))
    return _place(buffers, order, best_fit=False)


#: Placements tried by the local search of :func:`pack_transients` (for small functions).
PACKING_SEARCH_BUDGET = 400


def pack_transients(buffers: List[Tuple[int, int, int]]) -> Tuple[List[int], int]:
    """The smallest arena found by the greedy orders of :data:`PACKING_ORDERS`, each with
    first and best fit, then improved by a local search that swaps neighbours in the best
    order (at most :data:`PACKING_SEARCH_BUDGET` placements; it stops at the lower bound).
    Ties keep the first found, so the plan is deterministic. ``buffers`` are (size in bytes,
    first_use, last_use); returns (offsets, arena bytes)."""
    n = len(buffers)
    best = pack_greedy_by_size(buffers)
    if n > PACKING_TRIES_MAX_BUFFERS:
        return best
    bound = peak_live_bytes(buffers)
    best_order = sorted(range(n), key=lambda i: PACKING_ORDERS[0][1](buffers, i))
    best_fit_of_best = False
    for _name, key in PACKING_ORDERS:
        order = sorted(range(n), key=lambda i: key(buffers, i))
        for best_fit in (False, True):
            cand = _place(buffers, order, best_fit)
            if cand[1] < best[1]:
                best, best_order, best_fit_of_best = cand, order, best_fit
    budget = PACKING_SEARCH_BUDGET
    improved = True
    while improved and best[1] > bound and budget > 0:
        improved = False
        for k in range(n - 1):
            if budget <= 0 or best[1] <= bound:
                break
            order = best_order[:k] + [best_order[k + 1], best_order[k]] + best_order[k + 2:]
            for best_fit in (best_fit_of_best, not best_fit_of_best):
                budget -= 1
                cand = _place(buffers, order, best_fit)
                if cand[1] < best[1]:
                    best, best_order, best_fit_of_best, improved = cand, order, best_fit, True
                    break
    return best


def peak_live_bytes(buffers: List[Tuple[int, int, int]]) -> int:
    """The most bytes live at any one point: a lower bound for any arena. A sweep over the
    first uses (where the live set can grow), O(n log n)."""
    delta: Dict[int, int] = {}
    for s, f, l in buffers:
        delta[f] = delta.get(f, 0) + align(s)
        delta[l + 1] = delta.get(l + 1, 0) - align(s)
    firsts = {f for _, f, _ in buffers}
    live, peak = 0, 0
    for t in sorted(delta):
        live += delta[t]
        if t in firsts:
            peak = max(peak, live)
    return peak


#: The most bytes one constant (or initial value of a global) may take in the generated C:
#: 2 GiB, the size of a static object x86-64's default (small) code model can address.
MAX_CONSTANT_BYTES = 1 << 31


def constant_bytes(op: Operation, module: Operation) -> bytes:
    """The stored bytes of a tensor ``arith.constant`` (dense or dense_resource). CompileError when a
    resource blob is missing or has the wrong size, or when the constant is larger than
    :data:`MAX_CONSTANT_BYTES` (it is never materialised then)."""
    v = op.attributes["value"]
    if isinstance(v, DenseElementsAttr):
        need = tensor_bytes(v.type)
        if need > MAX_CONSTANT_BYTES:
            raise CompileError(f"constant {v.type} takes {need} bytes, more than the "
                               f"{MAX_CONSTANT_BYTES} bytes a constant of the generated C may have", op.loc)
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


def _value_label(v: Value) -> Tuple[str, object]:
    """A readable name of tensor ``v`` and the location of what defines it: ``<entry
    point>#<result>`` for a dispatch result, the op name (and result index) otherwise."""
    owner = v.owner
    if isinstance(owner, Operation):
        idx = owner.results.index(v)
        if owner.name == "flow.dispatch":
            ep = owner.attributes["entry_point"]
            leaf = ep.nested[-1] if getattr(ep, "nested", ()) else str(ep)
            return f"{leaf}#{idx}", owner.loc
        return f"{owner.name}#{idx}", owner.loc
    return f"block argument {getattr(v, 'index', 0)}", getattr(getattr(v, "owner", None), "loc", None)


def plan_records(ops: List[Operation], transients: List[Value], offsets: List[int],
                 bufs: List[Tuple[int, int, int]]) -> dict:
    """What the memory report (ireec.tools.report) and the budget errors need of one plan:
    ``buffers`` — per transient its name, type, byte size, arena offset, live interval in op
    positions [first, last] and the Location of its producer; ``dispatches`` — per
    ``flow.dispatch`` in order its position, entry point, Location and the bytes it reads
    and writes (operands and results as stored). Keys ``buffers`` and ``dispatches``."""
    buffers = []
    for v, off, (size, first, last) in zip(transients, offsets, bufs):
        name, loc = _value_label(v)
        buffers.append({"name": name, "type": str(v.type), "bytes": size, "offset": off,
                        "first": first, "last": last, "loc": loc})
    dispatches = []
    for i, op in enumerate(ops):
        if op.name != "flow.dispatch":
            continue
        ep = op.attributes["entry_point"]
        read = sum(tensor_bytes(x.type) for x in op.operands if isinstance(x.type, T.TensorType))
        written = sum(tensor_bytes(r.type) for r in op.results if isinstance(r.type, T.TensorType))
        dispatches.append({"position": i, "entry_point": ep.nested[-1] if ep.nested else ep.root,
                           "executable": ep.root, "loc": op.loc,
                           "bytes_read": read, "bytes_written": written})
    return {"buffers": buffers, "dispatches": dispatches}


_HOST_OPS = {"hal.tensor.import", "hal.tensor.export", "flow.dispatch", "flow.tensor.reshape", "flow.tensor.bitcast",
             "arith.constant", "func.return", "cf.br", "cf.cond_br", "tensor.extract",
             "tensor.from_elements", "tensor.insert", "util.global.load", "util.global.store"}


def _is_host_scalar_op(op: Operation) -> bool:
    """Scalar arith/math the host program computes itself (e.g. loop conditions)."""
    return (op.dialect in ("arith", "math") and bool(op.results)
            and not any(isinstance(r.type, T.ShapedType) for r in op.results))


def _alias_sources(ops: List[Operation]) -> Dict[Value, Value]:
    """result -> operand of the ops whose result shares its operand's bytes
    (``flow.tensor.reshape``, ``flow.tensor.bitcast``). CompileError for a bitcast between
    types stored in different byte counts."""
    alias_root: Dict[Value, Value] = {}
    for op in ops:
        if op.name == "flow.tensor.reshape":
            alias_root[op.results[0]] = op.operands[0]
        elif op.name == "flow.tensor.bitcast":
            src, dst = op.operands[0].type, op.results[0].type
            if tensor_bytes(src) != tensor_bytes(dst):
                raise CompileError(f"flow.tensor.bitcast from {src} to {dst}: the element types are "
                                   "stored in different byte counts (packed sub-byte elements are not "
                                   "supported)", op.loc)
            alias_root[op.results[0]] = op.operands[0]
    return alias_root


def _exported_values(ops: List[Operation]) -> List[Tuple[Operation, int, Value]]:
    """(return op, result index, value) for each ``hal.tensor.export``: the value the
    function returns as that result. CompileError for an exported tensor not returned."""
    exported = []
    for op in ops:
        if op.name == "hal.tensor.export":
            ret = op.parent.terminator
            if op.results[0] not in ret.operands:
                raise CompileError("exported tensor is not returned", op.loc)
            exported.append((ret, ret.operands.index(op.results[0]), op.operands[0]))
    return exported


def _element_strides(shape) -> List[int]:
    strides, acc = [], 1
    for d in reversed(list(shape)):
        strides.append(acc)
        acc *= d
    return list(reversed(strides))


def _plan_staging(plan: dict, padded: dict) -> None:
    """Arguments and results with dimensions padded to a bound
    (``ireec-pad-dynamic-dims-to-bounds``) are staged by the entry point in bound-shaped
    buffers after the arena: ``staging_offset`` is where they start (64-byte aligned, one
    after the other in argument then result order), ``arena_bytes`` grows by them, and
    ``bounds`` lists each padded symbol's [argument, dimension, bound] for the report."""
    sizes = [int(x) for x in padded["staging"].value]
    plan["staging_offset"] = align(plan["arena_bytes"])
    plan["staging_bytes"] = sum(align(n) for n in sizes if n)
    plan["arena_bytes"] = plan["staging_offset"] + plan["staging_bytes"]
    # Staging buffers are live for the whole call: they add to the bound and the sum too.
    plan["lower_bound_bytes"] += plan["staging_bytes"]
    plan["transient_sum_bytes"] += plan["staging_bytes"]
    plan["bounds"] = [list(x.value) for x in padded["symbols"]]


@register_pass
class ScheduleAllocationPass(Pass):
    name = "iree-stream-schedule-allocation"

    def run(self, module: Operation, ctx: PassContext) -> None:
        # The pool blob as dense_resource stores it: its alignment (4 bytes), then the data;
        # offsets count from the data. Constants are deduplicated by (size, hash) with a
        # byte comparison, so no constant is held twice.
        self.pool = bytearray(ALIGNMENT.to_bytes(4, "little"))
        self.pool_index: Dict[Tuple[int, int], List[int]] = {}
        self.module = module
        self.globals = self._place_globals(module)
        report = ctx.report.setdefault("functions", {})
        ctx.report["dispatch_flops"] = executable_flops(module)
        for f in defined_functions(module):
            if "iree.abi.stub" in f.attributes:
                plan = report[func_name(f)] = self.plan(f)
                if "ireec.dynamic_dims" in f.attributes:
                    # One static slice per point of the dynamic dims (map-dynamic-dims): the
                    # arena is the need of every extent, i.e. the worst case.
                    plan["dynamic_dims"] = len(f.attributes["ireec.dynamic_dims"].as_dict()["arg_dims"].value)
                keys = ["arena_bytes", "lower_bound_bytes", "transient_sum_bytes"]
                if "ireec.padded_dims" in f.attributes:
                    _plan_staging(plan, f.attributes["ireec.padded_dims"].as_dict())
                    keys.append("staging_offset")
                f.attributes["stream.memory_plan"] = DictAttr(tuple(
                    (k, IntegerAttr(plan[k], T.index)) for k in keys))
        pool_bytes = len(self.pool) - 4
        if pool_bytes:
            module.resources = dict(getattr(module, "resources", {}))
            # The bytearray itself (no copy: a 400 MB pool is held once).
            module.resources["__ireec_constant_pool"] = self.pool
            pool_t = T.TensorType((pool_bytes,), T.IntegerType(8))
            module.body.insert(0, Operation("util.global", attributes={
                "sym_name": StringAttr("__constant_pool"), "sym_visibility": StringAttr("private"),
                "type": TypeAttr(pool_t), "initial_value": DenseResourceAttr("__ireec_constant_pool", pool_t)}))
        ctx.report["constant_pool_bytes"] = pool_bytes
        self.pool = self.pool_index = None
        ctx.report["global_state_bytes"] = len(getattr(module, "resources", {}).get("__ireec_global_state", b"")[4:])

    def _place_globals(self, module: Operation) -> Dict[str, Slot]:
        """Mutable tensor globals live at fixed offsets of one module-level state blob whose
        initial bytes are the globals' initial values (``__ireec_global_state``)."""
        state = bytearray()
        placed: Dict[str, Slot] = {}
        for op in list(module.body.ops):
            if op.name != "util.global":
                continue
            t = op.attributes["type"].value
            if not isinstance(t, T.TensorType):
                continue
            if tensor_bytes(t) > MAX_CONSTANT_BYTES:
                raise CompileError(f"global {t} takes {tensor_bytes(t)} bytes, more than the "
                                   f"{MAX_CONSTANT_BYTES} bytes of module state the generated C may have", op.loc)
            init = op.attributes.get("initial_value")
            data = constant_bytes(Operation("arith.constant", attributes={"value": init}, loc=op.loc), module) \
                if init is not None else bytes(tensor_bytes(t))
            state.extend(b"\0" * (align(len(state)) - len(state)))
            placed[op.attributes["sym_name"].value] = Slot("global", 0, len(state), len(data))
            state.extend(data)
            op.detach()
        if state:
            module.resources = dict(getattr(module, "resources", {}))
            module.resources["__ireec_global_state"] = (ALIGNMENT).to_bytes(4, "little") + bytes(state)
            st = T.TensorType((len(state),), T.IntegerType(8))
            module.body.insert(0, Operation("util.global", attributes={
                "sym_name": StringAttr("__global_state"), "sym_visibility": StringAttr("private"),
                "is_mutable": UnitAttr(), "type": TypeAttr(st),
                "initial_value": DenseResourceAttr("__ireec_global_state", st)}))
        return placed

    def _pool_offset(self, data: bytes) -> int:
        """Offset in the pool's data of the bytes ``data``, appended (aligned) unless the
        pool holds the same bytes already."""
        n = len(data)
        key = (n, hash(data))
        for off in self.pool_index.get(key, ()):
            with memoryview(self.pool) as view:
                if view[4 + off: 4 + off + n] == data:
                    return off
        used = len(self.pool) - 4
        self.pool.extend(bytes(align(used) - used))
        off = len(self.pool) - 4
        self.pool.extend(data)
        self.pool_index.setdefault(key, []).append(off)
        return off

    def plan(self, f: Operation) -> dict:
        """Place every tensor of host function ``f`` and rewrite it to stream ops; returns its report
    entry (arena, lower bound and transient-sum bytes, transient count). CompileError for ops
    the host cannot run."""
        blocks = list(f.regions[0].blocks)
        multi = len(blocks) > 1
        ops = [op for blk in blocks for op in blk.ops]
        for op in ops:
            if op.name not in _HOST_OPS and not _is_host_scalar_op(op):
                raise CompileError(f"'{op.name}' cannot run in the host program (it is not inside a dispatch)", op.loc)
        alias_root = _alias_sources(ops)
        pos = {id(op): i for i, op in enumerate(ops)}

        def root(v):
            while v in alias_root:
                v = alias_root[v]
            return v

        # Results written in place: the value each export reads, if a dispatch produces it
        # (straight-line functions only: with branches a value may reach several returns).
        exported = _exported_values(ops)
        result_of: Dict[Value, int] = {}
        if not multi:
            for _, j, v in exported:
                r = root(v)
                owner = r.owner
                if isinstance(owner, Operation) and owner.name == "flow.dispatch" and r not in result_of:
                    result_of[r] = j
        slots, transients = self._place_sources(blocks, ops, result_of)
        # Liveness over op positions (uses through reshapes extend the source's life). With
        # branches, positions do not order execution: every transient lives throughout.
        last_use: Dict[Value, int] = {}
        for op in ops:
            for v in op.operands:
                r = root(v)
                last_use[r] = max(last_use.get(r, 0), pos[id(op)])

        def interval(v):
            if multi:
                return (0, len(ops))
            first = pos[id(v.owner)]
            return (first, last_use.get(v, first))

        bufs = [(tensor_bytes(v.type),) + interval(v) for v in transients]
        offsets, arena = pack_transients(bufs)
        for v, off, (size, _, _) in zip(transients, offsets, bufs):
            slots[v] = Slot("transient", 0, off, size)
        records = plan_records(ops, transients, offsets, bufs)
        self._rewrite(f, blocks, ops, slots, root, exported, arena)
        return {"arena_bytes": arena, "lower_bound_bytes": peak_live_bytes(bufs),
                "transient_sum_bytes": sum(align(s) for s, _, _ in bufs), "transients": len(bufs),
                **records}

    def _place_sources(self, blocks, ops, result_of: Dict[Value, int]):
        """The slots of the tensors that need no arena (arguments, constants, dispatch
        results written in place as the function's result ``result_of[v]``) and, in order,
        the tensors that take a transient buffer of the arena (block arguments after the
        entry block, the other dispatch results, host-built tensors, global loads)."""
        slots: Dict[Value, Slot] = {}
        transients: List[Value] = []
        for blk in blocks[1:]:
            transients.extend(a for a in blk.args if isinstance(a.type, T.TensorType))
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
            elif op.name in ("tensor.from_elements", "tensor.insert", "util.global.load"):
                transients.append(op.results[0])
        return slots, transients

    def _rewrite(self, f, blocks, ops, slots, root, exported, arena):
        entry = blocks[0]
        b = Builder(entry, 0, f.loc)
        resources: Dict[Tuple[str, int], Value] = {}
        tensor_sig = f.attributes["ireec.abi.tensor_type"].value
        for i, a in enumerate(entry.args):
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
        if any(op.name.startswith("util.global.") for op in ops):
            resources[("global", 0)] = b.create("stream.resource.globals", [], [RESOURCE_VARIABLE], {
                "state": SymbolRefAttr("__global_state")}).result

        rw = _OpRewriter(self, slots, root, resources)
        where, copy = rw.where, rw.copy
        for op in ops:
            fn = _OP_REWRITES.get(op.name)
            if fn is not None:
                fn(rw, op, Builder.before(op))
            elif op.name == "arith.constant" and isinstance(op.results[0].type, T.TensorType):
                rw.erased.append(op)
        erased = rw.erased
        # Exports not already in place get a copy into the result buffer.
        by_ret: Dict[int, List] = {}
        for ret, j, v in exported:
            by_ret.setdefault(id(ret), [ret, []])[1].append((j, v))
        for ret, items in by_ret.values():
            rb = Builder.before(ret)
            outs = []
            for j, v in sorted(items, key=lambda x: x[0]):
                res, s = where(v)
                if not (s.kind == "result" and s.index == j):
                    copy(rb, res, s.offset, resources[("result", j)], 0, s.size)
                outs.append(rb.create("stream.tensor.export", [resources[("result", j)]], [T.BUFFER_VIEW], {
                    "index": IntegerAttr(j, T.index)}).result)
            ret.set_operands(outs)
        # The tensor-level ops are replaced by the resource ops above.
        for op in erased:
            op.drop_operands()
        for op in erased:
            for r in op.results:
                r.uses.clear()
            op.detach()
        # Tensor block arguments now live in their slots.
        for blk in blocks[1:]:
            for i in reversed(range(len(blk.args))):
                if isinstance(blk.args[i].type, T.TensorType):
                    blk.erase_arg(i)

    @staticmethod
    def _branch_copies(op, ob, slots, resources, where, copy):
        """Tensor successor operands are copied into the slots of the block arguments they
        bind (every block argument has its own slot); the branch keeps only its scalar
        operands. A branch passing a destination block's own tensor arguments in another
        order (a swap, which would need a temporary) is a CompileError."""
        if op.name == "cf.br":
            groups = [(op.successors[0], list(op.operands))]
            keep = []
        else:
            seg = list(op.attributes["operandSegmentSizes"].value)
            vals = list(op.operands)
            t_vals = vals[1:1 + seg[1]]
            f_vals = vals[1 + seg[1]:]
            groups = [(op.successors[0], t_vals), (op.successors[1], f_vals)]
            keep = [vals[0]]
        new_groups = []
        for dest, vals in groups:
            pairs = [(v, a) for v, a in zip(vals, dest.args) if isinstance(a.type, T.TensorType)]
            dst_slots = {id(slots[a]) for _, a in pairs}
            hazard = any(id(slots.get(v)) in dst_slots and v is not a for v, a in pairs)
            if hazard:
                raise CompileError("a branch passes a block's own tensor arguments in a different "
                                   "order; this is not supported yet", op.loc)
            for v, a in pairs:
                res, s = where(v)
                d = slots[a]
                copy(ob, res, s.offset, resources[(d.kind, d.index)], d.offset, d.size)
            new_groups.append([v for v, a in zip(vals, dest.args) if not isinstance(a.type, T.TensorType)])
        if op.name == "cf.br":
            op.set_operands(new_groups[0])
        else:
            op.set_operands(keep + new_groups[0] + new_groups[1])
            op.attributes["operandSegmentSizes"] = DenseArrayAttr(T.i32, (1, len(new_groups[0]), len(new_groups[1])))


class _OpRewriter:
    """The per-op rewrites of :meth:`ScheduleAllocationPass._rewrite` ({op name: method} in
    :data:`_OP_REWRITES`): tensor-level ops become ops on the resources (``resources``:
    (slot kind, index) → resource value) at their slots; replaced ops collect in ``erased``."""

    def __init__(self, owner, slots, root, resources):
        self.owner = owner
        self.slots = slots
        self.root = root
        self.resources = resources
        self.erased: List[Operation] = []

    def where(self, v):
        """(resource, slot) holding tensor value ``v``."""
        s = self.slots[self.root(v)]
        return self.resources[(s.kind, s.index)], s

    @staticmethod
    def copy(bb, src_res, src_off, dst_res, dst_off, length):
        """``stream.cmd.copy`` of ``length`` bytes (nothing when source and target coincide)."""
        if src_res is dst_res and src_off == dst_off:
            return
        bb.create("stream.cmd.copy", [src_res, dst_res], [], {
            "source_offset": IntegerAttr(src_off, T.index), "target_offset": IntegerAttr(dst_off, T.index),
            "length": IntegerAttr(length, T.index)})

    def dispatch(self, op, ob):
        slots, resources = self.slots, self.resources
        vals, access, offs, sizes = [], [], [], []
        for v in op.operands:
            res, s = self.where(v)
            vals.append(res)
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
        self.erased.append(op)

    def extract(self, op, ob):
        src = op.operands[0]
        res, s = self.where(src)
        ld = ob.create("stream.resource.load", [res] + list(op.operands[1:]), [op.results[0].type], {
            "offset": IntegerAttr(s.offset, T.index),
            "strides": DenseArrayAttr(T.i64, tuple(_element_strides(src.type.shape))),
            "shape": DenseArrayAttr(T.i64, tuple(src.type.shape)),
            "element_type": TypeAttr(src.type.element_type)})
        op.results[0].replace_all_uses_with(ld.result)
        self.erased.append(op)

    def from_elements(self, op, ob):
        res, s = self.where(op.results[0])
        eb = T.storage_bytes(op.results[0].type.element_type)
        for k, v in enumerate(op.operands):
            ob.create("stream.resource.store", [v, res], [], {
                "offset": IntegerAttr(s.offset + k * eb, T.index),
                "strides": DenseArrayAttr(T.i64, ()), "element_type": TypeAttr(v.type)})
        self.erased.append(op)

    def insert(self, op, ob):
        # IREE's flow.tensor.store: the host copies the tensor and writes one element.
        src_res, src = self.where(op.operands[1])
        res, s = self.where(op.results[0])
        self.copy(ob, src_res, src.offset, res, s.offset, s.size)
        ob.create("stream.resource.store", [op.operands[0], res] + list(op.operands[2:]), [], {
            "offset": IntegerAttr(s.offset, T.index),
            "strides": DenseArrayAttr(T.i64, tuple(_element_strides(op.results[0].type.shape))),
            "shape": DenseArrayAttr(T.i64, tuple(op.results[0].type.shape)),
            "element_type": TypeAttr(op.operands[0].type)})
        self.erased.append(op)

    def global_load(self, op, ob):
        g = self.owner.globals[op.attributes["global"].root]
        res, s = self.where(op.results[0])
        self.copy(ob, self.resources[("global", 0)], g.offset, res, s.offset, s.size)
        self.erased.append(op)

    def global_store(self, op, ob):
        g = self.owner.globals[op.attributes["global"].root]
        res, s = self.where(op.operands[0])
        self.copy(ob, res, s.offset, self.resources[("global", 0)], g.offset, s.size)
        self.erased.append(op)

    def branch(self, op, ob):
        self.owner._branch_copies(op, ob, self.slots, self.resources, self.where, self.copy)

    def erase(self, op, ob):
        """Ops with nothing left to do once tensors live in slots."""
        self.erased.append(op)


#: The rewrite of each tensor-level op of a public function ({op name: method}).
_OP_REWRITES = {
    "flow.dispatch": _OpRewriter.dispatch,
    "tensor.extract": _OpRewriter.extract,
    "tensor.from_elements": _OpRewriter.from_elements,
    "tensor.insert": _OpRewriter.insert,
    "util.global.load": _OpRewriter.global_load,
    "util.global.store": _OpRewriter.global_store,
    "cf.br": _OpRewriter.branch,
    "cf.cond_br": _OpRewriter.branch,
    **{n: _OpRewriter.erase for n in ("hal.tensor.import", "hal.tensor.export", "flow.tensor.reshape",
                                       "flow.tensor.bitcast")},
}

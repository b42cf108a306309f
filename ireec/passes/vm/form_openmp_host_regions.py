"""``ireec-form-openmp-host-regions``: a straight-line host function runs its dispatches in
one OpenMP parallel region.

Mirrors MLIR's ``convert-scf-to-openmp`` (``ConvertSCFToOpenMPPass``: an ``scf.parallel``
becomes ``omp.parallel`` around an ``omp.wsloop``) applied to a host function's dispatches,
the way IREE's task executor keeps its workers across the dispatches of a command buffer:
one fork/join per call instead of one per dispatch.

A host ``emitc.func`` whose body is straight-line — its ``(void)<param>;`` statements
(``param_use``), then calls carrying ``accesses`` (dispatch launches, buffer copies), then
``emitc.return`` — with at least two calls of a launch whose variant is work-shared (the
target's :meth:`~ireec.targets.base.Target.workshare_launch`: a dispatch of several
workgroups) becomes ``#pragma omp parallel { ... }``: each launch call calls its
``<launch>_workshare`` variant (``omp for schedule(static) nowait``, or on the primary thread
for a single workgroup); a buffer copy runs on the primary thread (``omp masked``, no
barrier). A ``#pragma omp barrier`` goes before a call whose byte ranges overlap a range an
earlier call since the last barrier writes, or write one it reads, unless both run on the
primary thread (:func:`barriers`); the region's end is the last barrier. Targets without
work-shared launches (``c``, ``cuda``) keep every function as it is.

A straight-line function whose call gains too little from a second thread runs on the
calling thread: its region is ``#pragma omp parallel if(0)`` (a team of one, no other thread
woken, the work-shared loops binding to it), formed even for a single work-shared launch.
The estimate (:func:`parallel_gain`) counts work as its dispatches' operations
(ireec/passes/common/cost_model.py) plus the 4-byte elements their byte ranges span; two
threads save half of each work-shared launch's work (less the share of its uneven
workgroup split) and cost :data:`FORK_WORK` for waking the team plus :data:`BARRIER_WORK`
for each barrier the region needs. Two threads, the fewest that share. The estimate errs
towards one thread for a chain of many small dependent dispatches, which gains little on a
quiet machine and loses much on a busy one, where every barrier waits for a worker the
scheduler may have preempted: a GPT block (15 dispatches, 12 barriers) took 0.036-0.039 ms
on two threads and 0.041-0.043 on one, and beside two busy processes its 99th percentile
call took 57 times the quiet one on two threads, 1.3 times on one (benchmarks/busy.py). A
quantized MLP (4 x 64 -> 128 -> 10, int8) took 15.8 us on 2 threads and 6 us on one (gcc 12,
libgomp with ``GOMP_SPINCOUNT=300``, this project's Xeon).
"""
from __future__ import annotations

import math
from typing import Collection, Dict, List, Mapping, Optional, Sequence, Tuple

from ...emitc.access import BufferAccessAttr
from ...emitc.ctypes import c_ident
from ...emitc.openmp import OMP_PRIMARY, omp_pragma
from ...ir.attributes import StringAttr
from ...ir.core import Operation
from ..pass_base import Pass, PassContext, register_pass

#: (byte ranges of a call, whether it runs on the primary thread alone).
Item = Tuple[Sequence[BufferAccessAttr], bool]


def launch_grid(kernel: Operation) -> List[Tuple[str, int]]:
    """The (axis, count) loops a kernel's launch function runs, outermost first (z, y, x),
    leaving out axes of one workgroup (from its ``workgroup_count``)."""
    wg = ([int(c) for c in kernel.attributes["workgroup_count"].value] + [1, 1, 1])[:3]
    return [(axis, c) for axis, c in (("z", wg[2]), ("y", wg[1]), ("x", wg[0])) if c > 1]


def _conflict(pending: Sequence[BufferAccessAttr], ranges: Sequence[BufferAccessAttr]) -> bool:
    """Whether ``ranges`` overlap a range of ``pending`` with at least one of the two writing
    (read after write, write after read or write after write)."""
    return any(a.overlaps(p) and (a.writes or p.writes) for a in ranges for p in pending)


def barriers(items: Sequence[Item]) -> List[bool]:
    """Where a host region needs ``omp barrier``: for each call (its byte ranges, and
    whether it runs on the primary thread alone rather than shared by all threads), whether
    a barrier goes before it. A call waits for what earlier calls since the last barrier
    touched (:func:`_conflict`), except that a primary-thread call never waits for earlier
    primary-thread calls: the same thread ran them in program order."""
    shared: List[BufferAccessAttr] = []   # ranges of work-shared calls since the barrier
    primary: List[BufferAccessAttr] = []  # ranges of primary-thread calls since the barrier
    out = []
    for ranges, on_primary in items:
        wait = _conflict(shared, ranges) or (not on_primary and _conflict(primary, ranges))
        if wait:
            shared, primary = [], []
        out.append(wait)
        (primary if on_primary else shared).extend(ranges)
    return out


def straight_line(f: Operation) -> Optional[Tuple[List[Operation], List[Operation], Operation]]:
    """(parameter marks, calls, return) of a host function whose body is only those, in that
    order; None for any other body."""
    blocks = f.regions[0].blocks
    if len(blocks) != 1:
        return None
    prelude, calls, ret = [], [], None
    for op in blocks[0].ops:
        if op.name == "emitc.verbatim" and "param_use" in op.attributes and not calls:
            prelude.append(op)
        elif op.name == "emitc.call_opaque" and ret is None and "accesses" in op.attributes:
            calls.append(op)
        elif op.name == "emitc.return" and ret is None:
            ret = op
        else:
            return None
    return (prelude, calls, ret) if ret is not None else None


def _verbatim(lines: Sequence[str], loc) -> List[Operation]:
    return [Operation("emitc.verbatim", attributes={"value": StringAttr(x)}, loc=loc) for x in lines]


#: Work (operations plus 4-byte elements, as :func:`call_work` counts it) that waking a
#: team of two costs a call: a fork/join with sleeping workers (libgomp's futex wake-up)
#: takes 5-15 us on this project's 2-core Xeon, where one thread does 50-90 units a
#: nanosecond on torch-mlir's models. So a call of one evenly split launch runs on two
#: threads above 2M: cnn_int8 (1.8M) took 0.028-0.039 ms on two threads and 0.022-0.025 on
#: one; mlp (3.5M) 0.021 on two, 0.028 on one.
FORK_WORK = 1_000_000

#: Work that each barrier of a region costs: the wait itself (0.3 us between two running
#: threads), the uneven split of the small dispatches between barriers and the data that
#: crosses between the cores' caches. Chosen between what torch-mlir's models need (ms on
#: two threads / one, benchmarks/onnx_runtime.py's models): gpt_block (3.6M in 15
#: dispatches, 12 barriers; 0.036-0.039 / 0.041-0.043) runs on one thread above 68K;
#: mobilenet_block (3.7M, 4 barriers; 0.038 / 0.052) and mobilenetv2 (18.5M, 54 barriers;
#: 0.31 / 0.39) run on two below 215K and 147K.
BARRIER_WORK = 100_000


def call_work(calls: Sequence[Operation], launches: Collection[str], flops: Mapping[str, int],
              module_name: str) -> Optional[List[int]]:
    """Work of each of ``calls`` (one call of a straight-line function): a launch's
    operations (``launches``: the kernels' launch functions; ``flops``: entry point ->
    operations, the launch being ``<module>_<entry>``) plus the 4-byte elements of the
    call's byte ranges. None when a launch's operations are not known (then the function is
    not taken for small)."""
    by_symbol = {f"{module_name}_{c_ident(k)}": v for k, v in flops.items()}
    work = []
    for op in calls:
        callee = op.attributes["callee"].value
        if callee in launches and callee not in by_symbol:
            return None
        work.append(by_symbol.get(callee, 0) + sum(a.size for a in op.attributes["accesses"].value) // 4)
    return work


def parallel_gain(work: Sequence[int], plan: Sequence[Item], workgroups: Sequence[int]) -> int:
    """Work that a team of two threads saves on one call, less what it costs (negative: the
    call runs faster on one thread). ``work``: each call's (:func:`call_work`); ``plan``:
    each call's byte ranges and whether it runs on the primary thread alone; ``workgroups``:
    each call's workgroup count. A work-shared call saves the share of its work that the
    second thread takes (``w - w * ceil(g / 2) / g``: an odd count leaves one thread a
    workgroup more); the team costs :data:`FORK_WORK` plus :data:`BARRIER_WORK` for each
    barrier the region needs (:func:`barriers`)."""
    saved = sum(w - w * ((g + 1) // 2) // g for w, (_, primary), g in zip(work, plan, workgroups)
                if not primary)
    return saved - FORK_WORK - BARRIER_WORK * sum(barriers(plan))


def _plan(calls: Sequence[Operation], workshare: Mapping[str, dict]) -> List[Item]:
    """Each call's byte ranges and whether it runs on the primary thread alone (a copy, or a
    launch of a single workgroup)."""
    out = []
    for op in calls:
        callee = op.attributes["callee"].value
        out.append((op.attributes["accesses"].value, callee not in workshare or workshare[callee]["primary"]))
    return out


def form_region(f: Operation, workshare: Dict[str, dict], serial: bool = False,
                parts: Optional[Tuple[List[Operation], List[Operation], Operation]] = None) -> None:
    """Run the calls of host function ``f`` in one parallel region, in place (see the module
    docstring); ``workshare``: {launch: the target's work-shared variant} of the kernels;
    ``serial``: a team of one (``parallel if(0)``) for a call too small to share. Leaves
    ``f`` as it is when its body is not straight-line or (not ``serial``) it has fewer than
    two calls of a work-shared (several-workgroup) launch: the region then saves no
    fork/join; a serial one needs one such call. ``parts``: :func:`straight_line` of ``f``
    when the caller has it already."""
    parts = parts if parts is not None else straight_line(f)
    if parts is None:
        return
    prelude, calls, ret = parts
    shared = {k for k, w in workshare.items() if not w["primary"]}
    if sum(1 for op in calls if op.attributes["callee"].value in shared) < (1 if serial else 2):
        return
    pragma = "parallel if(0)" if serial else "parallel"
    out: List[Operation] = list(prelude) + _verbatim(omp_pragma(pragma) + ["{"], f.loc)
    plan = _plan(calls, workshare)
    for op in calls:
        callee = op.attributes["callee"].value
        if callee in workshare:
            op.attributes["callee"] = StringAttr(workshare[callee]["name"])
    primary = {w["name"] for w in workshare.values() if w["primary"]}
    for op, (_ranges, on_primary), wait in zip(calls, plan, barriers(plan)):
        if wait and not serial:  # a team of one needs no barrier
            out += _verbatim(omp_pragma("barrier"), f.loc)
        if on_primary and op.attributes["callee"].value not in primary:
            out += _verbatim(OMP_PRIMARY, f.loc)  # host work (a copy)
        out.append(op)
    out += _verbatim(["}"], f.loc) + [ret]
    body = f.regions[0].blocks[0]
    for op in list(body.ops):
        op.detach()
    for op in out:
        body.append(op)


def _runs_serially(parts, workshare: Mapping[str, dict], workgroups: Mapping[str, int],
                   flops: Optional[Mapping[str, int]], module_name: str) -> bool:
    """Whether a straight-line function (``parts``) runs on the calling thread: two threads
    would not gain (:func:`parallel_gain`); False when the work of a launch is not known."""
    if parts is None or flops is None:
        return False
    calls = parts[1]
    work = call_work(calls, workshare, flops, module_name)
    if work is None:
        return False
    counts = [workgroups.get(op.attributes["callee"].value, 1) for op in calls]
    return parallel_gain(work, _plan(calls, workshare), counts) <= 0


@register_pass
class FormOpenMPHostRegionsPass(Pass):
    """See the module docstring."""

    name = "ireec-form-openmp-host-regions"

    def run(self, module: Operation, ctx: PassContext) -> None:
        funcs = [op for op in module.body.ops if op.name == "emitc.func"]
        workshare, workgroups = {}, {}
        for k in funcs:
            if k.attributes["kind"].value == "kernel":
                launch = f"{ctx.module_name}_{k.attributes['launch'].value}"
                grid = launch_grid(k)
                workgroups[launch] = math.prod(c for _, c in grid)
                w = ctx.target.workshare_launch(launch, grid)
                if w is not None:
                    workshare[launch] = w
        if not workshare:
            return
        flops = ctx.report.get("dispatch_flops")
        for f in funcs:
            if f.attributes["kind"].value == "host":
                parts = straight_line(f)
                serial = _runs_serially(parts, workshare, workgroups, flops, ctx.module_name)
                form_region(f, workshare, serial=serial, parts=parts)

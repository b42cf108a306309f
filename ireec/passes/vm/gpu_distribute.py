"""Workgroups are mapped onto the target's threads, and kernels get their C specifiers.

Mirrors IREE's ``iree-codegen-gpu-distribute`` (GPUDistributePass,
``compiler/src/iree/compiler/Codegen/Common/GPU/GPUDistribute.cpp``), which distributes a
workgroup's parallel loops over the threads of the workgroup. The target gives what the
rewrite needs as data (``ireec.targets.base.Target``: ``max_workgroup_threads``,
``subgroup_size``, ``thread_id``, ``barrier``, ``subgroup_shuffle_down``, ``shuffle_types``,
``workgroup_memory_bytes`` and ``workgroup_memory_qualifier``, the collective micro-kernels
``workgroup_ukernel_*``); CPU targets (one thread per workgroup) leave kernels unchanged. A
workgroup size above one is recorded as the kernel's ``workgroup_size`` attribute (IREE: the
``workgroup_size`` of the export's ``translation_info``).

:func:`distribute_workgroup` spreads the workgroup over the block's threads when its body is
a sequence of *steps* — loops whose iterations are independent
(:func:`ireec.emitc.analysis.iterations_independent`: elementwise work, and rows of
reductions or matmuls, each iteration owning its outputs), calls of collective micro-kernels
(callee ``workgroup_ukernel_prefix``, which every thread of the block makes together) and
single stores (thread 0 makes them) — with only uniform scalar ops, loads every thread makes
alike and per-tile temporary arrays (put in workgroup-shared memory: one copy per block)
between them:

- in each loop thread ``t`` runs iterations ``lb + t*step``, ``+ threads*step``...
  (block-stride, so consecutive threads touch consecutive elements; the block size is a
  constant so the compiler can unroll and batch the loads);
- a barrier separates steps from each other and from the loads between them (what one
  writes, the next may read from another thread);
- row reductions over contiguous rows of at least a subgroup's length take a subgroup per
  row instead, and so do loops whose rows are runs of at least a subgroup of independent
  contiguous elements (coalesced where a thread per row would stride); a loop folding
  everything into one element (at least a subgroup of iterations) runs over the whole block
  (:mod:`ireec.passes.vm.gpu_distribute_reductions`);
- block size: ``workgroup_ukernel_threads`` with a micro-kernel call, else
  ``max_workgroup_threads`` or the largest constant trip count rounded up to a subgroup when
  smaller;
- a loop that is not independent beside a micro-kernel call runs on thread 0 alone (so do all
  loops there when the temporaries and the micro-kernel's tiles exceed
  ``workgroup_memory_bytes``); any other body (or temporaries beyond the limit) runs on one
  thread.

It runs after loop-invariant code motion and independence marking (the distribution reads
their result) and is the last pass to change the kernels' loop structure, so it also sets the
kernel's ``specifiers``: the target's (:meth:`Target.kernel_specifiers`), which depend on
whether the kernel still has a loop (CPU targets give those an AVX2 clone).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional

from ...emitc.analysis import iterations_independent, trip_count
from ...emitc.ctypes import c_type_bytes
from ...ir import types as T
from ...ir.attributes import ArrayAttr, IntegerAttr, StringAttr
from ...ir.core import Block, Builder, Operation
from ...ir.diagnostics import CompileError
from ..pass_base import Pass, PassContext, register_pass
from .emitc_utils import emitc_funcs
from .gpu_distribute_reductions import (distribute_block_reduction, distribute_rows_of_elements,
                                        distribute_rows_over_warps, expr, fold_loop, row_of_elements,
                                        row_reduction, thread_index)

#: Ops that may stand beside the distributed loops: every thread computes them alike.
UNIFORM_OPS = ("emitc.verbatim", "emitc.constant", "emitc.expression")


@dataclass
class WorkgroupPlan:
    """How the steps of one workgroup body spread over the block: ``steps`` (loops, stores,
    collective calls, in order), ``loops`` (the ``emitc.for`` steps), ``has_call`` (a
    collective micro-kernel call among them), ``serial`` (the loops run on thread 0: the
    workgroup memory does not fit), ``independent`` (loop -> its iterations are independent),
    ``folds`` (loop -> fold into one element over the block), ``rows`` (loop -> (rewrite,
    match): a subgroup per row) and ``threads`` (the block size)."""

    steps: List[Operation]
    loops: List[Operation]
    has_call: bool
    serial: bool
    independent: Dict[Operation, bool]
    folds: Dict[Operation, tuple] = field(default_factory=dict)
    rows: Dict[Operation, tuple] = field(default_factory=dict)
    threads: int = 1


def _collective(op: Operation, target) -> bool:
    """Whether ``op`` calls a micro-kernel that every thread of the block calls together."""
    return (bool(target.workgroup_ukernel_prefix) and op.name == "emitc.call_opaque"
            and op.attributes["callee"].value.startswith(target.workgroup_ukernel_prefix))


def _block_array(op: Operation) -> bool:
    """Whether ``op`` declares a per-tile temporary array (no initial values)."""
    return (op.name == "emitc.variable" and "array_size" in op.attributes
            and "init_values" not in op.attributes)


def _block_size(target, trips: int) -> int:
    """Threads of a block whose loop has ``trips`` iterations: ``max_workgroup_threads``, or
    ``trips`` rounded up to a subgroup when smaller."""
    warp = target.subgroup_size
    return min(target.max_workgroup_threads, max(warp, -(-trips // warp) * warp))


def plan_workgroup(body: Block, target) -> Optional[WorkgroupPlan]:
    """The steps of ``body`` and which of them spread how (the rules of the module
    docstring), before any rewrite; None when the workgroup runs on one thread. CompileError
    for a collective micro-kernel call nested in a loop."""
    for op in body.ops:
        for inner in op.walk():
            if inner is not op and _collective(inner, target):
                raise CompileError("a device micro-kernel call inside a loop cannot be spread "
                                   "over the block's threads", inner.loc)
    steps = [op for op in body.ops if op.name in ("emitc.for", "emitc.store") or _collective(op, target)]
    loops = [op for op in steps if op.name == "emitc.for"]
    has_call = any(_collective(op, target) for op in steps)
    if not (loops or has_call) or any(op.name not in UNIFORM_OPS + ("emitc.load",) and not _block_array(op)
                                      for op in body.ops if op not in steps):
        return None
    shared = sum(int(op.attributes["array_size"].value) * c_type_bytes(op.attributes["element"].value)
                 for op in body.ops if _block_array(op))
    serial = shared + (target.workgroup_ukernel_memory_bytes if has_call else 0) > target.workgroup_memory_bytes
    plan = WorkgroupPlan(steps, loops, has_call, serial, {loop: iterations_independent(loop) for loop in loops})
    warp = target.subgroup_size
    for loop in loops:
        match = None if plan.independent[loop] or serial else fold_loop(loop, target)
        if match is not None and (trip_count(loop) or warp) >= warp:
            plan.folds[loop] = match
    if not has_call and (serial or not all(plan.independent[loop] or loop in plan.folds for loop in loops)):
        return None
    return plan


def _plan_rows(plan: WorkgroupPlan, target) -> None:
    """Fill ``plan.rows`` (a subgroup per row where rows are long enough) and
    ``plan.threads``."""
    warp = target.subgroup_size
    for loop in plan.loops:
        if plan.serial or not plan.independent[loop]:
            continue
        match = row_reduction(loop, target)
        if match is not None and (trip_count(match[0]) or warp) >= warp:
            plan.rows[loop] = (distribute_rows_over_warps, match)
            continue
        inner = row_of_elements(loop)
        if inner is not None and (trip_count(inner) or warp) >= warp:
            plan.rows[loop] = (distribute_rows_of_elements, inner)
    # Threads each loop can use: one per iteration, or a subgroup per row.
    trips = [None if trip_count(loop) is None else trip_count(loop) * (warp if loop in plan.rows else 1)
             for loop in plan.loops]
    if plan.has_call:
        plan.threads = target.workgroup_ukernel_threads
    elif None in trips:
        plan.threads = target.max_workgroup_threads
    else:
        plan.threads = _block_size(target, max(trips))


def _verbatim(b: Builder, text: str) -> None:
    b.create("emitc.verbatim", [], [], {"value": StringAttr(text)})


def insert_barriers(body: Block, steps: List[Operation], target) -> None:
    """Barriers: before a step when an earlier step ran or values were read since the last
    barrier (what one writes, another thread may read or overwrite next), and before a load
    between steps when a step ran since (all threads read its result)."""
    ran = read = False
    for op in list(body.ops):
        if op.name == "emitc.load" and op not in steps:
            if ran:
                _verbatim(Builder(body, body.ops.index(op), op.loc), target.barrier)
                ran = False
            read = True
        elif op in steps:
            if ran or read:
                _verbatim(Builder(body, body.ops.index(op), op.loc), target.barrier)
            ran, read = True, False


def _on_thread_zero(body: Block, op: Operation, target) -> None:
    """``if (<thread id> == 0) {`` before ``op`` and ``}`` after it."""
    _verbatim(Builder(body, body.ops.index(op), op.loc), f"if ({target.thread_id} == 0) {{")
    _verbatim(Builder(body, body.ops.index(op) + 1, op.loc), "}")


def _distribute_step(body: Block, op: Operation, plan: WorkgroupPlan, target) -> None:
    """Rewrite one step of ``plan``: a single store or a loop that may not spread on thread
    0, a fold over the block, a subgroup per row, or block-stride iterations."""
    if op.name == "emitc.store":  # a single element (e.g. a 0-d fill): thread 0
        _on_thread_zero(body, op, target)
        return
    if op.name != "emitc.for":
        return
    if op in plan.folds:
        distribute_block_reduction(body, op, plan.folds[op], plan.threads, target)
        return
    if plan.serial or not plan.independent[op]:
        _on_thread_zero(body, op, target)
        return
    if op in plan.rows:
        rewrite, match = plan.rows[op]
        rewrite(body, op, match, plan.threads, target)
        return
    b = Builder(body, body.ops.index(op), op.loc)
    lb, _ub, step = op.operands[:3]
    first = expr(b, [lb, step], f"{{0}} + {thread_index(target)} * {{1}}", lb.type)
    stride = expr(b, [step], f"{plan.threads} * {{0}}", step.type)
    op.set_operand(0, first)
    op.set_operand(2, stride)


def distribute_workgroup(body: Block, target) -> int:
    """Spread the workgroup function's body (an emitc Block, after loop-invariant hoisting
    and independence marking) over the threads of a block as the module docstring says,
    rewriting it in place; returns the threads per workgroup (1: unchanged, as on CPU
    targets, whose ``max_workgroup_threads`` is 1). CompileError for a collective
    micro-kernel call inside a loop."""
    if target.max_workgroup_threads <= 1:
        return 1
    plan = plan_workgroup(body, target)
    if plan is None:
        return 1
    # Per-tile temporaries are written by some threads and read by others: workgroup-shared
    # (when they do not fit, thread 0 alone runs the loops beside the micro-kernel).
    qualifier = target.workgroup_memory_qualifier + " "
    for op in body.ops if not plan.serial else []:
        if _block_array(op) and not op.attributes["element"].value.startswith(qualifier):
            op.attributes["element"] = StringAttr(qualifier + op.attributes["element"].value)
    _plan_rows(plan, target)
    insert_barriers(body, plan.steps, target)
    for op in plan.steps:
        _distribute_step(body, op, plan, target)
    return plan.threads


def distribute_kernel(f: Operation, target) -> None:
    """Map the kernel ``emitc.func`` ``f`` onto ``target``'s threads and set its
    ``specifiers`` (and ``workgroup_size`` when above one)."""
    blk = f.body
    workgroup_size = distribute_workgroup(blk, target)
    has_loop = any(o.name in ("emitc.for", "emitc.loop") for top in blk.ops for o in top.walk())
    f.attributes["specifiers"] = ArrayAttr(tuple(StringAttr(s) for s in target.kernel_specifiers(has_loop)))
    if workgroup_size > 1:
        f.attributes["workgroup_size"] = IntegerAttr(workgroup_size, T.i64)


@register_pass
class GPUDistributePass(Pass):
    """Kernels are spread over the target's threads per workgroup and get their C
    specifiers."""

    name = "iree-codegen-gpu-distribute"

    def run(self, module: Operation, ctx: PassContext) -> None:
        for f in emitc_funcs(module, "kernel"):
            distribute_kernel(f, ctx.target)

"""``ireec-check-memory-budgets``: the stack bound of every call, recorded on the IR, then
the memory budgets (``--max-workspace-bytes``, ``--max-stack-bytes``,
``--max-constant-bytes``) checked against the memory plan and that bound.

Mirrors IREE's ``iree-llvmcpu-check-ir-before-llvm-conversion``, which refuses a dispatch
whose stack allocations exceed ``--iree-llvmcpu-stack-allocation-limit`` before code is
emitted; here the limits cover a whole call (host frame plus its deepest dispatch), the
workspace arena of the static memory plan (``iree-stream-schedule-allocation``) and the
constant pool. Runs on the emitc IR once every rewrite that adds or removes locals is done
(after ``remove-dead-values``).

The stack bound (bytes) of an ``emitc.func`` goes on it as ``ireec.stack_bytes``: for a
kernel, its launch and workgroup frames (2 x :data:`~ireec.emitc.stack.FRAME_BYTES`), its
local arrays and what its micro-kernels take; for a host function, its own frame and locals
plus its deepest dispatch (calls are not nested further: kernels call only inline
helpers). The templates read it for ``<MODULE>_STACK_SIZE``. The compile report of the
module (:func:`module_report`: arena, stack, FLOPs and bytes moved per function and
dispatch; ireec/tools/report.py writes it out) goes to ``ctx.report["module_report"]``.
An overrun is a CompileError at the function, its notes naming the tensors live at the
arena's peak or the dispatches with the deepest stacks (:func:`check_budgets`).
"""
from __future__ import annotations

from typing import Dict, Mapping, Optional, Sequence

from ...emitc.ctypes import c_ident
from ...emitc.runtime_headers import needs_libm
from ...emitc.stack import FRAME_BYTES, emitc_locals_bytes
from ...ir import types as T
from ...ir.attributes import IntegerAttr
from ...ir.core import Operation
from ...ir.diagnostics import CompileError, Location
from ..hal.ukernels import (CONV, CONV_STACK_BYTES, DWCONV, DWCONV_STACK_BYTES, IGEMM, IGEMM_STACK_BYTES,
                            UKERNEL_STACK_BYTES)
from ..pass_base import Pass, PassContext, register_pass

#: The attribute holding an ``emitc.func``'s stack bound in bytes (see the module docstring).
STACK_BYTES = "ireec.stack_bytes"


def _ukernel_stack_bytes(f: Operation) -> int:
    """Stack the micro-kernels kernel ``f`` calls take besides the arrays ``f`` passes them
    (ireec/passes/hal/ukernels.py: UKERNEL_STACK_BYTES, DWCONV_STACK_BYTES for the depthwise
    one, IGEMM_STACK_BYTES for the int8 one; the largest of those it calls, 0 when it calls
    none)."""
    calls = {op.attributes["callee"].value for op in f.walk()
             if op.name == "emitc.call_opaque" and op.attributes["callee"].value.startswith("ireec_uk_")}
    sizes = {DWCONV: DWCONV_STACK_BYTES, IGEMM: IGEMM_STACK_BYTES, CONV: CONV_STACK_BYTES}
    return max((sizes.get(c, UKERNEL_STACK_BYTES) for c in calls), default=0)


def stack_bounds(module: Operation, module_name: str) -> Dict[str, dict]:
    """Stack bound of every host function of the emitc ``module``, by its MLIR name:
    ``{"stack_bytes": n, "dispatch_stack_bytes": {launch name: n}, "loc": Location}``, where
    a dispatch's bytes are its launch and workgroup frames and a call's are the host frame
    plus its largest dispatch (calls are not nested further: kernels call only inline
    helpers)."""
    kernels: Dict[str, int] = {}
    for f in module.body.ops:
        if f.name == "emitc.func" and f.attributes["kind"].value == "kernel":
            launch = f"{module_name}_{f.attributes['launch'].value}"
            kernels[launch] = 2 * FRAME_BYTES + emitc_locals_bytes(f) + _ukernel_stack_bytes(f)
    out: Dict[str, dict] = {}
    for f in module.body.ops:
        if f.name != "emitc.func" or f.attributes["kind"].value != "host":
            continue
        called = {}
        for op in f.walk():
            if op.name == "emitc.call_opaque" and op.attributes["callee"].value in kernels:
                callee = op.attributes["callee"].value
                called[callee] = kernels[callee]
        own = FRAME_BYTES + emitc_locals_bytes(f)
        out[f.attributes["mlir_name"].value] = {
            "stack_bytes": own + max(called.values(), default=0), "dispatch_stack_bytes": called,
            "loc": f.loc}
    return out


def record_stack_bounds(module: Operation, module_name: str) -> Dict[str, dict]:
    """Put each function's stack bound on its ``emitc.func`` (:data:`STACK_BYTES`, kernels
    and host functions) and return :func:`stack_bounds`."""
    stacks = stack_bounds(module, module_name)
    per_kernel = {k: n for s in stacks.values() for k, n in s["dispatch_stack_bytes"].items()}
    for f in module.body.ops:
        if f.name != "emitc.func":
            continue
        if f.attributes["kind"].value == "kernel":
            n = per_kernel.get(f"{module_name}_{f.attributes['launch'].value}")
        else:
            n = stacks[f.attributes["mlir_name"].value]["stack_bytes"]
        if n is not None:
            f.attributes[STACK_BYTES] = IntegerAttr(n, T.index)
    return stacks


def peak_of(buffers: Sequence[dict]) -> dict:
    """The point of a function's memory plan where the most transient bytes are live:
    ``{"bytes", "position", "tensors": [buffer records live there, largest first]}``."""
    best = {"bytes": 0, "position": None, "tensors": []}
    for t in sorted({b["first"] for b in buffers}):
        live = [b for b in buffers if b["first"] <= t <= b["last"]]
        total = sum(b["bytes"] for b in live)
        if total > best["bytes"]:
            best = {"bytes": total, "position": t,
                    "tensors": sorted(live, key=lambda b: (-b["bytes"], b["offset"]))}
    return best


def loc_str(loc) -> str:
    """``file:line:col`` of a Location, or ``unknown location``."""
    return str(loc) if isinstance(loc, Location) and loc.line > 0 else "unknown location"


def _tensor_note(b: dict) -> str:
    return (f"{b['type']} '{b['name']}' ({b['bytes']} bytes at arena offset {b['offset']}), "
            f"produced at {loc_str(b.get('loc'))}")


#: The largest workspace the generated C can size: ``<M>_WORKSPACE_SIZE`` and
#: ``<fn>_workspace_size()`` are int64_t.
_ABI_MAX_BYTES = 2 ** 63 - 1


def check_budgets(report: dict, options: Mapping[str, object]) -> None:
    """Raise CompileError when a function's arena (``max_workspace_bytes``), a call's stack
    bound (``max_stack_bytes``) or the constant pool (``max_constant_bytes``) is over its
    budget in ``options``. The error is located at the function (the constant pool's at the
    largest constant's producer is unknown: at the first function) and its notes name the
    tensors live at the arena's peak, or the dispatch with the deepest stack."""
    fns = report.get("functions", {})
    for name, fn in sorted(fns.items()):
        if fn.get("arena_bytes", 0) > _ABI_MAX_BYTES:
            raise CompileError(f"function @{name} needs a workspace arena of {fn['arena_bytes']} bytes, "
                               f"more than the C ABI's int64_t sizes can hold (shapes or --dim-bound "
                               f"bounds too large)", fn.get("loc"))
    limit = options.get("max_workspace_bytes")
    if limit is not None:
        for name, fn in sorted(fns.items()):
            if fn.get("arena_bytes", 0) > int(limit):
                peak = fn.get("peak") or {"tensors": []}
                notes = [f"live at the peak: {_tensor_note(b)}" for b in peak["tensors"]]
                raise CompileError(f"function @{name} needs a workspace arena of {fn['arena_bytes']} "
                                   f"bytes, over --max-workspace-bytes={limit} (the tensors live at "
                                   f"the peak: {peak.get('bytes', 0)} bytes)", fn.get("loc"), notes)
    limit = options.get("max_stack_bytes")
    if limit is not None:
        for name, fn in sorted(fns.items()):
            if fn.get("stack_bytes", 0) > int(limit):
                deepest = sorted(fn.get("dispatches", []), key=lambda d: -d.get("stack_bytes", 0))[:3]
                notes = [f"dispatch {d['entry_point']} takes {d.get('stack_bytes', 0)} bytes of stack "
                         f"(local arrays {d.get('stack_bytes', 0) - 2 * FRAME_BYTES} bytes), at "
                         f"{loc_str(d.get('loc'))}" for d in deepest]
                raise CompileError(f"a call of @{name} may take {fn['stack_bytes']} bytes of stack, "
                                   f"over --max-stack-bytes={limit}", fn.get("loc"), notes)
    limit = options.get("max_constant_bytes")
    if limit is not None and report.get("constant_pool_bytes", 0) > int(limit):
        first = next(iter(sorted(fns.items())), (None, {}))[1]
        raise CompileError(f"the constants of the module take {report['constant_pool_bytes']} bytes, "
                           f"over --max-constant-bytes={limit}", first.get("loc"))


def function_report(name: str, plan: dict, stacks: dict, flops: Mapping[str, int],
                    module_name: str) -> dict:
    """One function's entry of the report from its memory plan (stream phase), its stack
    bounds and the FLOP estimates of the dispatches (entry point → operations)."""
    st = stacks.get(name, {})
    dispatches = []
    for d in plan.get("dispatches", []):
        launch = f"{module_name}_{c_ident(d['entry_point'])}"
        dispatches.append({"entry_point": d["entry_point"], "loc": d["loc"], "position": d["position"],
                           "flops": flops.get(d["entry_point"], 0),
                           "bytes_moved": d["bytes_read"] + d["bytes_written"],
                           "bytes_read": d["bytes_read"], "bytes_written": d["bytes_written"],
                           "stack_bytes": st.get("dispatch_stack_bytes", {}).get(launch, 0),
                           "symbol": launch})
    buffers = plan.get("buffers", [])
    return {"arena_bytes": plan.get("arena_bytes", 0),
            "lower_bound_bytes": plan.get("lower_bound_bytes", 0),
            "stack_bytes": st.get("stack_bytes", 0), "loc": st.get("loc"),
            "flops": sum(d["flops"] for d in dispatches),
            "bytes_moved": sum(d["bytes_moved"] for d in dispatches),
            "dispatches": dispatches, "buffers": buffers, "peak": peak_of(buffers),
            # >0: a program mapped over dynamic dims; FLOPs and bytes are per slice, the arena
            # is the worst case (the same for every extent).
            "dynamic_dims": plan.get("dynamic_dims", 0),
            # dimensions padded to a bound: [argument, dimension, bound] each, and the bytes the
            # entry stages them in (part of the arena)
            "bounds": plan.get("bounds", []), "staging_bytes": plan.get("staging_bytes", 0)}


def module_report(module: Operation, ctx, files: Optional[Mapping[str, str]] = None,
                  stacks: Optional[Dict[str, dict]] = None) -> dict:
    """The report of an emitc ``module`` compiled with PassContext ``ctx`` (its ``report``
    holds the stream phase's plans and FLOP estimates; ``stacks``: :func:`stack_bounds`,
    computed when not given). ``libraries`` (``["m"]`` when the C calls <math.h>) is read
    from the generated ``files`` when given, else left empty for the target to fill in.
    JSON-ready except for Locations (see ireec.tools.report.to_json)."""
    stacks = stack_bounds(module, ctx.module_name) if stacks is None else stacks
    flops = ctx.report.get("dispatch_flops", {})
    plans = ctx.report.get("functions", {})
    fns = {}
    for name in sorted(set(plans) | set(stacks)):
        fns[name] = function_report(name, plans.get(name, {}), stacks, flops, ctx.module_name)
    return {"module": ctx.module_name, "source": ctx.source_name, "target": ctx.target.name,
            "workspace": ctx.options.get("workspace", "argument"),
            "constant_pool_bytes": ctx.report.get("constant_pool_bytes", 0),
            "global_state_bytes": ctx.report.get("global_state_bytes", 0),
            "workspace_bytes": max([f["arena_bytes"] for f in fns.values()] + [0]),
            "stack_bytes": max([f["stack_bytes"] for f in fns.values()] + [0]),
            "libraries": ["m"] if files is not None and needs_libm(files) else [],
            "functions": fns}


def _limits(ctx: PassContext) -> Dict[str, Optional[int]]:
    """The budgets of ``ctx``'s options: {option name: bytes or None}."""
    return {"max_workspace_bytes": ctx.options.get("max_workspace_bytes"),
            "max_stack_bytes": ctx.max_stack_bytes,
            "max_constant_bytes": ctx.options.get("max_constant_bytes")}


@register_pass
class CheckMemoryBudgetsPass(Pass):
    """See the module docstring."""

    name = "ireec-check-memory-budgets"

    def run(self, module: Operation, ctx: PassContext) -> None:
        stacks = record_stack_bounds(module, ctx.module_name)
        rep = module_report(module, ctx, stacks=stacks)
        ctx.report["module_report"] = rep
        check_budgets(rep, _limits(ctx))

"""Workgroups are mapped onto the target's threads, and kernels get their C specifiers.

Mirrors IREE's ``iree-codegen-gpu-distribute`` (GPUDistributePass,
``compiler/src/iree/compiler/Codegen/Common/GPU/GPUDistribute.cpp``), which distributes a
workgroup's parallel loops over the threads of the workgroup: here the target decides
(:meth:`ireec.targets.base.Target.distribute_workgroup`, rewriting the kernel body in
place and returning the threads per workgroup; CPU targets run a workgroup on one thread and
leave it unchanged). A workgroup size above one is recorded as the kernel's
``workgroup_size`` attribute (IREE: the ``workgroup_size`` of the export's
``translation_info``).

It runs after loop-invariant code motion and independence marking (the distribution reads
their result) and is the last pass to change the kernels' loop structure, so it also sets the
kernel's ``specifiers``: the target's (:meth:`Target.kernel_specifiers`), which depend on
whether the kernel still has a loop (CPU targets give those an AVX2 clone).
"""
from __future__ import annotations

from ...ir.attributes import ArrayAttr, IntegerAttr, StringAttr
from ...ir import types as T
from ...ir.core import Operation
from ..pass_base import Pass, PassContext, register_pass
from .emitc_utils import emitc_funcs


def distribute_kernel(f: Operation, target) -> None:
    """Map the kernel ``emitc.func`` ``f`` onto ``target``'s threads and set its
    ``specifiers`` (and ``workgroup_size`` when above one)."""
    blk = f.body
    workgroup_size = target.distribute_workgroup(blk)
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

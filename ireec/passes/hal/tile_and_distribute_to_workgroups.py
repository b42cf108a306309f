"""Each kernel's workgroup tile: offset and size per distributed dim, at the kernel's entry.

Mirrors the distribution half of IREE's ``iree-codegen-tile-and-distribute-to-workgroups``
(TileAndDistributeToWorkgroupsPass.cpp): the workgroup's tile offset along a distributed dim
is ``hal.interface.workgroup.id[axis] * tile`` and its size ``min(tile, extent - offset)``
(IREE: an ``affine.apply`` and an ``affine.min``). IREE then also tiles the root's loops into
an ``scf.forall`` over those tiles; in ireec the ops stay whole and the passes lowering them
(:mod:`.cpu_lower_to_ukernels`, :mod:`.convert_conv_to_im2col`,
:mod:`.convert_linalg_to_loops`) run their distributed loops over the tile these values give.

In a kernel with ``ireec.distribution`` (extent and tile per distributed dim, see
:mod:`.select_lowering_strategy`), after its bindings and leading constants, for each
distributed dim ``k`` (axis x is the innermost distributed dim, the last ``k``):

- extent <= tile (one workgroup): offset ``0``, size ``extent`` (constants);
- else offset ``workgroup.id[n-1-k] * tile`` and size the constant ``tile`` when it divides
  the extent, else ``min(tile, extent - offset)`` (``arith.minsi``; the partial last tile).

Every op built here carries the unit attribute ``ireec.workgroup_tile`` (:data:`MARKER`), so
that the passes after it find the values again (:meth:`WorkgroupTiles.of`; run alone on IR
without them, those passes build them first, in the same place);
``convert-linalg-to-loops``, the last of them, removes the markers.
"""
from __future__ import annotations

from typing import Dict, List

from ...ir import types as T
from ...ir.attributes import IntegerAttr, UnitAttr
from ...ir.core import Builder, Operation, Value
from ...ir.diagnostics import CompileError
from ..pass_base import Pass, PassContext, register_pass
from .loop_builder import IndexBuilder

#: The unit attribute on every op of a kernel's tile offsets and sizes.
MARKER = "ireec.workgroup_tile"


def kernel_functions(module: Operation) -> List[Operation]:
    """The ``func.func`` kernels of every ``hal.executable`` of ``module``, in order."""
    return [k for exe in module.body.ops if exe.name == "hal.executable"
            for k in exe.walk() if k.name == "func.func"]


class WorkgroupTiles:
    """Per-kernel tile ``extents``, ``tiles`` (ints, from ``ireec.distribution``), and the
    index values ``offsets`` and ``sizes`` of the workgroup's tile, one per distributed dim
    (all empty in a kernel without distribution)."""

    def __init__(self, kernel: Operation):
        a = kernel.attributes.get("ireec.distribution")
        flat = list(a.value) if a is not None else []
        self.extents: List[int] = flat[0::2]
        self.tiles: List[int] = flat[1::2]
        self.offsets: List[Value] = []
        self.sizes: List[Value] = []

    @staticmethod
    def materialize(kernel: Operation) -> "WorkgroupTiles":
        """Build the offsets and sizes at ``kernel``'s entry (module docstring), marked."""
        self = WorkgroupTiles(kernel)
        if not self.extents:
            return self
        blk = kernel.body
        i = 0
        while i < len(blk.ops) and blk.ops[i].name in ("hal.interface.binding.subspan", "arith.constant"):
            i += 1
        b = Builder(blk, i, kernel.loc)
        ib = IndexBuilder(b, {})
        n = len(self.extents)
        for k, (e, t) in enumerate(zip(self.extents, self.tiles)):
            if e <= t:
                self.offsets.append(ib.const(0))
                self.sizes.append(ib.const(e))
                continue
            wid = b.create("hal.interface.workgroup.id", [], [T.index],
                           {"dimension": IntegerAttr(n - 1 - k, T.index)}).result
            off = b.create("arith.muli", [wid, ib.const(t)], [T.index]).result
            self.offsets.append(off)
            if e % t == 0:
                self.sizes.append(ib.const(t))
            else:
                rest = b.create("arith.subi", [ib.const(e), off], [T.index]).result
                self.sizes.append(b.create("arith.minsi", [ib.const(t), rest], [T.index]).result)
        for op in blk.ops[i:b.index]:
            op.attributes[MARKER] = UnitAttr()
        return self

    @staticmethod
    def of(kernel: Operation) -> "WorkgroupTiles":
        """The tiles :meth:`materialize` built in ``kernel``, found by their markers; built
        now when the kernel has none (a pass after this one run alone on IR without them).
        Raises CompileError when the marked ops are not those :meth:`materialize` builds."""
        self = WorkgroupTiles(kernel)
        if not self.extents:
            return self
        marked = [o for o in kernel.body.ops if MARKER in o.attributes]
        if not marked:
            return WorkgroupTiles.materialize(kernel)
        consts = {o.attributes["value"].value: o.result for o in marked if o.name == "arith.constant"}
        ids = {o.attributes["dimension"].value: o.result for o in marked if o.name == "hal.interface.workgroup.id"}
        muls: Dict[int, Value] = {id(o.operands[0]): o.result for o in marked if o.name == "arith.muli"}
        mins: Dict[int, Value] = {id(o.operands[1].owner.operands[1]): o.result
                                  for o in marked if o.name == "arith.minsi"}
        n = len(self.extents)
        try:
            for k, (e, t) in enumerate(zip(self.extents, self.tiles)):
                if e <= t:
                    self.offsets.append(consts[0])
                    self.sizes.append(consts[e])
                    continue
                off = muls[id(ids[n - 1 - k])]
                self.offsets.append(off)
                self.sizes.append(consts[t] if e % t == 0 else mins[id(off)])
        except KeyError:
            raise CompileError(f"the ops marked '{MARKER}' are not the workgroup tile offsets and "
                               "sizes of the kernel's 'ireec.distribution'", kernel.loc) from None
        return self


def strip_markers(kernel: Operation) -> None:
    """Remove :data:`MARKER` from the ops of ``kernel``'s entry block."""
    for op in kernel.body.ops:
        op.attributes.pop(MARKER, None)


@register_pass
class TileAndDistributeToWorkgroupsPass(Pass):
    """IREE's ``iree-codegen-tile-and-distribute-to-workgroups``, its distribution: see the
    module docstring."""

    name = "iree-codegen-tile-and-distribute-to-workgroups"

    def run(self, module: Operation, ctx: PassContext) -> None:
        for k in kernel_functions(module):
            WorkgroupTiles.materialize(k)

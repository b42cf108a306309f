"""The initialisation of a CPU micro-kernel's output becomes part of the call.

Mirrors the accumulator check of IREE's ``iree-codegen-cpu-lower-to-ukernels``
(CPULowerToUKernels.cpp: an ``mmt4d`` whose accumulator is a ``linalg.fill`` of zero calls
``iree_uk_mmt4d`` without ``IREE_UK_FLAG_MMT4D_ACCUMULATE`` and the fill goes), done as its own
ireec pass on memrefs before the workgroup tiles are built, so that the fills are gone before
:mod:`.tile_and_distribute_to_workgroups` places its ops after the kernel's leading
constants. In each kernel, on the memref generics the lowering strategy marked for a
micro-kernel (``ireec.ukernel_blocking``: ``ireec_uk_sgemm`` or ``ireec_uk_igemm``; the
``ireec_uk_dwconv`` descriptor) whose call will write every element of its output tile once
(:func:`overwritable_output`; a convolution marked ``ireec.im2col``, one call per chunk of
pixels over the whole window, writes each element once too):

- a zero fill (+0.0; integer 0 before ``ireec_uk_igemm``) of the whole output right before
  the op, over the same workgroup tiling, is erased and the op marked
  ``ireec.ukernel_overwrite`` (the call runs with
  ``accumulate = false``; with filter taps looped around an sgemm call, only the first tap's
  call starts from zero);
- else a bias broadcast into the whole output right before it
  (:func:`.ukernel_epilogue.bias_init`; torch-mlir's linear layers and convolutions start from
  their bias this way) is marked ``ireec.ukernel_init`` and the op ``ireec.ukernel_bias_init``:
  :mod:`.cpu_lower_to_ukernels` takes the broadcast into the call
  (``IREEC_UK_FLAG_BIAS_INIT``: the sums start from the bias in registers, the same order as
  the loop nest), or, when it cannot, removes the mark and leaves it to the loop lowering.
"""
from __future__ import annotations

from typing import Optional, Tuple

from ...ir.affine import AffineConst, AffineDim, AffineMap
from ...ir.attributes import UnitAttr
from ...ir.core import Operation, Value
from ..pass_base import Pass, PassContext, register_pass
from . import ukernels as UK
from .convert_conv_to_im2col import im2col_lowerable
from .memref_utils import generic_loop_ranges, generic_maps, loop_order, zero_fill_before
from .tile_and_distribute_to_workgroups import kernel_functions
from .ukernel_epilogue import bias_init, distributed_positions


def overwritable_output(op: Operation, allow_taps: bool = False) -> Optional[Tuple[Value, AffineMap]]:
    """``(output, its indexing map)`` of a generic that will call a micro-kernel writing
    every element of its output tile once, with every index a loop or a constant 0; else
    None. With ``allow_taps`` an sgemm call looped over filter taps counts too (its first
    call can overwrite; every later one accumulates)."""
    integer = UK.ukernel_name(op) == UK.IGEMM
    if "ireec.im2col" in op.attributes:  # one call per chunk over the whole window
        if not im2col_lowerable(op):
            return None
        out, out_map = op.operands[-1], generic_maps(op)[-1]
    elif "ireec.ukernel_blocking" in op.attributes:
        plan = UK.igemm_plan(op) if integer else UK.sgemm_plan(op)
        if plan is None or (plan[0].taps and not allow_taps):
            return None
        ranges = generic_loop_ranges(op)
        if any(not isinstance(ranges[d], int) or ranges[d] < 1 for d in [plan[0].k] + list(plan[0].taps)):
            return None
        out, out_map = plan[1][2], plan[2][2]
    elif UK.DWCONV in str(op.attributes.get("iree_codegen.ukernel", "")):
        maps = generic_maps(op)
        if UK.match_dwconv(op, loop_order(op, maps[0].num_dims)) is None:
            return None
        out, out_map = op.operands[2], maps[2]
    else:
        return None
    if not all(isinstance(e, AffineDim) or (isinstance(e, AffineConst) and e.value == 0)
               for e in out_map.results):
        return None
    return out, out_map


def elide_zero_fills(kernel: Operation) -> None:
    """Erase the zero fill of each micro-kernel op's whole output right before it (module
    docstring) and mark the op ``ireec.ukernel_overwrite``."""
    for op in [o for o in kernel.walk() if o.name == "linalg.generic"]:
        out = overwritable_output(op, allow_taps=True)
        if out is None:
            continue
        fill = zero_fill_before(op, out[0])
        if fill is None:
            continue
        fill_map = AffineMap.identity(len(out[0].type.shape))
        if distributed_positions(fill, fill_map) != distributed_positions(op, out[1]):
            continue  # the fill and the call cover different parts of the output
        op.attributes["ireec.ukernel_overwrite"] = UnitAttr()
        fill.erase()


def fold_bias_inits(kernel: Operation) -> None:
    """Mark each bias broadcast a micro-kernel op can start from ``ireec.ukernel_init`` and
    the op ``ireec.ukernel_bias_init`` (module docstring)."""
    for op in [o for o in kernel.walk() if o.name == "linalg.generic"]:
        # Not with one call per filter tap: every call but the first must accumulate; not for
        # ireec_uk_igemm, which has no bias start.
        # Nor for an im2col convolution, whose calls do not take a bias start.
        out = (overwritable_output(op) if UK.ukernel_name(op) != UK.IGEMM
               and "ireec.im2col" not in op.attributes else None)
        if out is None or "ireec.ukernel_overwrite" in op.attributes:
            continue
        found = bias_init(op, *out)
        if found is None:
            continue
        found[0].attributes["ireec.ukernel_init"] = UnitAttr()
        op.attributes["ireec.ukernel_bias_init"] = UnitAttr()


@register_pass
class FoldUKernelAccumulatorInitsPass(Pass):
    """Zero fills and bias broadcasts before CPU micro-kernel ops become the call's start:
    see the module docstring."""

    name = "ireec-fold-ukernel-accumulator-inits"

    def run(self, module: Operation, ctx: PassContext) -> None:
        for k in kernel_functions(module):
            elide_zero_fills(k)
            fold_bias_inits(k)

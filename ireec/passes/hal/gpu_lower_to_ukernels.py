"""Replace the root contraction of GPU matmul dispatches by a call of the device
micro-kernel its lowering config names.

Mirrors IREE's ``iree-codegen-gpu-lower-to-ukernels`` (a root op whose
``#iree_gpu.lowering_config`` carries a ``ukernel`` becomes ``iree_codegen.ukernel.generic``).
It runs after bufferization, on the ``linalg.generic`` marked ``ireec.gpu_ukernel`` by
:mod:`.gpu_select_lowering_strategy`: when A, B and C are whole interface bindings (static,
unit-layout memrefs) the op becomes

    "iree_codegen.ukernel.generic"(%A, %B, %C, %wg_m, %wg_n[, %wg_b]) {
        u_kernel_fn_name = "ireec_gpu_matmul_f32",   // _f16, _bf16 by element type
        sizes = [M, N, K], strides = [a_b, a_m, a_k, b_b, b_k, b_n, c_b, c_m, c_n],
        tiles = [tile_m, tile_n], accumulate = 0 | 1, lowering_config = <the root's>}

with the workgroup ids carrying m, n (and the batch) as operands; the kernel lowering turns
it into the call ``ireec_gpu_matmul_f32(A + b*a_b, B + b*b_b, C + b*c_b, M, N, K, ...,
wg_m*tile_m, wg_n*tile_n, accumulate)`` (ireec_runtime.h). A zero fill of C right before the
contraction is dropped (``accumulate = 0``: the micro-kernel starts from zero); any other
initial value stays and is accumulated onto. A root the micro-kernel cannot take (operands
that are per-tile temporaries or views) keeps its loops: correct, not fast.
"""
from __future__ import annotations

from typing import Optional

from ...dialects import linalg as L
from ...ir import types as T
from ...ir.attributes import DenseArrayAttr, IntegerAttr, StringAttr
from ...ir.core import Builder, Operation
from ..pass_base import Pass, PassContext, register_pass
from .gpu_select_lowering_strategy import matmul_dims
from .memref_utils import strides_and_offset, zero_fill_before


def _binding_memref(v) -> bool:
    o = v.owner
    t = v.type
    return (isinstance(o, Operation) and o.name == "hal.interface.binding.subspan"
            and isinstance(t, T.MemRefType) and t.layout is None
            and all(d is not None and d >= 0 for d in t.shape))


def lower_to_ukernel(op: Operation, kernel: Operation) -> bool:
    """Rewrite one marked contraction (see the module docstring); False when it does not
    qualify (nothing changes)."""
    mm = matmul_dims(op)
    dist = op.attributes.get("ireec.distribute")
    if mm is None or dist is None:
        return False
    a, b = L.inputs(op)
    c = L.outputs(op)[0]
    if not all(_binding_memref(v) for v in (a, b, c)):
        return False
    root_dims = [int(d) for d in dist.value]
    roles = [mm["m"], mm["n"]] + mm["batch"]
    if sorted(root_dims) != sorted(roles):
        return False
    maps = L.indexing_maps(op)
    ranges = L.loop_ranges(op)

    def stride(v, m, d) -> int:
        """Element stride of operand ``v`` (map ``m``) along loop ``d`` (0 when unused)."""
        strides, _ = strides_and_offset(v.type)
        for pos, e in enumerate(m.results):
            if getattr(e, "pos", None) == d:
                return strides[pos]
        return 0

    bd = mm["batch"][0] if mm["batch"] else None
    st = []
    for v, m, ds in ((a, maps[0], (bd, mm["m"], mm["k"])), (b, maps[1], (bd, mm["k"], mm["n"])),
                     (c, maps[2], (bd, mm["m"], mm["n"]))):
        st += [stride(v, m, d) if d is not None else 0 for d in ds]
    tiles_attr = kernel.attributes.get("ireec.distribution")
    flat = [int(x) for x in tiles_attr.value]
    tile_of = {d: flat[2 * k + 1] for k, d in enumerate(root_dims)}
    n_dist = len(root_dims)

    fill = zero_fill_before(op, c)
    bld = Builder.before(op)
    bld.loc = op.loc
    ids = []
    for d in [mm["m"], mm["n"]] + mm["batch"]:
        axis = n_dist - 1 - root_dims.index(d)  # x = innermost distributed dim
        ids.append(bld.create("hal.interface.workgroup.id", [], [T.index],
                              {"dimension": IntegerAttr(axis, T.index)}).result)
    bld.create("iree_codegen.ukernel.generic", [a, b, c] + ids, [], {
        "u_kernel_fn_name": StringAttr(op.attributes["ireec.gpu_ukernel"].value),
        "sizes": DenseArrayAttr(T.i64, (ranges[mm["m"]], ranges[mm["n"]], ranges[mm["k"]])),
        "strides": DenseArrayAttr(T.i64, tuple(st)),
        "tiles": DenseArrayAttr(T.i64, (tile_of[mm["m"]], tile_of[mm["n"]])),
        "accumulate": IntegerAttr(0 if fill is not None else 1, T.i64),
        **({"lowering_config": op.attributes["lowering_config"]} if "lowering_config" in op.attributes else {})})
    op.erase()
    if fill is not None:
        fill.erase()
    return True


@register_pass
class GPULowerToUKernelsPass(Pass):
    """IREE's ``iree-codegen-gpu-lower-to-ukernels``: see the module docstring. Only GPU
    targets mark roots, so CPU kernels pass through unchanged."""

    name = "iree-codegen-gpu-lower-to-ukernels"

    def run(self, module: Operation, ctx: PassContext) -> None:
        for exe in [op for op in module.body.ops if op.name == "hal.executable"]:
            for k in [o for o in exe.walk() if o.name == "func.func"]:
                for op in [o for o in k.walk() if o.name == "linalg.generic" and "ireec.gpu_ukernel" in o.attributes]:
                    if not lower_to_ukernel(op, k):
                        del op.attributes["ireec.gpu_ukernel"]

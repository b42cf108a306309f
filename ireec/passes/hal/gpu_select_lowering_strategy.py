"""Choose a GPU lowering configuration per kernel: dispatch kind, tile sizes, workgroup count
(the grid) and workgroup size (the block).

Mirrors IREE's ``iree-llvmgpu-select-lowering-strategy`` (LLVMGPU ``KernelConfig.cpp``): each
dispatch gets a pipeline by the kind of its root op, and the target (``Target.gpu_kernel_config``,
e.g. :class:`ireec.targets.cuda.CUDATarget`) owns the numbers:

==============  ===========================  =============================================
kind            translation_info pipeline    what the kernel does
==============  ===========================  =============================================
elementwise     ``LLVMGPUVectorize``         a workgroup is a contiguous tile of the
                                             innermost dim, one thread per element
                                             (block-stride); the grid is capped from the SM
                                             count and blocks loop over workgroups
                                             (grid-stride)
reduction       ``LLVMGPUWarpReduction``     a warp per row of 8-row tiles when the root
                                             reduces its innermost loop, the partials
                                             combined with warp shuffles
contraction     ``LLVMGPUMatmulSimt``        f32/f16/bf16 matmul, batch_matmul: 128x128
                                             output tiles, each computed by the
                                             shared-memory tiled SIMT micro-kernel
                                             ``ireec_gpu_matmul_<type>``
                                             (:mod:`.gpu_lower_to_ukernels`), epilogue after it
other           ``LLVMGPUDistribute``        the CPU tiling, its independent loops spread
                                             over the block
==============  ===========================  =============================================

It runs after :mod:`.select_lowering_strategy` (whose distribution analysis, i.e. which dims
may be tiled, it reuses) and only for GPU targets; it rewrites the tile sizes
(``ireec.distribution``), the export's ``workgroup_count`` and ``workgroup_size``, the root's
``lowering_config`` (``#iree_gpu.lowering_config<{workgroup = [...]}>``, one tile per loop as
IREE prints it) and the kernel's ``translation_info``, so ``--compile-to=hal`` shows the
choice. Kernels without a distribution (one workgroup) keep it.
"""
from __future__ import annotations

from typing import List, Optional, Sequence

from ...dialects import linalg as L
from ...ir import types as T
from ...ir.affine import AffineConst, AffineDim
from ...ir.attributes import DenseArrayAttr, OpaqueAttr, StringAttr
from ...ir.core import Operation
from ..common.distribution import is_contraction_like
from ..flow.outline_dispatch_regions import root_op
from ..pass_base import Pass, PassContext, register_pass
from .select_lowering_strategy import ceil_div, compute_ops

#: Element types the matmul micro-kernels take (A, B and C alike; products accumulate in f32).
MATMUL_ELEMENT_TYPES = ("f32", "f16", "bf16")
#: Dispatch kinds, as :func:`dispatch_kind` names them.
ELEMENTWISE, REDUCTION, CONTRACTION, OTHER = "elementwise", "reduction", "contraction", "other"


def matmul_dims(op: Operation) -> Optional[dict]:
    """The roles of the loops of a contraction ``op`` (a ``linalg.generic`` computing
    ``C[b, m, n] += A[b, m, k] * B[b, k, n]`` in any operand layout, one of A or B possibly
    broadcast along the batch): ``{"batch": [d] or [],
    "m": d, "n": d, "k": d, "element": "f32" | "f16" | "bf16"}``, when its payload is exactly
    ``mulf`` then ``addf`` into the output, every operand has the same element type of
    :data:`MATMUL_ELEMENT_TYPES` and each indexing map is a projection of plain dims (or 0 at
    a dim of size 1); else
    None (the op is not one the matmul micro-kernels compute)."""
    if op.name != "linalg.generic" or len(L.inputs(op)) != 2 or len(L.outputs(op)) != 1:
        return None
    vals = L.inputs(op) + L.outputs(op)
    if not all(isinstance(v.type, T.ShapedType) for v in vals):
        return None
    element = str(vals[0].type.element_type)
    if element not in MATMUL_ELEMENT_TYPES or any(str(v.type.element_type) != element for v in vals):
        return None
    body = [o for o in L.payload(op).ops]
    if [o.name for o in body] != ["arith.mulf", "arith.addf", "linalg.yield"]:
        return None
    a, b, c = L.payload(op).args
    mul, add, yld = body
    if set(mul.operands) != {a, b} or set(add.operands) != {mul.results[0], c} or yld.operands[0] is not add.results[0]:
        return None
    its = L.iterator_types(op)
    maps = L.indexing_maps(op)
    dims = []
    for m, v in zip(maps, vals):
        # A constant 0 may index a dim of size 1 (a 1x1 filter's window after
        # iree-global-opt-convert-1x1-filter-conv2d-to-matmul); it moves nothing.
        if not all(isinstance(e, AffineDim) or (isinstance(e, AffineConst) and e.value == 0 and size == 1)
                   for e, size in zip(m.results, v.type.shape)):
            return None
        ds = [e.pos for e in m.results if isinstance(e, AffineDim)]
        if len(set(ds)) != len(ds):
            return None
        dims.append(set(ds))
    da, db, dc = dims
    red = [d for d, it in enumerate(its) if it == L.REDUCTION]
    if len(red) != 1 or red[0] in dc or red[0] not in da or red[0] not in db:
        return None
    k = red[0]
    ms, ns, bs = sorted((da & dc) - db), sorted((db & dc) - da), sorted(da & db & dc)
    c_order = [e.pos for e in maps[2].results]

    def split(ds):
        # Of several M (or N) dims the innermost in C plays M; the others are a batch that
        # the other operand is broadcast along (its batch stride is 0).
        if len(ds) <= 1:
            return ds, []
        inner = max(ds, key=c_order.index)
        return [inner], [d for d in ds if d != inner]

    ms, more_m = split(ms)
    ns, more_n = split(ns)
    bs = sorted(bs + more_m + more_n)
    if len(ms) != 1 or len(ns) != 1 or len(bs) > 1 or len(its) != 3 + len(bs):
        return None
    return {"batch": bs, "m": ms[0], "n": ns[0], "k": k, "element": element}


def dispatch_kind(compute: Sequence[Operation], root: Optional[Operation]) -> str:
    """``contraction`` (the root is matmul-like, :func:`..common.distribution.is_contraction_like`),
    ``reduction`` (the root has a reduction loop), ``elementwise`` (every op is a linalg op
    with only parallel loops) or ``other``."""
    if root is None or not all(L.is_linalg_structured(o) for o in compute):
        return OTHER
    if is_contraction_like(root):
        return CONTRACTION
    try:
        if any(L.REDUCTION in L.iterator_types(o) for o in compute):
            return REDUCTION
    except (ValueError, KeyError):
        return OTHER
    return ELEMENTWISE


def _fmt(xs: Sequence[int]) -> str:
    return "[" + ", ".join(str(int(x)) for x in xs) + "]"


def configure_gpu_kernel(kernel: Operation, export: Operation, target) -> Optional[List[int]]:
    """Rewrite the lowering config of ``kernel`` (func.func on tensors, after the CPU
    strategy) and its ``export`` by ``target.gpu_kernel_config``; return the workgroup count
    (x, y, z), or None when the kernel keeps its configuration."""
    compute = compute_ops(list(kernel.body.ops))
    root = root_op(compute) if compute else None
    kind = dispatch_kind(compute, root)
    dist = kernel.attributes.get("ireec.distribution")
    flat = [int(x) for x in dist.value] if dist is not None else []
    extents, tiles = flat[0::2], flat[1::2]
    mm = matmul_dims(root) if kind == CONTRACTION and root is not None else None
    root_dims: List[int] = []
    if root is not None and "ireec.distribute" in root.attributes:
        root_dims = [int(d) for d in root.attributes["ireec.distribute"].value]
    inner_reduction = 0
    if kind == REDUCTION and root is not None:
        try:
            if L.iterator_types(root)[-1] == L.REDUCTION:
                inner_reduction = L.loop_ranges(root)[-1] or -1
        except (ValueError, KeyError, IndexError):
            inner_reduction = 0
    cfg = target.gpu_kernel_config(kind, extents, tiles, matmul=mm, root_dims=root_dims,
                                   inner_reduction=inner_reduction)
    if cfg is None:
        return None
    tiles = list(cfg.tiles)
    count = [1, 1, 1]
    n = len(tiles)
    for k in range(n):
        count[n - 1 - k] = ceil_div(extents[k], tiles[k])
    if extents:
        new = []
        for e, t in zip(extents, tiles):
            new += [e, t]
        kernel.attributes["ireec.distribution"] = DenseArrayAttr(T.i64, tuple(new))
    if root is not None and L.is_linalg_structured(root):
        per_loop = [0] * len(L.iterator_types(root))
        for k, d in enumerate(root_dims):
            per_loop[d] = tiles[k]
        fields = [f"workgroup = {_fmt(per_loop)}"]
        if cfg.ukernel:
            fields.append(f'ukernel = #iree_gpu.ukernel_config<name = "{cfg.ukernel}">')
            root.attributes["ireec.gpu_ukernel"] = StringAttr(cfg.ukernel)
        root.attributes["lowering_config"] = OpaqueAttr(f"#iree_gpu.lowering_config<{{{', '.join(fields)}}}>")
    size = list(cfg.workgroup_size) + [1] * (3 - len(cfg.workgroup_size))
    grid = target.grid_for(count)
    info = f"pipeline = {cfg.pipeline} workgroup_size = {_fmt(size)}"
    if list(grid) != count:
        info += f" grid = {_fmt(grid)}"
    kernel.attributes["translation_info"] = OpaqueAttr(f"#iree_codegen.translation_info<{info}>")
    export.attributes["workgroup_count"] = DenseArrayAttr(T.i64, tuple(count))
    export.attributes["workgroup_size"] = DenseArrayAttr(T.i64, tuple(size))
    return count


@register_pass
class LLVMGPUSelectLoweringStrategyPass(Pass):
    """IREE's ``iree-llvmgpu-select-lowering-strategy``: see the module docstring. A no-op
    for targets whose ``gpu_kernel_config`` returns None (the CPU targets)."""

    name = "iree-llvmgpu-select-lowering-strategy"

    def run(self, module: Operation, ctx: PassContext) -> None:
        if not ctx.target.is_gpu:
            return
        for exe in [op for op in module.body.ops if op.name == "hal.executable"]:
            exports = {o.attributes["sym_name"].value: o for o in exe.walk() if o.name == "hal.executable.export"}
            for k in [o for o in exe.walk() if o.name == "func.func"]:
                exp = exports.get(k.attributes["sym_name"].value)
                if exp is not None:
                    configure_gpu_kernel(k, exp, ctx.target)

"""CPU micro-kernel roots become ``iree_codegen.ukernel.generic`` calls on the workgroup's tile.

Mirrors IREE's ``iree-codegen-cpu-lower-to-ukernels`` (LLVMCPULowerToUKernels, which
replaces an ``mmt4d`` by ``iree_codegen.ukernel.generic "iree_uk_mmt4d"``), on memrefs and
per workgroup tile (:mod:`.tile_and_distribute_to_workgroups`).

A generic that the lowering strategy gave ``ireec.ukernel_blocking`` (an f32 contraction,
see :mod:`.ukernels`) becomes, inside loops over its batch dims (and filter taps), one
``iree_codegen.ukernel.generic`` op calling ``ireec_uk_sgemm`` on the workgroup's tile. Its
operands: A, B, C, the ``work`` array (a ``memref.alloca`` of ``IREEC_UK_SGEMM_WORK_FLOATS``
floats marked ``ireec.ukernel_work``, the packed panels: bounded by the blocking, which
``--max-stack-bytes`` shrinks), the indices of the tile's first element in A, B and C, and
the sizes M, N, K; its attributes: ``u_kernel_fn_name``, ``strides`` (A's along i and k,
B's along k and j, C's along i, in elements) and ``blocking`` (MC, NC, KC).

A generic marked for ``ireec_uk_igemm`` (an 8-bit integer contraction, :func:`.ukernels.match_igemm`)
becomes the same kind of call of ``ireec_uk_igemm`` inside loops over its batch dims: operands
A, B, C, the ``work`` array (``memref.alloca`` of ``IREEC_UK_IGEMM_WORK_BYTES`` bytes as i32),
the tile origins, M, N, K and the two zero points (i32; constant 0 where the body has none);
attributes ``strides``, ``blocking``, ``accumulate`` and ``lhs_unsigned`` / ``rhs_unsigned``
for operands zero-extended (``arith.extui``). It has no epilogue and no bias start.

A depthwise convolution marked for ``ireec_uk_dwconv`` (:func:`.ukernels.match_dwconv`)
becomes, inside loops over its batch dims, one ``iree_codegen.ukernel.generic`` on the
workgroup's tile: operands image, filter, output, the indices of the tile's first element
in each and the sizes C, OH, OW; attributes ``strides`` (elements one step of c, y, x, ty,
tx moves the image; c, ty, tx the filter; c, y, x the output) and ``window`` (KH, KW).
A zero-padded channels-last image (:mod:`.dwconv_padding`) is read from the pad's source
(``ireec_uk_dwconv_padded``): attribute ``padding`` (the source's rows and columns, the output's
and the window's steps along them, the element strides of a row and a column) and two more
operands after the sizes, the padding before the tile along rows and columns.

Both start from zero when :mod:`.fold_ukernel_accumulator_inits` dropped the zero fill of
their output (``ireec.ukernel_overwrite``: ``accumulate = false``), from the bias broadcast
it marked (``ireec.ukernel_bias_init``: ``bias_init``, the broadcast erased), and take the
elementwise consumer right after them when it is a bias add and a ReLU / ReLU6 / clamp on
their output in place (:mod:`.ukernel_epilogue`): the consumer is erased and the call
carries the epilogue (``bias_strides``, ``clamp_lo``, ``clamp_hi``, ... and the bias memref),
applied to each register tile before it is stored. The op format is
ireec/dialects/iree_codegen.py's.

An op whose form no longer fits (operands aliasing, constants, dynamic strides) is left as
it is for :mod:`.convert_conv_to_im2col` or :mod:`.convert_linalg_to_loops`, with the mark of
a bias broadcast it would have taken removed.
"""
from __future__ import annotations

from typing import List, Optional, Tuple

from ...ir import types as T
from ...ir.affine import AffineMap
from ...ir.attributes import BoolAttr, DenseArrayAttr, IntegerAttr, StringAttr, UnitAttr
from ...ir.core import Builder, Operation, Value
from ...ir.diagnostics import CompileError
from ...dialects.memref import build_alloc
from ..pass_base import Pass, PassContext, register_pass
from . import dwconv_padding as DP
from . import ukernel_epilogue as UE
from . import ukernels as UK
from .loop_builder import IndexBuilder, LoopBounds, for_loop, global_ivs, operand_indices
from .memref_utils import generic_loop_ranges, generic_maps, loop_order, op_before, pointer_strides
from .padded_image import padded_image
from .tile_and_distribute_to_workgroups import WorkgroupTiles, kernel_functions


def check_bufferized(op: Operation) -> None:
    """Raise CompileError when generic ``op`` still has tensor operands."""
    if any(isinstance(v.type, T.TensorType) for v in op.operands):
        raise CompileError("linalg.generic on tensors reached loop lowering (not bufferized)", op.loc)


def call_site(op: Operation, b: Builder, loop_dims: List[int], lb: LoopBounds, operands,
              ivs_out: Optional[List[Value]] = None) -> Tuple[Builder, List[Value]]:
    """Where a micro-kernel call on ``op``'s workgroup tile goes: loops (built with ``b``)
    over ``loop_dims`` (batch dims, filter taps) and, inside them, the index of each
    ``(memref, indexing map)`` of ``operands``' first tile element, per dim, in order.
    Returns the innermost builder and those indices; ``ivs_out`` (when given) receives the
    loops' induction variables, in ``loop_dims`` order."""
    c0, c1 = lb.ib.const(0), lb.ib.const(1)
    ivs: List[Value] = [c0] * generic_maps(op)[0].num_dims
    inner = b
    for d in loop_dims:
        body = for_loop(inner, c0, lb.ubs[d], c1)
        ivs[d] = body.args[0]
        inner = Builder(body, 0, op.loc)
        if ivs_out is not None:
            ivs_out.append(body.args[0])
    glob = global_ivs(inner, ivs, lb.tile_of, lb.tiles)
    origin: List[Value] = []
    for v, m in operands:
        origin += operand_indices(IndexBuilder(inner, {}), v, m, ivs, glob, lb.tile_of, lb.tiles, bool(lb.tile_of))
    return inner, origin


def _copied_attrs(op: Operation, names=("lowering_config", "iree_codegen.ukernel")):
    return {k: op.attributes[k] for k in names if k in op.attributes}


def _first_tap_index(inner: Builder, tap_ivs: List[Value]) -> Value:
    """The sum of the taps' induction variables: zero only at the first tap."""
    acc = tap_ivs[0]
    for iv in tap_ivs[1:]:
        acc = inner.create("arith.addi", [acc, iv], [T.index]).result
    return acc


def lower_sgemm(op: Operation, lb: LoopBounds) -> bool:
    """Replace memref generic ``op`` by loops over its batch dims and taps around an
    ``iree_codegen.ukernel.generic`` call of ``ireec_uk_sgemm`` (module docstring), built
    before ``op``; False (nothing built) when :func:`.ukernels.sgemm_plan` finds none."""
    plan = UK.sgemm_plan(op)
    if plan is None:
        return False
    match, (a, bm, c), (a_map, b_map, c_map), strides = plan
    mc, nc, kc = (int(x) for x in op.attributes["ireec.ukernel_blocking"].value)
    init = UE.take_bias_init(op, c, c_map)  # before anything is built between it and op
    epilogue = UE.fusable_epilogue(op, plan)
    b = lb.ib.b
    work = build_alloc(b, "memref.alloca", T.MemRefType((UK.work_floats(mc, nc, kc),), T.f32),
                       attrs={"ireec.ukernel_work": UnitAttr()}).result
    operands = [(a, a_map), (bm, b_map), (c, c_map)]
    attrs = {}
    if epilogue is not None:
        _consumer, em, bias = epilogue
        if bias is not None:
            operands.append(bias[:2])
        attrs = UE.epilogue_attrs(em, bias[2] if bias is not None else None)
    if init is not None:
        UE.add_bias_init(init, operands, attrs)
    loop_ivs: List[Value] = []
    inner, origin = call_site(op, b, match.batch + match.taps, lb, operands, loop_ivs)
    mems = [v for v, _ in operands]
    first_tap: List[Value] = []
    if match.taps and init is None and "ireec.ukernel_overwrite" in op.attributes:
        first_tap = [_first_tap_index(inner, loop_ivs[len(match.batch):])]
        attrs["accumulate_after_first"] = UnitAttr()
    ubs = lb.ubs
    inner.create("iree_codegen.ukernel.generic",
                 mems[:3] + [work] + mems[3:] + origin + [ubs[match.i], ubs[match.j], ubs[match.k]]
                 + first_tap, [],
                 {**_copied_attrs(op),
                  "u_kernel_fn_name": StringAttr(UK.SGEMM),
                  "strides": DenseArrayAttr(T.i64, strides),
                  "blocking": DenseArrayAttr(T.i64, (mc, nc, kc)),
                  "accumulate": BoolAttr(init is None and "ireec.ukernel_overwrite" not in op.attributes),
                  **attrs})
    for taken in (epilogue, init):
        if taken is not None:
            taken[0].erase()
    return True


def lower_igemm(op: Operation, lb: LoopBounds) -> bool:
    """Replace memref generic ``op`` (an 8-bit contraction marked for ``ireec_uk_igemm``) by
    loops over its batch dims around an ``iree_codegen.ukernel.generic`` call of
    ``ireec_uk_igemm`` (module docstring), built before ``op``; False (nothing built) when
    :func:`.ukernels.igemm_plan` finds none."""
    plan = UK.igemm_plan(op)
    if plan is None:
        return False
    match, (a, bm, c), (a_map, b_map, c_map), strides = plan
    mc, nc, kc = (int(x) for x in op.attributes["ireec.ukernel_blocking"].value)
    b = lb.ib.b
    work = build_alloc(b, "memref.alloca", T.MemRefType((-(-UK.igemm_work_bytes(mc, nc, kc) // 4),), T.i32),
                       attrs={"ireec.ukernel_work": UnitAttr()}).result
    inner, origin = call_site(op, b, match.batch, lb, [(a, a_map), (bm, b_map), (c, c_map)])
    zero_points = []
    for zp in (match.a_zp, match.b_zp):
        if zp is None:
            zp = inner.create("arith.constant", [], [T.i32], {"value": IntegerAttr(0, T.i32)}).result
        zero_points.append(zp)
    ubs = lb.ubs
    attrs = {k: UnitAttr() for k, on in (("lhs_unsigned", match.lhs_unsigned),
                                         ("rhs_unsigned", match.rhs_unsigned)) if on}
    inner.create("iree_codegen.ukernel.generic",
                 [a, bm, c, work] + origin + [ubs[match.i], ubs[match.j], ubs[match.k]] + zero_points, [],
                 {**_copied_attrs(op),
                  "u_kernel_fn_name": StringAttr(UK.IGEMM),
                  "strides": DenseArrayAttr(T.i64, strides),
                  "blocking": DenseArrayAttr(T.i64, (mc, nc, kc)),
                  "accumulate": BoolAttr("ireec.ukernel_overwrite" not in op.attributes),
                  **attrs})
    return True


def _dwconv_strides(match, maps, st) -> Optional[Tuple[int, ...]]:
    """``strides`` of the dwconv call (module docstring), None where one is dynamic."""
    (i_map, f_map, o_map), (si, sf, so) = maps, st

    def s(m: AffineMap, x, d: Optional[int]) -> Optional[int]:
        return 0 if d is None else UK.loop_stride(m, x, d)

    strides = (s(i_map, si, match.c), s(i_map, si, match.y), s(i_map, si, match.x),
               s(i_map, si, match.ty), s(i_map, si, match.tx),
               s(f_map, sf, match.c), s(f_map, sf, match.ty), s(f_map, sf, match.tx),
               s(o_map, so, match.c), s(o_map, so, match.y), s(o_map, so, match.x))
    return None if any(x is None for x in strides) else strides


def _unpadded_image(op: Operation, match, img: Value, i_map):
    """``(PaddedImage, PaddedGeometry)`` when image ``img`` of depthwise convolution ``op`` is
    a fused pad's stack array that the micro-kernel reads unpadded
    (:mod:`.dwconv_padding`), else None."""
    pad = padded_image(img, op)
    if pad is None or not DP.is_zero_constant(pad.value):
        return None
    geo = DP.geometry(match, i_map, img.type.shape, pad.padded)
    return None if geo is None else (pad, geo)


def _padding_operands(inner: Builder, origin: List[Value], pad, geo) -> List[Value]:
    """The image's padding before the tile along its row and column dims (``low`` less the
    tile's first padded index there: negative inside the image), as ``index`` values built
    with ``inner``; ``origin`` (the source's indices first) then points at the source's row
    and column 0."""
    ib = IndexBuilder(inner, {})
    out = []
    for j in (geo.jy, geo.jx):
        if j is None:
            out.append(ib.const(0))
            continue
        out.append(inner.create("arith.subi", [ib.const(pad.low[j]), origin[j]], [T.index]).result)
        origin[j] = ib.const(0)
    return out


def lower_dwconv(op: Operation, lb: LoopBounds, erase_after: Optional[List[Operation]] = None) -> bool:
    """Replace memref depthwise convolution ``op`` (:func:`.ukernels.match_dwconv`) by
    loops over its batch dims around an ``iree_codegen.ukernel.generic`` call of
    ``ireec_uk_dwconv`` on the workgroup's tile of channels and output pixels, built
    before ``op``; False (nothing built) when the form is not matched any more, the
    output is also an input, an operand is a constant or has no static strides.

    A zero-padded channels-last image (:mod:`.dwconv_padding`) is read from the pad's
    source: the call gets ``padding`` (the source's rows and columns, the output's and the
    window's steps along them, their element strides) and the padding before the tile as
    two more operands; the pad's array, fills and copy go into ``erase_after``, to be erased
    once ``op`` is."""
    maps = generic_maps(op)
    match = UK.match_dwconv(op, loop_order(op, maps[0].num_dims))
    if match is None:
        return False
    img, flt, out = op.operands[match.image], op.operands[match.filter], op.operands[2]
    i_map, f_map, o_map = maps[match.image], maps[match.filter], maps[2]
    if out is img or out is flt:
        return False
    unpadded = _unpadded_image(op, match, img, i_map) if erase_after is not None else None
    if unpadded is not None:
        img = unpadded[0].src
    st = pointer_strides((img, flt, out))
    if st is None:
        return False
    strides = _dwconv_strides(match, (i_map, f_map, o_map), st)
    if strides is None:
        return False
    ranges = generic_loop_ranges(op)
    window = (1 if match.ty is None else ranges[match.ty], ranges[match.tx])
    c1 = lb.ib.const(1)
    operands = [(img, i_map), (flt, f_map), (out, o_map)]
    epilogue, attrs = UE.consumer_epilogue(op, out, o_map), {}
    if epilogue is not None and epilogue[2] is not None:
        if UE.ukernel_bias_strides(op, *epilogue[2]) is not None:
            operands.append(epilogue[2])
        else:
            epilogue = None
    if epilogue is not None:
        attrs = UE.epilogue_attrs(epilogue[1], (1,) if epilogue[2] is not None else None)
    init = UE.take_bias_init(op, out, o_map)
    if init is not None:
        UE.add_bias_init(init, operands, attrs)
    inner, origin = call_site(op, lb.ib.b, match.batch, lb, operands)
    ubs = lb.ubs
    sizes = [ubs[match.c], c1 if match.y is None else ubs[match.y], ubs[match.x]]
    if unpadded is not None:
        pad, geo = unpadded
        sizes += _padding_operands(inner, origin, pad, geo)
        rows = (1, 1, 1, 0) if geo.jy is None else (pad.shape[geo.jy], geo.sy, geo.dy, st[0][geo.jy])
        attrs["padding"] = DenseArrayAttr(T.i64, (rows[0], pad.shape[geo.jx], rows[1], geo.sx, rows[2], geo.dx,
                                                  rows[3], st[0][geo.jx]))
        erase_after.extend(pad.ops)
    inner.create("iree_codegen.ukernel.generic", [v for v, _ in operands] + origin + sizes, [],
                 {**_copied_attrs(op),
                  "u_kernel_fn_name": StringAttr(UK.DWCONV),
                  "strides": DenseArrayAttr(T.i64, strides),
                  "window": DenseArrayAttr(T.i64, window),
                  "accumulate": BoolAttr(init is None and "ireec.ukernel_overwrite" not in op.attributes),
                  **attrs})
    for taken in (epilogue, init):
        if taken is not None:
            taken[0].erase()
    return True


def _is_sgemm(op: Operation) -> bool:
    """Marked for the sgemm micro-kernel and not for im2col (:mod:`.convert_conv_to_im2col`
    lowers those, whether or not their taps would also fit a per-tap call)."""
    return ("ireec.ukernel_blocking" in op.attributes and "ireec.im2col" not in op.attributes
            and UK.ukernel_name(op) == UK.SGEMM)


def _is_igemm(op: Operation) -> bool:
    return "ireec.ukernel_blocking" in op.attributes and UK.ukernel_name(op) == UK.IGEMM


def _is_dwconv(op: Operation) -> bool:
    return UK.DWCONV in str(op.attributes.get("iree_codegen.ukernel", ""))


def _is_root(op: Operation) -> bool:
    return _is_sgemm(op) or _is_igemm(op) or _is_dwconv(op)


def lower_to_ukernel(op: Operation, tiles: Optional[WorkgroupTiles]) -> None:
    """Replace micro-kernel root ``op`` by its call (module docstring), or leave it, its
    loop constants gone again, when its form no longer fits. Either way the bias broadcast
    marked for it, when the call did not take it, loses its ``ireec.ukernel_init`` mark."""
    check_bufferized(op)
    lb = LoopBounds.build(op, tiles)
    init = op_before(op) if "ireec.ukernel_bias_init" in op.attributes else None
    if init is not None and "ireec.ukernel_init" not in init.attributes:
        init = None
    erase_after: List[Operation] = []
    if ((_is_sgemm(op) and lower_sgemm(op, lb)) or (_is_igemm(op) and lower_igemm(op, lb))
            or (_is_dwconv(op) and lower_dwconv(op, lb, erase_after))):
        op.erase()
        for o in erase_after:
            o.erase()
    else:
        lb.erase_constants()
    if init is not None and init.parent is not None:  # the call did not take it
        del init.attributes["ireec.ukernel_init"]


@register_pass
class CPULowerToUKernelsPass(Pass):
    """IREE's ``iree-codegen-cpu-lower-to-ukernels`` on memrefs: see the module docstring."""

    name = "iree-codegen-cpu-lower-to-ukernels"

    def run(self, module: Operation, ctx: PassContext) -> None:
        seen = set()
        for k in kernel_functions(module):
            tiles = WorkgroupTiles.of(k)
            for op in [o for o in k.walk() if o.name == "linalg.generic"]:
                seen.add(id(op))
                if op.parent is not None and _is_root(op):
                    lower_to_ukernel(op, tiles)
        for op in [o for o in module.walk() if o.name == "linalg.generic" and id(o) not in seen]:
            if _is_root(op):
                lower_to_ukernel(op, None)

"""``linalg.generic`` on memrefs → ``scf.for`` nests with ``memref.load`` / ``memref.store``.

Mirrors MLIR's ``convert-linalg-to-loops`` (Linalg/Transforms/Loops.cpp): one loop per
iteration dimension in dimension order, the iteration domain read off the operand shapes
through the indexing maps, each operand indexed by its map applied to the induction
variables, the body cloned with ``linalg.index`` replaced by the induction variables, and
``linalg.yield`` operands stored to the outputs.

Workgroup distribution (what IREE's ``TileAndDistributeToWorkgroups`` + ``LinalgToLoops``
produce together): in a kernel with ``ireec.distribution`` (extent and tile per distributed
dim, see :mod:`.select_lowering_strategy`) each distributed dim ``k`` gets, at the kernel's
entry, its tile offset ``hal.interface.workgroup.id[axis] * tile`` and size
``min(tile, extent - offset)`` (the constant ``tile`` when it divides the extent): axis x is
the innermost distributed dim. A generic's loop carrying dim ``k`` (``ireec.distribute``)
runs over the tile only (bounds-checked partial last tile); bindings are indexed globally
(offset + iv), per-tile temporaries (allocas with ``ireec.tile_dims``) locally.

Loop order: loops are sorted by the sum over operands of the element stride each loop moves
the operand by (largest outermost), so the innermost loop walks contiguous memory (matmul:
i, k, j; a row reduction: the reduced dim innermost; a column reduction: rows outer).
Any order is a valid schedule of a ``linalg.generic``; loop bounds are constants wherever the
tile divides the extent, so the C compiler can vectorize the innermost loop.

Register blocking (what IREE's second tiling level + vectorization give a contraction): a
generic with reduction loops whose single output is indexed by plain parallel dims, whose
innermost loop ``j`` walks the output's contiguous last dim and whose next output dim ``i``
has a constant range, is lowered as an ``MR x NR`` block of the output (see
:func:`register_block_plan`) kept in a small local array across the reduction loops::

    for i0 in 0..I step MR: for j0 in 0..J step NR:
      acc[MR][NR] = out[i0.., j0..]
      for k...: for r < MR: for c < NR: acc[r][c] = body(ins[i0 + r, j0 + c, k], acc[r][c])
      out[i0.., j0..] = acc

The C compiler fully unrolls the constant ``r``/``c`` loops, keeps ``acc`` in vector
registers and reuses each loaded row segment of the contiguous operand ``MR`` times
(``acc`` and the packed tile are declared as 2-d C arrays, see ``ireec.emitc.c_printer``).
With a single reduction dim, the contiguous input without ``i`` (matmul's B) is packed: the
reduction is tiled by ``KC`` and each ``KC x J`` tile is copied once to a contiguous local
array (at most :data:`PACK_BYTES`) shared by all blocks, which removes the 4 KiB-stride
cache-set conflicts of B's rows. Rows and columns of a (partial) tile that the blocks do not
cover are peeled into plain nests. Each output element still sees its reduction steps in
the original order, so results are bit-identical to the plain nest.

Micro-kernels (IREE's ``iree-codegen-cpu-lower-to-ukernels``): a generic that the lowering
strategy gave ``ireec.ukernel_blocking`` (an f32 contraction, see :mod:`.ukernels`) becomes,
inside loops over its batch dims, one ``iree_codegen.ukernel.generic`` op calling
``ireec_uk_sgemm`` on the workgroup's tile. Its operands: A, B, C, the ``work`` array
(a ``memref.alloca`` of ``IREEC_UK_SGEMM_WORK_FLOATS`` floats marked ``ireec.ukernel_work``,
the packed panels: bounded by the blocking, which ``--max-stack-bytes`` shrinks), the
indices of the tile's first element in A, B and C, and the sizes M, N, K; its attributes:
``fn_name``, ``strides`` (A's along i and k, B's along k and j, C's along i, in elements)
and ``blocking`` (MC, NC, KC). A convolution marked ``ireec.im2col`` (:mod:`.im2col`)
becomes, inside loops over its other pixel dims, a loop over chunks of the tile's output
pixels, each a copy nest packing the chunk's patches into a ``Col`` stack array (the
body's image prologue applied on the way) and one ``iree_codegen.ukernel.generic`` with
``Col`` as A (NHWC) or B (NCHW) and the whole window as K. A depthwise convolution marked
for ``ireec_uk_dwconv`` (:func:`.ukernels.match_dwconv`) becomes, inside loops over its
batch dims, one ``iree_codegen.ukernel.generic`` on the workgroup's tile: operands image,
filter, output, the indices of the tile's first element in each and the sizes C, OH, OW;
attributes ``strides`` (elements one step of c, y, x, ty, tx moves the image; c, ty, tx the
filter; c, y, x the output) and ``window`` (KH, KW).

Both micro-kernels start from zero when a zero fill of their whole output tile comes right
before them (the fill is dropped, ``accumulate = false``), and take the elementwise consumer
right after them when it is a bias add and a ReLU / ReLU6 / clamp on their output in place
(:mod:`.ukernel_epilogue`): the consumer is erased and the call carries the epilogue
(``bias_strides``, ``clamp_lo``, ``clamp_hi``, ... and the bias memref), applied to each
register tile before it is stored.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple

from ...ir import types as T
from ...ir.affine import AffineBinary, AffineConst, AffineDim, AffineExpr, AffineMap
from ...ir.attributes import BoolAttr, DenseArrayAttr, FloatAttr, IntegerAttr, StringAttr, UnitAttr
from ...ir.core import Block, Builder, Operation, Region, Value
from ...ir.diagnostics import CompileError
from ...dialects import linalg as L
from ...dialects.memref import build_alloc
from .bufferize import segment_sizes
from . import im2col as IM
from . import ukernel_epilogue as UE
from . import ukernels as UK
from .memref_utils import loop_order, strides_and_offset, zero_fill_before
from ..pass_base import Pass, PassContext, register_pass


def generic_maps(op: Operation) -> List[AffineMap]:
    return [a.value for a in op.attributes["indexing_maps"].value]


def generic_loop_ranges(op: Operation) -> List[int]:
    """Static size of each iteration dimension, from the first operand dim it indexes."""
    maps = generic_maps(op)
    n = maps[0].num_dims if maps else 0
    ranges: List = [None] * n
    for v, m in zip(op.operands, maps):
        shape = getattr(v.type, "shape", ())
        for k, e in enumerate(m.results):
            if isinstance(e, AffineDim) and ranges[e.pos] is None:
                ranges[e.pos] = shape[k]
    if any(r is None for r in ranges):
        raise CompileError("cannot infer the loop range of a linalg.generic dimension", op.loc)
    return ranges


class _IndexBuilder:
    """Emits arith ops on index values for affine expressions, reusing constants."""

    def __init__(self, b: Builder, consts: Dict[int, Value]):
        self.b = b
        self.consts = consts

    def const(self, v: int) -> Value:
        c = self.consts.get(v)
        if c is None:
            c = self.b.create("arith.constant", [], [T.index], {"value": IntegerAttr(v, T.index)}).result
            self.consts[v] = c
        return c

    def expr(self, e: AffineExpr, ivs: List[Value]) -> Value:
        if isinstance(e, AffineDim):
            return ivs[e.pos]
        if isinstance(e, AffineConst):
            return self.const(e.value)
        if isinstance(e, AffineBinary):
            lhs, rhs = self.expr(e.lhs, ivs), self.expr(e.rhs, ivs)
            name = {"+": "arith.addi", "*": "arith.muli", "floordiv": "arith.floordivsi",
                    "ceildiv": "arith.ceildivsi", "mod": "arith.remsi"}[e.kind]
            return self.b.create(name, [lhs, rhs], [T.index]).result
        raise CompileError(f"unsupported affine expression {e}")


def for_loop(b: Builder, lb: Value, ub: Value, step: Value) -> Block:
    """Create ``scf.for`` and return its body block (ending in scf.yield)."""
    blk = Block([T.index])
    b.create("scf.for", [lb, ub, step], [], regions=[Region([blk])])
    blk.append(Operation("scf.yield", [], loc=b.loc))
    return blk


#: Register block (rows, contiguous columns) for contractions: 8x16 f32 accumulators are
#: sixteen 256-bit vectors in the AVX2 clone (IREEC_KERNEL_CLONES); the best of 4x8 .. 8x32
#: measured on benchmarks/cases/matmul_1024.mlir (gcc 12, AMD EPYC Zen 4).
REGISTER_BLOCK = (8, 16)

#: The reduction nest runs rows outside columns (``k, r, c``: GCC unrolls the column loop
#: and keeps the block in registers, 1024^3: 33 ms vs 42 ms) when the reduction is longer
#: than this, else columns outside rows (``k, c, r``): for short reductions GCC 12
#: vectorizes the ``k, r, c`` row loop across rows (strided) instead (128^3: 0.49 ms vs
#: 0.08 ms). Measured on the benchmark cases, gcc 12 -O3, AMD EPYC (Zen 4).
ROWS_OUTSIDE_MIN_K = 256


#: Most bytes of a packed operand tile (a stack array of the workgroup function; kernels run on
#: OpenMP worker threads, whose stacks may be small).
PACK_BYTES = 32 * 1024

#: The packed-tile limit of the current compilation: :data:`PACK_BYTES`, or half of
#: ``--max-stack-bytes`` when that is smaller (smaller tiles so a call fits the stack budget).
_pack_limit = [PACK_BYTES]


def _const_index(v: Value) -> Optional[int]:
    o = v.owner
    if isinstance(o, Operation) and o.name == "arith.constant":
        return o.attributes["value"].value
    return None


def register_block_plan(op: Operation, ubs: List[Value], maxes: List[int],
                        order: List[int]) -> Optional[Tuple[int, int, int, int, object]]:
    """``(i, j, MR, NR, pack)`` if memref generic ``op`` is lowered register-blocked (see the
    module docstring), else None. ``ubs`` are the loop upper bounds (constants, or the size
    of a partial workgroup tile), ``maxes`` their largest values, ``order`` the loop order;
    ``pack`` is :func:`_pack_plan`'s answer.

    Requires: one output, not also an input, indexed by distinct plain dims with its last
    dim contiguous (stride 1); at least one reduction dim (a dim absent from the output);
    ``j`` = innermost loop = the output's last dim and ``i`` = its next-to-last. The block
    is :data:`REGISTER_BLOCK`, halved (down to 2x4) while it does not divide a constant
    range; rows and columns the blocks do not cover run as plain loop nests (peeling)."""
    n_in, n_out = segment_sizes(op)
    if n_out != 1 or len(order) < 3:
        return None
    out = op.operands[n_in]
    if not isinstance(out.type, T.MemRefType) or out in op.operands[:n_in]:
        return None
    m = generic_maps(op)[n_in]
    if len(m.results) < 2 or not all(isinstance(e, AffineDim) for e in m.results):
        return None
    dims = [e.pos for e in m.results]
    if len(set(dims)) != len(dims) or len(dims) == len(order):
        return None
    try:
        strides, _ = strides_and_offset(out.type)
    except ValueError:
        return None
    i, j = dims[-2], dims[-1]
    if order[-1] != j or strides[-1] != 1:
        return None

    def fit(d: int, full: int, least: int) -> int:
        r = _const_index(ubs[d])
        if r is None:
            return full
        blk = full
        while blk > least and r % blk:
            blk //= 2
        return blk if r % blk == 0 else full

    mr, nr = fit(i, REGISTER_BLOCK[0], 2), fit(j, REGISTER_BLOCK[1], 4)
    if maxes[i] < mr or maxes[j] < nr:
        return None
    return i, j, mr, nr, _pack_plan(op, ubs, dims, i, j, maxes[j])


def _pack_plan(op: Operation, ubs: List[Value], out_dims: List[int], i: int, j: int,
               rj: int) -> Optional[Tuple[int, int, int]]:
    """``(operand, k, KC)`` when the block's contiguous input can be packed: the generic has
    one reduction dim ``k`` with a constant range, and an input memref indexed by plain dims
    without ``i``, ending in ``j`` with stride 1 and containing ``k`` (matmul's B). Its
    ``KC x J`` tile (``KC`` the largest power-of-two divisor of the ``k`` range with the tile
    within :data:`PACK_BYTES`, at least 8) is copied to a contiguous local array once per
    ``KC`` step and shared by all register blocks."""
    n_in, _ = segment_sizes(op)
    maps = generic_maps(op)
    red = [d for d in range(maps[0].num_dims) if d not in out_dims]
    if len(red) != 1:
        return None
    k = red[0]
    rk = _const_index(ubs[k])
    if rk is None:
        return None
    for x, (v, m) in enumerate(zip(op.operands[:n_in], maps[:n_in])):
        if not isinstance(v.type, T.MemRefType) or not m.results:
            continue
        if not all(isinstance(e, AffineDim) for e in m.results):
            continue
        ds = [e.pos for e in m.results]
        if i in ds or ds[-1] != j or k not in ds:
            continue
        try:
            strides, _ = strides_and_offset(v.type)
        except ValueError:
            continue
        if strides[-1] != 1:
            continue
        width = (v.type.element_type.width + 7) // 8 if hasattr(v.type.element_type, "width") else 0
        if width not in (4, 8):
            continue
        kc = 1
        while rk % (kc * 2) == 0 and kc * 2 * rj * width <= _pack_limit[0]:
            kc *= 2
        if kc < 8:
            continue
        return x, k, kc
    return None


def loop_stride(m: AffineMap, strides, d: int) -> Optional[int]:
    """Elements one step of loop ``d`` moves through an operand indexed by map ``m`` whose
    dims have element ``strides`` (None: a dynamic stride)."""
    total = 0
    for e, x in zip(m.results, strides):
        coeff = UK.linear_coefficients(e) or {}
        if coeff.get(d):
            if not isinstance(x, int):
                return None
            total += coeff[d] * x
    return total


def _operand_indices(b: Builder, v: Value, m: AffineMap, ivs: List[Value], glob: List[Value],
                     tile_of: Dict[int, int], tiles) -> List[Value]:
    """Indices of memref ``v`` (indexing map ``m``) at loop point ``ivs`` (tile-local) /
    ``glob`` (global): bindings are indexed globally, per-tile temporaries (allocas with
    ``ireec.tile_dims``) locally along their distributed dims."""
    ib = _IndexBuilder(b, {})
    td = v.owner.attributes.get("ireec.tile_dims") if isinstance(v.owner, Operation) else None
    td = list(td.value) if td is not None and tile_of else [-1] * len(m.results)
    out = []
    for e, k in zip(m.results, td):
        if k >= 0 and isinstance(e, AffineDim) and tile_of.get(e.pos) == k:
            out.append(ivs[e.pos])
        elif k >= 0:
            g = ib.expr(e, glob)
            out.append(b.create("arith.subi", [g, tiles.offsets[k]], [T.index]).result)
        else:
            out.append(ib.expr(e, glob))
    return out


class _Tiles:
    """Per-kernel tile offsets and sizes of the distributed dims (created at kernel entry)."""

    def __init__(self, kernel: Operation):
        a = kernel.attributes.get("ireec.distribution")
        flat = list(a.value) if a is not None else []
        self.extents = flat[0::2]
        self.tiles = flat[1::2]
        self.offsets: List[Value] = []
        self.sizes: List[Value] = []
        if not self.extents:
            return
        blk = kernel.body
        i = 0
        while i < len(blk.ops) and blk.ops[i].name in ("hal.interface.binding.subspan", "arith.constant"):
            i += 1
        b = Builder(blk, i, kernel.loc)
        ib = _IndexBuilder(b, {})
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


def _pointer_strides(values) -> Optional[List]:
    """The element strides of each memref of ``values`` (a micro-kernel's operands, passed as
    pointers), or None when one is a kernel-local constant (it may fold to scalars: no pointer
    to pass) or has no static layout."""
    if any(isinstance(v.owner, Operation) and v.owner.name in ("memref.get_global", "arith.constant")
           for v in values):
        return None
    try:
        return [strides_and_offset(v.type)[0] for v in values]
    except ValueError:
        return None


def _call_site(op: Operation, b: Builder, loop_dims: List[int], ubs: List[Value], tile_of: Dict[int, int],
               tiles, ib: "_IndexBuilder", operands, ivs_out: Optional[List[Value]] = None
               ) -> Tuple[Builder, List[Value]]:
    """Where a micro-kernel call on ``op``'s workgroup tile goes: loops (built with ``b``)
    over ``loop_dims`` (batch dims, filter taps) and, inside them, the index of each
    ``(memref, indexing map)`` of ``operands``' first tile element, per dim, in order.
    Returns the innermost builder and those indices; ``ivs_out`` (when given) receives the
    loops' induction variables, in ``loop_dims`` order."""
    c0, c1 = ib.const(0), ib.const(1)
    ivs: List[Value] = [c0] * generic_maps(op)[0].num_dims
    inner = b
    for d in loop_dims:
        body = for_loop(inner, c0, ubs[d], c1)
        ivs[d] = body.args[0]
        inner = Builder(body, 0, op.loc)
        if ivs_out is not None:
            ivs_out.append(body.args[0])
    glob = list(ivs)
    for d, k in tile_of.items():
        glob[d] = inner.create("arith.addi", [tiles.offsets[k], ivs[d]], [T.index]).result
    origin: List[Value] = []
    for v, m in operands:
        origin += _operand_indices(inner, v, m, ivs, glob, tile_of, tiles)
    return inner, origin


def _elide_zero_fills_of_ukernel_outputs(kernel: Operation) -> None:
    """IREE's micro-kernels without the ACCUMULATE flag (``iree_uk_mmt4d`` overwrites its
    output unless told to accumulate): a zero fill of the output directly followed by the
    op that calls ``ireec_uk_sgemm`` (a static reduction of at least one element) or
    ``ireec_uk_dwconv`` on all of it, over the same workgroup tiling, is dropped and the op
    marked ``ireec.ukernel_overwrite``: the micro-kernel starts its sums from zero instead of
    reading the zeros back. With filter taps looped around the sgemm call (a 3x3
    convolution: one call per tap) only the first tap's call starts from zero, the others
    add to what it wrote."""
    for op in [o for o in kernel.walk() if o.name == "linalg.generic"]:
        out = _overwritable_output(op, allow_taps=True)
        if out is None:
            continue
        fill = zero_fill_before(op, out[0])
        if fill is None:
            continue
        fill_map = AffineMap.identity(len(out[0].type.shape))
        if _distributed_positions(fill, fill_map) != _distributed_positions(op, out[1]):
            continue  # the fill and the call cover different parts of the output
        op.attributes["ireec.ukernel_overwrite"] = UnitAttr()
        fill.erase()


def _overwritable_output(op: Operation, allow_taps: bool = False):
    """``(output, its indexing map)`` of a generic that will call a micro-kernel writing
    every element of its output tile once, with every index a loop or a constant 0 (the
    zero-fill elision above); else None. With ``allow_taps`` an sgemm call looped over
    filter taps counts too (its first call can overwrite; every later one accumulates)."""
    if "ireec.ukernel_blocking" in op.attributes:
        plan = ConvertLinalgToLoopsPass._sgemm_plan(op)
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


def _consumer_epilogue(op: Operation, c: Value, c_map: AffineMap):
    """The elementwise consumer of micro-kernel op ``op`` (output ``c`` through ``c_map``)
    that the micro-kernel can apply to its finished results (:mod:`.ukernel_epilogue`): the
    next op of the block (constants skipped), rewriting ``c`` in place over the same
    workgroup tile (same distributed dims). Returns ``(consumer, match, bias)``, ``bias``
    None or ``(memref, its indexing map over op's loops)``; else None."""
    blk = op.parent
    i = blk.ops.index(op) + 1
    while i < len(blk.ops) and blk.ops[i].name == "arith.constant":
        i += 1
    if i >= len(blk.ops):
        return None
    g = blk.ops[i]
    em = UE.match_epilogue(g, c)
    if em is None:
        return None
    g_maps = generic_maps(g)
    out_pos = [e.pos for e in g_maps[-1].results]  # g's loop -> dim position of c
    if _distributed_positions(g, g_maps[-1]) != _distributed_positions(op, c_map):
        return None  # the consumer and the call cover different parts of c
    if em.bias is None:
        return g, em, None
    bias = L.inputs(g)[em.bias]
    # The bias's indices in op's loops: through c's dim positions.
    results = []
    for e in g_maps[em.bias].results:
        if isinstance(e, AffineDim):
            results.append(c_map.results[out_pos.index(e.pos)])
        elif isinstance(e, AffineConst):
            results.append(e)
        else:
            return None
    if bias is c or _pointer_strides((bias,)) is None:
        return None
    return g, em, (bias, AffineMap(c_map.num_dims, 0, tuple(results)))


def _distributed_positions(op: Operation, out_map: AffineMap) -> List[int]:
    """Per distributed dim of ``op`` (``ireec.distribute``), the position in its output
    (indexed through ``out_map``) of the loop carrying it, -1 where none does: two ops with
    equal lists write the same workgroup tile of that output."""
    d = op.attributes.get("ireec.distribute")
    return [out_map.results.index(AffineDim(x)) if x >= 0 and AffineDim(x) in out_map.results else -1
            for x in (list(d.value) if d is not None else [])]


def _epilogue_attrs(em, bias_strides) -> Dict[str, object]:
    """The micro-kernel op's attributes of epilogue ``em`` (ireec/dialects/iree_codegen.py)."""
    attrs = {}
    if bias_strides is not None:
        attrs["bias_strides"] = DenseArrayAttr(T.i64, bias_strides)
    if em.lo is not None:
        attrs["clamp_lo"] = FloatAttr(em.lo, T.f32)
        if em.lo_keeps_nan:
            attrs["lo_keeps_nan"] = UnitAttr()
    if em.hi is not None:
        attrs["clamp_hi"] = FloatAttr(em.hi, T.f32)
        if em.hi_replaces_nan:
            attrs["hi_replaces_nan"] = UnitAttr()
    return attrs


def _fusable_epilogue(op: Operation, plan):
    """:func:`_consumer_epilogue` of micro-kernel contraction ``op`` (its
    :meth:`ConvertLinalgToLoopsPass._sgemm_plan` ``plan``) when the call covers the whole
    static reduction (no filter taps looped around it, at least one k step), with the bias's
    strides along i and j (a j stride of 0 or 1, as ``ireec_uk_sgemm_fused`` reads it)."""
    match, (_a, _b, c), (_am, _bm, c_map), _st = plan
    if match.taps:
        return None
    k_range = generic_loop_ranges(op)[match.k]
    if not isinstance(k_range, int) or k_range < 1:
        return None
    found = _consumer_epilogue(op, c, c_map)
    if found is None or found[2] is None:
        return found
    g, em, (bias, b_map) = found
    strides = _ukernel_bias_strides(op, bias, b_map)
    return None if strides is None else (g, em, (bias, b_map, strides))


def _ukernel_bias_strides(op: Operation, bias: Value, b_map: AffineMap) -> Optional[Tuple[int, ...]]:
    """The ``bias_strides`` of a bias memref indexed through ``b_map`` (over micro-kernel op
    ``op``'s loops) as the micro-kernel reads it: along i and j for ``ireec_uk_sgemm``
    (j: 0 or 1), ``(1,)`` for ``ireec_uk_dwconv`` (a contiguous per-channel vector, constant
    along the output pixels); None when it cannot."""
    st = _pointer_strides((bias,))
    if st is None:
        return None
    maps = generic_maps(op)
    if "ireec.ukernel_blocking" in op.attributes:
        match = UK.match_sgemm(op, loop_order(op, maps[0].num_dims))
        if match is None:
            return None
        bi, bj = loop_stride(b_map, st[0], match.i), loop_stride(b_map, st[0], match.j)
        return None if bi is None or bj not in (0, 1) else (bi, bj)
    match = UK.match_dwconv(op, loop_order(op, maps[0].num_dims))
    if match is None or loop_stride(b_map, st[0], match.c) != 1 or any(
            loop_stride(b_map, st[0], d) != 0 for d in (match.y, match.x) if d is not None):
        return None
    return (1,)


def _op_before(op: Operation) -> Optional[Operation]:
    """The op of ``op``'s block before it, constants skipped."""
    blk = op.parent
    i = blk.ops.index(op) - 1
    while i >= 0 and blk.ops[i].name == "arith.constant":
        i -= 1
    return blk.ops[i] if i >= 0 else None


def _bias_init(op: Operation, out: Value, out_map: AffineMap):
    """``(broadcast, bias, its indexing map over op's loops)`` when the op right before
    micro-kernel op ``op`` broadcasts an f32 memref into all of ``out`` (its output, through
    ``out_map``) over the same workgroup tile, the micro-kernel can read that bias
    (:func:`_ukernel_bias_strides`) and no epilogue bias follows; else None."""
    g = _op_before(op)
    if g is None or g.name != "linalg.generic" or L.outputs(g) != [out] or len(L.inputs(g)) != 1:
        return None
    bias = L.inputs(g)[0]
    body = L.payload(g)
    ops = list(body.ops)
    if (any(t != L.PARALLEL for t in L.iterator_types(g)) or len(ops) != 1
            or list(ops[0].operands) != [body.args[0]] or bias is out
            or not isinstance(bias.type, T.MemRefType) or bias.type.element_type != T.f32):
        return None
    maps = generic_maps(g)
    if [getattr(e, "pos", None) for e in maps[1].results] != list(range(maps[1].num_dims)):
        return None  # the broadcast's loops are the output's dims, in order
    if _distributed_positions(g, maps[1]) != _distributed_positions(op, out_map):
        return None
    results = []
    for e in maps[0].results:
        if isinstance(e, AffineDim):
            results.append(out_map.results[e.pos])
        elif isinstance(e, AffineConst):
            results.append(e)
        else:
            return None
    b_map = AffineMap(out_map.num_dims, 0, tuple(results))
    if _ukernel_bias_strides(op, bias, b_map) is None:
        return None
    after = _consumer_epilogue(op, out, out_map)
    if after is not None and after[2] is not None:
        return None  # one bias per call: the consumer's
    return g, bias, b_map


def _fold_bias_inits_into_ukernels(kernel: Operation) -> None:
    """A bias broadcast into the whole output tile right before a micro-kernel op that
    writes each element once (:func:`_overwritable_output`; torch-mlir's linear layers and
    convolutions start from their bias this way) becomes the call's start
    (``IREEC_UK_FLAG_BIAS_INIT``: the sums start from the bias in registers, the same order
    as the loop nest): the broadcast is marked ``ireec.ukernel_init`` (left for the call's
    lowering to take) and the op ``ireec.ukernel_bias_init``."""
    for op in [o for o in kernel.walk() if o.name == "linalg.generic"]:
        # Not with one call per filter tap: every call but the first must accumulate.
        out = _overwritable_output(op)
        if out is None or "ireec.ukernel_overwrite" in op.attributes:
            continue
        found = _bias_init(op, *out)
        if found is None:
            continue
        found[0].attributes["ireec.ukernel_init"] = UnitAttr()
        op.attributes["ireec.ukernel_bias_init"] = UnitAttr()


def _add_bias_init(init, operands: List, attrs: Dict[str, object]) -> None:
    """Append the bias of a taken bias init (:func:`_take_bias_init`) to a micro-kernel
    call's ``operands`` and its ``bias_strides`` / ``bias_init`` to ``attrs``."""
    operands.append(init[1])
    attrs.update({"bias_strides": DenseArrayAttr(T.i64, init[2]), "bias_init": UnitAttr()})


def _take_bias_init(op: Operation, out: Value, out_map: AffineMap):
    """For ``op`` marked by :func:`_fold_bias_inits_into_ukernels`: ``(broadcast, (bias, its
    map), bias_strides)`` for its call; else None."""
    if "ireec.ukernel_bias_init" not in op.attributes:
        return None
    found = _bias_init(op, out, out_map)
    if found is None:
        return None
    g, bias, b_map = found
    return g, (bias, b_map), _ukernel_bias_strides(op, bias, b_map)


@register_pass
class ConvertLinalgToLoopsPass(Pass):
    """MLIR's ``convert-linalg-to-loops`` with workgroup distribution: see the module docstring."""

    name = "convert-linalg-to-loops"

    def run(self, module: Operation, ctx: PassContext) -> None:
        budget = ctx.max_stack_bytes
        _pack_limit[0] = PACK_BYTES if budget is None else min(PACK_BYTES, int(budget) // 2)
        kernels = [k for exe in module.body.ops if exe.name == "hal.executable"
                   for k in exe.walk() if k.name == "func.func"]
        seen = set()
        for k in kernels:
            _elide_zero_fills_of_ukernel_outputs(k)
            _fold_bias_inits_into_ukernels(k)
            tiles = _Tiles(k)
            for op in [o for o in k.walk() if o.name == "linalg.generic"]:
                seen.add(id(op))
                if op.parent is None or "ireec.ukernel_init" in op.attributes:
                    continue  # an epilogue or init a micro-kernel call took (or takes next)
                self._check(op)
                self.lower(op, tiles)
        for op in [o for o in module.walk() if o.name == "linalg.generic" and id(o) not in seen]:
            self._check(op)
            self.lower(op, None)

    @staticmethod
    def _check(op: Operation) -> None:
        if any(isinstance(v.type, T.TensorType) for v in op.operands):
            raise CompileError("linalg.generic on tensors reached loop lowering (not bufferized)", op.loc)

    @staticmethod
    def lower(op: Operation, tiles: "_Tiles" = None) -> None:
        maps = generic_maps(op)
        ranges = generic_loop_ranges(op)
        n_in, n_out = segment_sizes(op)
        dist_attr = op.attributes.get("ireec.distribute")
        dist = list(dist_attr.value) if (dist_attr is not None and tiles is not None and tiles.extents) else []
        b = Builder.before(op)
        consts: Dict[int, Value] = {}
        ib = _IndexBuilder(b, consts)
        c0, c1 = ib.const(0), ib.const(1)
        tile_of = {d: k for k, d in enumerate(dist) if d >= 0}
        # All bounds before the outermost loop.
        ubs = [tiles.sizes[tile_of[d]] if d in tile_of else ib.const(r) for d, r in enumerate(ranges)]
        init = _op_before(op) if "ireec.ukernel_bias_init" in op.attributes else None
        if init is not None and "ireec.ukernel_init" not in init.attributes:
            init = None
        if ("ireec.ukernel_blocking" in op.attributes and (
                ConvertLinalgToLoopsPass._lower_to_ukernel(op, ubs, tile_of, tiles, ib)
                or ConvertLinalgToLoopsPass._lower_im2col(op, ubs, tile_of, tiles, ib))) or (
                UK.DWCONV in str(op.attributes.get("iree_codegen.ukernel", ""))
                and ConvertLinalgToLoopsPass._lower_dwconv(op, ubs, tile_of, tiles, ib)):
            op.erase()
            if init is not None and init.parent is not None:  # the call did not take it
                del init.attributes["ireec.ukernel_init"]
                ConvertLinalgToLoopsPass.lower(init, tiles)
            return
        if init is not None:
            # No micro-kernel call took the bias init left for it: its own loops first.
            del init.attributes["ireec.ukernel_init"]
            ConvertLinalgToLoopsPass.lower(init, tiles)
            b.index = op.parent.ops.index(op)
        order = loop_order(op, len(ranges))
        maxes = [tiles.tiles[tile_of[d]] if d in tile_of else r for d, r in enumerate(ranges)]
        plan = register_block_plan(op, ubs, maxes, order)
        ivs: List = [None] * len(ranges)
        inner = b
        if plan is None:
            for d in order:
                body = for_loop(inner, c0, ubs[d], c1)
                ivs[d] = body.args[0]
                inner = Builder(body, 0, op.loc)
            sections = [(inner, ivs, None)]
        else:
            sections = ConvertLinalgToLoopsPass._blocked_loops(op, plan, order, ubs, maxes, ib)
        body = op.body
        for inner, ivs, acc in sections:
            ib_inner = _IndexBuilder(inner, {})
            glob: List[Value] = list(ivs)
            for d, k in tile_of.items():
                glob[d] = inner.create("arith.addi", [tiles.offsets[k], ivs[d]], [T.index]).result

            def indices(v: Value, m: AffineMap) -> List[Value]:
                td = v.owner.attributes.get("ireec.tile_dims") if isinstance(v.owner, Operation) else None
                td = list(td.value) if td is not None and dist else [-1] * len(m.results)
                out = []
                for e, k in zip(m.results, td):
                    if k >= 0 and isinstance(e, AffineDim) and tile_of.get(e.pos) == k:
                        out.append(ivs[e.pos])  # local index in the per-tile temporary
                    elif k >= 0:
                        g = ib_inner.expr(e, glob)
                        out.append(inner.create("arith.subi", [g, tiles.offsets[k]], [T.index]).result)
                    else:
                        out.append(ib_inner.expr(e, glob))
                return out

            if acc is not None and acc[0] == "pack":
                v = op.operands[plan[4][0]]
                x = inner.create("memref.load", [v] + indices(v, maps[plan[4][0]]), [v.type.element_type]).result
                inner.create("memref.store", [x, acc[1]] + acc[2], [])
                continue
            if acc is not None and acc[0] in ("init", "store"):
                kind, buf, acc_idx, _ = acc
                out = op.operands[n_in]
                if kind == "init":
                    x = inner.create("memref.load", [out] + indices(out, maps[n_in]), [out.type.element_type]).result
                    inner.create("memref.store", [x, buf] + acc_idx, [])
                else:
                    x = inner.create("memref.load", [buf] + acc_idx, [out.type.element_type]).result
                    inner.create("memref.store", [x, out] + indices(out, maps[n_in]), [])
                continue
            mapping: Dict[Value, Value] = {}
            for k, (v, m) in enumerate(zip(op.operands, maps)):
                arg = body.args[k]
                if not arg.uses:
                    continue
                if not isinstance(v.type, T.MemRefType):
                    mapping[arg] = v
                    continue
                if acc is not None and k >= n_in:
                    mapping[arg] = inner.create("memref.load", [acc[1]] + acc[2], [v.type.element_type]).result
                    continue
                if acc is not None and acc[3] is not None and k == acc[3][0]:
                    mapping[arg] = inner.create("memref.load", [acc[3][1]] + acc[3][2], [v.type.element_type]).result
                    continue
                mapping[arg] = inner.create("memref.load", [v] + indices(v, m), [v.type.element_type]).result
            for bop in body.ops:
                if bop.name == "linalg.yield":
                    for k, y in enumerate(bop.operands):
                        out = op.operands[n_in + k]
                        if acc is not None:
                            inner.create("memref.store", [mapping.get(y, y), acc[1]] + acc[2], [])
                        else:
                            inner.create("memref.store", [mapping.get(y, y), out] + indices(out, maps[n_in + k]), [])
                elif bop.name == "linalg.index":
                    d = bop.attributes["dim"].value
                    mapping[bop.results[0]] = glob[d]
                else:
                    inner.insert(bop.clone(mapping))
        op.erase()

    @staticmethod
    def _sgemm_plan(op: Operation):
        """``(match, (a, b, c), (a_map, b_map, c_map), strides)`` when memref generic ``op``
        (marked ``ireec.ukernel_blocking``) can call ``ireec_uk_sgemm``: a matched contraction
        whose C is neither A nor B, no operand a kernel-local constant, and static element
        strides ``(a_m, a_k, b_k, b_n, ldc)`` with C's rows contiguous; else None."""
        maps = generic_maps(op)
        match = UK.match_sgemm(op, loop_order(op, maps[0].num_dims))
        if match is None:
            return None
        a, bm, c = op.operands[:3]
        a_map, b_map, c_map = maps[:3]
        if match.swapped:  # the operand indexed by i is the second input
            a, bm, a_map, b_map = bm, a, b_map, a_map
        if c is a or c is bm:
            return None  # the micro-kernel reads A and B while it writes C
        st = _pointer_strides((a, bm, c))
        if st is None:
            return None
        sa, sb, sc = st

        strides = (loop_stride(a_map, sa, match.i), loop_stride(a_map, sa, match.k),
                   loop_stride(b_map, sb, match.k), loop_stride(b_map, sb, match.j),
                   loop_stride(c_map, sc, match.i))
        if any(x is None for x in strides) or loop_stride(c_map, sc, match.j) != 1:
            return None
        return match, (a, bm, c), (a_map, b_map, c_map), strides

    @staticmethod
    def _lower_to_ukernel(op: Operation, ubs: List[Value], tile_of: Dict[int, int], tiles,
                          ib: "_IndexBuilder") -> bool:
        """Replace memref generic ``op`` by loops over its batch dims and taps around an
        ``iree_codegen.ukernel.generic`` call of ``ireec_uk_sgemm`` (module docstring), built
        before ``op``; False (nothing built) when :meth:`_sgemm_plan` finds none."""
        plan = ConvertLinalgToLoopsPass._sgemm_plan(op)
        if plan is None:
            return False
        match, (a, bm, c), (a_map, b_map, c_map), strides = plan
        mc, nc, kc = (int(x) for x in op.attributes["ireec.ukernel_blocking"].value)
        init = _take_bias_init(op, c, c_map)  # before anything is built between it and op
        epilogue = _fusable_epilogue(op, plan)
        b = ib.b
        work = build_alloc(b, "memref.alloca", T.MemRefType((UK.work_floats(mc, nc, kc),), T.f32),
                           attrs={"ireec.ukernel_work": UnitAttr()}).result
        operands = [(a, a_map), (bm, b_map), (c, c_map)]
        attrs = {}
        if epilogue is not None:
            _consumer, em, bias = epilogue
            if bias is not None:
                operands.append(bias[:2])
            attrs = _epilogue_attrs(em, bias[2] if bias is not None else None)
        if init is not None:
            _add_bias_init(init, operands, attrs)
        loop_ivs: List[Value] = []
        inner, origin = _call_site(op, b, match.batch + match.taps, ubs, tile_of, tiles, ib, operands, loop_ivs)
        mems = [v for v, _ in operands]
        first_tap: List[Value] = []
        if match.taps and init is None and "ireec.ukernel_overwrite" in op.attributes:
            # Zero only at the first tap: the sum of the taps' induction variables.
            tap_ivs = loop_ivs[len(match.batch):]
            acc = tap_ivs[0]
            for iv in tap_ivs[1:]:
                acc = inner.create("arith.addi", [acc, iv], [T.index]).result
            first_tap = [acc]
            attrs["accumulate_after_first"] = UnitAttr()
        inner.create("iree_codegen.ukernel.generic",
                     mems[:3] + [work] + mems[3:] + origin + [ubs[match.i], ubs[match.j], ubs[match.k]]
                     + first_tap, [],
                     {**{k: op.attributes[k] for k in ("lowering_config", "iree_codegen.ukernel")
                         if k in op.attributes},
                      "u_kernel_fn_name": StringAttr(UK.SGEMM),
                      "strides": DenseArrayAttr(T.i64, strides),
                      "blocking": DenseArrayAttr(T.i64, (mc, nc, kc)),
                      "accumulate": BoolAttr(init is None and "ireec.ukernel_overwrite" not in op.attributes),
                      **attrs})
        for taken in (epilogue, init):
            if taken is not None:
                taken[0].erase()
        return True

    @staticmethod
    def _lower_dwconv(op: Operation, ubs: List[Value], tile_of: Dict[int, int], tiles,
                      ib: "_IndexBuilder") -> bool:
        """Replace memref depthwise convolution ``op`` (:func:`.ukernels.match_dwconv`) by
        loops over its batch dims around an ``iree_codegen.ukernel.generic`` call of
        ``ireec_uk_dwconv`` on the workgroup's tile of channels and output pixels, built
        before ``op``; False (nothing built) when the form is not matched any more, the
        output is also an input, an operand is a constant or has no static strides."""
        maps = generic_maps(op)
        match = UK.match_dwconv(op, loop_order(op, maps[0].num_dims))
        if match is None:
            return False
        img, flt, out = op.operands[match.image], op.operands[match.filter], op.operands[2]
        i_map, f_map, o_map = maps[match.image], maps[match.filter], maps[2]
        if out is img or out is flt:
            return False
        st = _pointer_strides((img, flt, out))
        if st is None:
            return False
        si, sf, so = st

        def st(m: AffineMap, s, d: Optional[int]) -> Optional[int]:
            return 0 if d is None else loop_stride(m, s, d)

        strides = (st(i_map, si, match.c), st(i_map, si, match.y), st(i_map, si, match.x),
                   st(i_map, si, match.ty), st(i_map, si, match.tx),
                   st(f_map, sf, match.c), st(f_map, sf, match.ty), st(f_map, sf, match.tx),
                   st(o_map, so, match.c), st(o_map, so, match.y), st(o_map, so, match.x))
        if any(x is None for x in strides):
            return False
        ranges = generic_loop_ranges(op)
        window = (1 if match.ty is None else ranges[match.ty], ranges[match.tx])
        c1 = ib.const(1)
        operands = [(img, i_map), (flt, f_map), (out, o_map)]
        epilogue, attrs = _consumer_epilogue(op, out, o_map), {}
        if epilogue is not None and epilogue[2] is not None:
            if _ukernel_bias_strides(op, *epilogue[2]) is not None:
                operands.append(epilogue[2])
            else:
                epilogue = None
        if epilogue is not None:
            attrs = _epilogue_attrs(epilogue[1], (1,) if epilogue[2] is not None else None)
        init = _take_bias_init(op, out, o_map)
        if init is not None:
            _add_bias_init(init, operands, attrs)
        inner, origin = _call_site(op, ib.b, match.batch, ubs, tile_of, tiles, ib, operands)
        sizes = [ubs[match.c], c1 if match.y is None else ubs[match.y], ubs[match.x]]
        inner.create("iree_codegen.ukernel.generic", [v for v, _ in operands] + origin + sizes, [],
                     {**{k: op.attributes[k] for k in ("lowering_config", "iree_codegen.ukernel")
                         if k in op.attributes},
                      "u_kernel_fn_name": StringAttr(UK.DWCONV),
                      "strides": DenseArrayAttr(T.i64, strides),
                      "window": DenseArrayAttr(T.i64, window),
                      "accumulate": BoolAttr(init is None and "ireec.ukernel_overwrite" not in op.attributes),
                      **attrs})
        for taken in (epilogue, init):
            if taken is not None:
                taken[0].erase()
        return True

    @staticmethod
    def _lower_im2col(op: Operation, ubs: List[Value], tile_of: Dict[int, int], tiles,
                      ib: "_IndexBuilder") -> bool:
        """Replace memref convolution ``op`` marked ``ireec.im2col`` (:mod:`.im2col`) by loops
        over its outer pixel dims and chunks of pixels, each packing the chunk's patches into
        a ``Col`` stack array and calling ``ireec_uk_sgemm`` once with the whole window as
        ``K``; False (nothing built) when the filter's window is not one flat axis in the
        nest's reduction order, the output's contiguous dim is neither ``f`` nor a pixel dim,
        or an operand has no static strides."""
        marker = op.attributes.get("ireec.im2col")
        if marker is None:
            return False
        maps = generic_maps(op)
        ranges = generic_loop_ranges(op)
        match = IM.match_im2col(op, loop_order(op, len(ranges)))
        k_total, pixels = (int(x) for x in marker.value)
        if match is None or match.k != k_total or pixels <= 0:
            return False
        w, x, c = op.operands[match.w], op.operands[1 - match.w], op.operands[2]
        w_map, x_map, c_map = maps[match.w], maps[1 - match.w], maps[2]
        if c is w or c is x or any(isinstance(v.owner, Operation) and v.owner.name in
                                   ("memref.get_global", "arith.constant") for v in (w, x, c)):
            return False
        try:
            sw, sc = (strides_and_offset(v.type)[0] for v in (w, c))
        except ValueError:
            return False
        w_dims, out_dims = [e.pos for e in w_map.results], [e.pos for e in c_map.results]
        sw = dict(zip(w_dims, sw))
        sc = dict(zip(out_dims, sc))
        if not all(isinstance(v, int) for v in list(sw.values()) + list(sc.values())):
            return False
        red = match.red
        wide = [d for d in red if ranges[d] > 1]  # dims of range 1 add nothing to the index
        if not wide or any(sw[a] != sw[b] * ranges[b] for a, b in zip(wide, wide[1:])):
            return False  # the window is not one flat axis of the filter
        r, q = IM.gemm_pixel_dims(match, out_dims)
        rows_are_pixels = sc[match.f] == 1  # NHWC: C[p, f]
        if not rows_are_pixels and sc[q] != 1:
            return False
        q_full = _const_index(ubs[q]) == ranges[q]
        merge = (r is not None and q_full and pixels % ranges[q] == 0
                 and sc[r] == ranges[q] * sc[q])
        width = ranges[q] if merge else 1
        cd = r if merge else q  # the dim chunks step along
        step = pixels // width
        mc, nc, kc = (int(v) for v in op.attributes["ireec.ukernel_blocking"].value)
        b = ib.b
        c0, c1, cstep = ib.const(0), ib.const(1), ib.const(step)
        col_shape = (pixels, k_total) if rows_are_pixels else (k_total, pixels)
        col = build_alloc(b, "memref.alloca", T.MemRefType(col_shape, T.f32)).result
        work = build_alloc(b, "memref.alloca", T.MemRefType((UK.work_floats(mc, nc, kc),), T.f32),
                           attrs={"ireec.ukernel_work": UnitAttr()}).result
        ivs: List[Value] = [c0] * len(ranges)
        inner = b
        for d in match.pixels:
            if d not in (cd, q):
                body = for_loop(inner, c0, ubs[d], c1)
                ivs[d] = body.args[0]
                inner = Builder(body, 0, op.loc)
        body = for_loop(inner, c0, ubs[cd], cstep)
        start = body.args[0]
        inner = Builder(body, 0, op.loc)
        rest = inner.create("arith.subi", [ubs[cd], start], [T.index]).result
        count = inner.create("arith.minsi", [cstep, rest], [T.index]).result
        ibi = _IndexBuilder(inner, {})
        npix = inner.create("arith.muli", [count, ibi.const(width)], [T.index]).result if merge else count

        def glob_of(bb: Builder, iv: List[Value]) -> List[Value]:
            g = list(iv)
            for d, k in tile_of.items():
                g[d] = bb.create("arith.addi", [tiles.offsets[k], iv[d]], [T.index]).result
            return g

        # 1. Pack: Col[(red..), p] (or Col[p, (red..)]), the chunk's pixels p = (rows, q).
        pix_loops = [(cd, count)] + ([(q, ubs[q])] if merge else [])
        red_loops = [(d, ibi.const(ranges[d])) for d in red]
        nest = pix_loops + red_loops if rows_are_pixels else red_loops + pix_loops
        pb = inner
        piv = list(ivs)
        local: Dict[int, Value] = {}
        for d, ub in nest:
            blk = for_loop(pb, c0, ub, c1)
            local[d] = blk.args[0]
            pb = Builder(blk, 0, op.loc)
        ibp = _IndexBuilder(pb, {})
        for d in red:
            piv[d] = local[d]
        if merge:
            piv[q] = local[q]
        piv[cd] = pb.create("arith.addi", [start, local[cd]], [T.index]).result
        kflat = local[red[0]]
        for d in red[1:]:
            kflat = pb.create("arith.muli", [kflat, ibp.const(ranges[d])], [T.index]).result
            kflat = pb.create("arith.addi", [kflat, local[d]], [T.index]).result
        pflat = local[cd]
        if merge:
            pflat = pb.create("arith.muli", [pflat, ibp.const(width)], [T.index]).result
            pflat = pb.create("arith.addi", [pflat, local[q]], [T.index]).result
        xi = _operand_indices(pb, x, x_map, piv, glob_of(pb, piv), tile_of, tiles)
        val = pb.create("memref.load", [x] + xi, [T.f32]).result
        img_arg, flt_arg = op.body.args[1 - match.w], op.body.args[match.w]
        mapping: Dict[Value, Value] = {img_arg: val}
        for pre in IM.image_prologue(op, 1 - match.w):  # e.g. a fused average pool's "/ 4"
            pb.insert(pre.clone(mapping))
        mul = list(op.body.ops)[-3]
        image_value = next(v for v in mul.operands if v is not flt_arg)
        val = mapping.get(image_value, image_value)
        pb.create("memref.store", [val, col] + ([pflat, kflat] if rows_are_pixels else [kflat, pflat]), [])
        # 2. One sgemm over the chunk with K = the whole window.
        giv = list(ivs)
        giv[cd] = start
        g = glob_of(inner, giv)
        w_org = _operand_indices(inner, w, w_map, giv, g, tile_of, tiles)
        c_org = _operand_indices(inner, c, c_map, giv, g, tile_of, tiles)
        col_org = [c0, c0]
        sw_k, ldc = sw[wide[-1]], (sc[q] if rows_are_pixels else sc[match.f])
        if rows_are_pixels:  # C[p, f] += Col[p, k] * W[k, f]
            operands = [col, w, c, work] + col_org + w_org + c_org + [npix, ubs[match.f], ibi.const(k_total)]
            strides = (k_total, 1, sw_k, sw[match.f], ldc)
        else:  # C[f, p] += W[f, k] * Col[k, p]
            operands = [w, col, c, work] + w_org + col_org + c_org + [ubs[match.f], npix, ibi.const(k_total)]
            strides = (sw[match.f], sw_k, pixels, 1, ldc)
        inner.create("iree_codegen.ukernel.generic", operands, [],
                     {**{k: op.attributes[k] for k in ("lowering_config", "iree_codegen.ukernel", "ireec.im2col")
                         if k in op.attributes},
                      "u_kernel_fn_name": StringAttr(UK.SGEMM),
                      "strides": DenseArrayAttr(T.i64, strides),
                      "blocking": DenseArrayAttr(T.i64, (mc, nc, kc)),
                      "accumulate": BoolAttr("ireec.ukernel_overwrite" not in op.attributes)})
        return True

    @staticmethod
    def _blocked_loops(op: Operation, plan, order: List[int], ubs: List[Value], maxes: List[int],
                       ib: "_IndexBuilder"):
        """Build the register-blocked loop nest of ``op`` (see the module docstring) before it;
        return its sections ``(builder, ivs, acc)``: [pack,] copy-in, body, copy-out, where
        ``acc`` is ``(kind, buffer, [r, c], pack)`` (kind "pack", "init", "body" or "store";
        ``pack`` is None or ``(operand, buffer, [kk, jj])``), then the plain nests (``acc``
        None) of the rows ``[ei, I)`` and of the columns ``[ej, J)`` of rows ``[0, ei)`` that
        the blocks leave (``ei``, ``ej``: the ranges rounded down to the block)."""
        i, j, mr, nr, pack = plan
        ends = {}
        for d, blk in ((i, mr), (j, nr)):
            r = _const_index(ubs[d])
            if r is not None:
                ends[d] = ib.const(r - r % blk)
            else:
                rem = ib.b.create("arith.remsi", [ubs[d], ib.const(blk)], [T.index]).result
                ends[d] = ib.b.create("arith.subi", [ubs[d], rem], [T.index]).result
        top = ib.b
        n_in, _ = segment_sizes(op)
        et = op.operands[n_in].type.element_type
        c0, c1 = ib.const(0), ib.const(1)
        cmr, cnr = ib.const(mr), ib.const(nr)
        # Every constant the nest uses is created here, before the outermost loop: ``ib``
        # inserts before ``op``, i.e. after any loop already built at the top.
        ckc = ib.const(pack[2]) if pack is not None else None
        out_dims = {e.pos for e in generic_maps(op)[n_in].results}
        b = ib.b
        blk_ivs: Dict[int, Value] = {}
        for d in order:
            if d in out_dims and d not in (i, j):
                body = for_loop(b, c0, ubs[d], c1)
                blk_ivs[d] = body.args[0]
                b = Builder(body, 0, op.loc)
        sections = []
        k0 = None
        if pack is not None:
            x, k, kc = pack
            kb = for_loop(b, c0, ubs[k], ckc)
            k0 = kb.args[0]
            b = Builder(kb, 0, op.loc)
            rj = maxes[j]
            pt = op.operands[x].type.element_type
            pbuf = build_alloc(b, "memref.alloca", T.MemRefType((kc, rj), pt), attrs={"ireec.c_shape": UnitAttr()}).result
            pk = for_loop(b, c0, ckc, c1)
            pb = Builder(pk, 0, op.loc)
            pj = for_loop(pb, c0, ends[j], c1)
            pb = Builder(pj, 0, op.loc)
            ivs: List = [c0] * len(order)
            for d, v in blk_ivs.items():
                ivs[d] = v
            ivs[k] = pb.create("arith.addi", [k0, pk.args[0]], [T.index]).result
            ivs[j] = pj.args[0]
            sections.append((pb, ivs, ("pack", pbuf, [pk.args[0], pj.args[0]], None)))
        for d, step in ((i, cmr), (j, cnr)):
            body = for_loop(b, c0, ends[d], step)
            blk_ivs[d] = body.args[0]
            b = Builder(body, 0, op.loc)
        buf = build_alloc(b, "memref.alloca", T.MemRefType((mr, nr), et), attrs={"ireec.c_shape": UnitAttr()}).result

        def block(bb: Builder, extra: List[int]):
            ivs: List = [None] * len(order)
            kk = None
            for d in extra:
                ub = ckc if pack is not None and d == pack[1] else ubs[d]
                body = for_loop(bb, c0, ub, c1)
                ivs[d] = body.args[0]
                bb = Builder(body, 0, op.loc)
            if pack is not None and extra:
                kk = ivs[pack[1]]
                ivs[pack[1]] = bb.create("arith.addi", [k0, kk], [T.index]).result
            # Copies: rows outside columns; reduction: see ROWS_OUTSIDE_MIN_K.
            red_len = 1
            for d in extra:
                red_len *= maxes[d]
            rows_inside = bool(extra) and red_len < ROWS_OUTSIDE_MIN_K
            first, second = (cnr, cmr) if rows_inside else (cmr, cnr)
            ob = for_loop(bb, c0, first, c1)
            bb = Builder(ob, 0, op.loc)
            ib2 = for_loop(bb, c0, second, c1)
            bb = Builder(ib2, 0, op.loc)
            r, c = (ib2.args[0], ob.args[0]) if rows_inside else (ob.args[0], ib2.args[0])
            for d, v in blk_ivs.items():
                if d == i:
                    v = bb.create("arith.addi", [v, r], [T.index]).result
                elif d == j:
                    v = bb.create("arith.addi", [v, c], [T.index]).result
                ivs[d] = v
            packed = (pack[0], sections[0][2][1], [kk, ivs[j]]) if kk is not None else None
            return bb, ivs, [r, c], packed

        red = [d for d in order if d not in out_dims]
        for kind, extra in (("init", []), ("body", red), ("store", [])):
            bb, ivs, rc, packed = block(b, extra)
            sections.append((bb, ivs, (kind, buf, rc, packed)))
        # Peeled remainders: rows [ei, I) x all columns, then rows [0, ei) x columns [ej, J).
        def same(a: Value, b: Value) -> bool:
            return a is b or (_const_index(a) is not None and _const_index(a) == _const_index(b))

        for lo_i, hi_i, lo_j in ((ends[i], ubs[i], c0), (c0, ends[i], ends[j])):
            if same(lo_i, hi_i) or same(lo_j, ubs[j]):
                continue
            lbs = {i: lo_i, j: lo_j}
            his = {i: hi_i}
            bb = top
            ivs = [None] * len(order)
            for d in order:
                body = for_loop(bb, lbs.get(d, c0), his.get(d, ubs[d]), c1)
                ivs[d] = body.args[0]
                bb = Builder(body, 0, op.loc)
            sections.append((bb, ivs, None))
        return sections

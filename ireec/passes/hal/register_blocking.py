"""Register blocking and packing of contractions in the loop lowering.

Mirrors what IREE's second tiling level and vectorization give a contraction on CPU
(LLVMCPU's ``CPUDoubleTilingExpert``: ``iree-codegen-llvmcpu-tile`` to vector sizes, then
``iree-codegen-generic-vectorization``), as helpers of :mod:`.convert_linalg_to_loops`: a
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

Not a pass of its own: IREE's form between the two (a tiled generic on subviews of the
operands, then vector ops) would index the operands through the subviews, and the loop
lowering would compute other (if equal) index expressions than the ones this nest gets,
changing the generated C. :func:`blocked_loops` builds the nest's loops and hands the loop
lowering the sections whose bodies it fills.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple

from ...ir import types as T
from ...ir.affine import AffineDim
from ...ir.attributes import UnitAttr
from ...ir.core import Builder, Operation, Value
from ...dialects.memref import build_alloc
from ..common.distribution import dims_of as _dims
from .bufferize import segment_sizes
from .loop_builder import IndexBuilder, for_loop
from .memref_utils import const_index, generic_maps, strides_and_offset


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


def register_block_plan(op: Operation, ubs: List[Value], maxes: List[int],
                        order: List[int]) -> Optional[Tuple[int, int, int, int, object]]:
    """``(i, j, MR, NR, pack)`` if memref generic ``op`` is lowered register-blocked (see the
    module docstring), else None. ``ubs`` are the loop upper bounds (constants, or the size
    of a partial workgroup tile), ``maxes`` their largest values, ``order`` the loop order;
    ``pack`` is :func:`_pack_plan`'s answer.

    Requires: one output, not also an input, indexed by distinct plain dims with its last
    dim contiguous (stride 1); at least one reduction dim (a dim absent from the output);
    ``j`` = innermost loop = the output's last dim and ``i`` = its next-to-last, or ``j`` =
    the innermost loop = another output dim and ``i`` = the output's last dim. The block
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
        # The innermost loop walks another output dim (a reduction whose output is
        # transposed, e.g. a pool over NHWC written [c, h]): the block's rows are then the
        # output's contiguous dim, its columns that loop, so the reduction accumulates in
        # registers along the contiguous input instead of a strided read-modify-write.
        if order[-1] not in dims or strides[-1] != 1:
            return None
        i, j = dims[-1], order[-1]

    def fit(d: int, full: int, least: int) -> int:
        r = const_index(ubs[d])
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
    rk = const_index(ubs[k])
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


def set_pack_limit(max_stack_bytes: Optional[int]) -> None:
    """The packed-tile limit of the current compilation (:data:`_pack_limit`)."""
    _pack_limit[0] = PACK_BYTES if max_stack_bytes is None else min(PACK_BYTES, int(max_stack_bytes) // 2)


class _BlockedNest:
    """The register-blocked loop nest of one generic, built by :func:`blocked_loops`."""

    def __init__(self, op: Operation, plan, order: List[int], ubs: List[Value], maxes: List[int],
                 ib: IndexBuilder):
        self.op, self.plan, self.order, self.ubs, self.maxes, self.ib = op, plan, order, ubs, maxes, ib
        self.i, self.j, self.mr, self.nr, self.pack = plan
        n_in, _ = segment_sizes(op)
        # The block's rows are the output's contiguous dim (a transposed output, see
        # register_block_plan): its reduction then always runs rows outside columns.
        self.transposed = generic_maps(op)[n_in].results[-1].pos != self.j
        # An input read along both the rows and the columns (a convolution's image, a
        # window over both): rows inside columns would make its loads strided.
        self.windowed = any(
            {self.i, self.j} <= set().union(*(_dims(e) for e in m.results))
            for m in generic_maps(op)[:n_in] if m.results)
        self.sections: List = []
        self.k0: Optional[Value] = None

    def constants(self) -> None:
        """The ends of the blocked ranges, then every constant the nest uses, before the
        outermost loop (``ib`` inserts before ``op``, i.e. after any loop already built at
        the top)."""
        ib, ubs = self.ib, self.ubs
        self.ends = {}
        for d, blk in ((self.i, self.mr), (self.j, self.nr)):
            r = const_index(ubs[d])
            if r is not None:
                self.ends[d] = ib.const(r - r % blk)
            else:
                rem = ib.b.create("arith.remsi", [ubs[d], ib.const(blk)], [T.index]).result
                self.ends[d] = ib.b.create("arith.subi", [ubs[d], rem], [T.index]).result
        self.top = ib.b
        n_in, _ = segment_sizes(self.op)
        self.et = self.op.operands[n_in].type.element_type
        self.c0, self.c1 = ib.const(0), ib.const(1)
        self.cmr, self.cnr = ib.const(self.mr), ib.const(self.nr)
        self.ckc = ib.const(self.pack[2]) if self.pack is not None else None
        self.out_dims = {e.pos for e in generic_maps(self.op)[n_in].results}

    def outer_loops(self) -> Builder:
        """Loops over the output dims other than ``i`` and ``j``; their innermost builder."""
        b = self.ib.b
        self.blk_ivs: Dict[int, Value] = {}
        for d in self.order:
            if d in self.out_dims and d not in (self.i, self.j):
                body = for_loop(b, self.c0, self.ubs[d], self.c1)
                self.blk_ivs[d] = body.args[0]
                b = Builder(body, 0, self.op.loc)
        return b

    def pack_section(self, b: Builder) -> Builder:
        """The ``KC`` loop and, in it, the copy nest of the packed operand's ``KC x J``
        tile (the "pack" section); the ``KC`` loop's builder."""
        op, c0, c1 = self.op, self.c0, self.c1
        x, k, kc = self.pack
        kb = for_loop(b, c0, self.ubs[k], self.ckc)
        self.k0 = kb.args[0]
        b = Builder(kb, 0, op.loc)
        pt = op.operands[x].type.element_type
        pbuf = build_alloc(b, "memref.alloca", T.MemRefType((kc, self.maxes[self.j]), pt),
                           attrs={"ireec.c_shape": UnitAttr()}).result
        pk = for_loop(b, c0, self.ckc, c1)
        pb = Builder(pk, 0, op.loc)
        pj = for_loop(pb, c0, self.ends[self.j], c1)
        pb = Builder(pj, 0, op.loc)
        ivs: List = [c0] * len(self.order)
        for d, v in self.blk_ivs.items():
            ivs[d] = v
        ivs[k] = pb.create("arith.addi", [self.k0, pk.args[0]], [T.index]).result
        ivs[self.j] = pj.args[0]
        self.sections.append((pb, ivs, ("pack", pbuf, [pk.args[0], pj.args[0]], None)))
        return b

    def block(self, bb: Builder, extra: List[int]):
        """Loops over ``extra`` (the reduction dims, or none for the copies) and the block's
        rows and columns inside the block loops: ``(builder, ivs, [r, c], packed)``."""
        pack, c0, c1 = self.pack, self.c0, self.c1
        ivs: List = [None] * len(self.order)
        kk = None
        for d in extra:
            ub = self.ckc if pack is not None and d == pack[1] else self.ubs[d]
            body = for_loop(bb, c0, ub, c1)
            ivs[d] = body.args[0]
            bb = Builder(body, 0, self.op.loc)
        if pack is not None and extra:
            kk = ivs[pack[1]]
            ivs[pack[1]] = bb.create("arith.addi", [self.k0, kk], [T.index]).result
        # Copies: rows outside columns; reduction: see ROWS_OUTSIDE_MIN_K (rows outside for a
        # transposed output, whose columns are the contiguous input's, and for an input
        # windowed along both).
        red_len = 1
        for d in extra:
            red_len *= self.maxes[d]
        rows_inside = (bool(extra) and red_len < ROWS_OUTSIDE_MIN_K and not self.transposed
                       and not self.windowed)
        first, second = (self.cnr, self.cmr) if rows_inside else (self.cmr, self.cnr)
        ob = for_loop(bb, c0, first, c1)
        bb = Builder(ob, 0, self.op.loc)
        ib2 = for_loop(bb, c0, second, c1)
        bb = Builder(ib2, 0, self.op.loc)
        r, c = (ib2.args[0], ob.args[0]) if rows_inside else (ob.args[0], ib2.args[0])
        for d, v in self.blk_ivs.items():
            if d == self.i:
                v = bb.create("arith.addi", [v, r], [T.index]).result
            elif d == self.j:
                v = bb.create("arith.addi", [v, c], [T.index]).result
            ivs[d] = v
        packed = (pack[0], self.sections[0][2][1], [kk, ivs[self.j]]) if kk is not None else None
        return bb, ivs, [r, c], packed

    def block_sections(self, b: Builder) -> None:
        """The block loops over ``i`` and ``j``, the accumulator array and its copy-in,
        body and copy-out sections."""
        for d, step in ((self.i, self.cmr), (self.j, self.cnr)):
            body = for_loop(b, self.c0, self.ends[d], step)
            self.blk_ivs[d] = body.args[0]
            b = Builder(body, 0, self.op.loc)
        buf = build_alloc(b, "memref.alloca", T.MemRefType((self.mr, self.nr), self.et),
                          attrs={"ireec.c_shape": UnitAttr()}).result
        red = [d for d in self.order if d not in self.out_dims]
        for kind, extra in (("init", []), ("body", red), ("store", [])):
            bb, ivs, rc, packed = self.block(b, extra)
            self.sections.append((bb, ivs, (kind, buf, rc, packed)))

    def peeled_sections(self) -> None:
        """Plain nests of the rows ``[ei, I)`` x all columns, then of rows ``[0, ei)`` x
        columns ``[ej, J)``, after the blocked nest."""
        i, j, ends, ubs, c0 = self.i, self.j, self.ends, self.ubs, self.c0

        def same(a: Value, b: Value) -> bool:
            return a is b or (const_index(a) is not None and const_index(a) == const_index(b))

        for lo_i, hi_i, lo_j in ((ends[i], ubs[i], c0), (c0, ends[i], ends[j])):
            if same(lo_i, hi_i) or same(lo_j, ubs[j]):
                continue
            lbs = {i: lo_i, j: lo_j}
            his = {i: hi_i}
            bb = self.top
            ivs = [None] * len(self.order)
            for d in self.order:
                body = for_loop(bb, lbs.get(d, c0), his.get(d, ubs[d]), self.c1)
                ivs[d] = body.args[0]
                bb = Builder(body, 0, self.op.loc)
            self.sections.append((bb, ivs, None))


def blocked_loops(op: Operation, plan, order: List[int], ubs: List[Value], maxes: List[int],
                  ib: IndexBuilder):
    """Build the register-blocked loop nest of ``op`` (module docstring, ``plan`` from
    :func:`register_block_plan`) before it; return its sections ``(builder, ivs, acc)``:
    [pack,] copy-in, body, copy-out, where ``acc`` is ``(kind, buffer, [r, c], pack)`` (kind
    "pack", "init", "body" or "store"; ``pack`` is None or ``(operand, buffer, [kk, jj])``),
    then the plain nests (``acc`` None) of the rows ``[ei, I)`` and of the columns ``[ej, J)``
    of rows ``[0, ei)`` that the blocks leave (``ei``, ``ej``: the ranges rounded down to the
    block)."""
    nest = _BlockedNest(op, plan, order, ubs, maxes, ib)
    nest.constants()
    b = nest.outer_loops()
    if nest.pack is not None:
        b = nest.pack_section(b)
    nest.block_sections(b)
    nest.peeled_sections()
    return nest.sections

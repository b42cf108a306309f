"""Convolutions marked ``ireec.im2col`` become patch copies and sgemm / igemm micro-kernel calls.

Mirrors IREE's ``iree-codegen-convert-conv-to-im2col`` (ConvertConvToIm2col.cpp: a
convolution becomes an im2col copy of its input patches and a matmul) together with the
lowering of that matmul to the micro-kernel (``iree-codegen-cpu-lower-to-ukernels``), on
memrefs and per workgroup tile: the copy is one chunk of the tile's output pixels at a
time, into a stack array. The choice and the chunk size are the lowering strategy's
(:mod:`.im2col`: ``ireec.im2col = array<i64: K, pixels>`` with ``ireec.ukernel_blocking``).

An NCHW convolution whose image can be read in place, or through a copy split into phases
when strided, becomes one ``ireec_uk_conv`` call per tile instead (:mod:`.direct_conv`: no
``Col`` at all). Otherwise a convolution marked ``ireec.im2col`` becomes, inside loops over
its other pixel dims, a loop over chunks of the tile's output pixels (whole rows of the tile
when it spans the full width of the innermost pixel dim), each

1. a copy nest packing the chunk's patches into a ``Col`` stack array (the body's image
   prologue applied on the way), then
2. one ``iree_codegen.ukernel.generic`` calling ``ireec_uk_sgemm`` with ``Col`` as A (NHWC:
   ``C[p, f] += Col[p, k] * W[k, f]``) or B (NCHW: ``C[f, p] += W[f, k] * Col[k, p]``) and
   the whole window as K, with its own ``work`` array.

An NCHW convolution whose filter has its output channels innermost (``W[c, kh, kw, f]``:
:mod:`..flow.convert_conv_filter_to_channels_last` gives convolutions with few output pixels
that layout) takes the NHWC form on a stack tile ``T[p, f]`` (loaded from ``C`` first when the
call accumulates), which a copy nest stores back transposed: the GEMM's rows are then the few
pixels and its columns the many output channels (a 3x3 image of 96 channels: 9 x 96, not
96 x 9 with most of every register tile's columns padding).

An 8-bit convolution (the integer form of :func:`.im2col.match_im2col`, marked
``"ireec_uk_igemm"``) is lowered the same way with an ``i8`` ``Col`` (the raw image values,
one byte each), an ``i32`` ``work`` array of ``IREEC_UK_IGEMM_WORK_BYTES`` and a call of
``ireec_uk_igemm`` whose operands end with the zero points of A and B (the image's for
``Col``, the filter's for ``W``; constant 0 where the body has none, a load where the host
passes one in a rank-0 buffer), with ``lhs_unsigned`` / ``rhs_unsigned`` for operands
zero-extended: exact int32 results, as ``linalg.quantized_matmul`` gets from the same call.

A convolution whose image is a fused ``tensor.pad`` (bufferized: a stack array, fills of its
borders with the padding value, a copy of the source into its interior; :func:`padded_image`)
packs from the pad's source when the packing runs along the image's rows (the NCHW form): each
loop of the packing nest that is the innermost to move a padded dim runs in three ranges,
the padding value stored before and after the valid range (solved per outer point from
``0 <= index - low < size``) and the source copied within it, the window dims that move the
innermost padded dim unrolled so each row's range is a constant (a fixed-size copy, as from a
padded image); the fills, the copy and the array are erased, and the padded tensor is
written nowhere. torch-mlir's resnet18 keeps no pad dispatch before its 20x20 and 10x10
convolutions (32 dispatches instead of 40).

A convolution whose filter's window is not one flat axis in the nest's reduction order,
whose output's contiguous dim is neither ``f`` nor a pixel dim, or with an operand without
static strides is left to :mod:`.convert_linalg_to_loops`.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple

from ...dialects import linalg as L
from ...ir import types as T
from ...ir.attributes import BoolAttr, DenseArrayAttr, IntegerAttr, StringAttr, UnitAttr
from ...ir.core import Builder, Operation, Value
from ...dialects.memref import build_alloc
from ..pass_base import Pass, PassContext, register_pass
from . import im2col as IM
from . import ukernels as UK
from .cpu_lower_to_ukernels import check_bufferized
from .direct_conv import DirectConv
from .padded_image import padded_image
from .loop_builder import IndexBuilder, LoopBounds, for_loop, global_ivs, operand_indices
from .memref_utils import const_index, generic_maps, loop_order, strides_and_offset
from .tile_and_distribute_to_workgroups import WorkgroupTiles, kernel_functions


class _Im2col:
    """The im2col lowering of one convolution: :meth:`plan` checks the form (nothing
    built), :meth:`build` builds the chunk loop, the packing nest and the call before it."""

    def __init__(self, op: Operation, lb: LoopBounds, match, k_total: int, pixels: int):
        self.op, self.lb, self.match = op, lb, match
        self.k_total, self.pixels = k_total, pixels
        maps = generic_maps(op)
        n_in = len(op.operands) - 1
        self.w, self.x, self.c = op.operands[match.w], op.operands[match.x], op.operands[n_in]
        self.w_map, self.x_map, self.c_map = maps[match.w], maps[match.x], maps[n_in]
        self.ranges = lb.ranges

    @staticmethod
    def plan(op: Operation, lb: LoopBounds) -> Optional["_Im2col"]:
        marker = op.attributes.get("ireec.im2col")
        if marker is None:
            return None
        match = IM.match_im2col(op, loop_order(op, len(lb.ranges)))
        k_total, pixels = (int(x) for x in marker.value)
        if match is None or match.k != k_total or pixels <= 0:
            return None
        self = _Im2col(op, lb, match, k_total, pixels)
        if not self._layout():
            return None
        # A padded image is read from its source where the packing runs along the image's
        # rows (pixels innermost); elsewhere the padded tensor is materialized.
        self.pad = padded_image(self.x, op) if not self.rows_are_pixels else None
        self.bounds = self._pad_bounds() if self.pad is not None else None
        if self.bounds is None:
            self.pad = None
        return self

    def _layout(self) -> bool:
        """Strides, the flat window axis and the chunking; False when the form fails."""
        w, x, c, match, ranges = self.w, self.x, self.c, self.match, self.ranges
        if c is w or c is x or any(isinstance(v.owner, Operation) and v.owner.name in
                                   ("memref.get_global", "arith.constant") for v in (w, x, c)):
            return False
        try:
            sw, sc = (strides_and_offset(v.type)[0] for v in (w, c))
        except ValueError:
            return False
        self.out_dims = [e.pos for e in self.c_map.results]
        sw = self.sw = dict(zip([e.pos for e in self.w_map.results], sw))
        sc = self.sc = dict(zip(self.out_dims, sc))
        if not all(isinstance(v, int) for v in list(sw.values()) + list(sc.values())):
            return False
        red = match.red
        self.wide = [d for d in red if ranges[d] > 1]  # dims of range 1 add nothing to the index
        if not self.wide or any(sw[a] != sw[b] * ranges[b] for a, b in zip(self.wide, self.wide[1:])):
            return False  # the window is not one flat axis of the filter
        r, q = IM.gemm_pixel_dims(match, self.out_dims)
        self.q = q
        # C[p, f] (NHWC), or a channels-last filter W[k, f] read in place with an output
        # tile T[p, f] stored transposed (NCHW).
        self.rows_are_pixels = sc[match.f] == 1 or sw[match.f] == 1
        self.transposed_out = sc[match.f] != 1 and self.rows_are_pixels
        if not self.rows_are_pixels and sc[q] != 1:
            return False
        q_full = const_index(self.lb.ubs[q]) == ranges[q]
        self.merge = (r is not None and q_full and self.pixels % ranges[q] == 0
                      and sc[r] == ranges[q] * sc[q])
        self.width = ranges[q] if self.merge else 1
        self.cd = r if self.merge else q  # the dim chunks step along
        self.step = self.pixels // self.width
        return True

    def stack_bytes(self) -> int:
        """Bytes of the ``Col`` and ``work`` arrays :meth:`build` allocates."""
        mc, nc, kc = (int(v) for v in self.op.attributes["ireec.ukernel_blocking"].value)
        work = UK.igemm_work_bytes(mc, nc, kc) if self.match.integer else 4 * UK.work_floats(mc, nc, kc)
        return self.match.esize * self.k_total * self.pixels + work

    def build(self) -> None:
        op, lb = self.op, self.lb
        mc, nc, kc = (int(v) for v in op.attributes["ireec.ukernel_blocking"].value)
        b = lb.ib.b
        self.c0, self.c1, self.cstep = lb.ib.const(0), lb.ib.const(1), lb.ib.const(self.step)
        col_shape = (self.pixels, self.k_total) if self.rows_are_pixels else (self.k_total, self.pixels)
        integer = self.match.integer
        self.col = build_alloc(b, "memref.alloca", T.MemRefType(col_shape, T.i8 if integer else T.f32)).result
        work = (T.MemRefType((-(-UK.igemm_work_bytes(mc, nc, kc) // 4),), T.i32) if integer
                else T.MemRefType((UK.work_floats(mc, nc, kc),), T.f32))
        self.work = build_alloc(b, "memref.alloca", work, attrs={"ireec.ukernel_work": UnitAttr()}).result
        if self.transposed_out:
            f_max = self.lb.maxes()[self.match.f] if self.lb.tiles is not None else self.ranges[self.match.f]
            self.tile = build_alloc(b, "memref.alloca", T.MemRefType((self.pixels, f_max), self.c.type.element_type)).result
        inner, ivs, start, count, npix = self._chunk_loop(b)
        if self.pad is not None:
            self._pack_padded(inner, ivs, start, count)
        else:
            self._pack(inner, ivs, start, count)
        accumulate = "ireec.ukernel_overwrite" not in self.op.attributes
        if self.transposed_out and accumulate:
            self._copy_tile(inner, ivs, start, count, to_tile=True)
        self._call(inner, ivs, start, npix, (mc, nc, kc), accumulate)
        if self.transposed_out:
            self._copy_tile(inner, ivs, start, count, to_tile=False)

    def _chunk_loop(self, b: Builder):
        """Loops over the other pixel dims, then over the chunks along ``cd``: the chunk
        loop's builder, the loop point, the chunk's start, pixel count along ``cd`` and
        total pixel count."""
        ubs, c0, c1, cd = self.lb.ubs, self.c0, self.c1, self.cd
        ivs: List[Value] = [c0] * len(self.ranges)
        inner = b
        for d in self.match.pixels:
            if d not in (cd, self.q):
                body = for_loop(inner, c0, ubs[d], c1)
                ivs[d] = body.args[0]
                inner = Builder(body, 0, self.op.loc)
        body = for_loop(inner, c0, ubs[cd], self.cstep)
        start = body.args[0]
        inner = Builder(body, 0, self.op.loc)
        rest = inner.create("arith.subi", [ubs[cd], start], [T.index]).result
        count = inner.create("arith.minsi", [self.cstep, rest], [T.index]).result
        self.ibi = IndexBuilder(inner, {})
        npix = (inner.create("arith.muli", [count, self.ibi.const(self.width)], [T.index]).result
                if self.merge else count)
        return inner, ivs, start, count, npix

    def _nest_dims(self, dims: List[int], pixels_outer: bool) -> List[int]:
        """A copy nest's loop dims, outermost first: the chunk's pixel dims (``cd``, then
        ``q`` when rows are merged) outside or inside ``dims``."""
        pix = [self.cd] + ([self.q] if self.merge else [])
        return pix + list(dims) if pixels_outer else list(dims) + pix

    def _nest(self, count: Value, dims: List[int], pixels_outer: bool) -> List[Tuple[int, Value]]:
        """A copy nest's ``(dim, upper bound)`` loops, outermost first (see :meth:`_copy_nest`)."""
        def ub(d: int) -> Value:
            if d == self.cd:
                return count
            return self.lb.ubs[d] if d in (self.q, self.match.f) else self.ibi.const(self.ranges[d])
        return [(d, ub(d)) for d in self._nest_dims(dims, pixels_outer)]

    def _copy_nest(self, inner: Builder, count: Value, dims: List[int], pixels_outer: bool):
        """A copy nest's loops over the chunk's pixels and ``dims`` (the window's for the
        pack: pixels outside for NHWC, inside for NCHW; ``f`` for the transposed tile,
        pixels inside): its innermost builder and the induction variable per dim."""
        nest = self._nest(count, dims, pixels_outer)
        pb = inner
        local: Dict[int, Value] = {}
        for d, ub in nest:
            blk = for_loop(pb, self.c0, ub, self.c1)
            local[d] = blk.args[0]
            pb = Builder(blk, 0, self.op.loc)
        return pb, local

    def _pack(self, inner: Builder, ivs: List[Value], start: Value, count: Value) -> None:
        """1. Pack: Col[(red..), p] (or Col[p, (red..)]), the chunk's pixels p = (rows, q)."""
        red = self.match.red
        pb, local = self._copy_nest(inner, count, red, self.rows_are_pixels)
        piv = self._point(pb, ivs, start, local, red)

        def load(pb: Builder) -> Value:
            xi = self._indices_at(pb, self.x, self.x_map, piv)
            return pb.create("memref.load", [self.x] + xi, [self.x.type.element_type]).result
        self._store_col(pb, local, load)

    def _store_col(self, pb: Builder, local: Dict[int, Value], value) -> None:
        """Store the image value ``value(pb)`` builds (the body's image prologue applied to it)
        into ``Col`` at the copy nest's point ``local``."""
        op, match, red = self.op, self.match, self.match.red
        ibp = IndexBuilder(pb, {})
        kflat = local[red[0]]
        for d in red[1:]:
            kflat = pb.create("arith.muli", [kflat, ibp.const(self.ranges[d])], [T.index]).result
            kflat = pb.create("arith.addi", [kflat, local[d]], [T.index]).result
        pflat = self._pixel_index(pb, ibp, local)
        val = value(pb)
        if not match.integer:  # the integer form copies the raw 8-bit values
            img_arg, flt_arg = op.body.args[match.x], op.body.args[match.w]
            mapping: Dict[Value, Value] = {img_arg: val}
            for pre in IM.image_prologue(op, match.x):  # e.g. a fused average pool's "/ 4"
                pb.insert(pre.clone(mapping))
            mul = list(op.body.ops)[-3]
            image_value = next(v for v in mul.operands if v is not flt_arg)
            val = mapping.get(image_value, image_value)
        idx = [pflat, kflat] if self.rows_are_pixels else [kflat, pflat]
        pb.create("memref.store", [val, self.col] + idx, [])

    def _pad_bounds(self) -> Optional[Dict[int, List[Tuple[int, int]]]]:
        """For a padded image (:func:`padded_image`): per level of the packing nest, the
        padded image dims ``j`` whose index that level's loop is the innermost to move, with
        its coefficient ``a`` there (the loop's valid range is then solved from ``0 <=
        index_j - low_j < size_j`` with the outer loops fixed); None when an index is not a
        sum of loop dims times positive constants or moves with no loop of the nest."""
        pad = self.pad
        dims = self._nest_dims(self.match.red, self.rows_are_pixels)
        level_of = {d: i for i, d in enumerate(dims)}
        bounds: Dict[int, List[Tuple[int, int]]] = {}
        for j, e in enumerate(self.x_map.results):
            if not pad.padded[j]:
                continue
            coeffs = UK.linear_coefficients(e)
            if coeffs is None or any(a < 0 for a in coeffs.values()):
                return None
            levels = [level_of[d] for d, a in coeffs.items() if a and d in level_of]
            if not levels:
                return None
            lv = max(levels)
            bounds.setdefault(lv, []).append((j, coeffs[dims[lv]]))
        return bounds

    def _pack_padded(self, inner: Builder, ivs: List[Value], start: Value, count: Value) -> None:
        """1. Pack from a padded image's source (:func:`padded_image`): each loop of the
        packing nest that is the innermost to move a padded dim runs in three ranges, the
        padding value stored before and after its valid range (solved per outer point) and
        the source copied within it, so the padded image is never materialized and the
        copies stay contiguous runs."""
        nest = self._nest(count, self.match.red, self.rows_are_pixels)
        pad, c0, c1 = self.pad, self.c0, self.c1
        lb = self.lb
        # The window dims that move a padded dim bounded at the innermost level are unrolled:
        # each row's valid range is then a constant (a 3-wide window: columns 1.., 0.., 0..-1),
        # its copy a fixed-size one, as from a padded image.
        inner_dims = {j for j, _ in self.bounds.get(len(nest) - 1, [])}
        unrolled = {d for j in inner_dims for d in UK.linear_coefficients(self.x_map.results[j])
                    if d in self.match.red and d != nest[-1][0] and self.ranges[d] <= MAX_UNROLLED_WINDOW}

        def loop(b: Builder, lo: Value, hi: Value, d: int, local: Dict[int, Value]):
            blk = for_loop(b, lo, hi, c1)
            return Builder(blk, 0, self.op.loc), {**local, d: blk.args[0]}

        def fill(level: int, b: Builder, local: Dict[int, Value]) -> None:
            for d, ub in nest[level:]:
                b, local = loop(b, c0, ub, d, local)
            self._store_col(b, local, lambda b: pad.value)

        def emit(level: int, b: Builder, local: Dict[int, Value]) -> None:
            if level == len(nest):
                piv = self._point(b, ivs, start, local, self.match.red)
                glob = global_ivs(b, piv, lb.tile_of, lb.tiles)
                ib = IndexBuilder(b, {})
                xi = []
                for j, e in enumerate(self.x_map.results):
                    g = ib.expr(e, glob)
                    xi.append(b.create("arith.subi", [g, ib.const(pad.low[j])], [T.index]).result
                              if pad.low[j] else g)
                self._store_col(b, local, lambda b: b.create("memref.load", [pad.src] + xi,
                                                             [pad.src.type.element_type]).result)
                return
            d, ub = nest[level]
            if d in unrolled:
                for v in range(self.ranges[d]):
                    emit(level + 1, b, {**local, d: IndexBuilder(b, {}).const(v)})
                return
            if level not in self.bounds:
                b, local = loop(b, c0, ub, d, local)
                emit(level + 1, b, local)
                return
            ib = IndexBuilder(b, {})
            at0 = {**{dd: c0 for dd, _ in nest}, **local, d: c0}
            piv = self._point(b, ivs, start, at0, self.match.red)
            glob = global_ivs(b, piv, lb.tile_of, lb.tiles)
            lo, hi = c0, ub
            for j, a in self.bounds[level]:
                base = ib.expr(self.x_map.results[j], glob)  # index_j with this loop at 0
                first = b.create("arith.subi", [ib.const(pad.low[j]), base], [T.index]).result
                last = b.create("arith.subi", [ib.const(pad.low[j] + pad.shape[j] - 1), base], [T.index]).result
                if a != 1:
                    first = b.create("arith.ceildivsi", [first, ib.const(a)], [T.index]).result
                    last = b.create("arith.floordivsi", [last, ib.const(a)], [T.index]).result
                end = b.create("arith.addi", [last, c1], [T.index]).result
                lo = b.create("arith.maxsi", [lo, first], [T.index]).result
                hi = b.create("arith.minsi", [hi, end], [T.index]).result
            lo = b.create("arith.minsi", [lo, ub], [T.index]).result
            hi = b.create("arith.maxsi", [hi, lo], [T.index]).result
            fb, flocal = loop(b, c0, lo, d, local)
            fill(level + 1, fb, flocal)
            mb, mlocal = loop(b, lo, hi, d, local)
            emit(level + 1, mb, mlocal)
            fb, flocal = loop(b, hi, ub, d, local)
            fill(level + 1, fb, flocal)

        emit(0, inner, {})

    def _point(self, pb: Builder, ivs: List[Value], start: Value, local: Dict[int, Value],
               dims: List[int]) -> List[Value]:
        """The loop point of a copy nest's body: ``ivs`` with ``dims`` and the chunk's pixel
        dims taken from the nest (``cd`` offset by the chunk's ``start``)."""
        piv = list(ivs)
        for d in dims:
            piv[d] = local[d]
        if self.merge:
            piv[self.q] = local[self.q]
        piv[self.cd] = pb.create("arith.addi", [start, local[self.cd]], [T.index]).result
        return piv

    def _indices_at(self, pb: Builder, v: Value, m, piv: List[Value]) -> List[Value]:
        """Operand ``v``'s indices (map ``m``) at loop point ``piv`` of the workgroup's tile."""
        lb = self.lb
        return operand_indices(IndexBuilder(pb, {}), v, m, piv, global_ivs(pb, piv, lb.tile_of, lb.tiles),
                               lb.tile_of, lb.tiles, bool(lb.tile_of))

    def _pixel_index(self, pb: Builder, ibp: IndexBuilder, local: Dict[int, Value]) -> Value:
        """The chunk's flat pixel index at the nest point ``local`` (rows of ``q`` merged)."""
        pflat = local[self.cd]
        if self.merge:
            pflat = pb.create("arith.muli", [pflat, ibp.const(self.width)], [T.index]).result
            pflat = pb.create("arith.addi", [pflat, local[self.q]], [T.index]).result
        return pflat

    def _copy_tile(self, inner: Builder, ivs: List[Value], start: Value, count: Value,
                   to_tile: bool) -> None:
        """The transposed output tile: ``T[p, f] = C[.., f, p]`` before the call (when it
        accumulates) or ``C[.., f, p] = T[p, f]`` after it, over the chunk's pixels and the
        tile's output channels (the pixels innermost: ``C``'s contiguous dim)."""
        f = self.match.f
        pb, local = self._copy_nest(inner, count, [f], False)
        piv = self._point(pb, ivs, start, local, [f])
        pflat = self._pixel_index(pb, IndexBuilder(pb, {}), local)
        ci = self._indices_at(pb, self.c, self.c_map, piv)
        ti = [pflat, local[f]]
        src, si, dst, di = (self.c, ci, self.tile, ti) if to_tile else (self.tile, ti, self.c, ci)
        val = pb.create("memref.load", [src] + si, [self.c.type.element_type]).result
        pb.create("memref.store", [val, dst] + di, [])

    def _call(self, inner: Builder, ivs: List[Value], start: Value, npix: Value, blocking,
              accumulate: bool) -> None:
        """2. One sgemm over the chunk with K = the whole window."""
        op, lb, match, c0 = self.op, self.lb, self.match, self.c0
        w, c, col, work = self.w, self.c, self.col, self.work
        giv = list(ivs)
        giv[self.cd] = start
        g = global_ivs(inner, giv, lb.tile_of, lb.tiles)
        local = bool(lb.tile_of)
        w_org = operand_indices(IndexBuilder(inner, {}), w, self.w_map, giv, g, lb.tile_of, lb.tiles, local)
        c_org = operand_indices(IndexBuilder(inner, {}), c, self.c_map, giv, g, lb.tile_of, lb.tiles, local)
        col_org = [c0, c0]
        sw, sc, k_total = self.sw, self.sc, self.k_total
        sw_k, ldc = sw[self.wide[-1]], (sc[self.q] if self.rows_are_pixels else sc[match.f])
        if self.transposed_out:  # T[p, f] (+)= Col[p, k] * W[k, f], T stored transposed
            c, c_org, ldc = self.tile, [c0, c0], self.tile.type.shape[1]
        if self.rows_are_pixels:  # C[p, f] += Col[p, k] * W[k, f]
            operands = ([col, w, c, work] + col_org + w_org + c_org
                        + [npix, lb.ubs[match.f], self.ibi.const(k_total)])
            strides = (k_total, 1, sw_k, sw[match.f], ldc)
            lhs, rhs = (match.x_zp, match.x_unsigned), (match.w_zp, match.w_unsigned)
        else:  # C[f, p] += W[f, k] * Col[k, p]
            operands = ([w, col, c, work] + w_org + col_org + c_org
                        + [lb.ubs[match.f], npix, self.ibi.const(k_total)])
            strides = (sw[match.f], sw_k, self.pixels, 1, ldc)
            lhs, rhs = (match.w_zp, match.w_unsigned), (match.x_zp, match.x_unsigned)
        attrs = {}
        if match.integer:  # the zero points of A and B (0 where the body has none)
            for zp, _ in (lhs, rhs):
                if zp is None:
                    zp = inner.create("arith.constant", [], [T.i32], {"value": IntegerAttr(0, T.i32)}).result
                elif isinstance(zp.type, T.MemRefType):  # a rank-0 buffer the host filled
                    zp = inner.create("memref.load", [zp], [T.i32]).result
                operands.append(zp)
            attrs = {k: UnitAttr() for k, on in (("lhs_unsigned", lhs[1]), ("rhs_unsigned", rhs[1])) if on}
        inner.create("iree_codegen.ukernel.generic", operands, [],
                     {**{k: op.attributes[k] for k in ("lowering_config", "iree_codegen.ukernel", "ireec.im2col")
                         if k in op.attributes},
                      "u_kernel_fn_name": StringAttr(UK.IGEMM if match.integer else UK.SGEMM),
                      "strides": DenseArrayAttr(T.i64, strides),
                      "blocking": DenseArrayAttr(T.i64, blocking),
                      "accumulate": BoolAttr(accumulate),
                      **attrs})


#: Widest window dim :meth:`_Im2col._pack_padded` unrolls.
MAX_UNROLLED_WINDOW = 7


def im2col_lowerable(op: Operation) -> bool:
    """Whether memref generic ``op``, marked ``ireec.im2col``, has the form
    :func:`lower_im2col` lowers (on any workgroup tiling: the checks are on its operands'
    layouts), so that its calls will write every element of its output."""
    lb = LoopBounds.build(op, None)
    try:
        return _Im2col.plan(op, lb) is not None
    finally:
        lb.erase_constants()


def lower_im2col(op: Operation, tiles: Optional[WorkgroupTiles],
                 max_stack_bytes: Optional[int] = None) -> None:
    """Replace convolution ``op`` marked ``ireec.im2col`` by its direct form
    (:mod:`.direct_conv`) or its chunk loop (module docstring), or leave it, its loop
    constants gone again, when the form fails. ``max_stack_bytes``: ``--max-stack-bytes``."""
    check_bufferized(op)
    lb = LoopBounds.build(op, tiles)
    plan = _Im2col.plan(op, lb)
    if plan is None:
        lb.erase_constants()
        return
    direct = DirectConv.of(plan, plan.stack_bytes(), max_stack_bytes)
    if direct is not None:  # the image read in place: a fused pad's array stays
        direct.build()
        op.erase()
        return
    plan.build()
    op.erase()
    if plan.pad is not None:
        for o in plan.pad.ops:
            o.erase()


def _is_im2col(op: Operation) -> bool:
    return "ireec.ukernel_blocking" in op.attributes and "ireec.im2col" in op.attributes


@register_pass
class ConvertConvToIm2colPass(Pass):
    """IREE's ``iree-codegen-convert-conv-to-im2col`` lowered to micro-kernel calls per
    chunk of the workgroup's tile: see the module docstring."""

    name = "iree-codegen-convert-conv-to-im2col"

    def run(self, module: Operation, ctx: PassContext) -> None:
        seen = set()
        for k in kernel_functions(module):
            tiles = WorkgroupTiles.of(k)
            for op in [o for o in k.walk() if o.name == "linalg.generic"]:
                seen.add(id(op))
                if op.parent is not None and _is_im2col(op):
                    lower_im2col(op, tiles, ctx.max_stack_bytes)
        for op in [o for o in module.walk() if o.name == "linalg.generic" and id(o) not in seen]:
            if _is_im2col(op):
                lower_im2col(op, None, ctx.max_stack_bytes)

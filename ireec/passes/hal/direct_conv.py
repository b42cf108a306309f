"""NCHW convolutions through ``ireec_uk_conv``: the image read in place, or in phases.

The direct form of a convolution marked ``ireec.im2col`` (:mod:`.im2col`), taken by
:mod:`.convert_conv_to_im2col` before it builds any ``Col`` array. Where the output's pixels
run along the image's rows with unit stride (``image[.., oh + dh*kh, ow + dw*kw]``: NCHW /
FCHW, stride 1, any dilation), every window tap is one constant offset from the pixel in
the image, so ``runtime_c/ireec_ukernel_conv.h`` reads each register tile's B rows from the
image itself (XNNPACK's indirect convolution with one offset per tap; MLAS's direct NCHW
convolutions): no patch copy, no packing. A convolution of strides ``(sr, sq) != (1, 1)`` (and
unit dilation) reads a copy of its image split into ``sr x sq`` phases instead
(``phases[.., a, b, y, x] = image[.., sr*y + a, sq*x + b]``, one image's worth of copying
where im2col copies ``KH*KW/(sr*sq)`` of them): a filter tap ``(kh, kw)`` reads phase
``(kh % sr, kw % sq)`` at ``(oh + kh / sr, ow + kw / sq)``, contiguous along ``ow`` again (the
space-to-depth decomposition of strided convolutions, as TVM's and cuDNN's). The
workgroup's tile becomes, inside loops over its other pixel dims (the batch), one call::

    "iree_codegen.ukernel.generic"(%filter, %image, %out, <origin of the tile in each>...,
        %F, %OH, %OW, %x_end) {u_kernel_fn_name = "ireec_uk_conv",
        window = array<i64: R0, R1, R2>, phases = array<i64: S0, S1, S2, P0, P1, P2>,
        strides = array<i64: s0, s1, s2, w_f, x_y, o_f, o_y>, accumulate = true|false}

``R*`` the ranges of the window dims (padded to three with 1) in the filter's layout order,
``s*`` how far one step of each moves in the image (``S*`` / ``P*``: a tap ``t`` of a strided
dim moves ``t / S`` steps of ``s`` and ``t % S`` phases of ``P``; ``S = 1`` elsewhere),
``w_f`` / ``o_f`` the filter's and the output's stride along the output channels, ``x_y`` /
``o_y`` the image's and the output's row strides, ``%x_end`` the elements readable from the
image's origin (the kernel copies the last pixels' taps that would read past it). A fused
``tensor.pad`` stays the stack array its bufferization wrote (the copy of its source and the
fills of its borders); it, or the phases' array, is taken only when it is no larger than the
``Col`` and ``work`` arrays im2col would have used instead (the phases' array: or than
:data:`MAX_PHASE_BYTES`, unless ``--max-stack-bytes`` is given).

Chosen when the window has at least :data:`MIN_K` taps, the body is the plain
``out + image * filter`` (an image prologue needs the packing), the output's columns are
contiguous and the image's row stride wastes little (the ``x_y - OW`` columns between two
output rows are computed and dropped, and the last tile rounds up): at least
:data:`MIN_PIXEL_USE` of the computed pixels must be output pixels. A strided convolution
whose image is a fused pad's array keeps im2col, which packs from the pad's source (the
phases would copy the padded copy again).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional, Tuple

from ...dialects.memref import build_alloc
from ...ir import types as T
from ...ir.attributes import BoolAttr, DenseArrayAttr, FloatAttr, StringAttr
from ...ir.core import Builder, Value
from . import im2col as IM
from . import ukernels as UK
from .loop_builder import IndexBuilder, for_loop, global_ivs, operand_indices
from .memref_utils import identity_strides, strides_and_offset

#: Least share of the computed pixels that are output pixels: the kernel computes the
#: output rows flattened at the image's row pitch (a 10-wide output on a 12-wide padded
#: image computes 12 columns per row) in tiles of up to :data:`TILE_PIXELS`. A 10x10 output
#: of a 12x12 image: 100 of 128 (taken); 5x5 of 7x7: 25 of 64 (left to im2col, whose
#: sgemm has half- and quarter-width tiles).
MIN_PIXEL_USE = 0.6
#: Pixels of the widest register tile (IREEC_UK_CONV_MAX_NR: AVX-512's 2 x 16 lanes).
TILE_PIXELS = 32
#: Fewest taps (``K = C * KH * KW``): with fewer, each register tile's setup and the copy of
#: its pixels out to the output rows outweigh the patch copy saved (MobileNetV2's 3 -> 16
#: channel 3x3 stride-2 stem on 64x64, K = 27: 16 us by im2col, 20 us direct).
MIN_K = 64
#: Window dims the kernel's offset table takes.
MAX_WINDOW_DIMS = 3
#: Largest offset into the image the kernel's 32-bit offset table holds.
MAX_OFFSET = 2 ** 31 - 1
#: Bytes of the phases' stack array a strided convolution may take even where im2col's
#: arrays would be smaller (the array holds the phase rows of the workgroup's tile: a ResNet
#: stem's 3 x 86 x 86 image, 10 output rows of a 7x7 window: 3 x 4 x 13 x 43 floats, 27 KB).
MAX_PHASE_BYTES = 128 * 1024


@dataclass
class DirectConv:
    """The direct form of one im2col plan (``plan``: the ``_Im2col`` of
    :mod:`.convert_conv_to_im2col`): ``r`` / ``q`` the output's row and column dims,
    ``window`` each window dim's ``(range, phase count, stride, phase stride)`` in the image
    read, ``x_y`` its row stride, ``span`` the elements of it from its first one, ``phases``
    the strides ``(sr, sq)`` of a convolution read through a phase-split copy (None: the
    image read in place) and ``phase_type`` that copy's memref type."""

    plan: object
    r: int
    q: int
    window: List[Tuple[int, int, int, int]]
    x_y: int
    span: int
    phases: Optional[Tuple[int, int]] = None
    phase_type: Optional[T.MemRefType] = None

    @staticmethod
    def of(plan, col_bytes: int, max_stack_bytes: Optional[int] = None) -> Optional["DirectConv"]:
        """The direct form of ``plan``, or None where it does not apply (module docstring);
        ``col_bytes``: the stack the im2col form would take (``Col`` and ``work``);
        ``max_stack_bytes``: ``--max-stack-bytes`` (then the phases' array gets no more than
        ``col_bytes`` either)."""
        match, op = plan.match, plan.op
        if match.integer or plan.rows_are_pixels or plan.k_total < MIN_K:
            return None
        if IM.image_prologue(op, match.x) != []:
            return None
        mul = list(op.body.ops)[-3]
        if set(map(id, mul.operands)) != {id(op.body.args[match.x]), id(op.body.args[match.w])}:
            return None
        x = plan.x
        if not x.type.has_static_shape or len(plan.wide) > MAX_WINDOW_DIMS:
            return None
        try:
            xs, _ = strides_and_offset(x.type)
        except ValueError:
            return None
        r, q = IM.gemm_pixel_dims(match, plan.out_dims)
        if r is None or plan.sc[q] != 1 or plan.sw[plan.wide[-1]] != 1:
            return None
        coeffs = [UK.linear_coefficients(e) for e in plan.x_map.results]
        if any(c is None for c in coeffs):
            return None
        # The pixel dims r and q each move one image dim (jr, jq).
        moved = [[j for j, c in enumerate(coeffs) if c.get(d, 0)] for d in (r, q)]
        if any(len(m) != 1 for m in moved):
            return None
        jr, jq = moved[0][0], moved[1][0]
        sr, sq = coeffs[jr][r], coeffs[jq][q]
        if (sr, sq) == (1, 1):
            if xs[jq] != 1:
                return None
            self = DirectConv._in_place(plan, r, q, coeffs, xs, col_bytes)
        else:
            most = col_bytes if max_stack_bytes is not None else max(col_bytes, MAX_PHASE_BYTES)
            self = DirectConv._phased(plan, r, q, coeffs, jr, jq, sr, sq, most)
        if self is None:
            return None
        oh, ow = plan.lb.maxes()[r], plan.lb.maxes()[q]
        computed = -(-((oh - 1) * self.x_y + ow) // TILE_PIXELS) * TILE_PIXELS
        if self.x_y < ow or oh * ow < MIN_PIXEL_USE * computed or self.span > MAX_OFFSET:
            return None
        return self

    @staticmethod
    def _in_place(plan, r, q, coeffs, xs, col_bytes) -> Optional["DirectConv"]:
        """The form reading image ``plan.x`` (strides ``xs``, its dims' coefficients per loop
        dim ``coeffs``) in place, or None where a fused pad's array would outgrow
        ``col_bytes`` or a window dim moves backwards."""
        x = plan.x
        if plan.pad is not None and x.type.num_elements * 4 > col_bytes:
            return None

        def image_stride(d: int) -> int:
            return sum(c.get(d, 0) * s for c, s in zip(coeffs, xs))
        window = [(plan.ranges[d], 1, image_stride(d), 0) for d in plan.wide]
        if any(s < 0 for _, _, s, _ in window):
            return None
        span = 1 + sum((n - 1) * s for n, s in zip(x.type.shape, xs))
        return DirectConv(plan, r, q, window, image_stride(r), span)

    @staticmethod
    def _phased(plan, r, q, coeffs, jr, jq, sr, sq, most_bytes) -> Optional["DirectConv"]:
        """The form reading a copy of image ``plan.x`` split into ``sr x sq`` phases along its
        dims ``jr`` / ``jq`` (its last two), or None where those are not its last two dims,
        the image is a fused pad's array, a strided window dim is dilated or the phases'
        array would take more than ``most_bytes``."""
        x = plan.x
        rank = len(x.type.shape)
        if (jr, jq) != (rank - 2, rank - 1):
            return None  # the phases split the image's last two dims
        if getattr(x.owner, "name", None) == "memref.alloca":
            # A fused pad's array: im2col packs from the pad's source, the phases would copy
            # the padded copy again (ResNet's 3x3 stride-2 12 -> 24 on 20x20: 7.4 -> 9.1 us).
            return None
        h, w = x.type.shape[jr], x.type.shape[jq]
        row_taps = [plan.ranges[d] for d in plan.wide if coeffs[jr].get(d, 0)]
        # The rows of each phase the workgroup's tile of output rows reads.
        rows = min(-(-h // sr), plan.lb.maxes()[r] + max([(n - 1) // sr for n in row_taps], default=0))
        shape = list(x.type.shape[:-2]) + [sr, sq, rows, -(-w // sq)]
        ptype = T.MemRefType(tuple(shape), x.type.element_type)
        if 4 * ptype.num_elements > most_bytes:
            return None
        ps = identity_strides(shape)
        window = []
        for d in plan.wide:
            js = [j for j, c in enumerate(coeffs) if c.get(d, 0)]
            if len(js) != 1:
                return None
            j, a = js[0], coeffs[js[0]][d]
            if j == jr or j == jq:
                if a != 1:
                    return None  # a dilated strided window
                n = sr if j == jr else sq
                step = ps[rank] if j == jr else ps[rank + 1]
                window.append((plan.ranges[d], n, step, ps[rank - 2 if j == jr else rank - 1]))
            else:
                window.append((plan.ranges[d], 1, a * ps[j], 0))
        return DirectConv(plan, r, q, window, ps[rank], ptype.num_elements, (sr, sq), ptype)

    def build(self) -> None:
        """The call on the workgroup's tile inside loops over its other pixel dims (after
        the phases' copy of a strided convolution's image)."""
        p = self.plan
        op, lb, match = p.op, p.lb, p.match
        b = lb.ib.b
        c0, c1 = lb.ib.const(0), lb.ib.const(1)
        ivs: List[Value] = [c0] * len(p.ranges)
        image, row0 = p.x, None
        if self.phases is not None:  # the tile's first row of image rows, in phase rows
            top = operand_indices(IndexBuilder(b, {}), p.x, p.x_map, ivs,
                                  global_ivs(b, ivs, lb.tile_of, lb.tiles), lb.tile_of, lb.tiles,
                                  bool(lb.tile_of))[-2]
            row0 = b.create("arith.divui", [top, lb.ib.const(self.phases[0])], [T.index]).result
            image = self._split_phases(b, row0)
        inner = b
        for d in match.pixels:
            if d not in (self.r, self.q):
                body = for_loop(inner, c0, lb.ubs[d], c1)
                ivs[d] = body.args[0]
                inner = Builder(body, 0, op.loc)
        g = global_ivs(inner, ivs, lb.tile_of, lb.tiles)
        ib = IndexBuilder(inner, {})
        local = bool(lb.tile_of)
        orgs = [operand_indices(ib, v, m, ivs, g, lb.tile_of, lb.tiles, local)
                for v, m in ((p.w, p.w_map), (p.x, p.x_map), (p.c, p.c_map))]
        if self.phases is not None:  # the same pixel in phase (0, 0), rows from row0
            sr, sq = self.phases
            head, (row, col) = orgs[1][:-2], orgs[1][-2:]
            prow = inner.create("arith.divui", [row, ib.const(sr)], [T.index]).result
            orgs[1] = head + [c0, c0, inner.create("arith.subi", [prow, row0], [T.index]).result,
                              inner.create("arith.divui", [col, ib.const(sq)], [T.index]).result]
        xs, _ = strides_and_offset(image.type)
        x_end = ib.const(self.span)
        for idx, st in zip(orgs[1], xs):
            term = inner.create("arith.muli", [idx, ib.const(st)], [T.index]).result
            x_end = inner.create("arith.subi", [x_end, term], [T.index]).result
        window = self.window + [(1, 1, 0, 0)] * (MAX_WINDOW_DIMS - len(self.window))
        strides = [s for _, _, s, _ in window] + [p.sw[match.f], self.x_y, p.sc[match.f], p.sc[self.r]]
        sizes = [lb.ubs[match.f], lb.ubs[self.r], lb.ubs[self.q], x_end]
        attrs = {k: op.attributes[k] for k in ("lowering_config", "ireec.im2col") if k in op.attributes}
        attrs.update({"u_kernel_fn_name": StringAttr(UK.CONV),
                      "window": DenseArrayAttr(T.i64, [n for n, _, _, _ in window]),
                      "strides": DenseArrayAttr(T.i64, strides),
                      "accumulate": BoolAttr("ireec.ukernel_overwrite" not in op.attributes)})
        if self.phases is not None:
            attrs["phases"] = DenseArrayAttr(T.i64, [n for _, n, _, _ in window] + [ph for _, _, _, ph in window])
        inner.create("iree_codegen.ukernel.generic", [p.w, image, p.c] + orgs[0] + orgs[1] + orgs[2] + sizes, [], attrs)

    def _split_phases(self, b: Builder, row0: Value) -> Value:
        """The phases' stack array of the tile's rows (phase rows from ``row0``): zero where
        no image pixel lands (an image dim not a multiple of its stride), then per phase
        ``(a, b)`` a copy nest of its pixels. Rows past the image (the last tile's) stay
        unwritten: the kernel reads no further than its last output pixel's last tap."""
        x, ptype = self.plan.x, self.phase_type
        sr, sq = self.phases
        arr = build_alloc(b, "memref.alloca", ptype).result
        ib = IndexBuilder(b, {})
        shape = list(x.type.shape)
        h, w = shape[-2], shape[-1]

        def nest(bounds):
            c0, c1 = ib.const(0), ib.const(1)
            ubs = [ib.const(n) if isinstance(n, int) else n for n in bounds]  # before the loops
            inner, ivs = b, []
            for ub in ubs:
                blk = for_loop(inner, c0, ub, c1)
                ivs.append(blk.args[0])
                inner = Builder(blk, 0, b.loc)
            return inner, ivs
        if h % sr or w % sq:
            inner, ivs = nest(ptype.shape)
            zero = inner.create("arith.constant", [], [T.f32], {"value": FloatAttr(0.0, T.f32)}).result
            inner.create("memref.store", [zero, arr] + ivs, [])
        for a in range(sr):
            # Rows of phase a from row0: those of the image, at most the array's.
            left = b.create("arith.subi", [ib.const(-(-(h - a) // sr)), row0], [T.index]).result
            rows = b.create("arith.minsi", [left, ib.const(ptype.shape[-2])], [T.index]).result
            for bb in range(sq):
                inner, ivs = nest(shape[:-2] + [rows, -(-(w - bb) // sq)])
                ibi = IndexBuilder(inner, {})
                prow = inner.create("arith.addi", [ivs[-2], row0], [T.index]).result
                src = [inner.create("arith.addi", [inner.create("arith.muli", [v, ibi.const(s)], [T.index]).result,
                                                   ibi.const(o)], [T.index]).result
                       for v, s, o in ((prow, sr, a), (ivs[-1], sq, bb))]
                val = inner.create("memref.load", [x] + ivs[:-2] + src, [x.type.element_type]).result
                inner.create("memref.store", [val, arr] + ivs[:-2] + [ibi.const(a), ibi.const(bb)] + ivs[-2:], [])
        return arr

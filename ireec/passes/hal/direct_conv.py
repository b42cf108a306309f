"""NCHW convolutions of unit stride through ``ireec_uk_conv``: the image read in place.

The direct form of a convolution marked ``ireec.im2col`` (:mod:`.im2col`), taken by
:mod:`.convert_conv_to_im2col` before it builds any ``Col`` array. Where the output's pixels
run along the image's rows with unit stride (``image[.., oh + dh*kh, ow + dw*kw]``: NCHW /
FCHW, stride 1, any dilation), every window tap is one constant offset from the pixel in
the image, so ``runtime_c/ireec_ukernel_conv.h`` reads each register tile's B rows from the
image itself (XNNPACK's indirect convolution with one offset per tap; MLAS's direct NCHW
convolutions): no patch copy, no packing. The workgroup's tile becomes, inside loops over its
other pixel dims (the batch), one call::

    "iree_codegen.ukernel.generic"(%filter, %image, %out, <origin of the tile in each>...,
        %F, %OH, %OW, %x_end) {u_kernel_fn_name = "ireec_uk_conv",
        window = array<i64: R0, R1, R2>,
        strides = array<i64: s0, s1, s2, w_f, x_y, o_f, o_y>, accumulate = true|false}

``R*`` the ranges of the window dims (padded to three with 1) in the filter's layout order,
``s*`` how far one step of each moves in the image, ``w_f`` / ``o_f`` the filter's and the
output's stride along the output channels, ``x_y`` / ``o_y`` the image's and the output's row
strides, ``%x_end`` the elements readable from the image's origin (the kernel copies the last
pixels' taps that would read past it). A fused ``tensor.pad`` stays the stack array its
bufferization wrote (the copy of its source and the fills of its borders); it is taken only
when it is no larger than the ``Col`` and ``work`` arrays im2col would have used instead.

Chosen when the body is the plain ``out + image * filter`` (an image prologue needs the
packing), the output's and the image's columns are contiguous and the image's row stride
wastes little (the ``x_y - OW`` columns between two output rows are computed and dropped,
and the last tile rounds up): at least :data:`MIN_PIXEL_USE` of the computed pixels must be
output pixels.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional

from ...ir import types as T
from ...ir.attributes import BoolAttr, DenseArrayAttr, StringAttr
from ...ir.core import Builder, Value
from . import im2col as IM
from . import ukernels as UK
from .loop_builder import IndexBuilder, for_loop, global_ivs, operand_indices
from .memref_utils import strides_and_offset

#: Least share of the computed pixels that are output pixels: the kernel computes the
#: output rows flattened at the image's row pitch (a 10-wide output on a 12-wide padded
#: image computes 12 columns per row) in tiles of up to :data:`TILE_PIXELS`. A 10x10 output
#: of a 12x12 image: 100 of 128 (taken); 5x5 of 7x7: 25 of 64 (left to im2col, whose
#: sgemm has half- and quarter-width tiles).
MIN_PIXEL_USE = 0.6
#: Pixels of the widest register tile (IREEC_UK_CONV_MAX_NR: AVX-512's 2 x 16 lanes).
TILE_PIXELS = 32
#: Window dims the kernel's offset table takes.
MAX_WINDOW_DIMS = 3
#: Largest offset into the image the kernel's 32-bit offset table holds.
MAX_OFFSET = 2 ** 31 - 1


@dataclass
class DirectConv:
    """The direct form of one im2col plan (``plan``: the ``_Im2col`` of
    :mod:`.convert_conv_to_im2col`): ``r`` / ``q`` the output's row and column dims,
    ``window`` the window dims' ``(range, image stride)`` in the filter's order, ``x_y`` the
    image's row stride, ``span`` the elements of the image memref from its first one."""

    plan: object
    r: int
    q: int
    window: List[tuple]
    x_y: int
    span: int

    @staticmethod
    def of(plan, col_bytes: int) -> Optional["DirectConv"]:
        """The direct form of ``plan``, or None where it does not apply (module docstring);
        ``col_bytes``: the stack the im2col form would take (``Col`` and ``work``)."""
        match, op = plan.match, plan.op
        if match.integer or plan.rows_are_pixels:
            return None
        if IM.image_prologue(op, match.x) != []:
            return None
        mul = list(op.body.ops)[-3]
        if set(map(id, mul.operands)) != {id(op.body.args[match.x]), id(op.body.args[match.w])}:
            return None
        x = plan.x
        if not x.type.has_static_shape:
            return None
        try:
            xs, _ = strides_and_offset(x.type)
        except ValueError:
            return None
        if plan.pad is not None and x.type.num_elements * 4 > col_bytes:
            return None
        r, q = IM.gemm_pixel_dims(match, plan.out_dims)
        if r is None or plan.sc[q] != 1 or plan.sw[plan.wide[-1]] != 1:
            return None
        coeffs = [UK.linear_coefficients(e) for e in plan.x_map.results]
        if any(c is None for c in coeffs):
            return None

        def image_stride(d: int) -> int:
            return sum(c.get(d, 0) * s for c, s in zip(coeffs, xs))
        # The pixel dims r and q each move one image dim, q by one element.
        for d in (r, q):
            if sum(1 for c in coeffs if c.get(d, 0)) != 1:
                return None
        if image_stride(q) != 1:
            return None
        x_y = image_stride(r)
        oh, ow = plan.lb.maxes()[r], plan.lb.maxes()[q]
        computed = -(-((oh - 1) * x_y + ow) // TILE_PIXELS) * TILE_PIXELS
        if x_y < ow or oh * ow < MIN_PIXEL_USE * computed:
            return None
        if len(plan.wide) > MAX_WINDOW_DIMS:
            return None
        window = [(plan.ranges[d], image_stride(d)) for d in plan.wide]
        if any(s < 0 for _, s in window):
            return None
        span = 1 + sum((n - 1) * s for n, s in zip(x.type.shape, xs))
        if span > MAX_OFFSET:
            return None
        return DirectConv(plan, r, q, window, x_y, span)

    def build(self) -> None:
        """The call on the workgroup's tile inside loops over its other pixel dims."""
        p = self.plan
        op, lb, match = p.op, p.lb, p.match
        b = lb.ib.b
        c0, c1 = lb.ib.const(0), lb.ib.const(1)
        ivs: List[Value] = [c0] * len(p.ranges)
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
        xs, _ = strides_and_offset(p.x.type)
        x_end = ib.const(self.span)
        for idx, st in zip(orgs[1], xs):
            term = inner.create("arith.muli", [idx, ib.const(st)], [T.index]).result
            x_end = inner.create("arith.subi", [x_end, term], [T.index]).result
        window = self.window + [(1, 0)] * (MAX_WINDOW_DIMS - len(self.window))
        strides = [s for _, s in window] + [p.sw[match.f], self.x_y, p.sc[match.f], p.sc[self.r]]
        sizes = [lb.ubs[match.f], lb.ubs[self.r], lb.ubs[self.q], x_end]
        inner.create("iree_codegen.ukernel.generic", [p.w, p.x, p.c] + orgs[0] + orgs[1] + orgs[2] + sizes, [],
                     {**{k: op.attributes[k] for k in ("lowering_config", "ireec.im2col") if k in op.attributes},
                      "u_kernel_fn_name": StringAttr(UK.CONV),
                      "window": DenseArrayAttr(T.i64, [n for n, _ in window]),
                      "strides": DenseArrayAttr(T.i64, strides),
                      "accumulate": BoolAttr("ireec.ukernel_overwrite" not in op.attributes)})

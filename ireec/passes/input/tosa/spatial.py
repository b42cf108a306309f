"""TOSA 1.0 operators on spatial data: ``conv3d``, ``transpose_conv2d``, ``resize``, ``fft2d``,
``rfft2d`` and ``scatter``, each one ``linalg.generic`` written from the operator's
pseudocode in the TOSA 1.0 specification (section 2):

* ``conv3d`` (NDHWC input, ODHWI weights): ``tensor.pad`` by ``pad`` with the input zero
  point, then a generic over (n, d, h, w, oc | kd, kh, kw, ic) reading the input at
  ``o * stride + k * dilation``, accumulating ``(x - input_zp) * (w - weight_zp)`` in
  ``acc_type`` from the bias (as ``tosa-to-linalg-named`` does with ``conv_3d_ndhwc_dhwcf``).
* ``transpose_conv2d`` (NHWC, OHWI): ``out[n, iy*sy + pad_top + ky, ix*sx + pad_left + kx,
  oc] += x[n, iy, ix, ic] * w[oc, ky, kx, ic]``, computed per output element with a
  reduction over (ky, kx, ic) that reads the input position ``(o - pad - k) / stride`` when
  it divides exactly and lies inside the input.
* ``resize`` NEAREST_NEIGHBOR / BILINEAR with ``scale = [y_n, y_d, x_n, x_d]``,
  ``offset``, ``border`` (operands of ``tosa.const_shape``, or the older attributes): the
  spec's integer position arithmetic; float types interpolate with fractions, integer
  types with the integer weights (the result carries the ``y_n * x_n`` scale, as the spec
  says).
* ``fft2d`` / ``rfft2d``: the spec's direct DFT with the angle
  ``2 pi ((iy * oy mod H) / H + (ix * ox mod W) / W)`` (sign flipped by ``inverse``), no
  normalisation (MLIR's ``tosa-to-linalg`` lowers them the same way).
* ``scatter`` (values_in N×K×C, indices N×W, input N×W×C): ``out[n, k, c]`` is
  ``input[n, w, c]`` for the ``w`` with ``indices[n, w] == k`` (the spec requires those to be
  unique), else ``values_in[n, k, c]``.
"""
from __future__ import annotations

import math
from typing import Dict, List

from ....dialects import linalg as L
from ....dialects.tensor import i64_array, segment_sizes
from ....ir import types as T
from ....ir.affine import AffineDim, AffineMap
from ....ir.attributes import FloatAttr, IntegerAttr
from ....ir.core import Block, Builder, Operation, Region, Value
from .data_movement import insert_slice
from .matmul_conv import _window_attrs
from .utils import (I1, I64, INDEX, const_ints, constant, empty, enum_attr, extract, fail, filled,
                    int_array_attr, is_float, linalg_index, named, static)

PATTERNS: Dict = {}


def _zp(op: Operation, i: int, attr: str) -> int:
    from .matmul_conv import _zero_point
    return _zero_point(op, i, attr)


def _pad(op: Operation, b: Builder, src: Value, low: List[int], high: List[int], value) -> Value:
    """``tensor.pad`` of ``src`` by ``low``/``high`` per dimension with scalar ``value``."""
    st = static(op, src)
    if not any(low) and not any(high):
        return src
    shape = tuple(d + lo + hi for d, lo, hi in zip(st.shape, low, high))
    rt = T.TensorType(shape, st.element_type)
    pv = constant(b, value, st.element_type)
    blk = Block([INDEX] * st.rank)
    blk.append(Operation("tensor.yield", [pv]))
    return b.create("tensor.pad", [src], [rt], {
        "static_low": i64_array(low), "static_high": i64_array(high),
        "operandSegmentSizes": segment_sizes(1, 0, 0)}, regions=[Region([blk])]).result


def _bias_acc(op: Operation, b: Builder, bias: Value, t: T.TensorType) -> Value:
    from .matmul_conv import _bias_init
    return _bias_init(op, b, bias, t)


def _to(b: Builder, v: Value, et: T.Type) -> Value:
    from .matmul_conv import _convert
    return _convert(b, v, et)


def _acc_type(op: Operation, et: T.Type) -> T.Type:
    from .matmul_conv import _acc_type as acc
    return acc(op, et)


def _mac(sb, acc_v: Value, x: Value, w: Value, acc: T.Type, x_zp: int, w_zp: int) -> Value:
    """``acc + (x - x_zp) * (w - w_zp)`` in the accumulator type."""
    xv, wv = sb.cast(x, acc), sb.cast(w, acc)
    if is_float(acc):
        return sb.op("arith.addf", [acc_v, sb.op("arith.mulf", [xv, wv], acc)], acc)
    if x_zp:
        xv = sb.op("arith.subi", [xv, sb.constant(IntegerAttr(x_zp, acc))], acc)
    if w_zp:
        wv = sb.op("arith.subi", [wv, sb.constant(IntegerAttr(w_zp, acc))], acc)
    return sb.op("arith.addi", [acc_v, sb.op("arith.muli", [xv, wv], acc)], acc)


def _conv3d(op: Operation, b: Builder):
    x, w, bias = op.operands[0], op.operands[1], op.operands[2]
    xt, wt, rt = static(op, x), static(op, w), static(op, op.results[0])
    if xt.rank != 5 or wt.rank != 5:
        raise fail(op, "needs NDHWC input and ODHWI weights")
    pad = int_array_attr(op, "pad") or [0] * 6
    stride = int_array_attr(op, "stride") or [1, 1, 1]
    dil = int_array_attr(op, "dilation") or [1, 1, 1]
    x_zp, w_zp = _zp(op, 3, "input_zp"), _zp(op, 4, "weight_zp")
    acc = _acc_type(op, rt.element_type)
    xp = _pad(op, b, x, [0, pad[0], pad[2], pad[4], 0], [0, pad[1], pad[3], pad[5], 0], x_zp)
    init = _bias_acc(op, b, bias, T.TensorType(rt.shape, acc))
    d = [AffineDim(i) for i in range(9)]  # n, od, oh, ow, oc, kd, kh, kw, ic
    m_x = AffineMap(9, 0, (d[0], d[1] * stride[0] + d[5] * dil[0], d[2] * stride[1] + d[6] * dil[1],
                           d[3] * stride[2] + d[7] * dil[2], d[8]))
    m_w = AffineMap(9, 0, (d[4], d[5], d[6], d[7], d[8]))
    m_o = AffineMap(9, 0, tuple(d[:5]))
    g = L.build_generic([xp, w], [init], [m_x, m_w, m_o], ["parallel"] * 5 + ["reduction"] * 4,
                        lambda sb, a: [_mac(sb, a[2], a[0], a[1], acc, x_zp, w_zp)], builder=b)
    return [_to(b, g.results[0], rt.element_type)]


PATTERNS["tosa.conv3d"] = _conv3d


def _transpose_conv2d(op: Operation, b: Builder):
    x, w, bias = op.operands[0], op.operands[1], op.operands[2]
    xt, wt, rt = static(op, x), static(op, w), static(op, op.results[0])
    if xt.rank != 4 or wt.rank != 4:
        raise fail(op, "needs NHWC input and OHWI weights")
    out_pad = int_array_attr(op, "out_pad") or [0, 0, 0, 0]
    stride = int_array_attr(op, "stride") or [1, 1]
    x_zp, w_zp = _zp(op, 3, "input_zp"), _zp(op, 4, "weight_zp")
    acc = _acc_type(op, rt.element_type)
    init = _bias_acc(op, b, bias, T.TensorType(rt.shape, acc))
    kh, kw = wt.shape[1], wt.shape[2]
    if (is_float(xt.element_type) and xt.element_type == acc and x_zp == 0 and w_zp == 0
            and min(out_pad[:2]) >= 1 - kh and min(out_pad[2:]) >= 1 - kw):
        return [_to(b, _stuffed_conv(b, x, w, init, out_pad, stride), rt.element_type)]
    ih, iw = xt.shape[1], xt.shape[2]
    d = [AffineDim(i) for i in range(7)]  # n, oy, ox, oc, ky, kx, ic
    m_w = AffineMap(7, 0, (d[3], d[4], d[5], d[6]))
    m_o = AffineMap(7, 0, tuple(d[:4]))

    def body(sb, a):
        def idx(v):
            return sb.constant(IntegerAttr(v, INDEX))

        def source(o_dim, k_dim, pad0, s, size):
            """(input position clamped into range, whether the output position has one)."""
            t = sb.op("arith.subi", [sb.op("arith.subi", [linalg_index(sb, o_dim), idx(pad0)], INDEX),
                                     linalg_index(sb, k_dim)], INDEX)
            q = sb.op("arith.divsi", [t, idx(s)], INDEX)
            ok = sb.op("arith.andi", [
                _icmp(sb, "sge", t, idx(0)),
                _icmp(sb, "eq", sb.op("arith.remsi", [t, idx(s)], INDEX), idx(0))], I1)
            ok = sb.op("arith.andi", [ok, _icmp(sb, "slt", q, idx(size))], I1)
            q = sb.op("arith.maxsi", [sb.op("arith.minsi", [q, idx(size - 1)], INDEX), idx(0)], INDEX)
            return q, ok

        iy, oky = source(1, 4, out_pad[0], stride[0], ih)
        ix, okx = source(2, 5, out_pad[2], stride[1], iw)
        xv = extract(sb, x, [linalg_index(sb, 0), iy, ix, linalg_index(sb, 6)])
        new = _mac(sb, a[1], xv, a[0], acc, x_zp, w_zp)
        return [sb.op("arith.select", [sb.op("arith.andi", [oky, okx], I1), new, a[1]], acc)]

    g = L.build_generic([w], [init], [m_w, m_o], ["parallel"] * 4 + ["reduction"] * 3, body, builder=b)
    return [_to(b, g.results[0], rt.element_type)]


PATTERNS["tosa.transpose_conv2d"] = _transpose_conv2d


def _stuffed_conv(b: Builder, x: Value, w: Value, init: Value, out_pad: List[int],
                  stride: List[int]) -> Value:
    """``transpose_conv2d`` as the convolution of the zero-stuffed image with the flipped
    filter, the form PyTorch's and StableHLO's exports use (a ``tensor.insert_slice`` of the
    image with ``stride`` into zeros, a stride-1 ``linalg.conv_2d_nhwc_hwcf``), which
    :mod:`...flow.decompose_transposed_convolution` then splits into one small convolution
    per output phase. Along a spatial dim with ``K`` taps, stride ``s`` and ``out_pad``'s
    leading and trailing ``p``, ``q`` (both at least ``1 - K``): ``out[o] = sum_k x[i] w[k]``
    over ``i*s + p + k = o`` is ``sum_k' z[o + k'] w[K-1-k']`` with ``z`` the image stuffed
    with ``s - 1`` zeros between its elements, ``K - 1 + p`` zeros before and ``OH + K - 1``
    elements in all (``K - 1 + q`` zeros after). ``init``: the bias start ``[n, OH, OW, OC]``."""
    xt, wt, it = x.type, w.type, init.type
    oc, kh, kw, ic = wt.shape
    n, oh, ow = it.shape[:3]
    zt = T.TensorType((n, oh + kh - 1, ow + kw - 1, ic), xt.element_type)
    z = insert_slice(b, x, filled(b, zt, 0.0), [0, kh - 1 + out_pad[0], kw - 1 + out_pad[2], 0],
                     list(xt.shape), [1, stride[0], stride[1], 1])
    d = [AffineDim(i) for i in range(4)]  # ky', kx', ic, oc of the flipped HWCF filter
    flip = AffineMap(4, 0, (d[3], d[0] * -1 + (kh - 1), d[1] * -1 + (kw - 1), d[2]))
    ft = T.TensorType((kh, kw, ic, oc), wt.element_type)
    wf = L.build_generic([w], [empty(b, ft)], [flip, AffineMap.identity(4)], ["parallel"] * 4,
                         lambda sb, a: [a[0]], builder=b).results[0]
    return named(b, "conv_2d_nhwc_hwcf", [z, wf], [init], _window_attrs([1, 1], [1, 1]))


def _icmp(sb, pred: str, a: Value, c: Value) -> Value:
    from ....dialects.arith import CMPI_PREDICATES
    return sb.op("arith.cmpi", [a, c], I1, {"predicate": IntegerAttr(CMPI_PREDICATES.index(pred), I64)})


def _shape_values(op: Operation, i: int, attr: str, n: int) -> List[int]:
    """A TOSA 1.0 shape operand (``tosa.const_shape``) or the older attribute."""
    if len(op.operands) > i:
        return const_ints(op, op.operands[i], attr)
    v = int_array_attr(op, attr)
    if v is None or len(v) != n:
        raise fail(op, f"needs '{attr}' ({n} integers)")
    return v


def _resize(op: Operation, b: Builder):
    x = op.operands[0]
    xt, rt = static(op, x), static(op, op.results[0])
    if xt.rank != 4:
        raise fail(op, "needs an NHWC input")
    sy_n, sy_d, sx_n, sx_d = _shape_values(op, 1, "scale", 4)
    off_y, off_x = _shape_values(op, 2, "offset", 2)
    mode = enum_attr(op, "mode", "NEAREST_NEIGHBOR")
    if mode not in ("NEAREST_NEIGHBOR", "BILINEAR"):
        raise fail(op, f"mode {mode} is not a TOSA resize mode")
    ih, iw = xt.shape[1], xt.shape[2]
    et, ot = xt.element_type, rt.element_type
    flt = is_float(et)

    def body(sb, a):
        def c(v, t=INDEX):
            return sb.constant(IntegerAttr(v, t))

        def axis(o_dim, s_n, s_d, off, size):
            pos = sb.op("arith.addi", [sb.op("arith.muli", [linalg_index(sb, o_dim), c(s_d)], INDEX), c(off)], INDEX)
            i = sb.op("arith.floordivsi", [pos, c(s_n)], INDEX)
            r = sb.op("arith.subi", [pos, sb.op("arith.muli", [i, c(s_n)], INDEX)], INDEX)
            i0 = sb.op("arith.minsi", [sb.op("arith.maxsi", [i, c(0)], INDEX), c(size - 1)], INDEX)
            i1 = sb.op("arith.maxsi", [sb.op("arith.minsi", [sb.op("arith.addi", [i, c(1)], INDEX), c(size - 1)],
                                             INDEX), c(0)], INDEX)
            return i0, i1, r

        iy0, iy1, ry = axis(1, sy_n, sy_d, off_y, ih)
        ix0, ix1, rx = axis(2, sx_n, sx_d, off_x, iw)
        n, ch = linalg_index(sb, 0), linalg_index(sb, 3)
        if mode == "NEAREST_NEIGHBOR":
            two = c(2)
            up_y = _icmp(sb, "sge", sb.op("arith.muli", [ry, two], INDEX), c(sy_n))
            up_x = _icmp(sb, "sge", sb.op("arith.muli", [rx, two], INDEX), c(sx_n))
            iy = sb.op("arith.select", [up_y, iy1, iy0], INDEX)
            ix = sb.op("arith.select", [up_x, ix1, ix0], INDEX)
            return [sb.cast(extract(sb, x, [n, iy, ix, ch]), ot)]
        vs = [extract(sb, x, [n, yy, xx, ch]) for yy, xx in ((iy0, ix0), (iy0, ix1), (iy1, ix0), (iy1, ix1))]
        if flt:
            def frac(r, s_n):
                return sb.op("arith.divf", [sb.cast(sb.op("arith.index_cast", [r], I64), ot),
                                            sb.constant(FloatAttr(float(s_n), ot))], ot)
            dy, dx = frac(ry, sy_n), frac(rx, sx_n)
            one = sb.constant(FloatAttr(1.0, ot))
            uy, ux = sb.op("arith.subf", [one, dy], ot), sb.op("arith.subf", [one, dx], ot)
            mul = "arith.mulf"
            add = "arith.addf"
            wts = [(uy, ux), (uy, dx), (dy, ux), (dy, dx)]
            vals = [sb.cast(v, ot) for v in vs]
            acc_t = ot
        else:
            acc_t = I64
            dy = sb.op("arith.index_cast", [ry], I64)
            dx = sb.op("arith.index_cast", [rx], I64)
            uy = sb.op("arith.subi", [c(sy_n, I64), dy], I64)
            ux = sb.op("arith.subi", [c(sx_n, I64), dx], I64)
            mul, add = "arith.muli", "arith.addi"
            wts = [(uy, ux), (uy, dx), (dy, ux), (dy, dx)]
            vals = [sb.cast(v, I64) for v in vs]
        total = None
        for v, (wy, wx) in zip(vals, wts):
            term = sb.op(mul, [sb.op(mul, [v, wy], acc_t), wx], acc_t)
            total = term if total is None else sb.op(add, [total, term], acc_t)
        return [total if acc_t == ot else sb.cast(total, ot)]

    g = L.build_generic([], [empty(b, rt)], [AffineMap.identity(4)], ["parallel"] * 4, body, builder=b)
    return [g.results[0]]


PATTERNS["tosa.resize"] = _resize


def _dft(op: Operation, b: Builder, re: Value, im, out_t: T.TensorType, inverse: bool, want_imag: bool) -> Value:
    """One output (real or imaginary part) of the spec's DFT over the last two dims."""
    h, w = re.type.shape[1], re.type.shape[2]
    et = out_t.element_type
    d = [AffineDim(i) for i in range(5)]  # n, oy, ox | iy, ix
    m_in = AffineMap(5, 0, (d[0], d[3], d[4]))
    m_out = AffineMap(5, 0, (d[0], d[1], d[2]))
    sign = -1.0 if inverse else 1.0
    ins = [re] + ([im] if im is not None else [])

    def body(sb, a):
        def c(v):
            return sb.constant(IntegerAttr(v, INDEX))

        def part(o, i, size):
            p = sb.op("arith.remui", [sb.op("arith.muli", [linalg_index(sb, o), linalg_index(sb, i)], INDEX), c(size)],
                      INDEX)
            return sb.op("arith.divf", [sb.cast(sb.op("arith.index_cast", [p], I64), et),
                                        sb.constant(FloatAttr(float(size), et))], et)

        ang = sb.op("arith.mulf", [sb.constant(FloatAttr(sign * 2 * math.pi, et)),
                                   sb.op("arith.addf", [part(1, 3, h), part(2, 4, w)], et)], et)
        cs, sn = sb.op("math.cos", [ang], et), sb.op("math.sin", [ang], et)
        vr = a[0]
        vi = a[1] if im is not None else None
        acc = a[-1]
        if want_imag:  # -re * sin + im * cos
            t = sb.op("arith.negf", [sb.op("arith.mulf", [vr, sn], et)], et)
            if vi is not None:
                t = sb.op("arith.addf", [t, sb.op("arith.mulf", [vi, cs], et)], et)
        else:  # re * cos + im * sin
            t = sb.op("arith.mulf", [vr, cs], et)
            if vi is not None:
                t = sb.op("arith.addf", [t, sb.op("arith.mulf", [vi, sn], et)], et)
        return [sb.op("arith.addf", [acc, t], et)]

    from .utils import filled
    init = filled(b, out_t, 0.0)
    g = L.build_generic(ins, [init], [m_in] * len(ins) + [m_out], ["parallel"] * 3 + ["reduction"] * 2, body,
                        builder=b)
    return g.results[0]


def _fft2d(op: Operation, b: Builder):
    re, im = op.operands[0], op.operands[1]
    static(op, re)
    static(op, im)
    rt = static(op, op.results[0])
    if not is_float(rt.element_type) or rt.rank != 3:
        raise fail(op, "needs rank-3 float tensors")
    inv = bool(getattr(op.attributes.get("inverse"), "value", False))
    return [_dft(op, b, re, im, rt, inv, False), _dft(op, b, re, im, static(op, op.results[1]), inv, True)]


PATTERNS["tosa.fft2d"] = _fft2d


def _rfft2d(op: Operation, b: Builder):
    x = op.operands[0]
    xt = static(op, x)
    rt = static(op, op.results[0])
    if not is_float(rt.element_type) or rt.rank != 3:
        raise fail(op, "needs rank-3 float tensors")
    if rt.shape[2] != xt.shape[2] // 2 + 1:
        raise fail(op, f"result width {rt.shape[2]} is not {xt.shape[2]} / 2 + 1")
    return [_dft(op, b, x, None, rt, False, False), _dft(op, b, x, None, static(op, op.results[1]), False, True)]


PATTERNS["tosa.rfft2d"] = _rfft2d


def _scatter(op: Operation, b: Builder):
    values_in, indices, inp = op.operands
    static(op, values_in)
    static(op, indices)
    static(op, inp)
    rt = static(op, op.results[0])
    et = rt.element_type
    d = [AffineDim(i) for i in range(4)]  # n, k, c | w
    m_idx = AffineMap(4, 0, (d[0], d[3]))
    m_in = AffineMap(4, 0, (d[0], d[3], d[2]))
    m_out = AffineMap(4, 0, (d[0], d[1], d[2]))

    def body(sb, a):
        k = sb.op("arith.index_cast", [linalg_index(sb, 1)], a[0].type)
        return [sb.op("arith.select", [_icmp(sb, "eq", a[0], k), a[1], a[2]], et)]

    g = L.build_generic([indices, inp], [values_in], [m_idx, m_in, m_out],
                        ["parallel"] * 3 + ["reduction"], body, builder=b)
    return [g.results[0]]


PATTERNS["tosa.scatter"] = _scatter

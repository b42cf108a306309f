"""TOSA matmul / convolution / pooling → named linalg ops.

Mirrors MLIR's ``tosa-to-linalg-named`` (TosaToLinalgNamed.cpp): ``matmul`` →
``linalg.batch_matmul`` (``quantized_batch_matmul`` with non-zero zero points);
``conv2d`` (NHWC input, OHWI weights) → ``tensor.pad`` + ``linalg.conv_2d_nhwc_fhwc``
(``conv_2d_nhwc_fhwc_q`` with non-zero zero points); ``depthwise_conv2d`` (HWCM weights) →
``linalg.depthwise_conv_2d_nhwc_hwcm`` (``depthwise_conv_2d_nhwc_hwcm_q``) + collapse; the
input is padded with its zero point, so padded taps contribute nothing; ``fully_connected``
(older TOSA) → ``linalg.matmul_transpose_b``; ``max_pool2d`` / ``avg_pool2d`` →
``linalg.pooling_nhwc_max`` / ``pooling_nhwc_sum``. Bias is the accumulator's initial value
(broadcast over N, H, W); when ``acc_type`` differs from the result element type the
accumulation runs in ``acc_type`` and a final generic converts. ``avg_pool2d`` divides each
window sum by the number of non-padding elements it covers (TOSA 1.0, AVG_POOL2D; float
only).
"""
from __future__ import annotations

from typing import Dict, List

import numpy as np

from ....dialects import linalg as L
from ....ir import types as T
from ....ir.affine import AffineConst, AffineDim, AffineMap
from ....ir.attributes import DenseElementsAttr, TypeAttr
from ....ir.core import Block, Builder, Operation, Region
from ....dialects.tensor import i64_array, segment_sizes
from .utils import (I32, I64, INDEX, collapse, const_array, constant, empty, fail, filled,
                    int_array_attr, is_float, lowest, named, static)

PATTERNS: Dict = {}


def _zero_point(op: Operation, i: int, attr: str) -> int:
    """Zero point from operand ``i`` (TOSA 1.0, constant tensor<1xT>) or attribute ``attr``
    (older TOSA's quantization_info); 0 when absent."""
    if len(op.operands) > i:
        arr = const_array(op.operands[i])
        if arr is None:
            raise fail(op, "needs constant zero points")
        v = np.asarray(arr).reshape(-1)[0].item()
        if isinstance(v, float):
            if v != 0.0:
                raise fail(op, f"has a non-zero float zero point {v}")
            return 0
        return int(v)
    a = op.attributes.get(attr)
    return 0 if a is None else int(getattr(a, "value", 0))


def _window_attrs(strides: List[int], dilations: List[int]) -> dict:
    t = T.TensorType((len(strides),), I64)
    return {"strides": DenseElementsAttr(np.array(strides, np.int64), t),
            "dilations": DenseElementsAttr(np.array(dilations, np.int64), t)}


def _acc_type(op: Operation, out_et: T.Type) -> T.Type:
    a = op.attributes.get("acc_type")
    return a.value if isinstance(a, TypeAttr) else out_et


def _pad_nhwc(op: Operation, b: Builder, src, pad: List[int], value):
    """``tensor.pad`` of an NHWC tensor by ``pad = [top, bottom, left, right]`` with a scalar."""
    st = static(op, src)
    if not any(pad):
        return src
    top, bottom, left, right = pad
    shape = (st.shape[0], st.shape[1] + top + bottom, st.shape[2] + left + right, st.shape[3])
    rt = T.TensorType(shape, st.element_type)
    pv = constant(b, value, st.element_type)
    blk = Block([INDEX] * 4)
    blk.append(Operation("tensor.yield", [pv]))
    return b.create("tensor.pad", [src], [rt], {
        "static_low": i64_array([0, top, left, 0]), "static_high": i64_array([0, bottom, right, 0]),
        "operandSegmentSizes": segment_sizes(1, 0, 0)}, regions=[Region([blk])]).result


def _bias_init(op: Operation, b: Builder, bias, t: T.TensorType):
    """A tensor of type ``t`` whose every row (last dim) is ``bias`` (size t[-1] or 1)."""
    bt = static(op, bias)
    rank = t.rank
    if bt.rank != 1 or bt.shape[0] not in (1, t.shape[-1]):
        raise fail(op, f"bias {bt} does not match {t.shape[-1]} output channels")
    e = AffineConst(0) if bt.shape[0] == 1 and t.shape[-1] != 1 else AffineDim(rank - 1)
    g = L.build_generic([bias], [empty(b, t)], [AffineMap(rank, 0, (e,)), AffineMap.identity(rank)],
                        ["parallel"] * rank, lambda sb, args: [sb.cast(args[0], t.element_type)],
                        builder=b)
    return g.results[0]


def _convert(b: Builder, v, et: T.Type):
    """Elementwise conversion of tensor ``v`` to element type ``et`` (no-op when equal)."""
    vt = v.type
    if vt.element_type == et:
        return v
    rt = T.TensorType(vt.shape, et)
    g = L.build_generic([v], [empty(b, rt)], [AffineMap.identity(vt.rank)] * 2,
                        ["parallel"] * vt.rank, lambda sb, args: [sb.cast(args[0], et)], builder=b)
    return g.results[0]


def _matmul(op: Operation, b: Builder):
    a, w = op.operands[0], op.operands[1]
    static(op, a)
    static(op, w)
    rt = static(op, op.results[0])
    a_zp = _zero_point(op, 2, "a_zp")
    b_zp = _zero_point(op, 3, "b_zp")
    init = filled(b, rt, 0)
    if a_zp == 0 and b_zp == 0:
        return [named(b, "batch_matmul", [a, w], [init])]
    zps = [constant(b, a_zp, I32), constant(b, b_zp, I32)]
    return [named(b, "quantized_batch_matmul", [a, w] + zps, [init])]


PATTERNS["tosa.matmul"] = _matmul


def _conv_operands(op: Operation):
    """What tosa.conv2d and tosa.depthwise_conv2d share: input, weights and bias, their static
    types and the result's, pad/stride/dilation (TOSA's defaults) and the zero points."""
    x, w, bias = op.operands[0], op.operands[1], op.operands[2]
    return (x, w, bias, static(op, x), static(op, w), static(op, op.results[0]),
            int_array_attr(op, "pad") or [0, 0, 0, 0], int_array_attr(op, "stride") or [1, 1],
            int_array_attr(op, "dilation") or [1, 1],
            _zero_point(op, 3, "input_zp"), _zero_point(op, 4, "weight_zp"))


def _conv2d(op: Operation, b: Builder):
    x, w, bias, xt, wt, rt, pad, stride, dilation, in_zp, w_zp = _conv_operands(op)
    acc = _acc_type(op, rt.element_type)
    if xt.rank != 4 or wt.rank != 4:
        raise fail(op, "needs NHWC input and OHWI weights")
    xp = _pad_nhwc(op, b, x, pad, in_zp)
    acc_t = T.TensorType(rt.shape, acc)
    init = _bias_init(op, b, bias, acc_t)
    attrs = _window_attrs(stride, dilation)
    if in_zp == 0 and w_zp == 0:
        out = named(b, "conv_2d_nhwc_fhwc", [xp, w], [init], attrs)
    else:
        zps = [constant(b, in_zp, I32), constant(b, w_zp, I32)]
        out = named(b, "conv_2d_nhwc_fhwc_q", [xp, w] + zps, [init], attrs)
    return [_convert(b, out, rt.element_type)]


PATTERNS["tosa.conv2d"] = _conv2d


def _depthwise_conv2d(op: Operation, b: Builder):
    x, w, bias, xt, wt, rt, pad, stride, dilation, in_zp, w_zp = _conv_operands(op)
    acc = _acc_type(op, rt.element_type)
    if wt.rank != 4:
        raise fail(op, f"needs HWCM weights, got {wt}")
    kh, kw, c, m = wt.shape
    if xt.rank != 4 or xt.shape[3] != c or rt.shape[3] != c * m:
        raise fail(op, f"shapes {xt}, {wt} -> {rt} are not NHWC / HWCM")
    xp = _pad_nhwc(op, b, x, pad, in_zp)
    n, oh, ow = rt.shape[:3]
    t5 = T.TensorType((n, oh, ow, c, m), acc)
    attrs = _window_attrs(stride, dilation)
    if in_zp == 0 and w_zp == 0:
        conv = named(b, "depthwise_conv_2d_nhwc_hwcm", [xp, w], [filled(b, t5, 0)], attrs)
    else:
        zps = [constant(b, in_zp, I32), constant(b, w_zp, I32)]
        conv = named(b, "depthwise_conv_2d_nhwc_hwcm_q", [xp, w] + zps, [filled(b, t5, 0)], attrs)
    flat = collapse(b, conv, [[0], [1], [2], [3, 4]], T.TensorType(rt.shape, acc))
    bt = static(op, bias)
    e = AffineConst(0) if bt.shape[0] == 1 and rt.shape[3] != 1 else AffineDim(3)
    et = rt.element_type

    def body(sb, args):
        s = sb.binary("add", args[0], sb.cast(args[1], acc))
        return [sb.cast(s, et)]

    g = L.build_generic([flat, bias], [empty(b, rt)],
                        [AffineMap.identity(4), AffineMap(4, 0, (e,)), AffineMap.identity(4)],
                        ["parallel"] * 4, body, builder=b)
    return [g.results[0]]


PATTERNS["tosa.depthwise_conv2d"] = _depthwise_conv2d


def _fully_connected(op: Operation, b: Builder):
    x, w, bias = op.operands[0], op.operands[1], op.operands[2]
    static(op, x)
    static(op, w)
    rt = static(op, op.results[0])
    if _zero_point(op, 99, "input_zp") or _zero_point(op, 99, "weight_zp"):
        raise fail(op, "with non-zero zero points is not supported")
    init = _bias_init(op, b, bias, rt)
    return [named(b, "matmul_transpose_b", [x, w], [init])]


PATTERNS["tosa.fully_connected"] = _fully_connected


def _pool_params(op: Operation):
    kernel = int_array_attr(op, "kernel")
    stride = int_array_attr(op, "stride") or [1, 1]
    pad = int_array_attr(op, "pad") or [0, 0, 0, 0]
    if kernel is None or len(kernel) != 2:
        raise fail(op, "needs a 2-value 'kernel'")
    return kernel, stride, pad


def _max_pool2d(op: Operation, b: Builder):
    x = op.operands[0]
    xt = static(op, x)
    rt = static(op, op.results[0])
    kernel, stride, pad = _pool_params(op)
    et = xt.element_type
    xp = _pad_nhwc(op, b, x, pad, lowest(et))
    window = empty(b, T.TensorType(tuple(kernel), et))
    init = filled(b, rt, lowest(et))
    return [named(b, "pooling_nhwc_max", [xp, window], [init], _window_attrs(stride, [1, 1]))]


PATTERNS["tosa.max_pool2d"] = _max_pool2d


def _avg_pool2d(op: Operation, b: Builder):
    x = op.operands[0]
    xt = static(op, x)
    rt = static(op, op.results[0])
    et = rt.element_type
    if not is_float(et):
        raise fail(op, f"on integers ({et}) is not supported")
    kernel, stride, pad = _pool_params(op)
    acc = _acc_type(op, et)
    xa = _convert(b, x, acc)
    xp = _pad_nhwc(op, b, xa, pad, 0.0)
    window = empty(b, T.TensorType(tuple(kernel), acc))
    acc_t = T.TensorType(rt.shape, acc)
    sums = named(b, "pooling_nhwc_sum", [xp, window], [filled(b, acc_t, 0.0)],
                 _window_attrs(stride, [1, 1]))
    # Elements of each window that are not padding (static: kernel, stride, pad, sizes).
    oh, ow = rt.shape[1], rt.shape[2]
    ih, iw = xt.shape[1], xt.shape[2]

    def valid(o, k, s, lo, size):
        start = o * s - lo
        return min(start + k, size) - max(start, 0)

    counts = np.array([[valid(i, kernel[0], stride[0], pad[0], ih) * valid(j, kernel[1], stride[1],
                                                                              pad[2], iw)
                        for j in range(ow)] for i in range(oh)], dtype=np.float64)
    if np.all(counts == counts.reshape(-1)[0]):
        c = constant(b, float(counts.reshape(-1)[0]), acc)
        g = L.build_generic([sums], [empty(b, rt)], [AffineMap.identity(4)] * 2,
                            ["parallel"] * 4,
                            lambda sb, args: [sb.cast(sb.op("arith.divf", [args[0], c], acc), et)],
                            builder=b)
        return [g.results[0]]
    ct = T.TensorType((oh, ow), acc)
    cv = b.create("arith.constant", [], [ct], {"value": DenseElementsAttr(counts, ct)}).result
    g = L.build_generic([sums, cv], [empty(b, rt)],
                        [AffineMap.identity(4), AffineMap.from_dims(4, [1, 2]),
                         AffineMap.identity(4)], ["parallel"] * 4,
                        lambda sb, args: [sb.cast(sb.op("arith.divf", args[:2], acc), et)],
                        builder=b)
    return [g.results[0]]


PATTERNS["tosa.avg_pool2d"] = _avg_pool2d

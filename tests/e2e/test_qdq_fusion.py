"""QDQ fusion (ireec/passes/flow/fuse_qdq_contractions.py) end to end: fake-quantized
convolutions and matmuls, written as torch-mlir lowers an ONNX Runtime QDQ export (dequantize
generics around f32 contractions, a per-channel weight scale, an i32 bias dequantized with
the product scale, the result quantized again), compiled for c and openmp, become 8-bit
integer contractions, and their outputs equal the quantized model's integer arithmetic in
numpy bit for bit: ``q = clamp(roundeven(f32(acc + bias_q) * (sx * sw[f]) / sy) + zy)``.
Layouts NCHW (strides 1 and 2, padded with 0.0), NHWC (HWCF filter) and a matmul with a
transposed weight, a u8 activation and an f32 bias (added after the scaling); under
``--strict-fp`` the f32 contraction stays."""
from __future__ import annotations

import numpy as np
import pytest

from ireec.compiler import compile_source as compile_to_c
from ireec.targets.base import get_target

from .common import cached_module

#: name -> (layout, n, c, h, w, f, k, stride, pad)
CONVS = {
    "nchw_s1": ("nchw", 1, 8, 10, 9, 12, 3, 1, 1),
    "nchw_s2": ("nchw", 2, 5, 11, 12, 7, 3, 2, 1),
    "nhwc_s1": ("nhwc", 1, 6, 8, 8, 16, 3, 1, 1),
}
SX, ZX, SY, ZY = np.float32(0.03125), -4, np.float32(0.0625), 3


def _t(shape, e):
    return "tensor<" + "x".join(map(str, shape)) + f"x{e}>"


def _dense(a):
    return "dense<" + np.array2string(np.asarray(a), separator=", ", threshold=1 << 30,
                                      max_line_width=1 << 30, floatmode="unique").replace("\n", "") + ">"


def _ids(rank):
    d = ", ".join(f"d{i}" for i in range(rank))
    return f"affine_map<({d}) -> ({d})>"


def _par(rank):
    return "[" + ", ".join(['"parallel"'] * rank) + "]"


def _dequant(name, src, shape, et, zp, scale, unsigned=False):
    """A dequantize generic as torch-mlir emits it: ``(ext(q) - zp) * scale``."""
    ext = "arith.extui" if unsigned else "arith.extsi"
    return f"""
    %{name}_e = tensor.empty() : {_t(shape, 'f32')}
    %{name} = linalg.generic {{indexing_maps = [{_ids(len(shape))}, {_ids(len(shape))}], iterator_types = {_par(len(shape))}}} ins({src} : {_t(shape, et)}) outs(%{name}_e : {_t(shape, 'f32')}) {{
    ^bb0(%in: {et}, %out: f32):
      %zp = arith.constant {zp} : i64
      %s = arith.constant {float(scale)!r} : f32
      %0 = {ext} %in : {et} to i64
      %1 = arith.subi %0, %zp : i64
      %2 = arith.sitofp %1 : i64 to f32
      %3 = arith.mulf %2, %s : f32
      linalg.yield %3 : f32
    }} -> {_t(shape, 'f32')}"""


def _channel_dequant(name, q, sw, shape, axis):
    """A constant i8 tensor dequantized with a scale per element of dim ``axis`` (zero point
    0, read from a vector as ONNX's per-axis DequantizeLinear)."""
    rank = len(shape)
    d = ", ".join(f"d{i}" for i in range(rank))
    ch = f"affine_map<({d}) -> (d{axis})>"
    et = "i32" if q.dtype == np.int32 else "i8"
    return f"""
    %{name}_q = arith.constant {_dense(q)} : {_t(shape, et)}
    %{name}_s = arith.constant {_dense(sw)} : {_t((len(sw),), 'f32')}
    %{name}_z = arith.constant dense<0> : {_t((len(sw),), et)}
    %{name}_e = tensor.empty() : {_t(shape, 'f32')}
    %{name} = linalg.generic {{indexing_maps = [{_ids(rank)}, {ch}, {ch}, {_ids(rank)}], iterator_types = {_par(rank)}}} ins(%{name}_q, %{name}_s, %{name}_z : {_t(shape, et)}, {_t((len(sw),), 'f32')}, {_t((len(sw),), et)}) outs(%{name}_e : {_t(shape, 'f32')}) {{
    ^bb0(%in: {et}, %s: f32, %z: {et}, %out: f32):
      %0 = arith.extsi %z : {et} to i64
      %1 = arith.extsi %in : {et} to i64
      %2 = arith.subi %1, %0 : i64
      %3 = arith.sitofp %2 : i64 to f32
      %4 = arith.mulf %3, %s : f32
      linalg.yield %4 : f32
    }} -> {_t(shape, 'f32')}"""


def _quantize(name, src, shape):
    """The output quantized to i8 (scale SY, zero point ZY) as torch-mlir emits it."""
    return f"""
    %{name}_e = tensor.empty() : {_t(shape, 'i8')}
    %{name} = linalg.generic {{indexing_maps = [{_ids(len(shape))}, {_ids(len(shape))}], iterator_types = {_par(len(shape))}}} ins({src} : {_t(shape, 'f32')}) outs(%{name}_e : {_t(shape, 'i8')}) {{
    ^bb0(%in: f32, %out: i8):
      %sy = arith.constant {float(SY)!r} : f32
      %zy = arith.constant {float(ZY)!r} : f32
      %lo = arith.constant -1.280000e+02 : f32
      %hi = arith.constant 1.270000e+02 : f32
      %0 = arith.divf %in, %sy : f32
      %1 = math.roundeven %0 : f32
      %2 = arith.addf %1, %zy : f32
      %3 = arith.maximumf %2, %lo : f32
      %4 = arith.minimumf %3, %hi : f32
      %5 = arith.fptosi %4 : f32 to i8
      linalg.yield %5 : i8
    }} -> {_t(shape, 'i8')}"""


def _shapes(layout, n, c, h, w, f, k, stride, pad):
    oh, ow = (h + 2 * pad - k) // stride + 1, (w + 2 * pad - k) // stride + 1
    if layout == "nchw":
        return (n, c, h, w), (f, c, k, k), (n, f, oh, ow), (n, c, h + 2 * pad, w + 2 * pad)
    return (n, h, w, c), (k, k, c, f), (n, oh, ow, f), (n, h + 2 * pad, w + 2 * pad, c)


def _weights(name, rng, wshape, f):
    q = rng.integers(-127, 128, wshape).astype(np.int8)
    sw = (rng.uniform(0.5, 2.0, f) / 256).astype(np.float32)
    bq = rng.integers(-3000, 3000, f).astype(np.int32)
    return q, sw, bq


def _conv_fn(name, params, q, sw, bq):
    layout, n, c, h, w, f, k, stride, pad = params
    xs, ws, os_, ps = _shapes(*params)
    f_axis, (lo, hi) = (0, ("[0, 0, 1, 1]", "[0, 0, 1, 1]")) if layout == "nchw" else (3, ("[0, 1, 1, 0]", "[0, 1, 1, 0]"))
    op = "linalg.conv_2d_nchw_fchw" if layout == "nchw" else "linalg.conv_2d_nhwc_hwcf"
    bdims = "[0, 2, 3]" if layout == "nchw" else "[0, 1, 2]"
    sb = (SX * sw).astype(np.float32)
    return f"""
  func.func @{name}(%x: {_t(xs, 'i8')}) -> {_t(os_, 'i8')} {{
    {_dequant('xd', '%x', xs, 'i8', ZX, SX)}
    {_channel_dequant('wd', q, sw, ws, f_axis if layout == 'nchw' else 3)}
    {_channel_dequant('bd', bq, sb, (f,), 0)}
    %zero = arith.constant 0.000000e+00 : f32
    %xp = tensor.pad %xd low{lo} high{hi} {{
    ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
      tensor.yield %zero : f32
    }} : {_t(xs, 'f32')} to {_t(ps, 'f32')}
    %be = tensor.empty() : {_t(os_, 'f32')}
    %bb = linalg.broadcast ins(%bd : {_t((f,), 'f32')}) outs(%be : {_t(os_, 'f32')}) dimensions = {bdims}
    %y = {op} {{dilations = dense<1> : vector<2xi64>, strides = dense<{stride}> : vector<2xi64>}} ins(%xp, %wd : {_t(ps, 'f32')}, {_t(ws, 'f32')}) outs(%bb : {_t(os_, 'f32')}) -> {_t(os_, 'f32')}
    {_quantize('yq', '%y', os_)}
    return %yq : {_t(os_, 'i8')}
  }}"""


def _conv_reference(params, x, q, sw, bq):
    """The quantized model's arithmetic: exact integer sums, then the f32 requantization."""
    layout, n, c, h, w, f, k, stride, pad = params
    if layout == "nhwc":
        x = x.transpose(0, 3, 1, 2)
        q = q.transpose(3, 2, 0, 1)
    xp = np.pad(x.astype(np.int64) - ZX, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = (xp.shape[2] - k) // stride + 1, (xp.shape[3] - k) // stride + 1
    acc = np.zeros((x.shape[0], f, oh, ow), np.int64)
    for kh in range(k):
        for kw in range(k):
            patch = xp[:, :, kh:kh + stride * (oh - 1) + 1:stride, kw:kw + stride * (ow - 1) + 1:stride]
            acc += np.einsum("nchw,fc->nfhw", patch, q[:, :, kh, kw].astype(np.int64))
    acc += bq[None, :, None, None]
    scale = (SX * sw).astype(np.float32)[None, :, None, None]
    y = acc.astype(np.float32) * scale
    out = np.clip(np.round(y / SY) + np.float32(ZY), -128, 127).astype(np.int8)
    return out.transpose(0, 2, 3, 1) if layout == "nhwc" else out


M, K, N = 5, 24, 9
XZ_U8 = 131


def _matmul_fn(qw, sw):
    """A u8 activation times a transposed, per-output-channel weight, plus an f32 bias
    argument (not a dequantized one: added after the scaling); f32 out."""
    wt = f"""
    %wt_e = tensor.empty() : {_t((K, N), 'f32')}
    %wt = linalg.transpose ins(%wd : {_t((N, K), 'f32')}) outs(%wt_e : {_t((K, N), 'f32')}) permutation = [1, 0]"""
    return f"""
  func.func @matmul(%x: {_t((M, K), 'i8')}, %bias: {_t((M, N), 'f32')}) -> {_t((M, N), 'f32')} {{
    {_dequant('xd', '%x', (M, K), 'i8', XZ_U8, SX, unsigned=True)}
    {_channel_dequant('wd', qw, sw, (N, K), 0)}
    {wt}
    %y = linalg.matmul ins(%xd, %wt : {_t((M, K), 'f32')}, {_t((K, N), 'f32')}) outs(%bias : {_t((M, N), 'f32')}) -> {_t((M, N), 'f32')}
    return %y : {_t((M, N), 'f32')}
  }}"""


def _source():
    rng = np.random.default_rng(7)
    fns, consts = [], {}
    for name, params in CONVS.items():
        _, wshape, _, _ = _shapes(*params)
        consts[name] = _weights(name, rng, wshape, params[5])
        fns.append(_conv_fn(name, params, *consts[name]))
    qw = rng.integers(-127, 128, (N, K)).astype(np.int8)
    sw = (rng.uniform(0.5, 2.0, N) / 64).astype(np.float32)
    consts["matmul"] = (qw, sw)
    fns.append(_matmul_fn(qw, sw))
    return "module {" + "".join(fns) + "\n}\n", consts


SRC, CONSTS = _source()


@pytest.fixture(scope="module")
def modules():
    return {}


def test_contractions_become_integer():
    """After the flow phase no f32 convolution or matmul is left: each is an i8 x i8 -> i32
    generic, and the convolutions with enough channels call ireec_uk_igemm."""
    flow = compile_to_c(SRC, "t.mlir", target="c", compile_to="flow").ir_text
    assert "linalg.conv_2d" not in flow and "linalg.matmul" not in flow
    assert flow.count("i8 to i32") >= 2 * (len(CONVS) + 1)  # both factors of each
    kernels = compile_to_c(SRC, "t.mlir", target="c").files["t_kernels.c"]
    assert kernels.count("ireec_uk_igemm(") >= 2


def test_strict_fp_keeps_the_f32_contractions():
    target = get_target("c")
    target.strict_fp = True
    flow = compile_to_c(SRC, "t.mlir", target=target, compile_to="flow").ir_text
    assert flow.count("linalg.conv_2d_nchw_fchw") + flow.count("mulf") >= len(CONVS)
    assert "i8 to i32" not in flow


@pytest.mark.parametrize("target", ["c", "openmp"])
def test_matches_the_integer_arithmetic_exactly(target, modules):
    m = cached_module(modules, SRC, target)
    rng = np.random.default_rng(1)
    for name, params in CONVS.items():
        xs, _, _, _ = _shapes(*params)
        for extreme in (False, True):
            x = rng.integers(-128, 128, xs).astype(np.int8)
            if extreme:
                x[...] = np.where(rng.random(xs) < 0.5, -128, 127).astype(np.int8)
            got = getattr(m, name)(x)
            np.testing.assert_array_equal(got, _conv_reference(params, x, *CONSTS[name]),
                                          err_msg=f"{name} extreme={extreme}")


@pytest.mark.parametrize("target", ["c", "openmp"])
def test_matmul_with_an_f32_bias(target, modules):
    m = cached_module(modules, SRC, target)
    rng = np.random.default_rng(2)
    qw, sw = CONSTS["matmul"]
    x = rng.integers(-128, 128, (M, K)).astype(np.int8)
    bias = rng.standard_normal((M, N)).astype(np.float32)
    acc = (x.view(np.uint8).astype(np.int64) - XZ_U8) @ qw.astype(np.int64).T
    want = bias + acc.astype(np.float32) * (SX * sw).astype(np.float32)
    # The f32 program: the same numbers up to the f32 rounding of its partial sums.
    np.testing.assert_allclose(m.matmul(x, bias), want, rtol=1e-6, atol=1e-6)

"""Transposed convolutions (a convolution over a zero-dilated image: an insert of the image
into a fill of zero with strides, as torch-mlir writes ConvTranspose2d) decomposed into one
convolution per output phase (ireec/passes/flow/decompose_transposed_convolution.py):
NCHW and NHWC, strides 2 and 3 and unequal ones, windows smaller and larger than the stride,
offsets that make phases read before the image or past it, phases without taps; a bias init;
on c and openmp against numpy, and the dilated image no longer computed."""
from __future__ import annotations

import numpy as np
import pytest

import ireec
from ireec.compiler import compile_source as compile_to_c

#: (layout, C, H, W, F, (KH, KW), (sh, sw), (oh_off, ow_off), (dilated H, W), (out H, W)):
#: the image (C channels, H x W) is inserted at the offsets with the strides into a zero
#: image of the dilated size; a KH x KW convolution gives the output size.
CASES = [
    ("nchw", 32, 16, 16, 16, (2, 2), (2, 2), (1, 1), (33, 33), (32, 32)),  # ConvTranspose2d k2 s2
    ("nchw", 5, 7, 6, 4, (3, 3), (2, 2), (1, 1), (16, 14), (14, 12)),  # k3 s2 p1 output_padding 1
    ("nchw", 3, 5, 5, 6, (4, 4), (3, 3), (2, 0), (17, 15), (14, 12)),
    ("nhwc", 6, 4, 9, 8, (3, 2), (2, 1), (2, 0), (11, 9), (9, 8)),
    ("nhwc", 4, 3, 3, 5, (1, 1), (3, 3), (1, 1), (9, 9), (9, 9)),  # phases without taps
]


def _t(shape) -> str:
    return "tensor<" + "x".join(str(d) for d in shape) + "xf32>"


def _shapes(layout, c, h, w, f, k, s, o, dil, out):
    if layout == "nchw":
        return (1, c, h, w), (1, c) + dil, (f, c) + k, (1, f) + out, "[0, 0, {}, {}]", "[1, 1, {}, {}]", "[0, 2, 3]"
    return (1, h, w, c), (1,) + dil + (c,), k + (c, f), (1,) + out + (f,), "[0, {}, {}, 0]", "[1, {}, {}, 1]", "[0, 1, 2]"


def _func(i, layout, c, h, w, f, k, s, o, dil, out) -> str:
    xs, zs, ws, os_, off, st, bdims = _shapes(layout, c, h, w, f, k, s, o, dil, out)
    op = "conv_2d_nchw_fchw" if layout == "nchw" else "conv_2d_nhwc_hwcf"
    return f"""
func.func @f{i}(%x: {_t(xs)}, %w: {_t(ws)}, %b: tensor<{f}xf32>) -> {_t(os_)} {{
  %zero = arith.constant 0.0 : f32
  %ez = tensor.empty() : {_t(zs)}
  %z = linalg.fill ins(%zero : f32) outs(%ez : {_t(zs)}) -> {_t(zs)}
  %d = tensor.insert_slice %x into %z{off.format(*o)} [{", ".join(map(str, xs))}] {st.format(*s)} : {_t(xs)} into {_t(zs)}
  %e = tensor.empty() : {_t(os_)}
  %init = linalg.broadcast ins(%b : tensor<{f}xf32>) outs(%e : {_t(os_)}) dimensions = {bdims}
  %r = linalg.{op} {{dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}}
      ins(%d, %w : {_t(zs)}, {_t(ws)}) outs(%init : {_t(os_)}) -> {_t(os_)}
  return %r : {_t(os_)}
}}
"""


SRC = "".join(_func(i, *case) for i, case in enumerate(CASES))


def _reference(layout, x, w, b, k, s, o, dil, out):
    """The convolution over the dilated image, as written, in float64 (NCHW)."""
    if layout == "nhwc":
        x, w = x.transpose(0, 3, 1, 2), w.transpose(3, 2, 0, 1)
    n, c, h, wd = x.shape
    z = np.zeros((n, c) + dil)
    z[:, :, o[0]: o[0] + s[0] * (h - 1) + 1: s[0], o[1]: o[1] + s[1] * (wd - 1) + 1: s[1]] = x
    r = np.broadcast_to(b[None, :, None, None], (n, w.shape[0]) + out).astype(np.float64).copy()
    for ty in range(k[0]):
        for tx in range(k[1]):
            r += np.einsum("nchw,fc->nfhw", z[:, :, ty: ty + out[0], tx: tx + out[1]], w[:, :, ty, tx])
    return r if layout == "nchw" else r.transpose(0, 2, 3, 1)


def test_dilated_image_is_not_computed():
    """No dispatch writes the dilated image; each case's phases are convolutions of the
    image itself."""
    flow = compile_to_c(SRC, "t.mlir", target="c", compile_to="flow").ir_text
    for layout, c, h, w, f, k, s, o, dil, out in CASES:
        zs = _shapes(layout, c, h, w, f, k, s, o, dil, out)[1]
        assert _t(zs) not in flow, zs


@pytest.mark.parametrize("target", ["c", "openmp"])
def test_matches_numpy(target):
    m = ireec.compile_source(SRC, target=target)
    rng = np.random.default_rng(3)
    for i, (layout, c, h, w, f, k, s, o, dil, out) in enumerate(CASES):
        xs, _, ws, *_ = _shapes(layout, c, h, w, f, k, s, o, dil, out)
        x = rng.standard_normal(xs).astype(np.float32)
        flt = rng.standard_normal(ws).astype(np.float32)
        b = rng.standard_normal(f).astype(np.float32)
        want = _reference(layout, x.astype(np.float64), flt.astype(np.float64), b, k, s, o, dil, out)
        np.testing.assert_allclose(getattr(m, f"f{i}")(x, flt, b), want, rtol=1e-5, atol=1e-5,
                                   err_msg=f"case {CASES[i]} on {target}")


#: StableHLO's transposed convolution (JAX's conv_transpose): ``lhs_dilate`` with padding,
#: lowered to a ``linalg.generic`` convolution of the dilated, padded image. (dimension
#: numbers, image, filter, lhs_dilate, padding, reversed window, dilated image shape).
HLO_CASES = [
    ("[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]", (1, 4, 5, 6), (3, 4, 3, 3), (2, 2), ((2, 2), (1, 2)), False),
    ("[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]", (2, 4, 3, 5), (2, 3, 5, 6), (3, 2), ((1, 1), (2, 0)), True),
]


def _hlo_conv(i, dims, xs, ws, dil, pad, rev, rs):
    rev_attr = ", reverse = [true, true]" if rev else ""
    return f"""
func.func @h{i}(%x: {_t(xs)}, %w: {_t(ws)}) -> {_t(rs)} {{
  %0 = stablehlo.convolution(%x, %w) dim_numbers = {dims}, window = {{stride = [1, 1], pad = [[{pad[0][0]}, {pad[0][1]}], [{pad[1][0]}, {pad[1][1]}]], lhs_dilate = [{dil[0]}, {dil[1]}], rhs_dilate = [1, 1]{rev_attr}}} {{batch_group_count = 1 : i64, feature_group_count = 1 : i64}} : ({_t(xs)}, {_t(ws)}) -> {_t(rs)}
  return %0 : {_t(rs)}
}}
"""


def _hlo_reference(nchw, x, w, dil, pad, rev):
    """The convolution of the zero-dilated, padded image, in float64 (NCHW / OIHW)."""
    if not nchw:
        x, w = x.transpose(0, 3, 1, 2), w.transpose(3, 2, 0, 1)
    if rev:
        w = w[:, :, ::-1, ::-1]
    n, c, h, wd = x.shape
    z = np.zeros((n, c, (h - 1) * dil[0] + 1, (wd - 1) * dil[1] + 1))
    z[:, :, ::dil[0], ::dil[1]] = x
    z = np.pad(z, ((0, 0), (0, 0), pad[0], pad[1]))
    kh, kw = w.shape[2:]
    out = (z.shape[2] - kh + 1, z.shape[3] - kw + 1)
    r = np.zeros((n, w.shape[0]) + out)
    for ty in range(kh):
        for tx in range(kw):
            r += np.einsum("nchw,fc->nfhw", z[:, :, ty: ty + out[0], tx: tx + out[1]], w[:, :, ty, tx])
    return r if nchw else r.transpose(0, 2, 3, 1)


def _hlo_src():
    src, shapes = "", []
    rng = np.random.default_rng(4)
    for i, (dims, xs, ws, dil, pad, rev) in enumerate(HLO_CASES):
        nchw = dims.startswith("[b, f")
        x, w = rng.standard_normal(xs), rng.standard_normal(ws)
        want = _hlo_reference(nchw, x, w, dil, pad, rev)
        src += _hlo_conv(i, dims, xs, ws, dil, pad, rev, want.shape)
        shapes.append((x.astype(np.float32), w.astype(np.float32), want))
    return src, shapes


def test_stablehlo_lhs_dilation_is_decomposed():
    """A generic convolution of a zero-dilated image (StableHLO's lhs_dilate) is split into
    its phases too: no dispatch computes the dilated image, and the results match numpy."""
    src, cases = _hlo_src()
    flow = compile_to_c(src, "t.mlir", target="c", compile_to="flow").ir_text
    for (dims, xs, ws, dil, pad, rev), (x, w, want) in zip(HLO_CASES, cases):
        nchw = dims.startswith("[b, f")
        hw = [(xs[2 if nchw else 1] - 1) * dil[0] + 1 + sum(pad[0]), (xs[3 if nchw else 2] - 1) * dil[1] + 1 + sum(pad[1])]
        dilated = (xs[0], xs[1], *hw) if nchw else (xs[0], *hw, xs[3])
        assert _t(dilated) not in flow, dilated
    for target in ("c", "openmp"):
        m = ireec.compile_source(src, target=target)
        for i, (x, w, want) in enumerate(cases):
            np.testing.assert_allclose(getattr(m, f"h{i}")(x, w), want, rtol=1e-5, atol=1e-5,
                                       err_msg=f"{HLO_CASES[i]} on {target}")

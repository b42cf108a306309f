"""TOSA exports of NCHW networks run in the layout of their linalg twins, against numpy:
NHWC convolutions and poolings between transposes from and to NCHW become NCHW ops
(ireec/passes/flow/convert_conv_to_channels_last.py), the BatchNorm after them folds into
the filter once the transposes are gone (fold-channel-affine-into-contractions, run again
after the transposes sink), ``tosa.transpose_conv2d`` becomes a convolution of the
zero-stuffed image (ireec/passes/input/tosa/spatial.py) that decompose-transposed-convolution
splits into phases, and a pad of an NHWC image is not cut along its few channels."""
from __future__ import annotations

import re

import numpy as np
import pytest

import ireec
from ireec.compiler import compile_source as compile_to_c


def _dense(a: np.ndarray) -> str:
    shape = "x".join(str(d) for d in a.shape)
    body = ", ".join(f"{v:.9e}" for v in a.reshape(-1))
    return f'tosa.const values(dense<[{body}]> : tensor<{a.size}xf32>) : () -> tensor<{a.size}xf32>', shape


def _const(name: str, a: np.ndarray) -> str:
    """A ``tosa.const`` named ``%name`` holding ``a`` (f32), reshaped to its shape."""
    flat, shape = _dense(a)
    return (f"    %{name}_flat = {flat}\n"
            f"    %{name}_shape = tosa.const_shape {{values = dense<[{', '.join(str(d) for d in a.shape)}]>"
            f" : tensor<{a.ndim}xindex>}} : () -> !tosa.shape<{a.ndim}>\n"
            f"    %{name} = tosa.reshape %{name}_flat, %{name}_shape : (tensor<{a.size}xf32>, !tosa.shape<{a.ndim}>)"
            f" -> tensor<{shape}xf32>\n")


RNG = np.random.default_rng(7)
W1 = RNG.standard_normal((12, 3, 3, 4)).astype(np.float32) * 0.3   # OHWI
B1 = RNG.standard_normal(12).astype(np.float32)
MEAN = RNG.standard_normal((1, 12, 1, 1)).astype(np.float32)
SCALE = RNG.uniform(0.5, 1.5, (1, 12, 1, 1)).astype(np.float32)
BETA = RNG.standard_normal((1, 12, 1, 1)).astype(np.float32)
W2 = RNG.standard_normal((12, 3, 3, 12)).astype(np.float32) * 0.2
B2 = RNG.standard_normal(12).astype(np.float32)

#: torch-mlir's TOSA form of conv + BatchNorm + ReLU, max pool, conv, residual add: every
#: op NHWC between transposes from and to NCHW, the pool's NHWC result read directly by the
#: next convolution (iree-opt cancels the transposes between them).
BLOCK = ("module {\n  func.func @f(%x: tensor<1x4x10x10xf32>) -> tensor<1x12x5x5xf32> {\n"
         + _const("w1", W1) + _const("b1", B1) + _const("mean", MEAN) + _const("scale", SCALE)
         + _const("beta", BETA) + _const("w2", W2) + _const("b2", B2) + """\
    %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
    %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %xt = tosa.transpose %x {perms = array<i32: 0, 2, 3, 1>} : (tensor<1x4x10x10xf32>) -> tensor<1x10x10x4xf32>
    %c1 = tosa.conv2d %xt, %w1, %b1, %zp, %zp {acc_type = f32, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x10x10x4xf32>, tensor<12x3x3x4xf32>, tensor<12xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x10x10x12xf32>
    %t1 = tosa.transpose %c1 {perms = array<i32: 0, 3, 1, 2>} : (tensor<1x10x10x12xf32>) -> tensor<1x12x10x10xf32>
    %s = tosa.sub %t1, %mean : (tensor<1x12x10x10xf32>, tensor<1x12x1x1xf32>) -> tensor<1x12x10x10xf32>
    %m = tosa.mul %s, %scale, %shift : (tensor<1x12x10x10xf32>, tensor<1x12x1x1xf32>, tensor<1xi8>) -> tensor<1x12x10x10xf32>
    %a = tosa.add %m, %beta : (tensor<1x12x10x10xf32>, tensor<1x12x1x1xf32>) -> tensor<1x12x10x10xf32>
    %r = tosa.clamp %a {min_val = 0.0 : f32, max_val = 3.40282347E+38 : f32} : (tensor<1x12x10x10xf32>) -> tensor<1x12x10x10xf32>
    %rt = tosa.transpose %r {perms = array<i32: 0, 2, 3, 1>} : (tensor<1x12x10x10xf32>) -> tensor<1x10x10x12xf32>
    %p = tosa.max_pool2d %rt {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>} : (tensor<1x10x10x12xf32>) -> tensor<1x5x5x12xf32>
    %c2 = tosa.conv2d %p, %w2, %b2, %zp, %zp {acc_type = f32, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x5x5x12xf32>, tensor<12x3x3x12xf32>, tensor<12xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x5x5x12xf32>
    %t2 = tosa.transpose %c2 {perms = array<i32: 0, 3, 1, 2>} : (tensor<1x5x5x12xf32>) -> tensor<1x12x5x5xf32>
    %pt = tosa.transpose %p {perms = array<i32: 0, 3, 1, 2>} : (tensor<1x5x5x12xf32>) -> tensor<1x12x5x5xf32>
    %sum = tosa.add %t2, %pt : (tensor<1x12x5x5xf32>, tensor<1x12x5x5xf32>) -> tensor<1x12x5x5xf32>
    return %sum : tensor<1x12x5x5xf32>
  }
}
""")


def _conv_nhwc(x, w_ohwi, b, pad, stride=1):
    """float64 NHWC convolution with an OHWI filter, zero padding ``pad`` on each side."""
    x = np.pad(x.astype(np.float64), ((0, 0), (pad, pad), (pad, pad), (0, 0)))
    o, kh, kw, _ = w_ohwi.shape
    oh, ow = (x.shape[1] - kh) // stride + 1, (x.shape[2] - kw) // stride + 1
    out = np.zeros((x.shape[0], oh, ow, o))
    for i in range(kh):
        for j in range(kw):
            patch = x[:, i:i + stride * oh:stride, j:j + stride * ow:stride, :]
            out += np.einsum("nhwc,oc->nhwo", patch, w_ohwi[:, i, j, :].astype(np.float64))
    return out + b


def _block_reference(x):
    c1 = _conv_nhwc(x.transpose(0, 2, 3, 1), W1, B1, 1).transpose(0, 3, 1, 2)
    r = np.maximum((c1 - MEAN) * SCALE + BETA, 0)
    p = r.reshape(1, 12, 5, 2, 5, 2).max(axis=(3, 5))
    c2 = _conv_nhwc(p.transpose(0, 2, 3, 1), W2, B2, 1).transpose(0, 3, 1, 2)
    return c2 + p


@pytest.mark.parametrize("target", ["c", "openmp"])
def test_nhwc_ops_between_nchw_transposes_run_nchw(target):
    """Both convolutions and the pooling become their NCHW forms, no transpose is left, the
    BatchNorm's subtraction and scaling are folded away, and the result matches numpy."""
    flow = compile_to_c(BLOCK, "t.mlir", target=target, compile_to="flow").ir_text
    assert flow.count("conv_2d_nchw_fchw") >= 2 and "pooling_nchw_max" in flow
    assert "conv_2d_nhwc" not in flow and "pooling_nhwc" not in flow
    assert "linalg.transpose" not in flow
    assert "arith.subf" not in flow  # (x - mean) * scale + beta is in the filter and a bias
    x = RNG.standard_normal((1, 4, 10, 10)).astype(np.float32)
    got = ireec.compile_source(BLOCK, target=target).f(x)
    np.testing.assert_allclose(got, _block_reference(x), rtol=1e-4, atol=1e-4)


def test_nhwc_convolution_of_an_nhwc_value_stays_nhwc():
    """Without transposes around it (an NHWC network) the convolution keeps its layout."""
    src = ("module {\n  func.func @f(%x: tensor<1x8x8x4xf32>) -> tensor<1x8x8x12xf32> {\n"
           + _const("w1", W1) + _const("b1", B1) + """\
    %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
    %c = tosa.conv2d %x, %w1, %b1, %zp, %zp {acc_type = f32, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x8x8x4xf32>, tensor<12x3x3x4xf32>, tensor<12xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x12xf32>
    return %c : tensor<1x8x8x12xf32>
  }
}
""")
    flow = compile_to_c(src, "t.mlir", target="c", compile_to="flow").ir_text
    assert "conv_2d_nchw" not in flow
    x = RNG.standard_normal((1, 8, 8, 4)).astype(np.float32)
    np.testing.assert_allclose(ireec.compile_source(src, target="c").f(x), _conv_nhwc(x, W1, B1, 1),
                               rtol=1e-4, atol=1e-4)


def _tconv_src(n, ih, iw, ic, oc, kh, kw, stride, out_pad):
    oh = (ih - 1) * stride[0] + out_pad[0] + out_pad[1] + kh
    ow = (iw - 1) * stride[1] + out_pad[2] + out_pad[3] + kw
    src = f"""
func.func @f(%x: tensor<{n}x{ih}x{iw}x{ic}xf32>, %w: tensor<{oc}x{kh}x{kw}x{ic}xf32>, %b: tensor<{oc}xf32>) -> tensor<{n}x{oh}x{ow}x{oc}xf32> {{
  %zp = "tosa.const"() <{{values = dense<0.0> : tensor<1xf32>}}> : () -> tensor<1xf32>
  %0 = tosa.transpose_conv2d %x, %w, %b, %zp, %zp {{acc_type = f32, out_pad = array<i64: {', '.join(map(str, out_pad))}>, stride = array<i64: {stride[0]}, {stride[1]}>}} : (tensor<{n}x{ih}x{iw}x{ic}xf32>, tensor<{oc}x{kh}x{kw}x{ic}xf32>, tensor<{oc}xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<{n}x{oh}x{ow}x{oc}xf32>
  return %0 : tensor<{n}x{oh}x{ow}x{oc}xf32>
}}
"""
    return src, (n, oh, ow, oc)


def _tconv_reference(x, w, b, stride, out_pad, shape):
    """The TOSA 1.0 pseudocode: out[n, iy*sy + pad_top + ky, ix*sx + pad_left + kx, oc] +=
    x[n, iy, ix, ic] * w[oc, ky, kx, ic], inside the output only."""
    out = np.broadcast_to(b.astype(np.float64), shape).copy()
    _, ih, iw, _ = x.shape
    _, kh, kw, _ = w.shape
    for iy in range(ih):
        for ix in range(iw):
            for ky in range(kh):
                for kx in range(kw):
                    oy, ox = iy * stride[0] + out_pad[0] + ky, ix * stride[1] + out_pad[2] + kx
                    if 0 <= oy < shape[1] and 0 <= ox < shape[2]:
                        out[:, oy, ox] += x[:, iy, ix].astype(np.float64) @ w[:, ky, kx].astype(np.float64).T
    return out


@pytest.mark.parametrize("n,ih,iw,ic,oc,kh,kw,stride,out_pad,stuffed", [
    (1, 16, 16, 32, 16, 2, 2, (2, 2), (0, 0, 0, 0), True),    # U-Net's ConvTranspose2d(k2, s2)
    (2, 5, 7, 3, 4, 3, 3, (2, 2), (0, 0, 0, 0), True),
    (1, 4, 5, 6, 5, 4, 3, (3, 2), (1, 2, 2, 1), True),        # uneven, pads of both signs below
    (1, 6, 6, 8, 8, 3, 3, (1, 1), (2, 0, 0, 1), True),        # stride 1: a plain convolution
    (1, 3, 2, 2, 3, 3, 2, (2, 2), (0, -1, 1, -1), True),      # cropping by less than the window
    (1, 5, 5, 2, 3, 4, 2, (2, 2), (-3, -2, 0, -1), True),
    (1, 4, 4, 2, 3, 2, 2, (2, 2), (-2, 0, 0, 0), False),      # cropping past the window: direct
])
def test_transpose_conv2d(n, ih, iw, ic, oc, kh, kw, stride, out_pad, stuffed):
    """The stuffed-image form where it applies (zero zero points, every out_pad at least one
    less the window), the direct per-element form elsewhere; both match the specification's
    pseudocode."""
    src, shape = _tconv_src(n, ih, iw, ic, oc, kh, kw, stride, out_pad)
    ir = compile_to_c(src, "t.mlir", target="c", compile_to="input").ir_text
    assert ("linalg.conv_2d_nhwc_hwcf" in ir and "tensor.insert_slice" in ir) == stuffed
    rng = np.random.default_rng(ih * 31 + kh)
    x = rng.standard_normal((n, ih, iw, ic)).astype(np.float32)
    w = rng.standard_normal((oc, kh, kw, ic)).astype(np.float32)
    b = rng.standard_normal(oc).astype(np.float32)
    want = _tconv_reference(x, w, b, stride, out_pad, shape)
    for target in ("c", "openmp"):
        got = ireec.compile_source(src, target=target).f(x, w, b)
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def _pad_src(shape, low, high):
    rt = [d + lo + hi for d, lo, hi in zip(shape, low, high)]
    t, r = "x".join(map(str, shape)), "x".join(map(str, rt))
    return f"""
func.func @f(%x: tensor<{t}xf32>) -> tensor<{r}xf32> {{
  %z = arith.constant 0.0 : f32
  %p = tensor.pad %x low[{', '.join(map(str, low))}] high[{', '.join(map(str, high))}] {{
  ^bb0({', '.join(f'%i{k}: index' for k in range(len(shape)))}):
    tensor.yield %z : f32
  }} : tensor<{t}xf32> to tensor<{r}xf32>
  return %p : tensor<{r}xf32>
}}
"""


@pytest.mark.parametrize("shape,low,high,workgroups", [
    ((1, 40, 40, 3), (0, 3, 3, 0), (0, 2, 2, 0), 1),   # NHWC: halves of 3 channels would share lines
    ((1, 3, 40, 40), (0, 0, 3, 3), (0, 0, 2, 2), 2),   # NCHW: a channel's plane each
])
def test_pad_is_cut_only_into_whole_cache_lines(shape, low, high, workgroups):
    """On openmp a pad dispatch is cut in two along its outermost unpadded dim only where each
    half writes runs of at least a cache line; the result is exact either way."""
    src = _pad_src(shape, low, high)
    hal = compile_to_c(src, "t.mlir", target="openmp", compile_to="hal").ir_text
    counts = [tuple(int(v) for v in c.split(", "))
              for c in re.findall(r"workgroup_count = array<i64: ([0-9, ]+)>", hal)]
    assert [int(np.prod(c)) for c in counts] == [workgroups]
    x = RNG.standard_normal(shape).astype(np.float32)
    got = ireec.compile_source(src, target="openmp").f(x)
    np.testing.assert_array_equal(got, np.pad(x, list(zip(low, high))))


W3 = RNG.standard_normal((8, 1, 1, 4)).astype(np.float32)
B3 = RNG.standard_normal(8).astype(np.float32)
#: torch-mlir's TOSA form of a strided 1x1 convolution (a ResNet's downsample): TOSA wants the
#: stride to divide the image, so the exporter slices the transposed image first, twice.
STRIDED_1X1 = ("module {\n  func.func @f(%x: tensor<1x4x10x10xf32>) -> tensor<1x8x5x5xf32> {\n"
               + _const("w3", W3) + _const("b3", B3) + """\
    %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
    %start = tosa.const_shape {values = dense<0> : tensor<4xindex>} : () -> !tosa.shape<4>
    %rows = tosa.const_shape {values = dense<[1, 9, 10, 4]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %cols = tosa.const_shape {values = dense<[1, 9, 9, 4]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %xt = tosa.transpose %x {perms = array<i32: 0, 2, 3, 1>} : (tensor<1x4x10x10xf32>) -> tensor<1x10x10x4xf32>
    %s1 = tosa.slice %xt, %start, %rows : (tensor<1x10x10x4xf32>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x9x10x4xf32>
    %s2 = tosa.slice %s1, %start, %cols : (tensor<1x9x10x4xf32>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x9x9x4xf32>
    %c = tosa.conv2d %s2, %w3, %b3, %zp, %zp {acc_type = f32, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>, dilation = array<i64: 1, 1>} : (tensor<1x9x9x4xf32>, tensor<8x1x1x4xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x5x5x8xf32>
    %t = tosa.transpose %c {perms = array<i32: 0, 3, 1, 2>} : (tensor<1x5x5x8xf32>) -> tensor<1x8x5x5xf32>
    return %t : tensor<1x8x5x5xf32>
  }
}
""")


def test_transposes_sink_through_slices_to_a_strided_1x1_convolution():
    """The slices of the transposed image take the transpose below them, where it cancels
    against the convolution's: one NCHW convolution and no transpose."""
    flow = compile_to_c(STRIDED_1X1, "t.mlir", target="c", compile_to="flow").ir_text
    assert "linalg.transpose" not in flow and "nhwc" not in flow
    x = RNG.standard_normal((1, 4, 10, 10)).astype(np.float32)
    want = _conv_nhwc(x.transpose(0, 2, 3, 1)[:, :9, :9], W3, B3, 0, stride=2).transpose(0, 3, 1, 2)
    for target in ("c", "openmp"):
        np.testing.assert_allclose(ireec.compile_source(STRIDED_1X1, target=target).f(x), want,
                                   rtol=1e-4, atol=1e-4)

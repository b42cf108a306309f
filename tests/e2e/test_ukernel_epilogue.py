"""A contraction's or depthwise convolution's elementwise consumer applied by the micro-kernel
(ireec_uk_sgemm_fused, ireec_uk_dwconv_fused): which bodies fuse, and that the fused results
are bit-identical to the unfused sum going through the consumer (compared with the same
program's plain sum, run through the consumer's scalar semantics in numpy)."""
from __future__ import annotations

import numpy as np
import pytest

import ireec
from ireec.compiler import compile_source as compile_to_c

from .common import nchw_depthwise_generic

#: Consumer bodies over %x (the sum) and %bb (the bias), yielding %y; with the numpy
#: semantics of each and whether the micro-kernel takes it.
BODIES = {
    # JAX / StableHLO: bias, max(x, 0) and min(x, 6) propagate NaNs.
    "jax_relu6": ("""
      %s = arith.addf %x, %bb : f32
      %m = arith.maximumf %s, %c0 : f32
      %y = arith.minimumf %m, %c6 : f32""",
                  lambda x, b: _min_keep(_max_keep(x + b, 0.0), 6.0), True),
    # torch-mlir: cmpf + select; a NaN becomes 0 at the first step.
    "torch_relu6": ("""
      %s = arith.addf %bb, %x : f32
      %p = arith.cmpf ogt, %s, %c0 : f32
      %m = arith.select %p, %s, %c0 : f32
      %q = arith.cmpf olt, %c6, %m : f32
      %y = arith.select %q, %c6, %m : f32""",
                    lambda x, b: _hi(_lo(x + b, 0.0), 6.0), True),
    # x < hi ? x : hi replaces a NaN by hi.
    "clamp_nan_to_hi": ("""
      %q = arith.cmpf olt, %x, %c6 : f32
      %y = arith.select %q, %x, %c6 : f32""",
                        lambda x, b: np.where(x < 6.0, x, np.float32(6.0)), True),
    # ReLU written as "0 < x ? x : 0", the bias along either dim first.
    "relu_other_side": ("""
      %s = arith.addf %x, %bb : f32
      %p = arith.cmpf olt, %c0, %s : f32
      %y = arith.select %p, %s, %c0 : f32""",
                        lambda x, b: _lo(x + b, 0.0), True),
    "bias_only": ("""
      %y = arith.addf %x, %bb : f32""", lambda x, b: x + b, True),
    # Not fused: x < k ? k : x differs from maximumf on signed zeros; max with -0.0; hi
    # before lo; a body that also multiplies.
    "lo_select_other_side": ("""
      %p = arith.cmpf olt, %x, %c0 : f32
      %y = arith.select %p, %c0, %x : f32""", lambda x, b: np.where(x < 0.0, np.float32(0.0), x), False),
    "max_negative_zero": ("""
      %y = arith.maximumf %x, %cn0 : f32""", None, False),
    "hi_then_lo": ("""
      %m = arith.minimumf %x, %c6 : f32
      %y = arith.maximumf %m, %c0 : f32""", None, False),
    "scaled": ("""
      %s = arith.mulf %x, %bb : f32
      %y = arith.maximumf %s, %c0 : f32""", None, False),
}


def _max_keep(x, k):
    return np.where(np.isnan(x) | (x > k), x, np.float32(k)).astype(np.float32)


def _min_keep(x, k):
    return np.where(np.float32(k) < x, np.float32(k), x).astype(np.float32)


_lo = lambda x, k: np.where(x > k, x, np.float32(k)).astype(np.float32)  # noqa: E731
_hi = _min_keep


def _src(m: int, n: int, k: int, body: str, bias_dim: int) -> str:
    bias_n = n if bias_dim == 1 else m
    return f"""
func.func @f(%a: tensor<{m}x{k}xf32>, %b: tensor<{k}x{n}xf32>, %v: tensor<{bias_n}xf32>) -> tensor<{m}x{n}xf32> {{
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0.0 : f32
  %cn0 = arith.constant -0.0 : f32
  %c6 = arith.constant 6.0 : f32
  %e = tensor.empty() : tensor<{m}x{n}xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<{m}x{k}xf32>, tensor<{k}x{n}xf32>) outs(%c : tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32>
  %r = linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d{bias_dim})>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}}
      ins(%mm, %v : tensor<{m}x{n}xf32>, tensor<{bias_n}xf32>) outs(%e : tensor<{m}x{n}xf32>) {{
    ^bb0(%x: f32, %bb: f32, %o: f32):{body}
      linalg.yield %y : f32
  }} -> tensor<{m}x{n}xf32>
  return %r : tensor<{m}x{n}xf32>
}}
"""


def _plain_sum_src(m: int, n: int, k: int, bias_dim: int) -> str:
    """The same contraction returned as it is (its bias argument unused)."""
    return _src(m, n, k, "", bias_dim).replace("linalg.yield %y", "linalg.yield %x")


def _operands(m, n, k, bias_n, seed):
    r = np.random.default_rng(seed)
    a = (3 * r.standard_normal((m, k))).astype(np.float32)
    b = r.standard_normal((k, n)).astype(np.float32)
    a[0, 0] = np.nan  # row 0 of the sum is NaN
    v = (2 * r.standard_normal(bias_n)).astype(np.float32)
    v[0] = -0.0
    return a, b, v


@pytest.mark.parametrize("name", sorted(BODIES))
def test_which_consumers_the_micro_kernel_takes(name):
    body, _, fused = BODIES[name]
    kernels = compile_to_c(_src(16, 32, 8, body, 1), "t.mlir", target="c").files["t_kernels.c"]
    assert ("ireec_uk_sgemm_fused(" in kernels) == fused, kernels


@pytest.mark.parametrize("target", ["c", "openmp"])
@pytest.mark.parametrize("m,n,k,bias_dim", [(16, 64, 16, 1), (13, 45, 7, 1), (5, 10, 24, 0),
                                            (37, 100, 33, 0), (64, 48, 300, 1)])
@pytest.mark.parametrize("name", [n for n, (_, ref, fused) in sorted(BODIES.items()) if fused or ref])
def test_fused_consumer_is_bit_identical(target, m, n, k, bias_dim, name):
    """Columns past whole register tiles (45, 10, 100), rows past them (13, 5, 37), bias along
    either dim, two k blocks (300 > KC = 256: the epilogue goes with the last); row 0 is NaN
    and the first bias element -0.0."""
    body, ref, _ = BODIES[name]
    bias_n = n if bias_dim == 1 else m
    a, b, v = _operands(m, n, k, bias_n, seed=m * n + k)
    plain = ireec.compile_source(_plain_sum_src(m, n, k, bias_dim), target=target).f(a, b, v)
    got = ireec.compile_source(_src(m, n, k, body, bias_dim), target=target).f(a, b, v)
    bias = v[None, :] if bias_dim == 1 else v[:, None]
    want = ref(plain, np.broadcast_to(bias, plain.shape)).astype(np.float32)
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))


def _dwconv_src(layout: str, c: int, h: int, w: int, s: int, body: str) -> str:
    """A 3x3 depthwise convolution from zero, then the consumer with a per-channel bias."""
    oh, ow = (h - 3) // s + 1, (w - 3) // s + 1
    if layout == "nchw":
        x_t, w_t, o_t, op, ch = f"1x{c}x{h}x{w}", f"{c}x3x3", f"1x{c}x{oh}x{ow}", "depthwise_conv_2d_nchw_chw", 1
    else:
        x_t, w_t, o_t, op, ch = f"1x{h}x{w}x{c}", f"3x3x{c}", f"1x{oh}x{ow}x{c}", "depthwise_conv_2d_nhwc_hwc", 3
    ident = "affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>"
    conv = f"""linalg.{op} {{dilations = dense<1> : tensor<2xi64>, strides = dense<{s}> : tensor<2xi64>}}
      ins(%a, %b : tensor<{x_t}xf32>, tensor<{w_t}xf32>) outs(%z : tensor<{o_t}xf32>) -> tensor<{o_t}xf32>"""
    if layout == "nchw":
        # The generic form: the named NCHW op would run channels-last (target c's
        # convert-conv-to-channels-last), and the micro-kernel's rows path is the one tested.
        conv = nchw_depthwise_generic("%a", "%b", "%z", f"tensor<{x_t}xf32>", f"tensor<{w_t}xf32>",
                                      f"tensor<{o_t}xf32>", s)
    return f"""
func.func @f(%a: tensor<{x_t}xf32>, %b: tensor<{w_t}xf32>, %v: tensor<{c}xf32>) -> tensor<{o_t}xf32> {{
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0.0 : f32
  %cn0 = arith.constant -0.0 : f32
  %c6 = arith.constant 6.0 : f32
  %e = tensor.empty() : tensor<{o_t}xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<{o_t}xf32>) -> tensor<{o_t}xf32>
  %mm = {conv}
  %r = linalg.generic {{indexing_maps = [{ident}, affine_map<(d0, d1, d2, d3) -> (d{ch})>, {ident}],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}}
      ins(%mm, %v : tensor<{o_t}xf32>, tensor<{c}xf32>) outs(%e : tensor<{o_t}xf32>) {{
    ^bb0(%x: f32, %bb: f32, %o: f32):{body}
      linalg.yield %y : f32
  }} -> tensor<{o_t}xf32>
  return %r : tensor<{o_t}xf32>
}}
"""


@pytest.mark.parametrize("target", ["c", "openmp"])
@pytest.mark.parametrize("layout,c,h,w,s", [("nchw", 8, 34, 34, 2), ("nchw", 5, 11, 40, 1),
                                            ("nhwc", 64, 33, 33, 2), ("nhwc", 37, 10, 12, 1)])
@pytest.mark.parametrize("name", ["jax_relu6", "torch_relu6", "bias_only", "lo_select_other_side"])
def test_dwconv_consumer_is_bit_identical(target, layout, c, h, w, s, name):
    """Rows (NCHW: a scalar bias per plane) and channels (NHWC: bias vectors) of the
    micro-kernel, widths past whole vectors; an image element NaN, a bias element -0.0."""
    body, ref, fused = BODIES[name]
    src = _dwconv_src(layout, c, h, w, s, body)
    kernels = compile_to_c(src, "t.mlir", target="c").files["t_kernels.c"]
    assert ("IREEC_UK_FLAG_CLAMP" in kernels or "IREEC_UK_FLAG_BIAS" in kernels) == fused
    r = np.random.default_rng(c * h + w)
    x_shape = (1, c, h, w) if layout == "nchw" else (1, h, w, c)
    a = (3 * r.standard_normal(x_shape)).astype(np.float32)
    a.flat[0] = np.nan
    b = r.standard_normal((c, 3, 3) if layout == "nchw" else (3, 3, c)).astype(np.float32)
    v = (2 * r.standard_normal(c)).astype(np.float32)
    v[0] = -0.0
    plain = ireec.compile_source(src.replace("linalg.yield %y", "linalg.yield %x"), target=target).f(a, b, v)
    got = ireec.compile_source(src, target=target).f(a, b, v)
    bias = v[None, :, None, None] if layout == "nchw" else v[None, None, None, :]
    want = ref(plain, np.broadcast_to(bias, plain.shape)).astype(np.float32)
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))


@pytest.mark.parametrize("target", ["c", "openmp"])
@pytest.mark.parametrize("layout", ["nchw", "nhwc"])
@pytest.mark.parametrize("name", ["clamp_nan_to_hi", "bias_only"])
def test_dwconv_bias_init(target, layout, name):
    """A depthwise convolution starting from its bias broadcast (torch-mlir's form) starts
    from the bias in the micro-kernel (IREEC_UK_FLAG_BIAS_INIT) unless the consumer adds a
    bias too (one bias per call: the broadcast keeps its loop); against numpy."""
    c, h, w, s = 24, 17, 21, 2
    body = BODIES[name][0]
    src = _dwconv_src(layout, c, h, w, s, body)
    o_t = src.split("%e = tensor.empty() : ")[1].split("\n")[0]
    dims = "[0, 2, 3]" if layout == "nchw" else "[0, 1, 2]"
    src = src.replace(f"%z = linalg.fill ins(%zero : f32) outs(%e : {o_t}) -> {o_t}",
                      f"%z = linalg.broadcast ins(%v : tensor<{c}xf32>) outs(%e : {o_t}) dimensions = {dims}")
    kernels = compile_to_c(src, "t.mlir", target="c").files["t_kernels.c"]
    call = next(ln for ln in kernels.splitlines() if "ireec_uk_dwconv" in ln)
    assert ("IREEC_UK_FLAG_BIAS_INIT" in call) == (name != "bias_only"), call
    assert ("= binding" in kernels) == (name == "bias_only")  # the broadcast's own loop
    r = np.random.default_rng(3)
    x_shape = (1, c, h, w) if layout == "nchw" else (1, h, w, c)
    a = (3 * r.standard_normal(x_shape)).astype(np.float32)
    b = r.standard_normal((c, 3, 3) if layout == "nchw" else (3, 3, c)).astype(np.float32)
    v = (2 * r.standard_normal(c)).astype(np.float32)
    x = a if layout == "nchw" else a.transpose(0, 3, 1, 2)
    f = b if layout == "nchw" else b.transpose(2, 0, 1)
    oh, ow = (h - 3) // s + 1, (w - 3) // s + 1
    conv = np.zeros((1, c, oh, ow)) + v[None, :, None, None]
    for ty in range(3):
        for tx in range(3):
            conv += x[:, :, ty: ty + s * (oh - 1) + 1: s, tx: tx + s * (ow - 1) + 1: s] * f[None, :, ty, tx, None, None]
    want = BODIES[name][1](conv, np.broadcast_to(v[None, :, None, None], conv.shape))
    got = ireec.compile_source(src, target=target).f(a, b, v)
    got = got if layout == "nchw" else got.transpose(0, 3, 1, 2)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)

"""Local arrays of the generated kernels (per-tile temporaries, packed constant tiles) are
declared with IREEC_LOCAL_ALIGN (ireec_runtime.h): GCC's x86-64 target_clones copies store
to them with aligned 32-byte moves without realigning a 16-byte-aligned frame, which crashed
a 3x3 NHWC convolution with a splat filter (12x12x24 -> 24: its filter tile is filled with
`vmovaps ymm`). Run on the c and openmp targets against numpy."""
from __future__ import annotations

import re

import numpy as np
import pytest

import ireec
from ireec.compiler import compile_source as compile_to_c


def _conv_src(c: int, f: int, h: int) -> str:
    oh = h - 2
    return f"""
func.func @f(%x: tensor<1x{h}x{h}x{c}xf32>) -> tensor<1x{oh}x{oh}x{f}xf32> {{
  %w = arith.constant dense<0.01> : tensor<3x3x{c}x{f}xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x{oh}x{oh}x{f}xf32>
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<1x{oh}x{oh}x{f}xf32>) -> tensor<1x{oh}x{oh}x{f}xf32>
  %r = linalg.conv_2d_nhwc_hwcf {{dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}}
       ins(%x, %w : tensor<1x{h}x{h}x{c}xf32>, tensor<3x3x{c}x{f}xf32>)
       outs(%i : tensor<1x{oh}x{oh}x{f}xf32>) -> tensor<1x{oh}x{oh}x{f}xf32>
  return %r : tensor<1x{oh}x{oh}x{f}xf32>
}}
"""


@pytest.mark.parametrize("target", ["c", "openmp"])
@pytest.mark.parametrize("c,f,h", [(24, 24, 12), (12, 24, 10), (40, 8, 7)])
def test_conv_with_a_filled_filter_tile_runs(target, c, f, h):
    x = np.random.default_rng(c * 100 + f).standard_normal((1, h, h, c)).astype(np.float32)
    got = ireec.compile_source(_conv_src(c, f, h), target=target).f(x)
    win = np.lib.stride_tricks.sliding_window_view(x[0], (3, 3), axis=(0, 1))  # oh, ow, c, 3, 3
    want = np.broadcast_to(win.sum(axis=(2, 3, 4))[None, :, :, None] * np.float32(0.01),
                           got.shape)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_every_local_array_is_declared_aligned():
    files = compile_to_c(_conv_src(24, 24, 12), "t.mlir", target="c").files
    kernels = next(text for name, text in files.items() if name.endswith("_kernels.c"))
    arrays = re.findall(r"^\s*(.*\bt\d+\[\d+\].*);$", kernels, flags=re.M)
    assert arrays, "the kernel declares no local array"
    assert all(a.startswith("IREEC_LOCAL_ALIGN ") for a in arrays), arrays

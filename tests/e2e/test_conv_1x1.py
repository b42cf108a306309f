"""1x1-window convolutions as matmuls: ``iree-global-opt-convert-1x1-filter-conv2d-to-matmul``
drops the window loops and ``iree-dispatch-creation-collapse-dimensions`` merges the spatial
dims, so one ``ireec_uk_sgemm`` call covers the whole image. NCHW and NHWC, named ops and the
generic form the StableHLO lowering produces, batch 1 and 2, with a bias-broadcast init and a
fused relu6 epilogue, against numpy; the dispatch count is the one without the two passes."""
from __future__ import annotations

import re

import numpy as np
import pytest

import ireec
from ireec.compiler import compile_source as compile_to_c
from ireec.passes import pipeline
from ireec.passes.flow.collapse_dimensions import CollapseDimensionsPass
from ireec.passes.flow.convert_1x1_filter_conv2d_to_matmul import Convert1X1FilterConv2DToMatmulPass

#: (input layout, filter layout, output layout) per form; "stablehlo" is NHWC/HWIO.
FORMS = {
    "conv_2d_nchw_fchw": ("nchw", "fchw", "nfhw"),
    "conv_2d_nhwc_hwcf": ("nhwc", "hwcf", "nhwf"),
    "conv_2d_nhwc_fhwc": ("nhwc", "fhwc", "nhwf"),
    "stablehlo": ("nhwc", "hwcf", "nhwf"),
}


def _shape(layout: str, sizes: dict) -> str:
    return "x".join(str(sizes[d]) for d in layout)


def _relu6(v: str, t: str) -> str:
    return f"""
  %lo = arith.constant dense<0.0> : {t}
  %hi = arith.constant dense<6.0> : {t}
  %m = arith.maximumf {v}, %lo : {t}
  %r = arith.minimumf %m, %hi : {t}"""


def _source(form: str, n: int, h: int, w: int, c: int, f: int) -> str:
    """``relu6(conv1x1(x, wt) + bias)`` in ``form`` (module docstring)."""
    lin, lflt, lout = FORMS[form]
    x = f"tensor<{_shape(lin, dict(n=n, c=c, h=h, w=w))}xf32>"
    wt = f"tensor<{_shape(lflt, dict(f=f, c=c, h=1, w=1))}xf32>"
    out = f"tensor<{_shape(lout, dict(n=n, f=f, h=h, w=w))}xf32>"
    if form == "stablehlo":
        return f"""
func.func @f(%x: {x}, %w: {wt}, %bias: tensor<{f}xf32>) -> {out} {{
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {{stride = [1, 1], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]}} {{batch_group_count = 1 : i64, feature_group_count = 1 : i64}} : ({x}, {wt}) -> {out}
  %b = stablehlo.broadcast_in_dim %bias, dims = [3] : (tensor<{f}xf32>) -> {out}
  %1 = stablehlo.add %0, %b : {out}
  %lo = stablehlo.constant dense<0.0> : {out}
  %hi = stablehlo.constant dense<6.0> : {out}
  %r = stablehlo.clamp %lo, %1, %hi : ({out}, {out}, {out}) -> {out}
  return %r : {out}
}}
"""
    bdim = lout.index("f")
    return f"""
func.func @f(%x: {x}, %w: {wt}, %bias: tensor<{f}xf32>) -> {out} {{
  %e = tensor.empty() : {out}
  %init = linalg.broadcast ins(%bias : tensor<{f}xf32>) outs(%e : {out}) dimensions = [{", ".join(str(d) for d in range(4) if d != bdim)}]
  %0 = linalg.{form} {{dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}}
       ins(%x, %w : {x}, {wt}) outs(%init : {out}) -> {out}{_relu6("%0", out)}
  return %r : {out}
}}
"""


def _reference(form: str, x, wt, bias):
    """relu6(conv + bias) in float64, in the form's output layout."""
    lin, lflt, lout = FORMS[form]
    xn = np.einsum(f"{lin}->nhwc", x.astype(np.float64))
    wn = np.einsum(f"{lflt}->cf", wt.astype(np.float64))  # h and w have extent 1
    return np.einsum(f"nhwf->{lout}", np.clip(xn @ wn + bias, 0, 6))


def _dispatch_count(src: str) -> int:
    text = compile_to_c(src, "t.mlir", compile_to="flow").ir_text
    return len(re.findall(r"flow\.dispatch @", text))


@pytest.mark.parametrize("n", [1, 2])
@pytest.mark.parametrize("form", list(FORMS))
def test_conv_1x1_matches_numpy_in_one_ukernel_call(form, n):
    h, w, c, f = 6, 10, 16, 24
    src = _source(form, n, h, w, c, f)
    lin, lflt, _ = FORMS[form]
    r = np.random.default_rng(11)
    x = r.standard_normal([dict(n=n, c=c, h=h, w=w)[d] for d in lin]).astype(np.float32)
    wt = r.standard_normal([dict(f=f, c=c, h=1, w=1)[d] for d in lflt]).astype(np.float32)
    bias = (r.standard_normal(f) * 2).astype(np.float32)
    kernels = compile_to_c(src, "t.mlir", target="c").files["t_kernels.c"]
    calls = re.findall(r"ireec_uk_sgemm(?:_fused)?\((\d+), (\d+), (\d+),", kernels)
    assert len(calls) == 1, kernels
    m_, n_, k_ = (int(v) for v in calls[0])
    # One call covers the image: NCHW F x HW per batch element, NHWC (N*H*W) x F.
    assert (m_, n_, k_) == ((f, h * w, c) if lin == "nchw" else (n * h * w, f, c))
    got = ireec.compile_source(src, target="c").f(x, wt, bias)
    np.testing.assert_allclose(got, _reference(form, x, wt, bias), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("form", list(FORMS))
def test_conv_1x1_keeps_its_epilogue_fused(form, monkeypatch):
    """The bias add and relu6 stay in the convolution's dispatch: as many dispatches as
    without the two passes."""
    src = _source(form, 2, 6, 10, 16, 24)
    with_passes = _dispatch_count(src)
    monkeypatch.setattr(pipeline, "PIPELINE", [p for p in pipeline.PIPELINE if p[1] not in (
        Convert1X1FilterConv2DToMatmulPass, CollapseDimensionsPass)])
    assert with_passes == _dispatch_count(src)


@pytest.mark.parametrize("form", ["conv_2d_nchw_fchw", "stablehlo"])
def test_conv_1x1_on_openmp(form):
    """The same on openmp, whose workgroups split the GEMM among threads."""
    n, h, w, c, f = 2, 12, 12, 32, 40
    src = _source(form, n, h, w, c, f)
    lin, lflt, _ = FORMS[form]
    r = np.random.default_rng(12)
    x = r.standard_normal([dict(n=n, c=c, h=h, w=w)[d] for d in lin]).astype(np.float32)
    wt = r.standard_normal([dict(f=f, c=c, h=1, w=1)[d] for d in lflt]).astype(np.float32)
    bias = r.standard_normal(f).astype(np.float32)
    out = compile_to_c(src, "t.mlir", target="openmp")
    assert "ireec_uk_sgemm" in out.files["t_kernels.c"]
    got = ireec.compile_source(src, target="openmp").f(x, wt, bias)
    np.testing.assert_allclose(got, _reference(form, x, wt, bias), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("form", ["conv_2d_nchw_fchw", "stablehlo"])
def test_conv_1x1_on_emulated_cuda(form, tmp_path):
    """On cuda the collapsed convolution is the device matmul micro-kernel's (run here on the
    CPU through tests/e2e/cuda_emulation)."""
    from .test_cuda import CXX, emulated_cuda_library

    if CXX is None:
        pytest.skip("no C++ compiler (set CXX)")
    n, h, w, c, f = 2, 6, 10, 16, 24
    src = tmp_path / "t.mlir"
    src.write_text(_source(form, n, h, w, c, f))
    assert "ireec_gpu_matmul_f32(" in compile_to_c(src.read_text(), "t.mlir", target="cuda").files["t_kernels.cu"]
    lin, lflt, _ = FORMS[form]
    r = np.random.default_rng(13)
    x = r.standard_normal([dict(n=n, c=c, h=h, w=w)[d] for d in lin]).astype(np.float32)
    wt = r.standard_normal([dict(f=f, c=c, h=1, w=1)[d] for d in lflt]).astype(np.float32)
    bias = r.standard_normal(f).astype(np.float32)
    m = ireec.load(emulated_cuda_library(src, tmp_path / "cuda"))
    np.testing.assert_allclose(m.f(x, wt, bias), _reference(form, x, wt, bias), rtol=1e-5, atol=1e-5)

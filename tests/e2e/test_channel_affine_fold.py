"""fold-channel-affine-into-contractions (ireec/passes/flow/fold_channel_affine_into_contractions.py):
an inference BatchNorm spelled as torch-mlir exports it (one generic per op: subtract the
mean, multiply by 1/std and by gamma, add beta) after NCHW, depthwise and matmul
contractions with constant filters, and a per-channel scale before a convolution's own
bias, each followed by a ReLU, compiled for c and openmp, against numpy in float64 (the fold rounds differently from
the unfolded ops: last bits of f32). After the flow phase no subtraction of the mean or
division is left (one addition of the shift, fused with the ReLU); ``--strict-fp`` keeps the
ops."""
from __future__ import annotations

import numpy as np
import pytest

from ireec.compiler import compile_source as compile_to_c
from ireec.targets.base import get_target

from .common import cached_module

RNG = np.random.default_rng(7)
F, C, H = 8, 3, 10


def _dense(a: np.ndarray) -> str:
    return "dense<" + np.array2string(a.astype(np.float32), separator=", ", threshold=1 << 20,
                                      floatmode="unique").replace("\n", "") + ">"


W = RNG.standard_normal((F, C, 3, 3)).astype(np.float32)
DW = RNG.standard_normal((F, 3, 3)).astype(np.float32)
B = RNG.standard_normal((16, F)).astype(np.float32)
BIAS = RNG.standard_normal(F).astype(np.float32)
MEAN, INV, GAMMA, BETA = (RNG.standard_normal(F).astype(np.float32) for _ in range(4))
SCALE = RNG.uniform(0.5, 2.0, F).astype(np.float32)


def _bn(value: str, shape: str, ch_map: str, name: str) -> str:
    """The four BatchNorm generics on ``value`` (channel constants read through ``ch_map``)
    then ReLU; yields %{name}."""
    v = lambda a: _dense(a.reshape(F, 1, 1) if ch_map == "#ch" else a)  # noqa: E731
    ct = f"tensor<{F}x1x1xf32>" if ch_map == "#ch" else f"tensor<{F}xf32>"
    idm = "#id4" if shape.count("x") == 4 else "#id2"
    its = ", ".join(['"parallel"'] * shape.count("x"))
    out = []
    prev = value
    for i, (op, k, swap) in enumerate((("subf", MEAN, False), ("mulf", INV, False),
                                       ("mulf", GAMMA, True), ("addf", BETA, True))):
        a, b = ("%k", "%in") if swap else ("%in", "%k")
        out.append(f"""  %{name}_k{i} = arith.constant {v(k)} : {ct}
  %{name}_{i} = linalg.generic {{indexing_maps = [{idm}, {ch_map}, {idm}], iterator_types = [{its}]}} ins({prev}, %{name}_k{i} : {shape}, {ct}) outs(%{name}_e : {shape}) {{
  ^bb0(%in: f32, %k: f32, %out: f32):
    %r = arith.{op} {a}, {b} : f32
    linalg.yield %r : f32
  }} -> {shape}""")
        prev = f"%{name}_{i}"
    out.append(f"""  %{name} = linalg.generic {{indexing_maps = [{idm}, {idm}], iterator_types = [{its}]}} ins({prev} : {shape}) outs(%{name}_e : {shape}) {{
  ^bb0(%in: f32, %out: f32):
    %z = arith.constant 0.0 : f32
    %r = arith.maximumf %in, %z : f32
    linalg.yield %r : f32
  }} -> {shape}""")
    return "\n".join(out)


OH = H - 2
T4 = f"tensor<1x{F}x{OH}x{OH}xf32>"
SRC = f"""
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>
#chv = affine_map<(d0, d1, d2, d3) -> (d1)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @main(%x: tensor<1x{C}x{H}x{H}xf32>, %d: tensor<1x{F}x{H}x{H}xf32>, %m: tensor<4x16xf32>)
    -> ({T4}, {T4}, tensor<4x{F}xf32>, {T4}) {{
  %zero = arith.constant 0.0 : f32
  %w = arith.constant {_dense(W)} : tensor<{F}x{C}x3x3xf32>
  %dw = arith.constant {_dense(DW)} : tensor<{F}x3x3xf32>
  %bm = arith.constant {_dense(B)} : tensor<16x{F}xf32>
  %bias = arith.constant {_dense(BIAS)} : tensor<{F}xf32>
  %scale = arith.constant {_dense(SCALE)} : tensor<{F}xf32>
  %e4 = tensor.empty() : {T4}
  %f4 = linalg.fill ins(%zero : f32) outs(%e4 : {T4}) -> {T4}
  %conv = linalg.conv_2d_nchw_fchw {{dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}} ins(%x, %w : tensor<1x{C}x{H}x{H}xf32>, tensor<{F}x{C}x3x3xf32>) outs(%f4 : {T4}) -> {T4}
  %a_e = tensor.empty() : {T4}
{_bn("%conv", T4, "#ch", "a")}
  %dwc = linalg.depthwise_conv_2d_nchw_chw {{dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}} ins(%d, %dw : tensor<1x{F}x{H}x{H}xf32>, tensor<{F}x3x3xf32>) outs(%f4 : {T4}) -> {T4}
  %b_e = tensor.empty() : {T4}
{_bn("%dwc", T4, "#ch", "b")}
  %e2 = tensor.empty() : tensor<4x{F}xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<4x{F}xf32>) -> tensor<4x{F}xf32>
  %mm = linalg.matmul ins(%m, %bm : tensor<4x16xf32>, tensor<16x{F}xf32>) outs(%f2 : tensor<4x{F}xf32>) -> tensor<4x{F}xf32>
  %c_e = tensor.empty() : tensor<4x{F}xf32>
{_bn("%mm", f"tensor<4x{F}xf32>", "#col", "c")}
  %bb = linalg.broadcast ins(%bias : tensor<{F}xf32>) outs(%e4 : {T4}) dimensions = [0, 2, 3]
  %conv2 = linalg.conv_2d_nchw_fchw {{dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}} ins(%x, %w : tensor<1x{C}x{H}x{H}xf32>, tensor<{F}x{C}x3x3xf32>) outs(%bb : {T4}) -> {T4}
  %q = linalg.generic {{indexing_maps = [#id4, #chv, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}} ins(%conv2, %scale : {T4}, tensor<{F}xf32>) outs(%e4 : {T4}) {{
  ^bb0(%in: f32, %k: f32, %out: f32):
    %r = arith.divf %in, %k : f32
    linalg.yield %r : f32
  }} -> {T4}
  %s = linalg.generic {{indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}} ins(%q : {T4}) outs(%e4 : {T4}) {{
  ^bb0(%in: f32, %out: f32):
    %z = arith.constant 0.0 : f32
    %r = arith.maximumf %in, %z : f32
    linalg.yield %r : f32
  }} -> {T4}
  return %a, %b, %c, %s : {T4}, {T4}, tensor<4x{F}xf32>, {T4}
}}
"""


def _conv(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    out = np.zeros((1, F, OH, OH))
    for i in range(3):
        for j in range(3):
            out += np.einsum("nchw,fc->nfhw", x[:, :, i:i + OH, j:j + OH], w[:, :, i, j])
    return out


def _reference(x, d, m):
    def bn(y, axis_shape):
        k = lambda a: a.astype(np.float64).reshape(axis_shape)  # noqa: E731
        return np.maximum(((y - k(MEAN)) * k(INV)) * k(GAMMA) + k(BETA), 0.0)
    x, d, m = (a.astype(np.float64) for a in (x, d, m))
    a = bn(_conv(x, W.astype(np.float64)), (1, F, 1, 1))
    dw = np.zeros((1, F, OH, OH))
    for i in range(3):
        for j in range(3):
            dw += d[:, :, i:i + OH, j:j + OH] * DW[None, :, i, j, None, None]
    b = bn(dw, (1, F, 1, 1))
    c = bn(m @ B.astype(np.float64), (1, F))
    s = np.maximum((_conv(x, W.astype(np.float64)) + BIAS.reshape(1, F, 1, 1)) / SCALE.reshape(1, F, 1, 1), 0.0)
    return a, b, c, s


def test_flow_has_the_folded_form():
    flow = compile_to_c(SRC, "t.mlir", target="c", compile_to="flow").ir_text
    assert "arith.subf" not in flow and "arith.divf" not in flow


def test_strict_fp_keeps_the_ops():
    target = get_target("c")
    target.strict_fp = True
    flow = compile_to_c(SRC, "t.mlir", target=target, compile_to="flow").ir_text
    assert "arith.subf" in flow and "arith.divf" in flow


@pytest.fixture(scope="module")
def modules():
    return {}


@pytest.mark.parametrize("target", ["c", "openmp"])
def test_matches_numpy(target, modules):
    m = cached_module(modules, SRC, target)
    rng = np.random.default_rng(3)
    x = rng.standard_normal((1, C, H, H)).astype(np.float32)
    d = rng.standard_normal((1, F, H, H)).astype(np.float32)
    mm = rng.standard_normal((4, 16)).astype(np.float32)
    for got, want in zip(m.main(x, d, mm), _reference(x, d, mm)):
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-5)

"""Fused and workgroup-tiled kernels against numpy: odd sizes (partial last tiles), 1-d, 3-d,
reductions over inner and outer dims, conv, batch_matmul, softmax, multi-use producers;
for the ``c`` and ``openmp`` targets (the latter must give identical results)."""
from __future__ import annotations

import numpy as np
import pytest

import ireec
from ireec.targets import get_target
from ireec.compiler import compile_source as compile_to_c

TARGETS = ["c", "openmp"]

MM_RELU = """
func.func @f(%a: tensor<130x70xf32>, %b: tensor<70x150xf32>, %c: tensor<130x150xf32>) -> tensor<130x150xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<130x150xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<130x150xf32>) -> tensor<130x150xf32>
  %m = linalg.matmul ins(%a, %b : tensor<130x70xf32>, tensor<70x150xf32>) outs(%f : tensor<130x150xf32>) -> tensor<130x150xf32>
  %s = arith.addf %m, %c : tensor<130x150xf32>
  %z = arith.constant dense<0.0> : tensor<130x150xf32>
  %r = arith.maximumf %s, %z : tensor<130x150xf32>
  return %r : tensor<130x150xf32>
}
"""

ELEMENTWISE_1D = """
func.func @f(%a: tensor<100003xf32>, %b: tensor<100003xf32>) -> tensor<100003xf32> {
  %s = arith.mulf %a, %b : tensor<100003xf32>
  %t = math.exp %s : tensor<100003xf32>
  %u = arith.subf %t, %a : tensor<100003xf32>
  return %u : tensor<100003xf32>
}
"""

BROADCAST_3D = """
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row = affine_map<(d0, d1, d2) -> (d1)>
func.func @f(%a: tensor<5x301x7xf32>, %b: tensor<301xf32>) -> tensor<5x301x7xf32> {
  %e = tensor.empty() : tensor<5x301x7xf32>
  %r = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%a, %b : tensor<5x301x7xf32>, tensor<301xf32>) outs(%e : tensor<5x301x7xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %q = arith.addf %p, %x : f32
    linalg.yield %q : f32
  } -> tensor<5x301x7xf32>
  %n = arith.negf %r : tensor<5x301x7xf32>
  return %n : tensor<5x301x7xf32>
}
"""


def _row_sum(rows: int, cols: int) -> str:
    return f"""
#in = affine_map<(d0, d1) -> (d0, d1)>
#out = affine_map<(d0, d1) -> (d0)>
func.func @f(%a: tensor<{rows}x{cols}xf32>, %b: tensor<{rows}x{cols}xf32>) -> tensor<{rows}xf32> {{
  %s = arith.addf %a, %b : tensor<{rows}x{cols}xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<{rows}xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<{rows}xf32>) -> tensor<{rows}xf32>
  %r = linalg.generic {{indexing_maps = [#in, #out], iterator_types = ["parallel", "reduction"]}}
      ins(%s : tensor<{rows}x{cols}xf32>) outs(%f : tensor<{rows}xf32>) {{
  ^bb0(%x: f32, %acc: f32):
    %y = arith.addf %x, %acc : f32
    linalg.yield %y : f32
  }} -> tensor<{rows}xf32>
  return %r : tensor<{rows}xf32>
}}
"""


COLUMN_MAX = """
#in = affine_map<(d0, d1) -> (d1, d0)>
#out = affine_map<(d0, d1) -> (d0)>
func.func @f(%a: tensor<97x1003xf32>) -> tensor<1003xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<1003xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<1003xf32>) -> tensor<1003xf32>
  %r = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<97x1003xf32>) outs(%f : tensor<1003xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %y = arith.maximumf %x, %acc : f32
    linalg.yield %y : f32
  } -> tensor<1003xf32>
  %t = math.tanh %r : tensor<1003xf32>
  return %t : tensor<1003xf32>
}
"""

CONV = """
func.func @f(%x: tensor<2x19x23x5xf32>, %w: tensor<3x3x5x70xf32>, %bias: tensor<2x17x21x70xf32>) -> tensor<2x17x21x70xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x17x21x70xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x17x21x70xf32>) -> tensor<2x17x21x70xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
       ins(%x, %w : tensor<2x19x23x5xf32>, tensor<3x3x5x70xf32>) outs(%f : tensor<2x17x21x70xf32>) -> tensor<2x17x21x70xf32>
  %s = arith.addf %c, %bias : tensor<2x17x21x70xf32>
  %z = arith.constant dense<0.0> : tensor<2x17x21x70xf32>
  %r = arith.maximumf %s, %z : tensor<2x17x21x70xf32>
  return %r : tensor<2x17x21x70xf32>
}
"""

BATCH_MATMUL = """
func.func @f(%a: tensor<3x67x17xf32>, %b: tensor<3x17x71xf32>) -> tensor<3x67x71xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x67x71xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<3x67x71xf32>) -> tensor<3x67x71xf32>
  %m = linalg.batch_matmul ins(%a, %b : tensor<3x67x17xf32>, tensor<3x17x71xf32>) outs(%f : tensor<3x67x71xf32>) -> tensor<3x67x71xf32>
  %t = math.tanh %m : tensor<3x67x71xf32>
  return %t : tensor<3x67x71xf32>
}
"""

MULTI_USE = """
#in = affine_map<(d0, d1) -> (d0, d1)>
#out = affine_map<(d0, d1) -> (d0)>
func.func @f(%a: tensor<37x300xf32>) -> (tensor<37x300xf32>, tensor<37xf32>) {
  %e = math.exp %a : tensor<37x300xf32>
  %one = arith.constant dense<1.0> : tensor<37x300xf32>
  %p = arith.addf %e, %one : tensor<37x300xf32>
  %zero = arith.constant 0.0 : f32
  %i = tensor.empty() : tensor<37xf32>
  %f = linalg.fill ins(%zero : f32) outs(%i : tensor<37xf32>) -> tensor<37xf32>
  %r = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "reduction"]}
      ins(%e : tensor<37x300xf32>) outs(%f : tensor<37xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %y = arith.addf %x, %acc : f32
    linalg.yield %y : f32
  } -> tensor<37xf32>
  return %p, %r : tensor<37x300xf32>, tensor<37xf32>
}
"""


def mlp_stablehlo(batch: int = 64) -> str:
    """x·w1 + b1 → relu → ·w2 + b2 → softmax, as JAX exports it (see ../shared/models/jax/mlp)."""
    n = batch
    return f"""
func.func @mlp(%x: tensor<{n}x784xf32>, %w1: tensor<784x256xf32>, %b1: tensor<256xf32>, %w2: tensor<256x10xf32>, %b2: tensor<10xf32>) -> tensor<{n}x10xf32> {{
  %0 = stablehlo.dot_general %x, %w1, contracting_dims = [1] x [0] : (tensor<{n}x784xf32>, tensor<784x256xf32>) -> tensor<{n}x256xf32>
  %1 = stablehlo.broadcast_in_dim %b1, dims = [1] : (tensor<256xf32>) -> tensor<{n}x256xf32>
  %2 = stablehlo.add %0, %1 : tensor<{n}x256xf32>
  %cz = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %z = stablehlo.broadcast_in_dim %cz, dims = [] : (tensor<f32>) -> tensor<{n}x256xf32>
  %3 = stablehlo.maximum %2, %z : tensor<{n}x256xf32>
  %4 = stablehlo.dot_general %3, %w2, contracting_dims = [1] x [0] : (tensor<{n}x256xf32>, tensor<256x10xf32>) -> tensor<{n}x10xf32>
  %5 = stablehlo.broadcast_in_dim %b2, dims = [1] : (tensor<10xf32>) -> tensor<{n}x10xf32>
  %6 = stablehlo.add %4, %5 : tensor<{n}x10xf32>
  %cm = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %7 = stablehlo.reduce(%6 init: %cm) applies stablehlo.maximum across dimensions = [1] : (tensor<{n}x10xf32>, tensor<f32>) -> tensor<{n}xf32>
  %8 = stablehlo.broadcast_in_dim %7, dims = [0] : (tensor<{n}xf32>) -> tensor<{n}x10xf32>
  %9 = stablehlo.subtract %6, %8 : tensor<{n}x10xf32>
  %10 = stablehlo.exponential %9 : tensor<{n}x10xf32>
  %c0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %11 = stablehlo.reduce(%10 init: %c0) applies stablehlo.add across dimensions = [1] : (tensor<{n}x10xf32>, tensor<f32>) -> tensor<{n}xf32>
  %12 = stablehlo.broadcast_in_dim %11, dims = [0] : (tensor<{n}xf32>) -> tensor<{n}x10xf32>
  %13 = stablehlo.divide %10, %12 : tensor<{n}x10xf32>
  return %13 : tensor<{n}x10xf32>
}}
"""


# Register-blocked contractions (convert-linalg-to-loops): accumulation into an input,
# f64 and i32 packing, a non-matmul body (max-plus), B read transposed (no packing).
MM_ACCUMULATE_F64 = """
func.func @f(%a: tensor<96x80xf64>, %b: tensor<80x48xf64>, %c: tensor<96x48xf64>) -> tensor<96x48xf64> {
  %m = linalg.matmul ins(%a, %b : tensor<96x80xf64>, tensor<80x48xf64>) outs(%c : tensor<96x48xf64>) -> tensor<96x48xf64>
  return %m : tensor<96x48xf64>
}
"""

MM_I32 = """
func.func @f(%a: tensor<64x40xi32>, %b: tensor<40x32xi32>) -> tensor<64x32xi32> {
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<64x32xi32>
  %f = linalg.fill ins(%zero : i32) outs(%e : tensor<64x32xi32>) -> tensor<64x32xi32>
  %m = linalg.matmul ins(%a, %b : tensor<64x40xi32>, tensor<40x32xi32>) outs(%f : tensor<64x32xi32>) -> tensor<64x32xi32>
  return %m : tensor<64x32xi32>
}
"""

MAX_PLUS = """
#a = affine_map<(i, j, k) -> (i, k)>
#b = affine_map<(i, j, k) -> (k, j)>
#o = affine_map<(i, j, k) -> (i, j)>
func.func @f(%a: tensor<48x33xf32>, %b: tensor<33x64xf32>) -> tensor<48x64xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<48x64xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<48x64xf32>) -> tensor<48x64xf32>
  %r = linalg.generic {indexing_maps = [#a, #b, #o], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<48x33xf32>, tensor<33x64xf32>) outs(%f : tensor<48x64xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %s = arith.addf %x, %y : f32
    %m = arith.maximumf %s, %acc : f32
    linalg.yield %m : f32
  } -> tensor<48x64xf32>
  return %r : tensor<48x64xf32>
}
"""

MM_TRANSPOSE_B = """
#a = affine_map<(i, j, k) -> (i, k)>
#b = affine_map<(i, j, k) -> (j, k)>
#o = affine_map<(i, j, k) -> (i, j)>
func.func @f(%a: tensor<64x50xf32>, %b: tensor<32x50xf32>) -> tensor<64x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x32xf32>) -> tensor<64x32xf32>
  %r = linalg.generic {indexing_maps = [#a, #b, #o], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<64x50xf32>, tensor<32x50xf32>) outs(%f : tensor<64x32xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<64x32xf32>
  return %r : tensor<64x32xf32>
}
"""

# Slices read by linalg ops (an attention block's q/k/v split into heads, a strided slice):
# each is cloned into its consumer's dispatch and read from the source's buffer.
SLICES_INTO_CONSUMERS = """
func.func @f(%x: tensor<37x9x192xf32>) -> (tensor<37x4x9x16xf32>, tensor<37x9x64xf32>) {
  %s = tensor.extract_slice %x[0, 0, 64] [37, 9, 64] [1, 1, 1] : tensor<37x9x192xf32> to tensor<37x9x64xf32>
  %h = tensor.expand_shape %s [[0], [1], [2, 3]] output_shape [37, 9, 4, 16] : tensor<37x9x64xf32> into tensor<37x9x4x16xf32>
  %e = tensor.empty() : tensor<37x4x9x16xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d2, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%h : tensor<37x9x4x16xf32>) outs(%e : tensor<37x4x9x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = math.exp %a : f32
    linalg.yield %m : f32
  } -> tensor<37x4x9x16xf32>
  %s2 = tensor.extract_slice %x[0, 0, 1] [37, 9, 64] [1, 1, 3] : tensor<37x9x192xf32> to tensor<37x9x64xf32>
  %d = arith.addf %s2, %s2 : tensor<37x9x64xf32>
  return %t, %d : tensor<37x4x9x16xf32>, tensor<37x9x64xf32>
}
"""

def _rand(rng, *shape):
    return rng.standard_normal(shape, dtype=np.float32)


def _softmax(z):
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _conv_nhwc(x, w):
    n, h, wd, c = x.shape
    kh, kw, _, f = w.shape
    out = np.zeros((n, h - kh + 1, wd - kw + 1, f), np.float64)
    for i in range(kh):
        for j in range(kw):
            out += np.einsum("nhwc,cf->nhwf", x[:, i:i + out.shape[1], j:j + out.shape[2], :], w[i, j])
    return out


def _cases():
    r = np.random.default_rng(7)
    a, b, c = _rand(r, 130, 70), _rand(r, 70, 150), _rand(r, 130, 150)
    yield "mm_relu", MM_RELU, "f", (a, b, c), (np.maximum(a @ b + c, 0),)
    x, y = _rand(r, 100003), _rand(r, 100003)
    yield "elementwise_1d", ELEMENTWISE_1D, "f", (x, y), (np.exp(x * y) - x,)
    a3, b3 = _rand(r, 5, 301, 7), _rand(r, 301)
    yield "broadcast_3d", BROADCAST_3D, "f", (a3, b3), (-(a3 * b3[None, :, None] + a3),)
    ra, rb = _rand(r, 1001, 100), _rand(r, 1001, 100)
    yield "row_sum", _row_sum(1001, 100), "f", (ra, rb), ((ra + rb).sum(axis=1),)
    cm = _rand(r, 97, 1003)
    yield "column_max", COLUMN_MAX, "f", (cm,), (np.tanh(cm.max(axis=0)),)
    cx, cw, cb = _rand(r, 2, 19, 23, 5), _rand(r, 3, 3, 5, 70), _rand(r, 2, 17, 21, 70)
    yield "conv", CONV, "f", (cx, cw, cb), (np.maximum(_conv_nhwc(cx, cw) + cb, 0),)
    ba, bb = _rand(r, 3, 67, 17), _rand(r, 3, 17, 71)
    yield "batch_matmul", BATCH_MATMUL, "f", (ba, bb), (np.tanh(ba @ bb),)
    mu = _rand(r, 37, 300)
    yield "multi_use", MULTI_USE, "f", (mu,), (np.exp(mu) + 1, np.exp(mu).sum(axis=1))
    da, db, dc = (r.standard_normal(sh) for sh in ((96, 80), (80, 48), (96, 48)))
    yield "mm_accumulate_f64", MM_ACCUMULATE_F64, "f", (da, db, dc), (dc + da @ db,)
    ia, ib = r.integers(-50, 50, (64, 40), dtype=np.int32), r.integers(-50, 50, (40, 32), dtype=np.int32)
    yield "mm_i32", MM_I32, "f", (ia, ib), (ia @ ib,)
    pa, pb = _rand(r, 48, 33), _rand(r, 33, 64)
    yield "max_plus", MAX_PLUS, "f", (pa, pb), ((pa[:, :, None] + pb[None, :, :]).max(axis=1),)
    ta, tb = _rand(r, 64, 50), _rand(r, 32, 50)
    yield "mm_transpose_b", MM_TRANSPOSE_B, "f", (ta, tb), (ta @ tb.T,)
    mx, w1, b1, w2, b2 = (_rand(r, 64, 784), _rand(r, 784, 256) * 0.05, _rand(r, 256),
                          _rand(r, 256, 10) * 0.1, _rand(r, 10))
    ref = _softmax(np.maximum(mx @ w1 + b1, 0) @ w2 + b2)
    yield "mlp_softmax", mlp_stablehlo(64), "mlp", (mx, w1, b1, w2, b2), (ref,)
    sx = _rand(r, 37, 9, 192)
    yield "slices_into_consumers", SLICES_INTO_CONSUMERS, "f", (sx,), (
        np.exp(sx[:, :, 64:128].reshape(37, 9, 4, 16).transpose(0, 2, 1, 3)), sx[:, :, 1::3] * 2)


CASES = list(_cases())


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name,src,fn,args,expected", CASES, ids=[c[0] for c in CASES])
def test_fused_tiled_kernel_matches_numpy(name, src, fn, args, expected, target):
    m = ireec.compile_source(src, target=target)
    out = getattr(m, fn)(*args)
    outs = out if isinstance(out, (tuple, list)) else (out,)
    assert len(outs) == len(expected)
    for got, want in zip(outs, expected):
        np.testing.assert_allclose(got, want, rtol=2e-4, atol=2e-4)


@pytest.mark.parametrize("name,src,fn,args,expected", CASES[:4], ids=[c[0] for c in CASES[:4]])
def test_openmp_is_bitwise_equal_to_c(name, src, fn, args, expected):
    got_c = getattr(ireec.compile_source(src, target="c"), fn)(*args)
    got_omp = getattr(ireec.compile_source(src, target="openmp"), fn)(*args)
    np.testing.assert_array_equal(got_c, got_omp)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("m,k,n", [(96, 80, 48), (100, 80, 70), (13, 5, 37), (72, 512, 40)])
def test_register_blocked_matmul_keeps_the_summation_order(target, m, k, n):
    """The matmul micro-kernel (packed panels, register tiles, partial tiles through an
    edge buffer) adds the products of each output element in k order; under --strict-fp
    (no FMA) that is one f32 multiply then one f32 add per step: bitwise what the plain
    i, k, j nest and this numpy loop compute."""
    r = np.random.default_rng(11)
    a, b = _rand(r, m, k), _rand(r, k, n)
    src = f"""
func.func @f(%a: tensor<{m}x{k}xf32>, %b: tensor<{k}x{n}xf32>) -> tensor<{m}x{n}xf32> {{
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<{m}x{n}xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32>
  %m = linalg.matmul ins(%a, %b : tensor<{m}x{k}xf32>, tensor<{k}x{n}xf32>) outs(%f : tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32>
  return %m : tensor<{m}x{n}xf32>
}}
"""
    want = np.zeros((m, n), np.float32)
    for kk in range(k):
        want = want + a[:, kk:kk + 1] * b[kk:kk + 1, :]
    strict = get_target(target).configure(strict_fp=True)
    np.testing.assert_array_equal(ireec.compile_source(src, target=strict).f(a, b), want)


@pytest.mark.parametrize("target", TARGETS)
def test_transposed_reduction_output_is_register_blocked(target):
    """A sum over w of x[h, w, c] written out[c, h] (the output transposed against the
    input's contiguous c, as a global pool after an NHWC -> NCHW transpose): the block's
    columns run along c (contiguous in x) and its rows along h (contiguous in the output),
    accumulated in a local 2-d array; each element still adds its terms in w order
    (--strict-fp: bitwise the numpy loop)."""
    r = np.random.default_rng(5)
    x = r.standard_normal((16, 12, 32)).astype(np.float32)
    src = """
func.func @f(%x: tensor<16x12x32xf32>) -> tensor<32x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<32x16xf32>) -> tensor<32x16xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(c, h, w) -> (h, w, c)>, affine_map<(c, h, w) -> (c, h)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
       ins(%x : tensor<16x12x32xf32>) outs(%f : tensor<32x16xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %t = arith.mulf %a, %a : f32
    %u = arith.addf %acc, %t : f32
    linalg.yield %u : f32
  } -> tensor<32x16xf32>
  return %s : tensor<32x16xf32>
}
"""
    kernels = compile_to_c(src, "t.mlir", target=target).files["t_kernels.c"]
    assert "float t" in kernels and "[8][16];" in kernels  # the 8 x 16 accumulator block
    want = np.zeros((32, 16), np.float32)
    for w in range(12):
        want = want + (x[:, w, :] * x[:, w, :]).T
    strict = get_target(target).configure(strict_fp=True)
    np.testing.assert_array_equal(ireec.compile_source(src, target=strict).f(x), want)

"""math / arith ops compiled to C and run, against numpy (f32, f16, f64, integers).

Every math op of IREE's ``math_ops_llvm-cpu.mlir`` e2e test plus the integer/bit ops the
C lowering (ireec/emitc/arith_to_c.py) supports. f16 results must equal numpy's f16
rounding of the f32 computation (one rounding per op, as IREE's CPU backend computes f16).
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import ireec

UNARY = {  # op -> (numpy reference on float64, input values)
    "acos": (np.arccos, np.linspace(-1, 1, 9)), "acosh": (np.arccosh, np.linspace(1, 5, 9)),
    "asin": (np.arcsin, np.linspace(-1, 1, 9)), "asinh": (np.arcsinh, np.linspace(-3, 3, 9)),
    "atan": (np.arctan, np.linspace(-3, 3, 9)), "atanh": (np.arctanh, np.linspace(-0.9, 0.9, 9)),
    "cbrt": (np.cbrt, np.linspace(-8, 8, 9)), "ceil": (np.ceil, np.linspace(-2.5, 2.5, 9)),
    "cos": (np.cos, np.linspace(-3, 3, 9)), "cosh": (np.cosh, np.linspace(-3, 3, 9)),
    "erf": (np.vectorize(math.erf), np.linspace(-2, 2, 9)),
    "erfc": (np.vectorize(math.erfc), np.linspace(-2, 2, 9)),
    "exp": (np.exp, np.linspace(-3, 3, 9)), "exp2": (np.exp2, np.linspace(-3, 3, 9)),
    "expm1": (np.expm1, np.linspace(-1, 1, 9)), "floor": (np.floor, np.linspace(-2.5, 2.5, 9)),
    "log": (np.log, np.linspace(0.25, 4, 9)), "log1p": (np.log1p, np.linspace(-0.5, 4, 9)),
    "log2": (np.log2, np.linspace(0.25, 4, 9)), "log10": (np.log10, np.linspace(0.25, 4, 9)),
    "round": (lambda x: np.sign(x) * np.floor(np.abs(x) + 0.5), np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.4, -0.6, 3.0])),
    "roundeven": (np.round, np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.4, -0.6, 3.0])),
    "rsqrt": (lambda x: 1 / np.sqrt(x), np.linspace(0.25, 4, 9)),
    "sin": (np.sin, np.linspace(-3, 3, 9)), "sinh": (np.sinh, np.linspace(-3, 3, 9)),
    "sqrt": (np.sqrt, np.linspace(0, 4, 9)), "tan": (np.tan, np.linspace(-1.2, 1.2, 9)),
    "tanh": (np.tanh, np.linspace(-3, 3, 9)), "trunc": (np.trunc, np.linspace(-2.5, 2.5, 9)),
    "absf": (np.abs, np.linspace(-2, 2, 9)),
}
BINARY = {"powf": (np.power, np.linspace(0.5, 3, 9), np.linspace(-2, 2, 9)),
          "atan2": (np.arctan2, np.linspace(-3, 3, 9), np.linspace(2, -2, 9)),
          "copysign": (np.copysign, np.linspace(-3, 3, 9), np.linspace(2, -2, 9))}
FTYPES = {"f32": np.float32, "f16": np.float16, "f64": np.float64}


def _unary_fn(op: str, t: str) -> str:
    return (f"func.func @{op}_{t}(%a: tensor<9x{t}>) -> tensor<9x{t}> {{\n"
            f"  %r = math.{op} %a : tensor<9x{t}>\n  return %r : tensor<9x{t}>\n}}\n")


def _binary_fn(op: str, t: str) -> str:
    return (f"func.func @{op}_{t}(%a: tensor<9x{t}>, %b: tensor<9x{t}>) -> tensor<9x{t}> {{\n"
            f"  %r = math.{op} %a, %b : tensor<9x{t}>\n  return %r : tensor<9x{t}>\n}}\n")


@pytest.fixture(scope="module")
def mod():
    src = "".join(_unary_fn(op, t) for op in UNARY for t in FTYPES)
    src += "".join(_binary_fn(op, t) for op in BINARY for t in FTYPES)
    src += """
func.func @fpowi_f32(%a: tensor<4xf32>, %b: tensor<4xi32>) -> tensor<4xf32> {
  %r = math.fpowi %a, %b : tensor<4xf32>, tensor<4xi32>
  return %r : tensor<4xf32>
}
func.func @ipowi_i32(%a: tensor<6xi32>, %b: tensor<6xi32>) -> tensor<6xi32> {
  %r = math.ipowi %a, %b : tensor<6xi32>
  return %r : tensor<6xi32>
}
func.func @bits_i32(%a: tensor<5xi32>) -> (tensor<5xi32>, tensor<5xi32>, tensor<5xi32>) {
  %p = math.ctpop %a : tensor<5xi32>
  %l = math.ctlz %a : tensor<5xi32>
  %t = math.cttz %a : tensor<5xi32>
  return %p, %l, %t : tensor<5xi32>, tensor<5xi32>, tensor<5xi32>
}
func.func @bits_i8(%a: tensor<5xi8>) -> (tensor<5xi8>, tensor<5xi8>, tensor<5xi8>) {
  %p = math.ctpop %a : tensor<5xi8>
  %l = math.ctlz %a : tensor<5xi8>
  %t = math.cttz %a : tensor<5xi8>
  return %p, %l, %t : tensor<5xi8>, tensor<5xi8>, tensor<5xi8>
}
func.func @chain_f16(%a: tensor<9xf16>, %b: tensor<9xf16>) -> tensor<9xf16> {
  %m = arith.mulf %a, %b : tensor<9xf16>
  %s = arith.addf %m, %a : tensor<9xf16>
  return %s : tensor<9xf16>
}
func.func @trunc_f32_f16(%a: tensor<9xf32>) -> tensor<9xf32> {
  %t = arith.truncf %a : tensor<9xf32> to tensor<9xf16>
  %e = arith.extf %t : tensor<9xf16> to tensor<9xf32>
  return %e : tensor<9xf32>
}
func.func @bitcast_f16_i16(%a: tensor<4xf16>) -> tensor<4xi16> {
  %t = arith.bitcast %a : tensor<4xf16> to tensor<4xi16>
  return %t : tensor<4xi16>
}
"""
    return ireec.compile_source(src, source_name="math_ops_test.mlir")


@pytest.mark.parametrize("t", sorted(FTYPES))
@pytest.mark.parametrize("op", sorted(UNARY))
def test_unary(mod, op, t):
    ref, xs = UNARY[op]
    dt = FTYPES[t]
    x = xs.astype(dt)
    got = getattr(mod, f"{op}_{t}")(x)
    want = ref(x.astype(np.float64))
    if dt is np.float16:  # one rounding of the (accurate) result to f16
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float16).astype(np.float64),
                                   rtol=2 ** -10, atol=1e-3)
    else:
        np.testing.assert_allclose(got, want, rtol=2e-6 if dt is np.float32 else 1e-14, atol=1e-6)


@pytest.mark.parametrize("t", sorted(FTYPES))
@pytest.mark.parametrize("op", sorted(BINARY))
def test_binary(mod, op, t):
    ref, xs, ys = BINARY[op]
    dt = FTYPES[t]
    x, y = xs.astype(dt), ys.astype(dt)
    got = getattr(mod, f"{op}_{t}")(x, y)
    want = ref(x.astype(np.float64), y.astype(np.float64))
    rtol = {np.float16: 2 ** -10, np.float32: 2e-6, np.float64: 1e-14}[dt]
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=rtol, atol=1e-6)


def test_fpowi_ipowi(mod):
    a = np.array([2.0, -1.5, 3.0, 0.5], np.float32)
    e = np.array([3, 2, -2, 0], np.int32)
    np.testing.assert_allclose(mod.fpowi_f32(a, e), a.astype(np.float64) ** e, rtol=1e-6)
    b = np.array([2, -3, 5, 1, -1, 7], np.int32)
    n = np.array([10, 3, 0, -4, -3, 2], np.int32)
    np.testing.assert_array_equal(mod.ipowi_i32(b, n), [1024, -27, 1, 1, -1, 49])


def test_bit_counting(mod):
    a = np.array([0, 1, 0x80000000 - (1 << 32), 0xF0, -1], np.int32)
    p, l, t = mod.bits_i32(a)
    u = a.view(np.uint32)
    np.testing.assert_array_equal(p, [bin(int(v)).count("1") for v in u])
    np.testing.assert_array_equal(l, [32 - int(v).bit_length() for v in u])
    np.testing.assert_array_equal(t, [32 if v == 0 else (int(v) & -int(v)).bit_length() - 1 for v in u])
    b = np.array([0, 1, -128, 0x70, -1], np.int8)
    p, l, t = mod.bits_i8(b)
    u = b.view(np.uint8)
    np.testing.assert_array_equal(p, [bin(int(v)).count("1") for v in u])
    np.testing.assert_array_equal(l, [8 - int(v).bit_length() for v in u])
    np.testing.assert_array_equal(t, [8 if v == 0 else (int(v) & -int(v)).bit_length() - 1 for v in u])


def test_f16_rounds_after_every_op(mod):
    rng = np.random.default_rng(0)
    a = rng.standard_normal(9).astype(np.float16)
    b = rng.standard_normal(9).astype(np.float16)
    want = ((a.astype(np.float32) * b).astype(np.float16).astype(np.float32) + a).astype(np.float16)
    np.testing.assert_array_equal(mod.chain_f16(a, b), want)


def test_truncf_rounds_to_nearest_even(mod):
    x = np.array([1.0 + 2 ** -11, 1.0 + 3 * 2 ** -11, 65504, 65520, 1e-8, -2.5e-8, 3.14159, np.inf, -7.0],
                 np.float32)
    with np.errstate(over="ignore"):
        want = x.astype(np.float16).astype(np.float32)
    np.testing.assert_array_equal(mod.trunc_f32_f16(x), want)


def test_bitcast_f16(mod):
    x = np.array([1.0, -2.0, 0.5, 65504], np.float16)
    np.testing.assert_array_equal(mod.bitcast_f16_i16(x), x.view(np.int16))

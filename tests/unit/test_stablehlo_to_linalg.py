"""StableHLO/CHLO → linalg input conversion, checked numerically against numpy: each test
compiles small functions with ``ireec.compile_source`` (target c) and compares results."""
from __future__ import annotations

import math

import numpy as np
import pytest

import ireec

_CACHE = {}


def compile_src(src: str):
    if src not in _CACHE:
        _CACHE[src] = ireec.compile_source(src, target="c")
    return _CACHE[src]


def unary_fn(op: str, t: str, rt: str = None) -> str:
    rt = rt or t
    return f"""func.func @f(%a: {t}) -> {rt} {{
  %0 = "stablehlo.{op}"(%a) : ({t}) -> {rt}
  return %0 : {rt}
}}"""


def binary_fn(op: str, t: str, rt: str = None, attrs: str = "") -> str:
    rt = rt or t
    return f"""func.func @f(%a: {t}, %b: {t}) -> {rt} {{
  %0 = "stablehlo.{op}"(%a, %b) {attrs} : ({t}, {t}) -> {rt}
  return %0 : {rt}
}}"""


F32 = np.array([-2.5, -1.0, -0.0, 0.0, 0.3, 1.0, 2.5, 7.25], np.float32)
POS = np.array([0.1, 0.5, 1.0, 2.0, 3.5, 10.0, 0.25, 7.0], np.float32)

FLOAT_UNARY = [
    ("abs", F32, np.abs), ("negate", F32, np.negative), ("exponential", F32, np.exp),
    ("exponential_minus_one", F32, np.expm1), ("log", POS, np.log), ("log_plus_one", POS, np.log1p),
    ("logistic", F32, lambda x: 1 / (1 + np.exp(-x))), ("sqrt", POS, np.sqrt),
    ("rsqrt", POS, lambda x: 1 / np.sqrt(x)), ("cbrt", F32, np.cbrt), ("tanh", F32, np.tanh),
    ("sine", F32, np.sin), ("cosine", F32, np.cos), ("tan", F32, np.tan), ("floor", F32, np.floor),
    ("ceil", F32, np.ceil), ("sign", F32, np.sign),
]


@pytest.mark.parametrize("op,x,ref", FLOAT_UNARY, ids=[u[0] for u in FLOAT_UNARY])
def test_float_unary(op, x, ref):
    m = compile_src(unary_fn(op, "tensor<8xf32>"))
    np.testing.assert_allclose(m.f(x), ref(x).astype(np.float32), rtol=2e-6, atol=1e-6)


def test_rounding():
    x = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 2.6, -2.6], np.float32)
    np.testing.assert_array_equal(compile_src(unary_fn("round_nearest_afz", "tensor<8xf32>")).f(x),
                                  np.sign(x) * np.floor(np.abs(x) + 0.5))
    np.testing.assert_array_equal(compile_src(unary_fn("round_nearest_even", "tensor<8xf32>")).f(x),
                                  np.round(x))


def test_is_finite():
    x = np.array([1.0, np.inf, -np.inf, np.nan], np.float32)
    m = compile_src(unary_fn("is_finite", "tensor<4xf32>", "tensor<4xi1>"))
    np.testing.assert_array_equal(m.f(x), np.isfinite(x))


FLOAT_BINARY = [
    ("add", np.add), ("subtract", np.subtract), ("multiply", np.multiply),
    ("divide", np.divide), ("remainder", np.fmod), ("maximum", np.maximum),
    ("minimum", np.minimum), ("power", np.power), ("atan2", np.arctan2),
]


@pytest.mark.parametrize("op,ref", FLOAT_BINARY, ids=[u[0] for u in FLOAT_BINARY])
def test_float_binary(op, ref):
    a = np.array([1.5, -2.0, 3.0, 0.5, 7.0, -7.5], np.float32)
    b = np.array([2.0, 3.0, -1.5, 4.0, 2.5, 2.0], np.float32)
    if op == "power":
        a = np.abs(a)
    m = compile_src(binary_fn(op, "tensor<6xf32>"))
    np.testing.assert_allclose(m.f(a, b), ref(a, b), rtol=2e-6, atol=1e-6)


def test_maximum_propagates_nan():
    m = compile_src(binary_fn("maximum", "tensor<2xf32>"))
    r = m.f(np.array([np.nan, 1.0], np.float32), np.array([1.0, np.nan], np.float32))
    assert np.isnan(r).all()


I32_A = np.array([7, -7, 7, -7, 5, -2147483648, 0, 100], np.int32)
I32_B = np.array([2, 2, -2, -2, 0, -1, 3, 7], np.int32)


def test_int_divide_remainder_truncate_and_edge_cases():
    div = compile_src(binary_fn("divide", "tensor<8xi32>"))
    rem = compile_src(binary_fn("remainder", "tensor<8xi32>"))
    q = np.array([3, -3, -3, 3, -1, -2147483648, 0, 14], np.int32)
    r = np.array([1, -1, 1, -1, 5, 0, 0, 2], np.int32)
    np.testing.assert_array_equal(div.f(I32_A, I32_B), q)
    np.testing.assert_array_equal(rem.f(I32_A, I32_B), r)


def test_unsigned_divide_and_compare():
    a = np.array([4294967295, 7, 9, 1], np.uint32)
    b = np.array([2, 0, 4, 4294967295], np.uint32)
    div = compile_src(binary_fn("divide", "tensor<4xui32>"))
    np.testing.assert_array_equal(div.f(a, b), np.array([2147483647, 4294967295, 2, 0], np.uint32))
    cmp = compile_src(binary_fn("compare", "tensor<4xui32>", "tensor<4xi1>",
                                "{comparison_direction = #stablehlo<comparison_direction GT>}"))
    np.testing.assert_array_equal(cmp.f(a, b), a > b)


@pytest.mark.parametrize("op,ref", [
    ("add", np.add), ("subtract", np.subtract), ("multiply", np.multiply),
    ("maximum", np.maximum), ("minimum", np.minimum), ("and", np.bitwise_and),
    ("or", np.bitwise_or), ("xor", np.bitwise_xor)])
def test_int_binary(op, ref):
    m = compile_src(binary_fn(op, "tensor<8xi32>"))
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(m.f(I32_A, I32_B), ref(I32_A, I32_B))


def test_shifts_saturate_at_bit_width():
    a = np.array([1, -8, 255, -1, 16], np.int32)
    s = np.array([3, 1, 40, 31, -1], np.int32)
    shl = compile_src(binary_fn("shift_left", "tensor<5xi32>")).f(a, s)
    sra = compile_src(binary_fn("shift_right_arithmetic", "tensor<5xi32>")).f(a, s)
    srl = compile_src(binary_fn("shift_right_logical", "tensor<5xi32>")).f(a, s)
    np.testing.assert_array_equal(shl, np.array([8, -16, 0, -2147483648, 0], np.int32))
    np.testing.assert_array_equal(sra, np.array([0, -4, 0, -1, 0], np.int32))
    np.testing.assert_array_equal(srl, np.array([0, 2147483644, 0, 1, 0], np.int32))


def test_int_unary():
    x = np.array([-5, 0, 3, -2147483647, 12], np.int32)
    np.testing.assert_array_equal(compile_src(unary_fn("abs", "tensor<5xi32>")).f(x), np.abs(x))
    np.testing.assert_array_equal(compile_src(unary_fn("negate", "tensor<5xi32>")).f(x), -x)
    np.testing.assert_array_equal(compile_src(unary_fn("sign", "tensor<5xi32>")).f(x), np.sign(x))
    np.testing.assert_array_equal(compile_src(unary_fn("not", "tensor<5xi32>")).f(x), ~x)


def test_popcnt_and_clz():
    x = np.array([0, 1, 255, -1, 0x00F00000], np.int32)
    pop = [bin(int(v) & 0xFFFFFFFF).count("1") for v in x]
    clz = [32 - (int(v) & 0xFFFFFFFF).bit_length() for v in x]
    np.testing.assert_array_equal(compile_src(unary_fn("popcnt", "tensor<5xi32>")).f(x), pop)
    np.testing.assert_array_equal(
        compile_src(unary_fn("count_leading_zeros", "tensor<5xi32>")).f(x), clz)


def test_int_power():
    a = np.array([2, -3, 1, -1, 5, 2], np.int32)
    b = np.array([10, 3, -4, -3, 0, -1], np.int32)
    m = compile_src(binary_fn("power", "tensor<6xi32>"))
    np.testing.assert_array_equal(m.f(a, b), np.array([1024, -27, 1, -1, 1, 0], np.int32))


def test_bool_ops():
    a = np.array([True, True, False, False])
    b = np.array([True, False, True, False])
    np.testing.assert_array_equal(compile_src(binary_fn("and", "tensor<4xi1>")).f(a, b), a & b)
    np.testing.assert_array_equal(compile_src(binary_fn("or", "tensor<4xi1>")).f(a, b), a | b)
    np.testing.assert_array_equal(compile_src(binary_fn("xor", "tensor<4xi1>")).f(a, b), a ^ b)
    np.testing.assert_array_equal(compile_src(unary_fn("not", "tensor<4xi1>")).f(a), ~a)


@pytest.mark.parametrize("direction,ref", [
    ("EQ", np.equal), ("NE", np.not_equal), ("LT", np.less), ("LE", np.less_equal),
    ("GT", np.greater), ("GE", np.greater_equal)])
def test_compare(direction, ref):
    a = np.array([1.0, 2.0, np.nan, -1.0, 3.0], np.float32)
    b = np.array([1.0, 3.0, np.nan, -2.0, np.nan], np.float32)
    attrs = f"{{comparison_direction = #stablehlo<comparison_direction {direction}>}}"
    m = compile_src(binary_fn("compare", "tensor<5xf32>", "tensor<5xi1>", attrs))
    with np.errstate(invalid="ignore"):
        np.testing.assert_array_equal(m.f(a, b), ref(a, b))
    mi = compile_src(binary_fn("compare", "tensor<8xi32>", "tensor<8xi1>", attrs))
    np.testing.assert_array_equal(mi.f(I32_A, I32_B), ref(I32_A, I32_B))


def test_compare_totalorder():
    a = np.array([-0.0, 1.0, -np.inf, 2.0], np.float32)
    b = np.array([0.0, 1.0, -3.0, -2.0], np.float32)
    attrs = ("{comparison_direction = #stablehlo<comparison_direction LT>, "
             "compare_type = #stablehlo<comparison_type TOTALORDER>}")
    m = compile_src(binary_fn("compare", "tensor<4xf32>", "tensor<4xi1>", attrs))
    np.testing.assert_array_equal(m.f(a, b), [True, False, True, False])


def test_select_clamp_scalar_operands():
    src = """func.func @sel(%p: tensor<i1>, %a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.select %p, %a, %b : tensor<i1>, tensor<3xf32>
  return %0 : tensor<3xf32>
}
func.func @sel2(%p: tensor<3xi1>, %a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.select %p, %a, %b : tensor<3xi1>, tensor<3xf32>
  return %0 : tensor<3xf32>
}
func.func @clamp(%lo: tensor<f32>, %x: tensor<3xf32>, %hi: tensor<f32>) -> tensor<3xf32> {
  %0 = stablehlo.clamp %lo, %x, %hi : (tensor<f32>, tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
func.func @clampt(%lo: tensor<3xi32>, %x: tensor<3xi32>, %hi: tensor<3xi32>) -> tensor<3xi32> {
  %0 = stablehlo.clamp %lo, %x, %hi : tensor<3xi32>
  return %0 : tensor<3xi32>
}"""
    m = compile_src(src)
    a = np.array([1, 2, 3], np.float32)
    b = np.array([4, 5, 6], np.float32)
    np.testing.assert_array_equal(m.sel(np.bool_(False), a, b), b)
    np.testing.assert_array_equal(m.sel2(np.array([True, False, True]), a, b), [1, 5, 3])
    np.testing.assert_array_equal(m.clamp(np.float32(1.5), a, np.float32(2.5)), [1.5, 2, 2.5])
    np.testing.assert_array_equal(
        m.clampt(np.array([0, 0, 5], np.int32), np.array([-1, 3, 4], np.int32),
                 np.array([2, 2, 9], np.int32)), [0, 2, 5])


@pytest.mark.parametrize("src_t,dst_t,x,expected", [
    ("i32", "i8", [-42, 0, 300], np.array([-42, 0, 44], np.int8)),
    ("i8", "i32", [-42, 0, 42], np.array([-42, 0, 42], np.int32)),
    ("ui8", "i32", [200, 0, 42], np.array([200, 0, 42], np.int32)),
    ("i32", "f32", [-42, 0, 42], np.array([-42, 0, 42], np.float32)),
    ("ui32", "f32", [4294967295, 0, 42], np.array([4294967295, 0, 42], np.float32)),
    ("f32", "i32", [-10.7, 0.2, 4.9], np.array([-10, 0, 4], np.int32)),
    ("f32", "i1", [-1.0, 0.0, 0.5], np.array([True, False, True])),
    ("i1", "f32", [True, False, True], np.array([1, 0, 1], np.float32)),
    ("i1", "i32", [True, False, True], np.array([1, 0, 1], np.int32)),
    ("f32", "f16", [1.5, -2.25, 3.0], np.array([1.5, -2.25, 3.0], np.float16)),
    ("i64", "i16", [-70000, 5, 1 << 40], np.array([-70000, 5, 0], np.int64).astype(np.int16)),
    ("i32", "ui32", [-1, 0, 7], np.array([4294967295, 0, 7], np.uint32)),
])
def test_convert(src_t, dst_t, x, expected):
    m = compile_src(unary_fn("convert", f"tensor<3x{src_t}>", f"tensor<3x{dst_t}>"))
    dt = {"i64": np.int64, "i32": np.int32, "i8": np.int8, "ui8": np.uint8, "f32": np.float32, "ui32": np.uint32,
          "i1": np.bool_}[src_t]
    r = m.f(np.array(x, dt))
    assert r.dtype == expected.dtype
    np.testing.assert_array_equal(r, expected)


def test_bitcast_convert():
    m = compile_src(unary_fn("bitcast_convert", "tensor<3xf32>", "tensor<3xi32>"))
    x = np.array([1.0, -2.0, 0.0], np.float32)
    np.testing.assert_array_equal(m.f(x), x.view(np.int32))


# ------------------------------------------------------------------- data movement

def test_broadcast_reshape_transpose():
    src = """func.func @bid(%a: tensor<3x1xf32>) -> tensor<2x3x4xf32> {
  %0 = stablehlo.broadcast_in_dim %a, dims = [1, 2] : (tensor<3x1xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}
func.func @bc(%a: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = stablehlo.broadcast %a, sizes = [2] : (tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
func.func @rs(%a: tensor<2x3x4xf32>) -> tensor<4x6xf32> {
  %0 = stablehlo.reshape %a : (tensor<2x3x4xf32>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}
func.func @tr(%a: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %0 = stablehlo.transpose %a, dims = [2, 0, 1] : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  return %0 : tensor<4x2x3xf32>
}"""
    m = compile_src(src)
    a = np.arange(3, dtype=np.float32).reshape(3, 1)
    np.testing.assert_array_equal(m.bid(a), np.broadcast_to(a, (2, 3, 4)))
    np.testing.assert_array_equal(m.bc(np.arange(3, dtype=np.float32)),
                                  np.broadcast_to(np.arange(3, dtype=np.float32), (2, 3)))
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    np.testing.assert_array_equal(m.rs(x), x.reshape(4, 6))
    np.testing.assert_array_equal(m.tr(x), x.transpose(2, 0, 1))


def test_slice_concat_reverse_iota():
    src = """func.func @sl(%a: tensor<6x5xi32>) -> tensor<2x2xi32> {
  %0 = stablehlo.slice %a [1:5:2, 0:4:3] : (tensor<6x5xi32>) -> tensor<2x2xi32>
  return %0 : tensor<2x2xi32>
}
func.func @cc(%a: tensor<2x2xi32>, %b: tensor<2x3xi32>) -> tensor<2x7xi32> {
  %0 = stablehlo.concatenate %a, %b, %a, dim = 1 : (tensor<2x2xi32>, tensor<2x3xi32>, tensor<2x2xi32>) -> tensor<2x7xi32>
  return %0 : tensor<2x7xi32>
}
func.func @rv(%a: tensor<2x3xi32>) -> tensor<2x3xi32> {
  %0 = stablehlo.reverse %a, dims = [1] : tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}
func.func @io() -> (tensor<2x3xf32>, tensor<4xi32>) {
  %0 = stablehlo.iota dim = 1 : tensor<2x3xf32>
  %1 = stablehlo.iota dim = 0 : tensor<4xi32>
  return %0, %1 : tensor<2x3xf32>, tensor<4xi32>
}"""
    m = compile_src(src)
    a = np.arange(30, dtype=np.int32).reshape(6, 5)
    np.testing.assert_array_equal(m.sl(a), a[1:5:2, 0:4:3])
    x = np.arange(4, dtype=np.int32).reshape(2, 2)
    y = np.arange(6, dtype=np.int32).reshape(2, 3) + 10
    np.testing.assert_array_equal(m.cc(x, y), np.concatenate([x, y, x], axis=1))
    np.testing.assert_array_equal(m.rv(y), y[:, ::-1])
    r0, r1 = m.io()
    np.testing.assert_array_equal(r0, np.broadcast_to(np.arange(3, dtype=np.float32), (2, 3)))
    np.testing.assert_array_equal(r1, np.arange(4))


def _np_pad(x, value, low, high, interior):
    """Reference of stablehlo.pad (negative edges crop)."""
    for d in range(x.ndim):
        n = x.shape[d]
        if interior[d] and n:
            idx = np.arange(n) * (interior[d] + 1)
            shape = list(x.shape)
            shape[d] = (n - 1) * (interior[d] + 1) + 1
            y = np.full(shape, value, x.dtype)
            sl = [slice(None)] * x.ndim
            sl[d] = idx
            y[tuple(sl)] = x
            x = y
        lo, hi = low[d], high[d]
        widths = [(0, 0)] * x.ndim
        widths[d] = (max(lo, 0), max(hi, 0))
        x = np.pad(x, widths, constant_values=value)
        sl = [slice(None)] * x.ndim
        sl[d] = slice(max(-lo, 0), x.shape[d] - max(-hi, 0))
        x = x[tuple(sl)]
    return x


@pytest.mark.parametrize("low,high,interior", [
    ([1, 0], [2, 1], [0, 0]), ([0, 1], [1, 0], [1, 2]), ([-1, 1], [1, -2], [0, 1]),
])
def test_pad(low, high, interior):
    x = np.arange(12, dtype=np.float32).reshape(3, 4) + 1
    out = _np_pad(x, np.float32(-1), low, high, interior)
    src = f"""func.func @f(%a: tensor<3x4xf32>, %v: tensor<f32>) -> tensor<{out.shape[0]}x{out.shape[1]}xf32> {{
  %0 = stablehlo.pad %a, %v, low = {low}, high = {high}, interior = {interior} : (tensor<3x4xf32>, tensor<f32>) -> tensor<{out.shape[0]}x{out.shape[1]}xf32>
  return %0 : tensor<{out.shape[0]}x{out.shape[1]}xf32>
}}"""
    np.testing.assert_array_equal(compile_src(src).f(x, np.float32(-1)), out)


# ------------------------------------------------------------------- dot / conv

def test_dot_and_dot_general_layouts():
    src = """func.func @mm(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>) -> tensor<3x5xf32> {
  %0 = stablehlo.dot %a, %b : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}
func.func @mv(%a: tensor<3x4xf32>, %b: tensor<4xf32>) -> tensor<3xf32> {
  %0 = stablehlo.dot %a, %b : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
func.func @bmm(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>) -> tensor<2x3x5xf32> {
  %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}
func.func @odd(%a: tensor<4x2x3xf32>, %b: tensor<5x4x2xf32>) -> tensor<2x3x5xf32> {
  %0 = stablehlo.dot_general %a, %b, batching_dims = [1] x [2], contracting_dims = [0] x [1] : (tensor<4x2x3xf32>, tensor<5x4x2xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}
func.func @imm(%a: tensor<2x3xi8>, %b: tensor<3x2xi8>) -> tensor<2x2xi32> {
  %0 = stablehlo.dot %a, %b : (tensor<2x3xi8>, tensor<3x2xi8>) -> tensor<2x2xi32>
  return %0 : tensor<2x2xi32>
}"""
    m = compile_src(src)
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((3, 4), np.float32), rng.standard_normal((4, 5), np.float32)
    np.testing.assert_allclose(m.mm(a, b), a @ b, rtol=1e-5, atol=1e-5)
    v = rng.standard_normal(4, np.float32)
    np.testing.assert_allclose(m.mv(a, v), a @ v, rtol=1e-5, atol=1e-5)
    x, y = rng.standard_normal((2, 3, 4), np.float32), rng.standard_normal((2, 4, 5), np.float32)
    np.testing.assert_allclose(m.bmm(x, y), x @ y, rtol=1e-5, atol=1e-5)
    p, q = rng.standard_normal((4, 2, 3), np.float32), rng.standard_normal((5, 4, 2), np.float32)
    np.testing.assert_allclose(m.odd(p, q), np.einsum("kbi,jkb->bij", p, q), rtol=1e-5, atol=1e-5)
    ia = np.array([[100, -100, 7], [1, 2, 3]], np.int8)
    ib = np.array([[100, 1], [100, 2], [3, 3]], np.int8)
    np.testing.assert_array_equal(m.imm(ia, ib), ia.astype(np.int32) @ ib.astype(np.int32))


def _np_conv_nhwc(x, w, stride, pad, lhs_dil, rhs_dil, groups):
    """Reference NHWC x HWIO convolution (XLA semantics) in float64."""
    x = x.astype(np.float64)
    w = w.astype(np.float64)
    n, h, wd, c = x.shape
    if lhs_dil != (1, 1):
        xd = np.zeros((n, (h - 1) * lhs_dil[0] + 1, (wd - 1) * lhs_dil[1] + 1, c))
        xd[:, ::lhs_dil[0], ::lhs_dil[1], :] = x
        x = xd
    x = np.pad(x, ((0, 0), tuple(max(p, 0) for p in pad[0]), tuple(max(p, 0) for p in pad[1]), (0, 0)))
    kh, kw, ci, co = w.shape
    ekh, ekw = (kh - 1) * rhs_dil[0] + 1, (kw - 1) * rhs_dil[1] + 1
    oh = (x.shape[1] - ekh) // stride[0] + 1
    ow = (x.shape[2] - ekw) // stride[1] + 1
    out = np.zeros((n, oh, ow, co))
    cog = co // groups
    for g in range(groups):
        for i in range(oh):
            for j in range(ow):
                patch = x[:, i * stride[0]: i * stride[0] + ekh: rhs_dil[0],
                          j * stride[1]: j * stride[1] + ekw: rhs_dil[1], g * ci:(g + 1) * ci]
                out[:, i, j, g * cog:(g + 1) * cog] = np.einsum(
                    "nhwc,hwco->no", patch, w[:, :, :, g * cog:(g + 1) * cog])
    return out


@pytest.mark.parametrize("stride,pad,lhs_dil,rhs_dil,groups,cout", [
    ((1, 1), ((1, 1), (1, 1)), (1, 1), (1, 1), 1, 6),
    ((2, 1), ((0, 1), (2, 0)), (1, 1), (2, 1), 1, 6),
    ((1, 1), ((0, 0), (0, 0)), (2, 2), (1, 1), 1, 6),
    ((1, 2), ((1, 0), (0, 1)), (1, 1), (1, 1), 2, 6),
    # depthwise (one input feature per group): multiplier 1 and 2; one output feature per group
    ((2, 2), ((0, 1), (0, 1)), (1, 1), (1, 1), 4, 4),
    ((1, 1), ((1, 1), (1, 1)), (1, 1), (2, 1), 4, 8),
    ((1, 2), ((1, 0), (0, 1)), (1, 1), (1, 1), 2, 2),
])
def test_convolution_nhwc(stride, pad, lhs_dil, rhs_dil, groups, cout):
    rng = np.random.default_rng(1)
    cin = 4
    x = rng.standard_normal((2, 6, 7, cin), np.float32)
    w = rng.standard_normal((3, 2, cin // groups, cout), np.float32)
    ref = _np_conv_nhwc(x, w, stride, pad, lhs_dil, rhs_dil, groups).astype(np.float32)
    rt = "x".join(str(d) for d in ref.shape) + "xf32"
    src = f"""func.func @f(%x: tensor<2x6x7x{cin}xf32>, %w: tensor<3x2x{cin // groups}x{cout}xf32>) -> tensor<{rt}> {{
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {{stride = [{stride[0]}, {stride[1]}], pad = [[{pad[0][0]}, {pad[0][1]}], [{pad[1][0]}, {pad[1][1]}]], lhs_dilate = [{lhs_dil[0]}, {lhs_dil[1]}], rhs_dilate = [{rhs_dil[0]}, {rhs_dil[1]}]}} {{batch_group_count = 1 : i64, feature_group_count = {groups} : i64}} : (tensor<2x6x7x{cin}xf32>, tensor<3x2x{cin // groups}x{cout}xf32>) -> tensor<{rt}>
  return %0 : tensor<{rt}>
}}"""
    np.testing.assert_allclose(compile_src(src).f(x, w), ref, rtol=1e-4, atol=1e-4)


def test_convolution_nchw_layout():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((1, 3, 5, 5), np.float32)     # NCHW
    w = rng.standard_normal((4, 3, 3, 3), np.float32)     # OIHW
    ref = _np_conv_nhwc(x.transpose(0, 2, 3, 1), w.transpose(2, 3, 1, 0), (1, 1),
                        ((1, 1), (1, 1)), (1, 1), (1, 1), 1).transpose(0, 3, 1, 2)
    src = """func.func @f(%x: tensor<1x3x5x5xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x5x5xf32> {
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x3x5x5xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x5x5xf32>
  return %0 : tensor<1x4x5x5xf32>
}"""
    np.testing.assert_allclose(compile_src(src).f(x, w), ref, rtol=1e-4, atol=1e-4)


# ------------------------------------------------------------------- reductions

def test_reduce_sum_max_and_argmax():
    src = """func.func @sum(%a: tensor<3x4xf32>) -> tensor<4xf32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [0] : (tensor<3x4xf32>, tensor<f32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @max(%a: tensor<3x4xi32>, %init: tensor<i32>) -> tensor<i32> {
  %0 = stablehlo.reduce(%a init: %init) applies stablehlo.maximum across dimensions = [0, 1] : (tensor<3x4xi32>, tensor<i32>) -> tensor<i32>
  return %0 : tensor<i32>
}
func.func @argmax(%a: tensor<3x4xf32>) -> (tensor<3xf32>, tensor<3xi32>) {
  %idx = stablehlo.iota dim = 1 : tensor<3x4xi32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %0:2 = stablehlo.reduce(%a init: %ninf), (%idx init: %zero) across dimensions = [1] : (tensor<3x4xf32>, tensor<3x4xi32>, tensor<f32>, tensor<i32>) -> (tensor<3xf32>, tensor<3xi32>)
   reducer(%av: tensor<f32>, %bv: tensor<f32>) (%ai: tensor<i32>, %bi: tensor<i32>) {
    %gt = stablehlo.compare GT, %av, %bv, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %eq = stablehlo.compare EQ, %av, %bv, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %lt = stablehlo.compare LT, %ai, %bi, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %tie = stablehlo.and %eq, %lt : tensor<i1>
    %pick = stablehlo.or %gt, %tie : tensor<i1>
    %v = stablehlo.select %pick, %av, %bv : tensor<i1>, tensor<f32>
    %i = stablehlo.select %pick, %ai, %bi : tensor<i1>, tensor<i32>
    stablehlo.return %v, %i : tensor<f32>, tensor<i32>
  }
  return %0#0, %0#1 : tensor<3xf32>, tensor<3xi32>
}"""
    m = compile_src(src)
    a = np.array([[1, 5, 2, 5], [0, -1, 3, 2], [7, 7, 7, 7]], np.float32)
    np.testing.assert_allclose(m.sum(a), a.sum(0))
    ai = np.array([[1, 5, 2, 5], [0, -1, 3, 2], [7, 9, 7, 7]], np.int32)
    assert m.max(ai, np.int32(-100)) == 9
    assert m.max(ai, np.int32(100)) == 100
    v, i = m.argmax(a)
    np.testing.assert_array_equal(v, a.max(1))
    np.testing.assert_array_equal(i, a.argmax(1))


def test_reduce_window_pooling():
    src = """func.func @maxpool(%a: tensor<1x4x5x1xf32>) -> tensor<1x2x3x1xf32> {
  %init = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %0 = "stablehlo.reduce_window"(%a, %init) <{padding = dense<[[0, 0], [0, 0], [0, 1], [0, 0]]> : tensor<4x2xi64>, window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %m = stablehlo.maximum %x, %y : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }) : (tensor<1x4x5x1xf32>, tensor<f32>) -> tensor<1x2x3x1xf32>
  return %0 : tensor<1x2x3x1xf32>
}
func.func @dilsum(%a: tensor<7xf32>) -> tensor<3xf32> {
  %init = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = "stablehlo.reduce_window"(%a, %init) <{window_dimensions = array<i64: 3>, window_strides = array<i64: 2>, window_dilations = array<i64: 2>, base_dilations = array<i64: 1>}> ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %m = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }) : (tensor<7xf32>, tensor<f32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}"""
    src = src.replace("-> tensor<3xf32> {\n  %init = stablehlo.constant dense<0.0>",
                      "-> tensor<2xf32> {\n  %init = stablehlo.constant dense<0.0>")
    m = compile_src(src)
    a = np.arange(20, dtype=np.float32).reshape(1, 4, 5, 1)
    padded = np.pad(a, ((0, 0), (0, 0), (0, 1), (0, 0)), constant_values=-np.inf)
    ref = padded.reshape(1, 2, 2, 3, 2, 1).max(axis=(2, 4))
    np.testing.assert_array_equal(m.maxpool(a), ref)
    x = np.arange(7, dtype=np.float32)
    np.testing.assert_array_equal(m.dilsum(x), [x[0] + x[2] + x[4], x[2] + x[4] + x[6]])


def test_batch_norm_inference():
    src = """func.func @f(%x: tensor<2x3xf32>, %s: tensor<3xf32>, %o: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = "stablehlo.batch_norm_inference"(%x, %s, %o, %m, %v) {epsilon = 1.0e-3 : f32, feature_index = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}"""
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 3), np.float32)
    s, o, mu = (rng.standard_normal(3, np.float32) for _ in range(3))
    v = np.abs(rng.standard_normal(3, np.float32))
    ref = (x - mu) * s / np.sqrt(v + np.float32(1e-3)) + o
    np.testing.assert_allclose(compile_src(src).f(x, s, o, mu, v), ref, rtol=1e-5, atol=1e-5)


# ------------------------------------------------------------------- CHLO

def test_chlo_broadcast_and_composites():
    src = """func.func @badd(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = chlo.broadcast_add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
func.func @bdims(%a: tensor<2x3xf32>, %b: tensor<2xf32>) -> tensor<2x3xf32> {
  %0 = chlo.broadcast_multiply %a, %b {broadcast_dimensions = array<i64: 0>} : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
func.func @math(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = chlo.asin %a : tensor<4xf32> -> tensor<4xf32>
  %1 = chlo.acos %a : tensor<4xf32> -> tensor<4xf32>
  %2 = chlo.atanh %a : tensor<4xf32> -> tensor<4xf32>
  %3 = chlo.sinh %a : tensor<4xf32> -> tensor<4xf32>
  %4 = chlo.erf %a : tensor<4xf32> -> tensor<4xf32>
  %5 = chlo.asinh %a : tensor<4xf32> -> tensor<4xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}"""
    m = compile_src(src)
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b3 = np.array([10, 20, 30], np.float32)
    np.testing.assert_array_equal(m.badd(a, b3), a + b3)
    np.testing.assert_array_equal(m.bdims(a, np.array([2, 3], np.float32)), a * [[2], [3]])
    x = np.array([-0.9, -0.2, 0.3, 0.75], np.float32)
    erf = np.vectorize(math.erf)
    refs = [np.arcsin(x), np.arccos(x), np.arctanh(x), np.sinh(x), erf(x), np.arcsinh(x)]
    for got, ref in zip(m.math(x), refs):
        np.testing.assert_allclose(got, ref.astype(np.float32), rtol=1e-5, atol=1e-6)


def test_unsupported_op_reports_location():
    src = """func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = chlo._asin_acos_kernel %a : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}"""
    with pytest.raises(ireec.CompileError if hasattr(ireec, "CompileError") else Exception) as e:
        ireec.compile_source(src, target="c")
    assert "_asin_acos_kernel" in str(e.value) and ":2:" in str(e.value)


def test_map_barrier_dimension_size_reduce_precision():
    src = """func.func @mp(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {
  %0 = "stablehlo.map"(%a, %b) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %m = stablehlo.multiply %x, %y : tensor<f32>
    %c = stablehlo.constant dense<1.0> : tensor<f32>
    %s = stablehlo.add %m, %c : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {dimensions = array<i64: 0>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %1 = stablehlo.optimization_barrier %0 : tensor<3xf32>
  return %1 : tensor<3xf32>
}
func.func @ds(%a: tensor<3x5xf32>) -> tensor<i32> {
  %0 = stablehlo.get_dimension_size %a, dim = 1 : (tensor<3x5xf32>) -> tensor<i32>
  return %0 : tensor<i32>
}
func.func @rp(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.reduce_precision %a, format = e5m10 : tensor<4xf32>
  return %0 : tensor<4xf32>
}"""
    m = compile_src(src)
    a = np.array([1, 2, 3], np.float32)
    np.testing.assert_array_equal(m.mp(a, a), a * a + 1)
    assert m.ds(np.zeros((3, 5), np.float32)) == 5
    x = np.array([1.0 / 3.0, 70000.0, -1e-3, 2.5], np.float32)
    with np.errstate(over="ignore"):
        ref = x.astype(np.float16).astype(np.float32)
    np.testing.assert_array_equal(m.rp(x), ref)


def test_chlo_next_after():
    src = """func.func @f(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = chlo.broadcast_next_after %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}"""
    a = np.array([1.0, 1.0, 0.0, -2.0], np.float32)
    b = np.array([2.0, 0.0, -1.0, -2.0], np.float32)
    np.testing.assert_array_equal(compile_src(src).f(a, b), np.nextafter(a, b))


def test_chlo_top_k_values_and_indices():
    """``chlo.top_k``: the k largest along the last dimension, descending; ties keep the
    lower index first (as XLA's stable TopK)."""
    m = compile_src("""func.func @f(%a: tensor<3x6xf32>) -> (tensor<3x2xf32>, tensor<3x2xi32>) {
  %v, %i = chlo.top_k(%a, k = 2) : tensor<3x6xf32> -> (tensor<3x2xf32>, tensor<3x2xi32>)
  return %v, %i : tensor<3x2xf32>, tensor<3x2xi32>
}""")
    x = np.array([[1, 5, 3, 5, 0, -1], [-3, -2, -1, -4, -5, -6], [2, 2, 2, 2, 2, 2]], np.float32)
    v, i = m.f(x)
    np.testing.assert_array_equal(i, [[1, 3], [2, 1], [0, 1]])
    np.testing.assert_array_equal(v, np.take_along_axis(x, i, axis=1))

"""Ops of the StableHLO and TOSA specs added for full op-set coverage, each checked against
numpy or a published expectation (source named at the test); see tests/op_coverage.md."""
from __future__ import annotations

import numpy as np
import pytest

import ireec

_CACHE = {}


def compile_src(src: str):
    if src not in _CACHE:
        _CACHE[src] = ireec.compile_source(src, target="c")
    return _CACHE[src]


# ------------------------------------------------------------------ rng_bit_generator THREE_FRY
_M32 = 0xFFFFFFFF


def _threefry2x32(k0: int, k1: int, counter: int):
    """Reference Threefry-2x32-20 (Salmon et al., SC 2011; Random123's threefry.h)."""
    rot = (13, 15, 26, 6, 17, 29, 16, 24)
    ks = (k0, k1, 0x1BD11BDA ^ k0 ^ k1)
    x0 = (counter + k0) & _M32
    x1 = ((counter >> 32) + k1) & _M32
    for i in range(5):
        for j in range(4):
            x0 = (x0 + x1) & _M32
            r = rot[(4 * i) % 8 + j]
            x1 = (((x1 << r) | (x1 >> (32 - r))) & _M32) ^ x0
        x0 = (x0 + ks[(i + 1) % 3]) & _M32
        x1 = (x1 + ks[(i + 2) % 3] + i + 1) & _M32
    return x0, x1


def test_threefry_known_answer():
    # Random123 kat_vectors, "threefry2x32 20": key (13198a2e, 03707344), counter
    # (243f6a88, 85a308d3) -> (c4923a9c, 483df7a0). Validates the reference itself.
    assert _threefry2x32(0x13198A2E, 0x03707344, 0x243F6A88 | 0x85A308D3 << 32) == (0xC4923A9C, 0x483DF7A0)


def _threefry_ref(k0, k1, base, shape, width):
    """XLA's layout of Threefry words over a result of ``shape`` (see random.py)."""
    n = int(np.prod(shape))
    if width == 64:
        return np.array([(lambda w: w[0] | w[1] << 32)(_threefry2x32(k0, k1, base + i)) for i in range(n)],
                        np.uint64).reshape(shape)
    if not shape:
        return np.array(_threefry2x32(k0, k1, base)[0] & ((1 << width) - 1), np.uint64)
    h = next((i for i, d in enumerate(shape) if d % 2 == 0), int(np.argmax(shape)))
    half = list(shape)
    half[h] = (half[h] + 1) // 2
    out = np.zeros(shape, np.uint64)
    for idx in np.ndindex(*shape):
        hidx = list(idx)
        hidx[h] //= 2
        ctr = int(np.ravel_multi_index(hidx, half))
        out[idx] = _threefry2x32(k0, k1, base + ctr)[idx[h] % 2] & ((1 << width) - 1)
    return out


def _rbg_src(alg, st, rt):
    return f"""func.func @f(%s: {st}) -> ({st}, {rt}) {{
  %0:2 = "stablehlo.rng_bit_generator"(%s) {{rng_algorithm = #stablehlo<rng_algorithm {alg}>}} : ({st}) -> ({st}, {rt})
  return %0#0, %0#1 : {st}, {rt}
}}"""


def test_threefry_xla_values():
    # Values XLA produces for state [1, 2, 3, 4] (IREE's e2e test three_fry.mlir).
    m = compile_src(_rbg_src("THREE_FRY", "tensor<4xi32>", "tensor<8xi32>"))
    ns, r = m.f(np.array([1, 2, 3, 4], np.int32))
    np.testing.assert_array_equal(r, [-1997982863, -261361928, -1008514867, 1226850200, 1419974734,
                                      -277475325, 1033030661, -1926332264])
    # Counter base 4 | 3 << 32 advanced by 4, stored back as IREE does: s[2] low, s[3] high.
    np.testing.assert_array_equal(ns, [1, 2, 8, 3])


@pytest.mark.parametrize("st,rt,shape,width", [
    ("tensor<4xui32>", "tensor<3x5xui32>", (3, 5), 32),
    ("tensor<4xi32>", "tensor<5x2x3xi16>", (5, 2, 3), 16),
    ("tensor<2xui64>", "tensor<2x3xui64>", (2, 3), 64),
    ("tensor<2xi64>", "tensor<i32>", (), 32),
])
def test_threefry_layouts(st, rt, shape, width):
    m = compile_src(_rbg_src("THREE_FRY", st, rt))
    if st.startswith("tensor<4x"):
        s = np.array([0x12345678, 0x9ABCDEF0, 0xFFFFFFFF, 7], np.uint32)
        k0, k1, base = int(s[0]), int(s[1]), int(s[3]) | int(s[2]) << 32
        s = s.view(np.int32) if "xi32" in st else s
    else:
        s = np.array([0x0123456789ABCDEF, 0xFFFFFFFFFFFFFFFE], np.uint64)
        k0, k1, base = int(s[0]) & _M32, int(s[0]) >> 32, int(s[1])
        s = s.view(np.int64) if "xi64" in st else s
    ns, r = m.f(s)
    exp = _threefry_ref(k0, k1, base, shape, width)
    np.testing.assert_array_equal(np.asarray(r).astype(np.uint64) & np.uint64((1 << width) - 1) if width < 64
                                  else np.asarray(r).view(np.uint64), exp)
    h = next((i for i, d in enumerate(shape) if d % 2 == 0), int(np.argmax(shape))) if shape else None
    used = int(np.prod(shape)) if width == 64 else (1 if h is None else
                                                     int(np.prod(shape)) // shape[h] * ((shape[h] + 1) // 2))
    new_base = (base + used) & ((1 << 64) - 1)
    if st.startswith("tensor<4x"):
        np.testing.assert_array_equal(np.asarray(ns).view(np.uint32)[2:], [new_base & _M32, new_base >> 32])
    else:
        assert int(np.asarray(ns).view(np.uint64)[1]) == new_base


# ----------------------------------------------------------------------- TOSA bit operators
_TOSA_BITS = """
func.func @clz32(%a: tensor<6xi32>) -> tensor<6xi32> {
  %0 = tosa.clz %a : (tensor<6xi32>) -> tensor<6xi32>
  return %0 : tensor<6xi32>
}
func.func @clz8(%a: tensor<6xi8>) -> tensor<6xi8> {
  %0 = tosa.clz %a : (tensor<6xi8>) -> tensor<6xi8>
  return %0 : tensor<6xi8>
}
func.func @bits16(%a: tensor<6xi16>, %b: tensor<6xi16>) -> (tensor<6xi16>, tensor<6xi16>, tensor<6xi16>, tensor<6xi16>) {
  %0 = tosa.bitwise_and %a, %b : (tensor<6xi16>, tensor<6xi16>) -> tensor<6xi16>
  %1 = tosa.bitwise_or %a, %b : (tensor<6xi16>, tensor<6xi16>) -> tensor<6xi16>
  %2 = tosa.bitwise_xor %a, %b : (tensor<6xi16>, tensor<6xi16>) -> tensor<6xi16>
  %3 = tosa.bitwise_not %a : (tensor<6xi16>) -> tensor<6xi16>
  return %0, %1, %2, %3 : tensor<6xi16>, tensor<6xi16>, tensor<6xi16>, tensor<6xi16>
}
func.func @shifts8(%a: tensor<6xi8>, %s: tensor<6xi8>) -> (tensor<6xi8>, tensor<6xi8>, tensor<6xi8>, tensor<6xi8>) {
  %0 = tosa.logical_left_shift %a, %s : (tensor<6xi8>, tensor<6xi8>) -> tensor<6xi8>
  %1 = tosa.logical_right_shift %a, %s : (tensor<6xi8>, tensor<6xi8>) -> tensor<6xi8>
  %2 = tosa.arithmetic_right_shift %a, %s {round = false} : (tensor<6xi8>, tensor<6xi8>) -> tensor<6xi8>
  %3 = tosa.arithmetic_right_shift %a, %s {round = true} : (tensor<6xi8>, tensor<6xi8>) -> tensor<6xi8>
  return %0, %1, %2, %3 : tensor<6xi8>, tensor<6xi8>, tensor<6xi8>, tensor<6xi8>
}
func.func @shifts32(%a: tensor<6xi32>, %s: tensor<6xi32>) -> (tensor<6xi32>, tensor<6xi32>, tensor<6xi32>) {
  %0 = tosa.logical_left_shift %a, %s : (tensor<6xi32>, tensor<6xi32>) -> tensor<6xi32>
  %1 = tosa.logical_right_shift %a, %s : (tensor<6xi32>, tensor<6xi32>) -> tensor<6xi32>
  %2 = tosa.arithmetic_right_shift %a, %s {round = true} : (tensor<6xi32>, tensor<6xi32>) -> tensor<6xi32>
  return %0, %1, %2 : tensor<6xi32>, tensor<6xi32>, tensor<6xi32>
}
func.func @mul_shift(%a: tensor<5xi32>, %b: tensor<5xi32>) -> tensor<5xi32> {
  %s = "tosa.const"() <{values = dense<1> : tensor<1xi8>}> : () -> tensor<1xi8>
  %0 = tosa.mul %a, %b, %s : (tensor<5xi32>, tensor<5xi32>, tensor<1xi8>) -> tensor<5xi32>
  return %0 : tensor<5xi32>
}
func.func @erf(%a: tensor<6xf32>) -> tensor<6xf32> {
  %0 = tosa.erf %a : (tensor<6xf32>) -> tensor<6xf32>
  return %0 : tensor<6xf32>
}
func.func @intdiv(%a: tensor<6xi32>, %b: tensor<6xi32>) -> tensor<6xi32> {
  %0 = tosa.intdiv %a, %b : (tensor<6xi32>, tensor<6xi32>) -> tensor<6xi32>
  return %0 : tensor<6xi32>
}
"""


def _clz_ref(x: np.ndarray, width: int) -> np.ndarray:
    u = x.astype(np.int64) & ((1 << width) - 1)
    return np.array([width - int(v).bit_length() for v in u])


def _ars_ref(a, s, width, rnd):
    """TOSA 1.0 ARITHMETIC_RIGHT_SHIFT: a >> s, plus bit s-1 of a when round and s > 0."""
    a64, s64 = a.astype(np.int64), s.astype(np.int64)
    r = a64 >> s64
    if rnd:
        r = r + np.where(s64 > 0, (a64 >> np.maximum(s64 - 1, 0)) & 1, 0)
    return r


def test_tosa_bit_ops():
    m = compile_src(_TOSA_BITS)
    x32 = np.array([0, 1, -8, 256, 0x7FFFFFFF, -1], np.int32)
    # clz of [0, 1, -8, 256] is [32, 31, 0, 23] (IREE's e2e test tosa_ops/clz.mlir).
    np.testing.assert_array_equal(m.clz32(x32), _clz_ref(x32, 32))
    np.testing.assert_array_equal(m.clz32(x32)[:4], [32, 31, 0, 23])
    x8 = np.array([0, 1, -128, 127, 16, -1], np.int8)
    np.testing.assert_array_equal(m.clz8(x8), _clz_ref(x8, 8))
    a = np.array([0x7FFF, -32768, 0x1234, -1, 0, 0x5555], np.int16)
    b = np.array([0x0F0F, -1, 0x00FF, 0x7FFF, -32768, 0x2AAA], np.int16)
    got = m.bits16(a, b)
    for g, e in zip(got, (a & b, a | b, a ^ b, ~a)):
        np.testing.assert_array_equal(g, e)
    a8 = np.array([-128, 127, -7, 5, -1, 64], np.int8)
    s8 = np.array([1, 3, 1, 0, 7, 6], np.int8)
    lls, lrs, ars, arsr = m.shifts8(a8, s8)
    np.testing.assert_array_equal(lls, (a8.astype(np.int64) << s8).astype(np.int8))
    np.testing.assert_array_equal(lrs, ((a8.astype(np.int64) & 0xFF) >> s8).astype(np.int8))
    np.testing.assert_array_equal(ars, _ars_ref(a8, s8, 8, False))
    np.testing.assert_array_equal(arsr, _ars_ref(a8, s8, 8, True))
    a32 = np.array([-2147483648, 2147483647, -9, 9, 1, -1], np.int32)
    s32 = np.array([31, 1, 1, 2, 31, 0], np.int32)
    lls, lrs, arsr = m.shifts32(a32, s32)
    np.testing.assert_array_equal(lls, (a32.astype(np.int64) << s32).astype(np.int32))
    np.testing.assert_array_equal(lrs, ((a32.astype(np.int64) & 0xFFFFFFFF) >> s32).astype(np.int32))
    np.testing.assert_array_equal(arsr, _ars_ref(a32, s32, 32, True))
    # Rounding shift of the product: (a * b + 1) >> 1 (IREE's e2e test tosa_ops/mul_shift.mlir).
    np.testing.assert_array_equal(m.mul_shift(np.array([1, 0, 3, 4, 4], np.int32),
                                              np.array([5, 6, -3, 8, 8], np.int32)), [3, 0, -4, 16, 16])
    n = np.array([7, -7, 7, -7, -2147483648, 0], np.int32)
    d = np.array([2, 2, -2, -2, 3, 5], np.int32)
    np.testing.assert_array_equal(m.intdiv(n, d), np.trunc(n.astype(np.float64) / d).astype(np.int32))


def test_tosa_erf():
    import math
    x = np.array([-3.0, -0.5, 0.0, 0.25, 1.0, 2.5], np.float32)
    np.testing.assert_allclose(compile_src(_TOSA_BITS).erf(x), [math.erf(float(v)) for v in x],
                               rtol=1e-6, atol=1e-7)



# -------------------------------------------------------------------- integer edge cases
_INT_TYPES = [("i8", np.int8), ("i16", np.int16), ("i32", np.int32), ("i64", np.int64),
              ("ui8", np.uint8), ("ui16", np.uint16), ("ui32", np.uint32), ("ui64", np.uint64)]


def _edge_module(et: str, lo: int, hi: int) -> str:
    t = f"tensor<{et}>"
    return f"""
func.func @consts() -> tensor<2x{et}> {{
  %0 = stablehlo.constant dense<[{lo}, {hi}]> : tensor<2x{et}>
  return %0 : tensor<2x{et}>
}}
func.func @folds() -> ({t}, {t}, {t}, {t}) {{
  %lo = stablehlo.constant dense<{lo}> : {t}
  %hi = stablehlo.constant dense<{hi}> : {t}
  %one = stablehlo.constant dense<1> : {t}
  %0 = stablehlo.add %hi, %one : {t}
  %1 = stablehlo.subtract %lo, %one : {t}
  %2 = stablehlo.multiply %hi, %hi : {t}
  %3 = stablehlo.negate %lo : {t}
  return %0, %1, %2, %3 : {t}, {t}, {t}, {t}
}}
func.func @reduce(%a: tensor<4x{et}>) -> ({t}, {t}, {t}) {{
  %lo = stablehlo.constant dense<{lo}> : {t}
  %hi = stablehlo.constant dense<{hi}> : {t}
  %one = stablehlo.constant dense<1> : {t}
  %init = stablehlo.add %hi, %one : {t}
  %0 = stablehlo.reduce(%a init: %lo) applies stablehlo.maximum across dimensions = [0] : (tensor<4x{et}>, {t}) -> {t}
  %1 = stablehlo.reduce(%a init: %hi) applies stablehlo.minimum across dimensions = [0] : (tensor<4x{et}>, {t}) -> {t}
  %2 = stablehlo.reduce(%a init: %init) applies stablehlo.add across dimensions = [0] : (tensor<4x{et}>, {t}) -> {t}
  return %0, %1, %2 : {t}, {t}, {t}
}}
func.func @compare() -> (tensor<2xi1>, tensor<2xi1>) {{
  %c = stablehlo.constant dense<[{lo}, {hi}]> : tensor<2x{et}>
  %d = stablehlo.constant dense<[{hi}, {lo}]> : tensor<2x{et}>
  %0 = stablehlo.compare LT, %c, %d : (tensor<2x{et}>, tensor<2x{et}>) -> tensor<2xi1>
  %1 = stablehlo.compare GE, %c, %d : (tensor<2x{et}>, tensor<2x{et}>) -> tensor<2xi1>
  return %0, %1 : tensor<2xi1>, tensor<2xi1>
}}
"""


@pytest.mark.parametrize("et,dt", _INT_TYPES, ids=[e for e, _ in _INT_TYPES])
def test_integer_min_max(et, dt):
    """Each integer type's min and max through constants, folds that overflow (wrapping as
    two's complement), reductions whose init values are the extremes (or overflowed ones)
    and comparisons; nothing in the compiler may go through an out-of-range numpy int."""
    info = np.iinfo(dt)
    lo, hi = int(info.min), int(info.max)
    m = compile_src(_edge_module(et, lo, hi))
    np.testing.assert_array_equal(m.consts(), np.array([lo, hi], dt))
    with np.errstate(over="ignore"):
        exp = (dt(hi) + dt(1), dt(lo) - dt(1), dt(hi) * dt(hi), -dt(lo) if info.min < 0 else dt(0) - dt(lo))
    for got, e in zip(m.folds(), exp):
        assert np.asarray(got).dtype == dt and np.asarray(got) == e, (got, e)
    x = np.array([hi, lo, 1, 2], dt)
    with np.errstate(over="ignore"):
        mx, mn, sm = m.reduce(x)
        assert (mx, mn) == (hi, lo)
        assert sm == (dt(hi) + dt(1)) + x.sum(dtype=dt)
    lt, ge = m.compare()
    np.testing.assert_array_equal(lt, [True, False])
    np.testing.assert_array_equal(ge, [False, True])


def test_i1_edges():
    src = """func.func @f(%a: tensor<3xi1>) -> (tensor<i1>, tensor<i1>, tensor<2xi1>) {
  %t = stablehlo.constant dense<true> : tensor<1xi1>
  %f = stablehlo.constant dense<false> : tensor<i1>
  %tt = stablehlo.constant dense<true> : tensor<i1>
  %s = stablehlo.add %t, %t : tensor<1xi1>
  %0 = stablehlo.reduce(%a init: %f) applies stablehlo.or across dimensions = [0] : (tensor<3xi1>, tensor<i1>) -> tensor<i1>
  %1 = stablehlo.reduce(%a init: %tt) applies stablehlo.and across dimensions = [0] : (tensor<3xi1>, tensor<i1>) -> tensor<i1>
  %c = stablehlo.concatenate %s, %t, dim = 0 : (tensor<1xi1>, tensor<1xi1>) -> tensor<2xi1>
  return %0, %1, %c : tensor<i1>, tensor<i1>, tensor<2xi1>
}"""
    o, a, c = compile_src(src).f(np.array([False, True, False]))
    assert bool(o) and not bool(a)
    np.testing.assert_array_equal(c, [True, True])  # i1 add is or (StableHLO's boolean add)


def test_int_array_wraps():
    from ireec.ir import types as T
    from ireec.ir.attributes import DenseElementsAttr, int_array, wrap_int

    assert wrap_int(128, T.IntegerType(8)) == -128 and wrap_int(-129, T.IntegerType(8)) == 127
    assert wrap_int(-1, T.IntegerType(8, "u")) == 255 and wrap_int(2, T.IntegerType(1)) == 0
    assert wrap_int(2 ** 63, T.IntegerType(64)) == -2 ** 63
    np.testing.assert_array_equal(int_array([128, -129, 2 ** 64 - 1, 2 ** 70 + 3], T.IntegerType(8)),
                                  np.array([-128, 127, -1, 3], np.int8))
    np.testing.assert_array_equal(int_array(np.array([-1, 256], np.int64), T.IntegerType(16, "u")),
                                  np.array([65535, 256], np.uint16))
    np.testing.assert_array_equal(int_array([8, -9], T.IntegerType(4)), np.array([-8, 7], np.int8))
    assert str(DenseElementsAttr.splat(128, T.TensorType((4,), T.IntegerType(8)))) == "dense<-128> : tensor<4xi8>"
    assert str(DenseElementsAttr([255, 256], T.TensorType((2,), T.IntegerType(8, "u")))) == \
        "dense<[255, 0]> : tensor<2xui8>"


# -------------------------------------------------------------------------- rng NORMAL
def test_rng_normal_as_iree():
    # IREE's values for a 3x5 NORMAL(0, 1) (e2e test stablehlo_ops/rng_normal.mlir, tolerance
    # 1e-4): its compile-time Box-Muller over std::mt19937 seeded with 0.
    src = """func.func @f(%mu: tensor<f32>, %sigma: tensor<f32>) -> tensor<3x5xf32> {
  %shape = stablehlo.constant dense<[3, 5]> : tensor<2xi64>
  %0 = stablehlo.rng %mu, %sigma, %shape, distribution = NORMAL : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}"""
    m = compile_src(src)
    ref = np.array([[0.570861, 0.317593, -0.726538, 1.45925, -1.59632],
                    [-0.639956, 0.703875, -0.8801, -0.848389, -0.453391],
                    [0.645563, 0.543174, 0.2255, 0.0809385, -1.17198]], np.float32)
    np.testing.assert_allclose(m.f(np.float32(0), np.float32(1)), ref, atol=1e-4)
    np.testing.assert_allclose(m.f(np.float32(2), np.float32(0.5)), 2 + 0.5 * ref, atol=1e-4)


# -------------------------------------------------------------------------------- CHLO
_CHLO = """
func.func @special(%x: tensor<10xf32>) -> (tensor<10xf32>, tensor<10xf32>) {
  %0 = chlo.lgamma %x : tensor<10xf32> -> tensor<10xf32>
  %1 = chlo.digamma %x : tensor<10xf32> -> tensor<10xf32>
  return %0, %1 : tensor<10xf32>, tensor<10xf32>
}
func.func @erf_inv(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = chlo.erf_inv %x : tensor<8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
func.func @conj(%re: tensor<3xf32>, %im: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %x = stablehlo.complex %re, %im : tensor<3xcomplex<f32>>
  %0 = chlo.conj %x : tensor<3xcomplex<f32>> -> tensor<3xcomplex<f32>>
  %1 = stablehlo.real %0 : (tensor<3xcomplex<f32>>) -> tensor<3xf32>
  %2 = stablehlo.imag %0 : (tensor<3xcomplex<f32>>) -> tensor<3xf32>
  return %1, %2 : tensor<3xf32>, tensor<3xf32>
}
func.func @like(%x: tensor<2x3xi8>) -> tensor<2x3xi8> {
  %0 = "chlo.constant_like"(%x) {value = 200 : i32} : (tensor<2x3xi8>) -> tensor<2x3xi8>
  return %0 : tensor<2x3xi8>
}
func.func @mulhi(%a: tensor<4xi32>, %b: tensor<4xi32>, %c: tensor<4xui16>, %d: tensor<4xui16>) -> (tensor<4xi32>, tensor<4xui16>) {
  %0 = chlo.mulhi %a, %b : tensor<4xi32>, tensor<4xi32> -> tensor<4xi32>
  %1 = chlo.mulhi %c, %d : tensor<4xui16>, tensor<4xui16> -> tensor<4xui16>
  return %0, %1 : tensor<4xi32>, tensor<4xui16>
}
"""


def _digamma_ref(x: float) -> float:
    """psi(x) by recurrence to x >= 10, then the asymptotic series (Abramowitz & Stegun
    6.3.18); reflection psi(1 - x) - pi cot(pi x) below 0.5."""
    import math
    if x < 0.5:
        return _digamma_ref(1 - x) - math.pi / math.tan(math.pi * x)
    acc = 0.0
    while x < 10:
        acc -= 1 / x
        x += 1
    x2 = 1 / (x * x)
    return acc + math.log(x) - 0.5 / x - x2 * (1 / 12 - x2 * (1 / 120 - x2 / 252))


def test_chlo_decompositions():
    import math
    import statistics
    m = compile_src(_CHLO)
    x = np.array([0.1, 0.5, 1.0, 1.5, 2.5, 7.0, 30.0, -0.5, -2.5, -3.7], np.float32)
    lg, dg = m.special(x)
    np.testing.assert_allclose(lg, [math.lgamma(float(v)) for v in x], rtol=2e-5, atol=2e-5)
    np.testing.assert_allclose(dg, [_digamma_ref(float(v)) for v in x], rtol=2e-5, atol=2e-5)
    poles_lg, poles_dg = m.special(np.array([0, -1, -2, np.inf, 1, 2, 3, 4, 5, 6], np.float32))
    assert np.all(np.isinf(poles_lg[:4])) and np.all(np.isnan(poles_dg[:3]))
    p = np.array([-0.999, -0.9, -0.5, 0.0, 0.3, 0.7, 0.99999, 1.0], np.float32)
    nd = statistics.NormalDist()
    ref = [nd.inv_cdf((float(v) + 1) / 2) / math.sqrt(2) if abs(v) < 1 else math.inf for v in p]
    np.testing.assert_allclose(m.erf_inv(p), ref, rtol=3e-5, atol=1e-6)
    re, im = np.array([1, -3, 0], np.float32), np.array([2, -0.5, 0], np.float32)
    cr, ci = m.conj(re, im)
    np.testing.assert_array_equal(cr, re)
    np.testing.assert_array_equal(ci, -im)
    np.testing.assert_array_equal(m.like(np.zeros((2, 3), np.int8)), np.full((2, 3), -56, np.int8))
    a = np.array([2 ** 31 - 1, -2 ** 31, 12345678, -7], np.int32)
    b = np.array([2 ** 31 - 1, 3, -98765432, 5], np.int32)
    c16 = np.array([65535, 40000, 3, 0], np.uint16)
    d16 = np.array([65535, 50000, 7, 9], np.uint16)
    hi32, hi16 = m.mulhi(a, b, c16, d16)
    np.testing.assert_array_equal(hi32, ((a.astype(np.int64) * b) >> 32).astype(np.int32))
    np.testing.assert_array_equal(hi16, ((c16.astype(np.uint64) * d16) >> 16).astype(np.uint16))


# ------------------------------------------------------- StableHLO linear algebra, batch norm
_LINALG = """
func.func @chol(%a: tensor<2x4x4xf32>) -> (tensor<2x4x4xf32>, tensor<2x4x4xf32>) {
  %0 = stablehlo.cholesky %a, lower = true : tensor<2x4x4xf32>
  %1 = stablehlo.cholesky %a, lower = false : tensor<2x4x4xf32>
  return %0, %1 : tensor<2x4x4xf32>, tensor<2x4x4xf32>
}
func.func @tsolve(%a: tensor<4x4xf32>, %b: tensor<4x3xf32>, %c: tensor<3x4xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>, tensor<3x4xf32>, tensor<4x3xf32>) {
  %0 = "stablehlo.triangular_solve"(%a, %b) {left_side = true, lower = true, unit_diagonal = false, transpose_a = #stablehlo<transpose NO_TRANSPOSE>} : (tensor<4x4xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  %1 = "stablehlo.triangular_solve"(%a, %b) {left_side = true, lower = false, unit_diagonal = true, transpose_a = #stablehlo<transpose NO_TRANSPOSE>} : (tensor<4x4xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  %2 = "stablehlo.triangular_solve"(%a, %c) {left_side = false, lower = true, unit_diagonal = false, transpose_a = #stablehlo<transpose TRANSPOSE>} : (tensor<4x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %3 = "stablehlo.triangular_solve"(%a, %b) {left_side = true, lower = true, unit_diagonal = false, transpose_a = #stablehlo<transpose ADJOINT>} : (tensor<4x4xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  return %0, %1, %2, %3 : tensor<4x3xf32>, tensor<4x3xf32>, tensor<3x4xf32>, tensor<4x3xf32>
}
"""

_BATCH_NORM_IDS = """
func.func @bn_train(%x: tensor<2x3x4xf32>, %s: tensor<3xf32>, %o: tensor<3xf32>) -> (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>) {
  %0:3 = "stablehlo.batch_norm_training"(%x, %s, %o) {epsilon = 1.0e-3 : f32, feature_index = 1 : i64} : (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>)
  return %0#0, %0#1, %0#2 : tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>
}
func.func @bn_grad(%x: tensor<2x3x4xf32>, %s: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>, %g: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>) {
  %0:3 = "stablehlo.batch_norm_grad"(%x, %s, %m, %v, %g) {epsilon = 1.0e-3 : f32, feature_index = 1 : i64} : (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>)
  return %0#0, %0#1, %0#2 : tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>
}
func.func @ids() -> (tensor<ui32>, tensor<ui32>, tensor<2xf32>) {
  %0 = stablehlo.replica_id : tensor<ui32>
  %1 = stablehlo.partition_id : tensor<ui32>
  %c = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %d = stablehlo.constant dense<3> : tensor<i32>
  %t = stablehlo.tuple %d, %c : tuple<tensor<i32>, tensor<2xf32>>
  %e = stablehlo.get_tuple_element %t[1] : (tuple<tensor<i32>, tensor<2xf32>>) -> tensor<2xf32>
  return %0, %1, %e : tensor<ui32>, tensor<ui32>, tensor<2xf32>
}
"""


def test_cholesky_triangular_solve():
    m = compile_src(_LINALG)
    rng = np.random.default_rng(0)
    g = rng.standard_normal((2, 4, 4)).astype(np.float32)
    a = (g @ g.transpose(0, 2, 1) + 4 * np.eye(4, dtype=np.float32)).astype(np.float32)
    lo, up = m.chol(a)
    ref = np.linalg.cholesky(a.astype(np.float64))
    np.testing.assert_allclose(lo, ref, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(up, ref.transpose(0, 2, 1), rtol=1e-5, atol=1e-5)
    # IREE's e2e test stablehlo_ops/cholesky.mlir (values from XLA).
    a0 = np.array([[4.19151945, 0.70104229, 0.69793355, 0.73441076],
                   [0.70104229, 4.27259261, 0.57619844, 0.7572871],
                   [0.69793355, 0.57619844, 4.35781727, 0.43562294],
                   [0.73441076, 0.7572871, 0.43562294, 4.56119619]], np.float32)
    lo, _ = m.chol(np.stack([a0, a0]))
    np.testing.assert_allclose(lo[0], [[2.0473201, 0, 0, 0], [0.34241948, 2.0384655, 0, 0],
                                       [0.34090105, 0.22539862, 2.0471442, 0],
                                       [0.3587181, 0.31124148, 0.11879093, 2.0788302]], rtol=1e-5, atol=1e-6)
    t = rng.standard_normal((4, 4)).astype(np.float32) + 4 * np.eye(4, dtype=np.float32)
    b = rng.standard_normal((4, 3)).astype(np.float32)
    c = rng.standard_normal((3, 4)).astype(np.float32)
    x0, x1, x2, x3 = m.tsolve(t, b, c)
    L, U = np.tril(t).astype(np.float64), np.triu(t).astype(np.float64)
    U1 = U - np.diag(np.diag(U)) + np.eye(4)
    np.testing.assert_allclose(x0, np.linalg.solve(L, b), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(x1, np.linalg.solve(U1, b), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(x2, np.linalg.solve(L, c.T).T, rtol=1e-4, atol=1e-5)  # x L^T = c
    np.testing.assert_allclose(x3, np.linalg.solve(L.T, b), rtol=1e-4, atol=1e-5)


def test_batch_norm_training_grad_ids_tuple():
    m = compile_src(_BATCH_NORM_IDS)
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)
    s = np.array([0.5, 1.0, 2.0], np.float32)
    o = np.array([0.1, -0.2, 0.3], np.float32)
    out, mean, var = m.bn_train(x, s, o)
    rm, rv = x.mean(axis=(0, 2)), x.var(axis=(0, 2))
    np.testing.assert_allclose(mean, rm, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(var, rv, rtol=1e-5, atol=1e-6)
    ref = (x - rm[None, :, None]) * s[None, :, None] / np.sqrt(rv[None, :, None] + 1e-3) + o[None, :, None]
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5)
    gy = rng.standard_normal((2, 3, 4)).astype(np.float32)
    gx, gs, go = m.bn_grad(x, s, rm, rv, gy)
    # Reference: the gradient of the training-mode normalization (mean/var of the batch).
    n = 8.0
    xh = (x - rm[None, :, None]) / np.sqrt(rv[None, :, None] + 1e-3)
    np.testing.assert_allclose(go, gy.sum(axis=(0, 2)), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(gs, (gy * xh).sum(axis=(0, 2)), rtol=1e-5, atol=1e-5)
    ref_gx = (s / np.sqrt(rv + 1e-3))[None, :, None] / n * (
        n * gy - gy.sum(axis=(0, 2))[None, :, None] - xh * (gy * xh).sum(axis=(0, 2))[None, :, None])
    np.testing.assert_allclose(gx, ref_gx, rtol=1e-4, atol=1e-5)
    rid, pid, e = m.ids()
    assert int(rid) == 0 and int(pid) == 0
    np.testing.assert_array_equal(e, [1.0, 2.0])


def test_check_positional_tolerance():
    """The older ``check.expect_almost_eq_const(%a, dense<...>, 1.0e-4)`` form (IREE's e2e
    rng_normal test) reads the bare number as the absolute tolerance."""
    from ireec.frontend.parser import parse_source
    m = parse_source("""func.func @t() {
  %a = arith.constant dense<1.0> : tensor<2xf32>
  check.expect_almost_eq_const(%a, dense<1.0> : tensor<2xf32>, 1.0e-2) : tensor<2xf32>
  return
}""")
    op = next(o for o in m.walk() if o.name == "check.expect_almost_eq_const")
    assert abs(op.attributes["atol"].value - 1e-2) < 1e-9 and "rtol" not in op.attributes


def test_composite_inlines_its_decomposition():
    src = """func.func @f(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.composite "my.gelu_like" %x {composite_attributes = {approximate = false}, decomposition = @dec, version = 1 : i32} : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
func.func private @dec(%a: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.multiply %a, %a : tensor<3xf32>
  %1 = stablehlo.add %0, %a : tensor<3xf32>
  return %1 : tensor<3xf32>
}"""
    x = np.array([1.0, -2.0, 0.5], np.float32)
    np.testing.assert_array_equal(compile_src(src).f(x), x * x + x)


_CHLO_REST = """
func.func @unary(%x: tensor<6xf32>) -> (tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>) {
  %0 = chlo.acosh %x : tensor<6xf32> -> tensor<6xf32>
  %1 = chlo.atan %x : tensor<6xf32> -> tensor<6xf32>
  %2 = chlo.cosh %x : tensor<6xf32> -> tensor<6xf32>
  %3 = chlo.erfc %x : tensor<6xf32> -> tensor<6xf32>
  %4 = chlo.square %x : tensor<6xf32> -> tensor<6xf32>
  %5 = chlo.tan %x : tensor<6xf32> -> tensor<6xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>
}
func.func @classify(%x: tensor<5xf32>) -> (tensor<5xi1>, tensor<5xi1>, tensor<5xi1>, tensor<5xf32>, tensor<5xf32>) {
  %0 = chlo.is_inf %x : tensor<5xf32> -> tensor<5xi1>
  %1 = chlo.is_pos_inf %x : tensor<5xf32> -> tensor<5xi1>
  %2 = chlo.is_neg_inf %x : tensor<5xf32> -> tensor<5xi1>
  %y = chlo.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0]> : tensor<5xf32>
  %3 = chlo.next_after %y, %x : tensor<5xf32>, tensor<5xf32> -> tensor<5xf32>
  return %0, %1, %2, %3, %y : tensor<5xi1>, tensor<5xi1>, tensor<5xi1>, tensor<5xf32>, tensor<5xf32>
}
func.func @bfloat(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = chlo.broadcast_atan2 %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = chlo.broadcast_divide %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %2 = chlo.broadcast_maximum %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %3 = chlo.broadcast_minimum %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %4 = chlo.broadcast_power %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %5 = chlo.broadcast_remainder %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %6 = chlo.broadcast_subtract %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}
func.func @bint(%a: tensor<2x3xi32>, %b: tensor<3xi32>) -> (tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi1>, tensor<2x3xi32>) {
  %0 = chlo.broadcast_and %a, %b : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  %1 = chlo.broadcast_or %a, %b : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  %2 = chlo.broadcast_xor %a, %b : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  %3 = chlo.broadcast_shift_left %a, %b : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  %4 = chlo.broadcast_shift_right_arithmetic %a, %b : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  %5 = chlo.broadcast_shift_right_logical %a, %b : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  %6 = chlo.broadcast_compare %a, %b {comparison_direction = #chlo<comparison_direction LT>} : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi1>
  %7 = chlo.broadcast_select %6, %a, %b : (tensor<2x3xi1>, tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi1>, tensor<2x3xi32>
}
func.func @bcomplex(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = chlo.broadcast_complex %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xcomplex<f32>>
  %1 = stablehlo.real %0 : (tensor<2x3xcomplex<f32>>) -> tensor<2x3xf32>
  %2 = stablehlo.imag %0 : (tensor<2x3xcomplex<f32>>) -> tensor<2x3xf32>
  return %1, %2 : tensor<2x3xf32>, tensor<2x3xf32>
}
"""


def test_chlo_elementwise_and_broadcasting():
    import math
    m = compile_src(_CHLO_REST)
    x = np.array([1.0, 1.5, 2.0, 3.0, 0.5, 1.2], np.float32)
    got = m.unary(x)
    erfc = np.array([math.erfc(float(v)) for v in x])
    with np.errstate(invalid="ignore"):  # arccosh(0.5) is NaN on both sides
        refs = (np.arccosh(x), np.arctan(x), np.cosh(x), erfc, x * x, np.tan(x))
    for g, e in zip(got, refs):
        np.testing.assert_allclose(g, e.astype(np.float32), rtol=2e-6, atol=1e-6)
    v = np.array([np.inf, -np.inf, 1.0, np.nan, 5.0], np.float32)
    i, p, n, na, y = m.classify(v)
    np.testing.assert_array_equal(i, np.isinf(v))
    np.testing.assert_array_equal(p, np.isposinf(v))
    np.testing.assert_array_equal(n, np.isneginf(v))
    np.testing.assert_array_equal(y, [0, 1, 2, 3, 4])
    np.testing.assert_array_equal(na, np.nextafter(y, v))
    a = np.array([[1.0, -2.0, 3.0], [4.5, 0.5, -1.0]], np.float32)
    b = np.array([2.0, 3.0, -1.5], np.float32)
    refs = (np.arctan2(a, b), a / b, np.maximum(a, b), np.minimum(a, b), np.power(np.abs(a), b),
            np.fmod(a, b), a - b)
    got = m.bfloat(a, b)
    for k, (g, e) in enumerate(zip(got, refs)):
        if k == 4:  # power of negative bases with non-integer exponents is NaN in both
            with np.errstate(invalid="ignore"):
                e = np.power(a, b)
        np.testing.assert_allclose(g, e, rtol=2e-6, atol=1e-6, equal_nan=True)
    ai = np.array([[7, -8, 255], [-1, 1024, 3]], np.int32)
    bi = np.array([1, 2, 4], np.int32)
    got = m.bint(ai, bi)
    refs = (ai & bi, ai | bi, ai ^ bi, ai << bi, ai >> bi,
            ((ai.astype(np.int64) & 0xFFFFFFFF) >> bi).astype(np.int32), ai < bi, np.where(ai < bi, ai, bi))
    for g, e in zip(got, refs):
        np.testing.assert_array_equal(g, e)
    re, im = m.bcomplex(a, b)
    np.testing.assert_array_equal(re, a)
    np.testing.assert_array_equal(im, np.broadcast_to(b, a.shape))


def test_tosa_reductions_all_any_min_product():
    src = """func.func @f(%a: tensor<2x3xi1>, %b: tensor<2x3xf32>) -> (tensor<1x3xi1>, tensor<2x1xi1>, tensor<1x3xf32>, tensor<2x1xf32>, tensor<2x1xf32>) {
  %0 = tosa.reduce_all %a {axis = 0 : i32} : (tensor<2x3xi1>) -> tensor<1x3xi1>
  %1 = tosa.reduce_any %a {axis = 1 : i32} : (tensor<2x3xi1>) -> tensor<2x1xi1>
  %2 = tosa.reduce_min %b {axis = 0 : i32} : (tensor<2x3xf32>) -> tensor<1x3xf32>
  %3 = tosa.reduce_product %b {axis = 1 : i32} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  %4 = "tosa.reduce_prod"(%b) {axis = 1 : i32} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  return %0, %1, %2, %3, %4 : tensor<1x3xi1>, tensor<2x1xi1>, tensor<1x3xf32>, tensor<2x1xf32>, tensor<2x1xf32>
}"""
    a = np.array([[True, False, True], [True, False, False]])
    b = np.array([[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]], np.float32)
    al, an, mn, pr, pr2 = compile_src(src).f(a, b)
    np.testing.assert_array_equal(al, a.all(axis=0, keepdims=True))
    np.testing.assert_array_equal(an, a.any(axis=1, keepdims=True))
    np.testing.assert_array_equal(mn, b.min(axis=0, keepdims=True))
    np.testing.assert_allclose(pr, b.prod(axis=1, keepdims=True), rtol=1e-6)
    np.testing.assert_allclose(pr2, b.prod(axis=1, keepdims=True), rtol=1e-6)


def test_dynamic_iota_with_constant_shape():
    src = """func.func @f() -> tensor<2x3xi32> {
  %s = stablehlo.constant dense<[2, 3]> : tensor<2xi64>
  %0 = stablehlo.dynamic_iota %s, dim = 1 : (tensor<2xi64>) -> tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}"""
    np.testing.assert_array_equal(compile_src(src).f(), np.broadcast_to(np.arange(3, dtype=np.int32), (2, 3)))


# ------------------------------------------------------------------- TOSA spatial operators
_TOSA_SPATIAL = """
func.func @conv3d(%x: tensor<1x4x5x4x2xf32>, %w: tensor<3x2x3x2x2xf32>, %b: tensor<3xf32>) -> tensor<1x3x2x4x3xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.conv3d %x, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1, 1>, pad = array<i64: 0, 0, 1, 0, 1, 1>, stride = array<i64: 1, 2, 1>} : (tensor<1x4x5x4x2xf32>, tensor<3x2x3x2x2xf32>, tensor<3xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x3x2x4x3xf32>
  return %0 : tensor<1x3x2x4x3xf32>
}
func.func @tconv(%x: tensor<1x3x2x2xf32>, %w: tensor<3x3x2x2xf32>, %b: tensor<3xf32>) -> tensor<1x6x4x3xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.transpose_conv2d %x, %w, %b, %zp, %zp {acc_type = f32, out_pad = array<i64: 0, -1, 1, -1>, stride = array<i64: 2, 2>} : (tensor<1x3x2x2xf32>, tensor<3x3x2x2xf32>, tensor<3xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x6x4x3xf32>
  return %0 : tensor<1x6x4x3xf32>
}
func.func @resize_f(%x: tensor<1x3x4x2xf32>) -> (tensor<1x5x7x2xf32>, tensor<1x5x7x2xf32>) {
  %scale = tosa.const_shape {values = dense<[4, 2, 6, 3]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %offset = tosa.const_shape {values = dense<[-1, 1]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %border = tosa.const_shape {values = dense<[0, 0]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %0 = tosa.resize %x, %scale, %offset, %border {mode = NEAREST_NEIGHBOR} : (tensor<1x3x4x2xf32>, !tosa.shape<4>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<1x5x7x2xf32>
  %1 = tosa.resize %x, %scale, %offset, %border {mode = BILINEAR} : (tensor<1x3x4x2xf32>, !tosa.shape<4>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<1x5x7x2xf32>
  return %0, %1 : tensor<1x5x7x2xf32>, tensor<1x5x7x2xf32>
}
func.func @resize_i(%x: tensor<1x3x4x1xi8>) -> (tensor<1x5x7x1xi8>, tensor<1x5x7x1xi32>) {
  %scale = tosa.const_shape {values = dense<[4, 2, 6, 3]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %offset = tosa.const_shape {values = dense<[-1, 1]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %border = tosa.const_shape {values = dense<[0, 0]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %0 = tosa.resize %x, %scale, %offset, %border {mode = NEAREST_NEIGHBOR} : (tensor<1x3x4x1xi8>, !tosa.shape<4>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<1x5x7x1xi8>
  %1 = tosa.resize %x, %scale, %offset, %border {mode = BILINEAR} : (tensor<1x3x4x1xi8>, !tosa.shape<4>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<1x5x7x1xi32>
  return %0, %1 : tensor<1x5x7x1xi8>, tensor<1x5x7x1xi32>
}
func.func @fft(%re: tensor<2x4x8xf32>, %im: tensor<2x4x8xf32>) -> (tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x5xf32>, tensor<2x4x5xf32>) {
  %0, %1 = tosa.fft2d %re, %im {inverse = false} : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> (tensor<2x4x8xf32>, tensor<2x4x8xf32>)
  %2, %3 = tosa.fft2d %re, %im {inverse = true} : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> (tensor<2x4x8xf32>, tensor<2x4x8xf32>)
  %4, %5 = tosa.rfft2d %re : (tensor<2x4x8xf32>) -> (tensor<2x4x5xf32>, tensor<2x4x5xf32>)
  return %0, %1, %2, %3, %4, %5 : tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x5xf32>, tensor<2x4x5xf32>
}
func.func @scatter(%v: tensor<2x5x3xf32>, %i: tensor<2x2xi32>, %u: tensor<2x2x3xf32>) -> tensor<2x5x3xf32> {
  %0 = tosa.scatter %v, %i, %u : (tensor<2x5x3xf32>, tensor<2x2xi32>, tensor<2x2x3xf32>) -> tensor<2x5x3xf32>
  return %0 : tensor<2x5x3xf32>
}
"""


def _resize_ref(x, oh, ow, scale, offset, mode, out_dtype):
    """The TOSA 1.0 RESIZE pseudocode, element by element."""
    sy_n, sy_d, sx_n, sx_d = scale
    n_, ih, iw, c_ = x.shape
    flt = np.issubdtype(x.dtype, np.floating)
    out = np.zeros((n_, oh, ow, c_), out_dtype)
    for n in range(n_):
        for oy in range(oh):
            for ox in range(ow):
                y, xx = oy * sy_d + offset[0], ox * sx_d + offset[1]
                iy, ix = y // sy_n, xx // sx_n
                ry, rx = y - iy * sy_n, xx - ix * sx_n
                dy, dx = (ry / sy_n, rx / sx_n) if flt else (ry, rx)
                uy, ux = (1.0, 1.0) if flt else (sy_n, sx_n)
                iy0, iy1 = min(max(iy, 0), ih - 1), max(min(iy + 1, ih - 1), 0)
                ix0, ix1 = min(max(ix, 0), iw - 1), max(min(ix + 1, iw - 1), 0)
                for c in range(c_):
                    if mode == "NEAREST":
                        yy = iy1 if (dy >= 0.5 if flt else 2 * dy >= sy_n) else iy0
                        xv = ix1 if (dx >= 0.5 if flt else 2 * dx >= sx_n) else ix0
                        out[n, oy, ox, c] = x[n, yy, xv, c]
                    else:
                        v = [float(x[n, a, b, c]) if flt else int(x[n, a, b, c])
                             for a, b in ((iy0, ix0), (iy0, ix1), (iy1, ix0), (iy1, ix1))]
                        out[n, oy, ox, c] = (v[0] * (uy - dy) * (ux - dx) + v[1] * (uy - dy) * dx
                                             + v[2] * dy * (ux - dx) + v[3] * dy * dx)
    return out


def test_tosa_spatial_ops():
    m = compile_src(_TOSA_SPATIAL)
    rng = np.random.default_rng(2)
    # conv3d: pad (d0, d1, top, bottom, left, right), stride (1, 2, 1)
    x = rng.standard_normal((1, 4, 5, 4, 2)).astype(np.float32)
    w = rng.standard_normal((3, 2, 3, 2, 2)).astype(np.float32)
    b = rng.standard_normal(3).astype(np.float32)
    xp = np.pad(x, ((0, 0), (0, 0), (1, 0), (1, 1), (0, 0)))
    ref = np.zeros((1, 3, 2, 4, 3), np.float64)
    for od in range(3):
        for oh in range(2):
            for ow in range(4):
                win = xp[0, od:od + 2, oh * 2:oh * 2 + 3, ow:ow + 2, :]
                ref[0, od, oh, ow] = np.einsum("dhwc,odhwc->o", win, w) + b
    np.testing.assert_allclose(m.conv3d(x, w, b), ref, rtol=1e-5, atol=1e-5)
    # transpose_conv2d: out[iy*s + pad_top + ky, ix*s + pad_left + kx] += x * w
    x = rng.standard_normal((1, 3, 2, 2)).astype(np.float32)
    w = rng.standard_normal((3, 3, 2, 2)).astype(np.float32)
    b = rng.standard_normal(3).astype(np.float32)
    ref = np.broadcast_to(b, (1, 6, 4, 3)).astype(np.float64).copy()
    for iy in range(3):
        for ix in range(2):
            for ky in range(3):
                for kx in range(2):
                    oy, ox = iy * 2 + 0 + ky, ix * 2 + 1 + kx
                    if 0 <= oy < 6 and 0 <= ox < 4:
                        ref[0, oy, ox] += w[:, ky, kx, :] @ x[0, iy, ix]
    np.testing.assert_allclose(m.tconv(x, w, b), ref, rtol=1e-5, atol=1e-5)
    # resize, float and int8 -> int32 (bilinear carries the scale_y_n * scale_x_n factor)
    xf = rng.standard_normal((1, 3, 4, 2)).astype(np.float32)
    near, bil = m.resize_f(xf)
    np.testing.assert_array_equal(near, _resize_ref(xf, 5, 7, (4, 2, 6, 3), (-1, 1), "NEAREST", np.float32))
    np.testing.assert_allclose(bil, _resize_ref(xf, 5, 7, (4, 2, 6, 3), (-1, 1), "BILINEAR", np.float32),
                               rtol=1e-5, atol=1e-6)
    xi = rng.integers(-128, 128, (1, 3, 4, 1)).astype(np.int8)
    near, bil = m.resize_i(xi)
    np.testing.assert_array_equal(near, _resize_ref(xi, 5, 7, (4, 2, 6, 3), (-1, 1), "NEAREST", np.int8))
    np.testing.assert_array_equal(bil, _resize_ref(xi, 5, 7, (4, 2, 6, 3), (-1, 1), "BILINEAR", np.int32))
    # fft2d forward and inverse (no normalisation), rfft2d
    re = rng.standard_normal((2, 4, 8)).astype(np.float32)
    im = rng.standard_normal((2, 4, 8)).astype(np.float32)
    fr, fi, ir, ii, rr, ri = m.fft(re, im)
    z = re + 1j * im.astype(np.float64)
    f = np.fft.fft2(z)
    inv = np.fft.ifft2(z) * 32
    r = np.fft.rfft2(re.astype(np.float64))
    for got, ref in ((fr, f.real), (fi, f.imag), (ir, inv.real), (ii, inv.imag), (rr, r.real), (ri, r.imag)):
        np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-4)
    # scatter
    v = rng.standard_normal((2, 5, 3)).astype(np.float32)
    idx = np.array([[4, 1], [0, 2]], np.int32)
    u = rng.standard_normal((2, 2, 3)).astype(np.float32)
    ref = v.copy()
    for n in range(2):
        for k in range(2):
            ref[n, idx[n, k]] = u[n, k]
    np.testing.assert_array_equal(m.scatter(v, idx, u), ref)


def _select_and_scatter_ref(x, src, init, win, strides, pads, select_ge=True):
    """Spec reference: per window the first maximal element (GE select) of the padded
    operand, padding never chosen; sources added into the chosen positions."""
    out = np.full(x.shape, init, x.dtype)
    for w in np.ndindex(*src.shape):
        best, best_pos = None, None
        for k in np.ndindex(*win):
            pos = tuple(w[d] * strides[d] + k[d] - pads[d][0] for d in range(x.ndim))
            if not all(0 <= pos[d] < x.shape[d] for d in range(x.ndim)):
                continue
            v = x[pos]
            if best is None or not (best >= v if select_ge else best <= v):
                best, best_pos = v, pos
        if best_pos is not None:
            out[best_pos] += src[w]
    return out


def test_select_and_scatter():
    src = """func.func @f(%x: tensor<1x5x6x2xf32>, %s: tensor<1x3x3x2xf32>) -> tensor<1x5x6x2xf32> {
  %init = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = "stablehlo.select_and_scatter"(%x, %s, %init) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %c = stablehlo.compare GE, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }, {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %c = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %c : tensor<f32>
  }) {window_dimensions = array<i64: 1, 3, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>,
      padding = dense<[[0, 0], [1, 1], [0, 0], [0, 0]]> : tensor<4x2xi64>}
    : (tensor<1x5x6x2xf32>, tensor<1x3x3x2xf32>, tensor<f32>) -> tensor<1x5x6x2xf32>
  return %0 : tensor<1x5x6x2xf32>
}"""
    rng = np.random.default_rng(3)
    x = rng.integers(-3, 4, (1, 5, 6, 2)).astype(np.float32)  # ties exercise the GE order
    s = rng.standard_normal((1, 3, 3, 2)).astype(np.float32)
    ref = _select_and_scatter_ref(x, s, 0.0, (1, 3, 2, 1), (1, 2, 2, 1), [(0, 0), (1, 1), (0, 0), (0, 0)])
    np.testing.assert_allclose(compile_src(src).f(x, s), ref, rtol=1e-6, atol=1e-6)


def test_tosa_variables_are_module_state():
    src = """module {
  tosa.variable @acc = dense<[1.0, 2.0]> : tensor<2xf32>
  func.func @step(%x: tensor<2xf32>) -> tensor<2xf32> {
    %0 = tosa.variable_read @acc : tensor<2xf32>
    %1 = tosa.add %0, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    tosa.variable.write @acc, %1 : tensor<2xf32>
    return %1 : tensor<2xf32>
  }
}"""
    m = compile_src(src)
    x = np.array([0.5, -1.0], np.float32)
    first = np.asarray(m.step(x)).copy()
    np.testing.assert_array_equal(first, [1.5, 1.0])
    np.testing.assert_array_equal(m.step(x), [2.0, 0.0])


def test_tosa_unsigned_extremes():
    """uiN operands compare without sign: reductions start from 0 / 2^N - 1 and argmax,
    maximum and greater use unsigned predicates."""
    src = """func.func @f(%a: tensor<4xui8>, %b: tensor<4xui8>) -> (tensor<1xui8>, tensor<1xui8>, tensor<i32>, tensor<4xui8>, tensor<4xi1>) {
  %0 = tosa.reduce_max %a {axis = 0 : i32} : (tensor<4xui8>) -> tensor<1xui8>
  %1 = tosa.reduce_min %a {axis = 0 : i32} : (tensor<4xui8>) -> tensor<1xui8>
  %2 = tosa.argmax %a {axis = 0 : i32} : (tensor<4xui8>) -> tensor<i32>
  %3 = tosa.maximum %a, %b : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  %4 = tosa.greater %a, %b : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xi1>
  return %0, %1, %2, %3, %4 : tensor<1xui8>, tensor<1xui8>, tensor<i32>, tensor<4xui8>, tensor<4xi1>
}"""
    m = compile_src(src)
    a = np.array([0, 1, 2, 3], np.uint8)
    b = np.array([200, 0, 255, 3], np.uint8)
    mx, mn, am, mxe, gt = m.f(a, b)
    assert int(mx[0]) == 3 and int(mn[0]) == 0 and int(am) == 3
    np.testing.assert_array_equal(mxe, np.maximum(a, b))
    np.testing.assert_array_equal(gt, a > b)
    mx, mn, am, _, _ = m.f(b, a)
    assert int(mx[0]) == 255 and int(mn[0]) == 0 and int(am) == 2


def test_einsum():
    src = """func.func @f(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>, %c: tensor<3x6xf32>) -> (tensor<2x5x3xf32>, tensor<3xf32>, tensor<6x3xf32>, tensor<5xf32>) {
  %0 = "stablehlo.einsum"(%a, %b) {einsum_config = "bij,bjk->bki"} : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x5x3xf32>
  %1 = "stablehlo.unary_einsum"(%a) {einsum_config = "bij->i"} : (tensor<2x3x4xf32>) -> tensor<3xf32>
  %2 = "stablehlo.unary_einsum"(%c) {einsum_config = "ij->ji"} : (tensor<3x6xf32>) -> tensor<6x3xf32>
  %3 = "stablehlo.einsum"(%a, %b) {einsum_config = "bij,bjk->k"} : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<5xf32>
  return %0, %1, %2, %3 : tensor<2x5x3xf32>, tensor<3xf32>, tensor<6x3xf32>, tensor<5xf32>
}"""
    rng = np.random.default_rng(4)
    a = rng.standard_normal((2, 3, 4)).astype(np.float32)
    b = rng.standard_normal((2, 4, 5)).astype(np.float32)
    c = rng.standard_normal((3, 6)).astype(np.float32)
    r0, r1, r2, r3 = compile_src(src).f(a, b, c)
    np.testing.assert_allclose(r0, np.einsum("bij,bjk->bki", a, b), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(r1, np.einsum("bij->i", a), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(r2, c.T)
    np.testing.assert_allclose(r3, np.einsum("bij,bjk->k", a, b), rtol=1e-5, atol=1e-5)


_COLLECTIVES = """module attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func @f(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
    %0 = "stablehlo.all_reduce"(%x) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) {replica_groups = dense<[[0]]> : tensor<1x1xi64>} : (tensor<4xf32>) -> tensor<4xf32>
    %1 = "stablehlo.all_gather"(%x) {all_gather_dim = 0 : i64, replica_groups = dense<[[0]]> : tensor<1x1xi64>} : (tensor<4xf32>) -> tensor<4xf32>
    %2 = "stablehlo.reduce_scatter"(%x) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) {replica_groups = dense<[[0]]> : tensor<1x1xi64>, scatter_dimension = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    %3 = "stablehlo.all_to_all"(%x) {concat_dimension = 0 : i64, replica_groups = dense<[[0]]> : tensor<1x1xi64>, split_count = 1 : i64, split_dimension = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    %4 = "stablehlo.collective_permute"(%x) {source_target_pairs = dense<[[0, 0]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<4xf32>
    %5 = "stablehlo.collective_broadcast"(%x) {replica_groups = dense<[[0]]> : tensor<1x1xi64>} : (tensor<4xf32>) -> tensor<4xf32>
    %6 = "stablehlo.cross-replica-sum"(%x) {replica_groups = dense<[[0]]> : tensor<1x1xi64>} : (tensor<4xf32>) -> tensor<4xf32>
    %7 = "stablehlo.collective_reduce"(%x) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) {replica_groups = dense<[[0]]> : tensor<1x1xi64>} : (tensor<4xf32>) -> tensor<4xf32>
    return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  }
}"""


def test_collectives_on_one_device():
    """On one replica and one partition every process group has one member: the spec's
    reductions/concatenations over one participant return the operand."""
    x = np.array([1.0, -2.0, 3.5, 0.0], np.float32)
    for r in compile_src(_COLLECTIVES).f(x):
        np.testing.assert_array_equal(r, x)
    with pytest.raises(ireec.CompileError, match="num_replicas"):
        ireec.compile_source(_COLLECTIVES.replace("mhlo.num_replicas = 1", "mhlo.num_replicas = 2"), target="c")


def _hurwitz_zeta_ref(s: float, q: float) -> float:
    """Hurwitz zeta by Euler–Maclaurin in float64 with 60 direct terms (Abramowitz & Stegun
    23.1.30): the reference for chlo.zeta."""
    n = 60
    total = sum((q + k) ** -s for k in range(n))
    w = q + n
    total += w ** (1 - s) / (s - 1) + 0.5 * w ** -s
    bern = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66)
    fac, fact = 1.0, 1.0
    for j, bj in enumerate(bern, start=1):
        fac *= (s + 2 * j - 2) * ((s + 2 * j - 3) if j > 1 else 1.0)
        fact *= (2 * j) * (2 * j - 1)
        total += bj / fact * fac * w ** (-s - 2 * j + 1)
    return total


def test_chlo_zeta_polygamma():
    import math
    src = """func.func @f(%s: tensor<6xf32>, %q: tensor<6xf32>, %n: tensor<6xf32>, %x: tensor<6xf32>) -> (tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>) {
  %0 = chlo.zeta %s, %q : tensor<6xf32>, tensor<6xf32> -> tensor<6xf32>
  %1 = chlo.polygamma %n, %x : tensor<6xf32>, tensor<6xf32> -> tensor<6xf32>
  %2 = chlo.broadcast_zeta %s, %q : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xf32>
  %3 = chlo.broadcast_polygamma %n, %x : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xf32>
  return %0, %1, %2, %3 : tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>
}"""
    s = np.array([2.0, 3.0, 1.5, 4.0, 1.0, 0.5], np.float32)
    q = np.array([1.0, 0.5, 2.0, 10.0, 1.0, 1.0], np.float32)
    n = np.array([1.0, 1.0, 2.0, 3.0, 0.0, 1.5], np.float32)
    x = np.array([1.0, 0.5, 1.0, 1.0, 2.0, 1.0], np.float32)
    z, pg, zb, pgb = compile_src(src).f(s, q, n, x)
    np.testing.assert_array_equal(pgb, pg)
    ref = [_hurwitz_zeta_ref(float(a), float(b)) for a, b in zip(s[:4], q[:4])]
    np.testing.assert_allclose(z[:4], ref, rtol=2e-6)
    assert z[0] == pytest.approx(math.pi ** 2 / 6, rel=2e-6)  # zeta(2) = pi^2 / 6
    assert np.isposinf(z[4]) and np.isnan(z[5])  # pole at s = 1, s < 1 is outside the domain
    np.testing.assert_array_equal(zb, z)
    # psi1(1) = pi^2/6, psi1(1/2) = pi^2/2, psi2(1) = -2 zeta(3), psi3(1) = pi^4/15, psi0(2) = 1 - gamma
    exp = [math.pi ** 2 / 6, math.pi ** 2 / 2, -2 * 1.2020569031595942, math.pi ** 4 / 15, 1 - 0.5772156649015329]
    np.testing.assert_allclose(pg[:5], exp, rtol=2e-5)
    assert np.isnan(pg[5])  # non-integer order


def test_tokens_that_order_nothing_are_dropped():
    src = """func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  %t0 = stablehlo.create_token : !stablehlo.token
  %t1 = stablehlo.after_all %t0, %t0 : !stablehlo.token
  %0 = stablehlo.add %x, %x : tensor<2xf32>
  return %0 : tensor<2xf32>
}"""
    x = np.array([1.0, 2.5], np.float32)
    np.testing.assert_array_equal(compile_src(src).f(x), 2 * x)


def test_chlo_bessel_i1e():
    src = """func.func @f(%x: tensor<9xf32>) -> tensor<9xf32> {
  %0 = chlo.bessel_i1e %x : tensor<9xf32> -> tensor<9xf32>
  return %0 : tensor<9xf32>
}"""
    x = np.array([0.0, 0.5, -1.0, 3.0, 10.0, 14.9, 15.1, 30.0, -100.0], np.float32)
    # Values of scipy.special.i1e (Cephes' i1e) at these points.
    ref = [0.0, 0.15642080318487173, -0.2079104153497085, 0.19682671329730084, 0.1212626813844555,
           0.10069229881177054, 0.10005903226243465, 0.07191633059864755, -0.03974415302513025]
    np.testing.assert_allclose(compile_src(src).f(x), ref, rtol=3e-6, atol=1e-7)


def test_chlo_ragged_dot():
    src = """func.func @f(%a: tensor<7x3xf32>, %b: tensor<3x3x4xf32>, %g: tensor<3xi32>) -> tensor<7x4xf32> {
  %0 = "chlo.ragged_dot"(%a, %b, %g) {ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>} : (tensor<7x3xf32>, tensor<3x3x4xf32>, tensor<3xi32>) -> tensor<7x4xf32>
  return %0 : tensor<7x4xf32>
}"""
    rng = np.random.default_rng(5)
    a = rng.standard_normal((7, 3)).astype(np.float32)
    b = rng.standard_normal((3, 3, 4)).astype(np.float32)
    m = compile_src(src)
    for sizes in ([2, 0, 4], [3, 2, 1]):  # an empty group; rows past the last group are zero
        ref = np.zeros((7, 4), np.float32)
        start = 0
        for j, n in enumerate(sizes):
            ref[start:start + n] = a[start:start + n] @ b[j]
            start += n
        np.testing.assert_allclose(m.f(a, b, np.array(sizes, np.int32)), ref, rtol=1e-5, atol=1e-6)


def test_integer_folds_read_the_bits_of_their_constants():
    """A constant may spell its bits as an unsigned number (``255 : i8`` is -1): signed folds
    and comparisons use the two's-complement value, results wrap to the result type (the
    unsigned range for ``uiN``), and ``extsi`` of ``true`` is all ones."""
    from ireec.frontend.parser import parse_source
    from ireec.passes.input.canonicalize import CanonicalizePass
    from ireec.passes.pass_base import PassContext
    m = parse_source("""func.func @f() -> (i8, i1, i8, ui8, i8, i32, i1) {
  %a = arith.constant 255 : i8
  %b = arith.constant 0 : i8
  %0 = arith.maxsi %a, %b : i8
  %1 = arith.cmpi slt, %a, %b : i8
  %2 = arith.divsi %b, %a : i8
  %c = arith.constant 200 : ui8
  %d = arith.constant 100 : ui8
  %3 = arith.addi %c, %d : ui8
  %4 = arith.muli %a, %a : i8
  %t = arith.constant true
  %5 = arith.extsi %t : i1 to i32
  %6 = arith.trunci %5 : i32 to i1
  return %0, %1, %2, %3, %4, %5, %6 : i8, i1, i8, ui8, i8, i32, i1
}""")
    CanonicalizePass().run(m, PassContext())
    ret = next(o for o in m.walk() if o.name == "func.return")
    vals = [v.owner.attributes["value"].value for v in ret.operands]
    assert [int(v) for v in vals] == [0, 1, 0, 44, 1, -1, 1]


def test_switch_case_values_wrap_to_the_flag_width():
    """``cf.switch %x : i8, [255: ...]`` is case -1 (it raised numpy's OverflowError)."""
    from ireec.frontend.parser import parse_source
    m = parse_source("""func.func @f(%x: i8) -> i32 {
  cf.switch %x : i8, [
    default: ^bb1,
    255: ^bb2
  ]
^bb1:
  %a = arith.constant 1 : i32
  return %a : i32
^bb2:
  %b = arith.constant 2 : i32
  return %b : i32
}""")
    sw = next(o for o in m.walk() if o.name == "cf.switch")
    assert sw.attributes["case_values"].array.tolist() == [-1]


def test_rng_bit_generator_float_results_are_bits():
    m_i = compile_src(_rbg_src("THREE_FRY", "tensor<4xi32>", "tensor<8xi32>"))
    m_f = compile_src(_rbg_src("THREE_FRY", "tensor<4xi32>", "tensor<8xf32>"))
    s = np.array([1, 2, 3, 4], np.int32)
    np.testing.assert_array_equal(np.asarray(m_f.f(s)[1]).view(np.int32), m_i.f(s)[1])
    m_p = compile_src(_rbg_src("PHILOX", "tensor<2xui64>", "tensor<3xf64>"))
    m_q = compile_src(_rbg_src("PHILOX", "tensor<2xui64>", "tensor<3xui64>"))
    s = np.array([5, 6], np.uint64)
    np.testing.assert_array_equal(np.asarray(m_p.f(s)[1]).view(np.uint64), m_q.f(s)[1])


def test_dynamic_ops_with_constant_shapes():
    """stablehlo-canonicalize-dynamism: constant shape/offset/padding operands make the
    dynamic ops static (dynamic result types get their sizes from the constants)."""
    src = """func.func @f(%x: tensor<2x6xf32>, %w: tensor<1x1x1x1xf32>, %img: tensor<1x4x4x1xf32>) -> (tensor<3x4xf32>, tensor<?x2x6xf32>, tensor<2x2xf32>, tensor<4x9xf32>, tensor<2x3xf32>, tensor<1x4x4x1xf32>) {
  %s = stablehlo.constant dense<[3, 4]> : tensor<2xi64>
  %0 = stablehlo.dynamic_reshape %x, %s : (tensor<2x6xf32>, tensor<2xi64>) -> tensor<3x4xf32>
  %bs = stablehlo.constant dense<[3, 2, 6]> : tensor<3xi64>
  %1 = stablehlo.dynamic_broadcast_in_dim %x, %bs, dims = [1, 2] : (tensor<2x6xf32>, tensor<3xi64>) -> tensor<?x2x6xf32>
  %st = stablehlo.constant dense<[0, 1]> : tensor<2xi64>
  %li = stablehlo.constant dense<[2, 5]> : tensor<2xi64>
  %sd = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
  %2 = stablehlo.real_dynamic_slice %x, %st, %li, %sd : (tensor<2x6xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<2x2xf32>
  %pv = stablehlo.constant dense<-1.0> : tensor<f32>
  %lo = stablehlo.constant dense<[1, 0]> : tensor<2xi64>
  %hi = stablehlo.constant dense<[1, 3]> : tensor<2xi64>
  %in = stablehlo.constant dense<[0, 0]> : tensor<2xi64>
  %3 = stablehlo.dynamic_pad %x, %pv, %lo, %hi, %in : (tensor<2x6xf32>, tensor<f32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<4x9xf32>
  %idx = stablehlo.constant dense<[[1, 2]]> : tensor<1x2xi64>
  %ss = stablehlo.constant dense<[2, 3]> : tensor<2xi64>
  %4 = "stablehlo.dynamic_gather"(%x, %idx, %ss) {dimension_numbers = #stablehlo.gather<offset_dims = [1, 2], start_index_map = [0, 1], index_vector_dim = 1>} : (tensor<2x6xf32>, tensor<1x2xi64>, tensor<2xi64>) -> tensor<1x2x3xf32>
  %4r = stablehlo.reshape %4 : (tensor<1x2x3xf32>) -> tensor<2x3xf32>
  %pad = stablehlo.constant dense<[[1, 1], [1, 1]]> : tensor<2x2xi64>
  %5 = "stablehlo.dynamic_conv"(%img, %w, %pad) {dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[o, 0, 1, i]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64, window_strides = array<i64: 1, 1>} : (tensor<1x4x4x1xf32>, tensor<1x1x1x1xf32>, tensor<2x2xi64>) -> tensor<1x6x6x1xf32>
  %5s = stablehlo.slice %5 [0:1, 1:5, 1:5, 0:1] : (tensor<1x6x6x1xf32>) -> tensor<1x4x4x1xf32>
  return %0, %1, %2, %3, %4r, %5s : tensor<3x4xf32>, tensor<?x2x6xf32>, tensor<2x2xf32>, tensor<4x9xf32>, tensor<2x3xf32>, tensor<1x4x4x1xf32>
}"""
    x = np.arange(12, dtype=np.float32).reshape(2, 6)
    w = np.full((1, 1, 1, 1), 2.0, np.float32)
    img = np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1)
    r0, r1, r2, r3, r4, r5 = compile_src(src).f(x, w, img)
    np.testing.assert_array_equal(r0, x.reshape(3, 4))
    np.testing.assert_array_equal(r1, np.broadcast_to(x, (3, 2, 6)))
    np.testing.assert_array_equal(r2, x[0:2, 1:5:2])
    np.testing.assert_array_equal(r3, np.pad(x, ((1, 1), (0, 3)), constant_values=-1.0))
    np.testing.assert_array_equal(r4, x[0:2, 2:5])
    np.testing.assert_array_equal(r5, 2 * img)


@pytest.mark.parametrize("src,needle", [
    ("""func.func @f(%a: tensor<4x4xf32>, %b: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %0 = "stablehlo.triangular_solve"(%a, %b) {lower = true, unit_diagonal = false} : (tensor<4x4xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}""", "requires attribute 'left_side'"),
    ("""func.func @f(%a: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = stablehlo.cholesky %a, lower = true : tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}""", "'stablehlo.cholesky' on dynamic dimension 0"),
    ("""func.func @f(%a: tensor<2x3xf32>) -> tensor<3x3xf32> {
  %0 = "stablehlo.unary_einsum"(%a) {einsum_config = "ii->ii"} : (tensor<2x3xf32>) -> tensor<3x3xf32>
  return %0 : tensor<3x3xf32>
}""", "einsum_config"),
])
def test_new_lowerings_report_located_errors(src, needle):
    with pytest.raises(ireec.CompileError) as e:
        ireec.compile_source(src, target="c")
    assert needle in str(e.value) and ":2:" in str(e.value)


def test_uniform_quantize_dequantize():
    """The spec's formulas: q = convert(round_even(clamp(x / scale + zp))), x' = (q - zp) * scale;
    per-tensor and per-axis, signed and unsigned storage, requantization."""
    src = """func.func @f(%x: tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) {
  %q = stablehlo.uniform_quantize %x : (tensor<2x4xf32>) -> tensor<2x4x!quant.uniform<i8:f32, 0.5:-3>>
  %0 = stablehlo.uniform_dequantize %q : (tensor<2x4x!quant.uniform<i8:f32, 0.5:-3>>) -> tensor<2x4xf32>
  %p = stablehlo.uniform_quantize %x : (tensor<2x4xf32>) -> tensor<2x4x!quant.uniform<u8:f32:0, {0.25:10, 2.0:128}>>
  %1 = stablehlo.uniform_dequantize %p : (tensor<2x4x!quant.uniform<u8:f32:0, {0.25:10, 2.0:128}>>) -> tensor<2x4xf32>
  %n = stablehlo.uniform_quantize %x : (tensor<2x4xf32>) -> tensor<2x4x!quant.uniform<i8<-7:7>:f32, 1.5>>
  %2 = stablehlo.uniform_dequantize %n : (tensor<2x4x!quant.uniform<i8<-7:7>:f32, 1.5>>) -> tensor<2x4xf32>
  return %0, %1, %2 : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>
}"""
    x = np.array([[0.26, -1.25, 100.0, -70.0], [3.75, 0.74, -0.25, 1.0]], np.float32)

    def qdq(v, scale, zp, lo, hi):
        q = np.round(np.clip(v / scale + zp, lo, hi))  # numpy rounds half to even
        return ((q - zp) * scale).astype(np.float32)

    r0, r1, r2 = compile_src(src).f(x)
    np.testing.assert_array_equal(r0, qdq(x, 0.5, -3, -128, 127))
    per_row = np.stack([qdq(x[0], 0.25, 10, 0, 255), qdq(x[1], 2.0, 128, 0, 255)])
    np.testing.assert_array_equal(r1, per_row)
    np.testing.assert_array_equal(r2, qdq(x, 1.5, 0, -7, 7))

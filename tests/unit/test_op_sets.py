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

"""Small float formats (f8*, f6*, f4E2M1FN) and f16/bf16 rounding: the conversion helpers of
runtime_c/ireec_runtime.h compiled with cc and compared with the ml_dtypes package (the
reference implementation JAX and IREE's tests use) and with values from the format
definitions (OCP OFP8 1.0 and MX 1.0 specifications)."""
from __future__ import annotations

import ctypes
import subprocess
from pathlib import Path

import numpy as np
import pytest

from ireec.ir import types as T

RUNTIME = Path(__file__).resolve().parents[2] / "runtime_c"

# MLIR type name -> (C helper suffix, ml_dtypes name, storage bits)
FORMATS = {
    "f8E5M2": ("f8e5m2", "float8_e5m2", 8),
    "f8E4M3": ("f8e4m3", "float8_e4m3", 8),
    "f8E3M4": ("f8e3m4", "float8_e3m4", 8),
    "f8E4M3FN": ("f8e4m3fn", "float8_e4m3fn", 8),
    "f8E5M2FNUZ": ("f8e5m2fnuz", "float8_e5m2fnuz", 8),
    "f8E4M3FNUZ": ("f8e4m3fnuz", "float8_e4m3fnuz", 8),
    "f8E4M3B11FNUZ": ("f8e4m3b11fnuz", "float8_e4m3b11fnuz", 8),
    "f8E8M0FNU": ("f8e8m0fnu", "float8_e8m0fnu", 8),
    "f6E3M2FN": ("f6e3m2fn", "float6_e3m2fn", 6),
    "f6E2M3FN": ("f6e2m3fn", "float6_e2m3fn", 6),
    "f4E2M1FN": ("f4e2m1fn", "float4_e2m1fn", 4),
}


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    """A shared library exporting, per format, bulk conversions over the header's helpers."""
    d = tmp_path_factory.mktemp("sf")
    lines = ['#include "ireec_runtime.h"']
    for suffix, _, _ in FORMATS.values():
        lines.append(f"void to_f32_{suffix}(const uint8_t *b, float *o, int n) "
                     f"{{ for (int i = 0; i < n; ++i) o[i] = ireec_{suffix}_to_f32(b[i]); }}")
        lines.append(f"void from_f32_{suffix}(const float *f, uint8_t *o, int n) "
                     f"{{ for (int i = 0; i < n; ++i) o[i] = ireec_f32_to_{suffix}(f[i]); }}")
    lines.append("void round_f16(const float *f, float *o, int n) "
                 "{ for (int i = 0; i < n; ++i) o[i] = ireec_round_to_f16(f[i]); }")
    lines.append("void round_bf16(const float *f, float *o, int n) "
                 "{ for (int i = 0; i < n; ++i) o[i] = ireec_round_to_bf16(f[i]); }")
    (d / "sf.c").write_text("\n".join(lines) + "\n")
    so = d / "libsf.so"
    subprocess.run(["cc", "-std=c99", "-O1", "-Wall", "-Wextra", "-Werror", "-fPIC", "-shared",
                    f"-I{RUNTIME}", str(d / "sf.c"), "-o", str(so), "-lm"], check=True)
    return ctypes.CDLL(str(so))


def _p(a: np.ndarray) -> ctypes.c_void_p:
    return ctypes.c_void_p(a.ctypes.data)


def _to_f32(lib, suffix, bits: np.ndarray) -> np.ndarray:
    bits = np.ascontiguousarray(bits, np.uint8)
    out = np.empty(bits.shape, np.float32)
    getattr(lib, f"to_f32_{suffix}")(_p(bits), _p(out), bits.size)
    return out


def _from_f32(lib, suffix, vals: np.ndarray) -> np.ndarray:
    vals = np.ascontiguousarray(vals, np.float32)
    out = np.empty(vals.shape, np.uint8)
    getattr(lib, f"from_f32_{suffix}")(_p(vals), _p(out), vals.size)
    return out


def _probe_values(ref_dtype) -> np.ndarray:
    """Every representable value, the midpoints between neighbours (ties), points just
    around them, specials, and random floats over the format's range."""
    rng = np.random.default_rng(0)
    allv = np.arange(256, dtype=np.uint8).view(ref_dtype).astype(np.float64)
    fin = np.unique(allv[np.isfinite(allv)])
    info_max = float(fin.max())
    mids = (fin[:-1] + fin[1:]) / 2
    vals = np.concatenate([fin, mids, np.nextafter(mids, np.inf), np.nextafter(mids, -np.inf),
                           [0.0, -0.0, np.inf, -np.inf, np.nan, info_max * 4, -info_max * 4, 1e-30,
                            -1e-30],
                           rng.uniform(-info_max * 1.2, info_max * 1.2, 2000),
                           rng.standard_normal(2000)])
    return vals.astype(np.float32)


@pytest.mark.parametrize("mlir_name", sorted(FORMATS))
def test_decode_every_pattern_matches_ml_dtypes(lib, mlir_name):
    md = pytest.importorskip("ml_dtypes")
    suffix, ref, nbits = FORMATS[mlir_name]
    bits = np.arange(1 << nbits, dtype=np.uint8)
    got = _to_f32(lib, suffix, bits)
    want = bits.view(getattr(md, ref)).astype(np.float32)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    ok = ~np.isnan(want)
    np.testing.assert_array_equal(got[ok], want[ok])
    # signs of zeros too
    np.testing.assert_array_equal(np.signbit(got[ok]), np.signbit(want[ok]))


@pytest.mark.parametrize("mlir_name", sorted(FORMATS))
def test_encode_rounds_like_ml_dtypes(lib, mlir_name):
    md = pytest.importorskip("ml_dtypes")
    suffix, ref, _ = FORMATS[mlir_name]
    dt = getattr(md, ref)
    vals = _probe_values(dt)
    got = _from_f32(lib, suffix, vals)
    want = vals.astype(dt).view(np.uint8)
    bad = np.nonzero(got != want)[0]
    assert bad.size == 0, [(float(vals[i]), hex(got[i]), hex(want[i])) for i in bad[:10]]


def test_format_definitions_without_ml_dtypes(lib):
    """Values straight from the specifications (independent of ml_dtypes)."""
    f = np.float32
    # OFP8: E4M3FN max 448 = S.1111.110, NaN S.1111.111; E5M2 max 57344, inf 0x7C.
    assert _to_f32(lib, "f8e4m3fn", np.array([0x7E], np.uint8))[0] == 448
    assert np.isnan(_to_f32(lib, "f8e4m3fn", np.array([0x7F], np.uint8))[0])
    assert _to_f32(lib, "f8e5m2", np.array([0x7B], np.uint8))[0] == 57344
    assert _to_f32(lib, "f8e5m2", np.array([0x7C], np.uint8))[0] == np.inf
    # smallest subnormals: E4M3 2^-9, E5M2 2^-16
    assert _to_f32(lib, "f8e4m3fn", np.array([1], np.uint8))[0] == f(2.0 ** -9)
    assert _to_f32(lib, "f8e5m2", np.array([1], np.uint8))[0] == f(2.0 ** -16)
    # FNUZ: 0x80 is the only NaN, bias 8 / 16
    assert np.isnan(_to_f32(lib, "f8e4m3fnuz", np.array([0x80], np.uint8))[0])
    assert _to_f32(lib, "f8e4m3fnuz", np.array([0x40], np.uint8))[0] == 1.0
    assert _to_f32(lib, "f8e5m2fnuz", np.array([0x40], np.uint8))[0] == 1.0
    # MX: E2M1 values 0, 0.5, 1, 1.5, 2, 3, 4, 6; E8M0 is 2^(e-127), 0xFF NaN
    np.testing.assert_array_equal(_to_f32(lib, "f4e2m1fn", np.arange(8, dtype=np.uint8)),
                                  [0, 0.5, 1, 1.5, 2, 3, 4, 6])
    assert _to_f32(lib, "f8e8m0fnu", np.array([127], np.uint8))[0] == 1.0
    assert np.isnan(_to_f32(lib, "f8e8m0fnu", np.array([255], np.uint8))[0])
    # round to nearest even: 1.0625 is the tie between 1.0 and 1.125 in E4M3 -> 1.0;
    # 1.1875 ties 1.125/1.25 -> 1.25 (even mantissa)
    np.testing.assert_array_equal(_to_f32(lib, "f8e4m3fn", _from_f32(lib, "f8e4m3fn",
                                                                      np.array([1.0625, 1.1875], f))),
                                  [1.0, 1.25])


def test_f16_bf16_rounding(lib):
    rng = np.random.default_rng(1)
    x = np.concatenate([rng.standard_normal(5000) * 1000, [65504, 65520, 1e-8, np.inf, -0.0]]).astype(np.float32)
    out = np.empty_like(x)
    lib.round_f16(_p(x), _p(out), x.size)
    np.testing.assert_array_equal(out, x.astype(np.float16).astype(np.float32))
    md = pytest.importorskip("ml_dtypes")
    lib.round_bf16(_p(x), _p(out), x.size)
    np.testing.assert_array_equal(out, x.astype(md.bfloat16).astype(np.float32))


@pytest.mark.parametrize("mlir_name", sorted(FORMATS))
def test_small_float_types_store_one_byte(mlir_name):
    t = T.FloatType(mlir_name)
    assert T.storage_bytes(t) == 1
    assert T.numpy_dtype(t) == np.dtype(np.uint8)

"""Powers with a constant integer exponent compiled without libm (math-algebraic-simplification).

The kernels of ``math.fpowi`` / ``math.powf`` with a small constant integer exponent must not
call ``pow`` and must match numpy; other exponents keep the libm call.
"""
from __future__ import annotations

import numpy as np
import pytest

import ireec
from ireec.compiler import compile_source

X = np.array([2.0, -1.5, 3.0, 0.5, -0.0, 1e-3, -7.25, 1.0], np.float32)


def _fpowi(n: int, t: str = "f32") -> str:
    return (f"func.func @fpowi_{t}_{n if n >= 0 else 'm' + str(-n)}(%a: tensor<8x{t}>) -> tensor<8x{t}> {{\n"
            f"  %n = arith.constant dense<{n}> : tensor<8xi64>\n"
            f"  %r = math.fpowi %a, %n : tensor<8x{t}>, tensor<8xi64>\n  return %r : tensor<8x{t}>\n}}\n")


def _powf(y: float) -> str:
    name = str(y).replace("-", "m").replace(".", "p")
    return (f"func.func @powf_{name}(%a: tensor<8xf32>) -> tensor<8xf32> {{\n"
            f"  %y = arith.constant dense<{y!r}> : tensor<8xf64>\n"
            f"  %z = arith.truncf %y : tensor<8xf64> to tensor<8xf32>\n"
            f"  %r = math.powf %a, %z : tensor<8xf32>\n  return %r : tensor<8xf32>\n}}\n")


EXPONENTS = (0, 1, 2, 3, 4, 7, 8, -1, -2, 9)
POWF = (3.0, 2.0, -1.0, 0.5)
SRC = "".join(_fpowi(n) for n in EXPONENTS) + _fpowi(3, "f64") + "".join(_powf(y) for y in POWF)


@pytest.fixture(scope="module")
def mod():
    return ireec.compile_source(SRC, source_name="powers.mlir")


@pytest.mark.parametrize("n", EXPONENTS)
def test_fpowi_constant_exponent(mod, n):
    got = getattr(mod, f"fpowi_f32_{n if n >= 0 else 'm' + str(-n)}")(X)
    with np.errstate(divide="ignore"):
        want = np.power(X.astype(np.float64), n)
    np.testing.assert_allclose(got, want, rtol=4e-7 * max(1, abs(n)), atol=0)


def test_fpowi_f64(mod):
    x = X.astype(np.float64)
    np.testing.assert_allclose(mod.fpowi_f64_3(x), x ** 3, rtol=1e-15)


@pytest.mark.parametrize("y", POWF)
def test_powf_constant_exponent(mod, y):
    got = getattr(mod, "powf_" + str(y).replace("-", "m").replace(".", "p"))(np.abs(X) + 0.25)
    want = np.power(np.abs(X).astype(np.float64) + 0.25, y)
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_no_libm_pow_for_small_integer_exponents():
    """Kernels of exponents 2, 3, -1 (fpowi and powf) have no pow call; 9 and 0.5 keep it."""
    def kernels(src):
        files = compile_source(src, "powers.mlir").files
        return "".join(v for k, v in files.items() if k.endswith("_kernels.c"))

    assert "powf(" not in kernels(_fpowi(2) + _fpowi(3) + _fpowi(-1) + _powf(3.0) + _powf(-1.0))
    assert kernels(_fpowi(9) + _powf(0.5)).count("powf(") == 2
    # Exponents that are no integers at all stay libm calls (no error).
    assert kernels(_powf(float("inf")).replace("dense<inf>", "dense<0x7FF0000000000000>")
                   + _powf(float("nan")).replace("dense<nan>", "dense<0x7FF8000000000000>")).count("powf(") == 2

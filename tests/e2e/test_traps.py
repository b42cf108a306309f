"""Traps are contained and defined: generated C never raises SIGFPE and never reads outside
a buffer, whatever the inputs (design.md, "The generated C").

- StableHLO integer ``divide``/``remainder`` follow XLA's semantics (the StableHLO spec defers to
  it): ``x / 0 = -1`` (all ones for unsigned), ``x % 0 = x``, ``INT_MIN / -1 = INT_MIN``,
  ``INT_MIN % -1 = 0``, at run time and when folded at compile time.
- ``arith`` divisions and TOSA ``intdiv`` give poison / undefined results in these cases: any
  value, but the call returns.
- Dynamic indices: ``dynamic_slice``, ``dynamic_update_slice`` and ``gather`` clamp their start
  indices so the slice fits, ``scatter`` skips updates out of range (StableHLO spec); an
  out-of-range ``tensor.extract`` / ``tensor.insert`` (undefined) accesses an element of the
  tensor (the index clamped to its dimension), in host code and kernels.

Everything runs in the pytest process through ``ireec.compile_source``: a trap would kill it.
"""
from __future__ import annotations

import numpy as np
import pytest

import ireec

I32_MIN = np.iinfo(np.int32).min

STABLEHLO_DIV = """
func.func @div_i32(%a: tensor<6xi32>, %b: tensor<6xi32>) -> (tensor<6xi32>, tensor<6xi32>) {
  %q = stablehlo.divide %a, %b : tensor<6xi32>
  %r = stablehlo.remainder %a, %b : tensor<6xi32>
  return %q, %r : tensor<6xi32>, tensor<6xi32>
}
func.func @div_i8(%a: tensor<6xi8>, %b: tensor<6xi8>) -> (tensor<6xi8>, tensor<6xi8>) {
  %q = stablehlo.divide %a, %b : tensor<6xi8>
  %r = stablehlo.remainder %a, %b : tensor<6xi8>
  return %q, %r : tensor<6xi8>, tensor<6xi8>
}
func.func @div_i64(%a: tensor<6xi64>, %b: tensor<6xi64>) -> (tensor<6xi64>, tensor<6xi64>) {
  %q = stablehlo.divide %a, %b : tensor<6xi64>
  %r = stablehlo.remainder %a, %b : tensor<6xi64>
  return %q, %r : tensor<6xi64>, tensor<6xi64>
}
func.func @div_ui32(%a: tensor<6xui32>, %b: tensor<6xui32>) -> (tensor<6xui32>, tensor<6xui32>) {
  %q = stablehlo.divide %a, %b : tensor<6xui32>
  %r = stablehlo.remainder %a, %b : tensor<6xui32>
  return %q, %r : tensor<6xui32>, tensor<6xui32>
}
func.func @div_folded() -> (tensor<4xi32>, tensor<4xi32>) {
  %a = stablehlo.constant dense<[7, -7, -2147483648, -2147483648]> : tensor<4xi32>
  %b = stablehlo.constant dense<[0, 0, -1, 0]> : tensor<4xi32>
  %q = stablehlo.divide %a, %b : tensor<4xi32>
  %r = stablehlo.remainder %a, %b : tensor<4xi32>
  return %q, %r : tensor<4xi32>, tensor<4xi32>
}
"""


def _xla_div_rem(a: np.ndarray, b: np.ndarray):
    """XLA's integer division: truncating, x / 0 = -1 (all ones), x % 0 = x, and the
    overflow INT_MIN / -1 = INT_MIN with remainder 0."""
    q = np.empty_like(a)
    r = np.empty_like(a)
    for k, (x, y) in enumerate(zip(a.tolist(), b.tolist())):
        if y == 0:
            q[k] = np.array(-1).astype(a.dtype) if a.dtype.kind == "i" else np.iinfo(a.dtype).max
            r[k] = x
        else:
            t = abs(x) // abs(y) * (1 if (x >= 0) == (y >= 0) else -1)
            q[k] = np.array(t).astype(a.dtype)  # INT_MIN / -1 wraps to INT_MIN
            r[k] = x - t * y
    return q, r


@pytest.fixture(scope="module")
def hlo():
    return ireec.compile_source(STABLEHLO_DIV, source_name="traps_div.mlir")


@pytest.mark.parametrize("fn,dtype", [("div_i32", np.int32), ("div_i8", np.int8), ("div_i64", np.int64)])
def test_stablehlo_signed_division_follows_xla(hlo, fn, dtype):
    lo = np.iinfo(dtype).min
    a = np.array([7, -7, lo, lo, 9, -9], dtype)
    b = np.array([0, 0, -1, 0, 2, 4], dtype)
    q, r = hlo[fn](a, b)
    eq, er = _xla_div_rem(a, b)
    np.testing.assert_array_equal(q, eq)
    np.testing.assert_array_equal(r, er)
    assert q[2] == lo and r[2] == 0 and q[0] == -1 and r[0] == 7


def test_stablehlo_unsigned_division_follows_xla(hlo):
    a = np.array([7, 0, 4294967295, 5, 9, 12], np.uint32)
    b = np.array([0, 0, 0, 4294967295, 2, 4], np.uint32)
    q, r = hlo.div_ui32(a, b)
    np.testing.assert_array_equal(q, [4294967295, 4294967295, 4294967295, 0, 4, 3])
    np.testing.assert_array_equal(r, [7, 0, 4294967295, 5, 1, 0])


def test_stablehlo_division_folded_at_compile_time_agrees(hlo):
    q, r = hlo.div_folded()
    np.testing.assert_array_equal(q, [-1, -1, I32_MIN, -1])
    np.testing.assert_array_equal(r, [7, -7, 0, I32_MIN])


_ARITH_OPS = ("divsi", "remsi", "divui", "remui", "floordivsi", "ceildivsi", "ceildivui")


def _arith_module(et: str) -> str:
    fns = []
    for op in _ARITH_OPS:
        fns.append(f"""
func.func @{op}_{et}(%a: tensor<4x{et}>, %b: tensor<4x{et}>) -> tensor<4x{et}> {{
  %e = tensor.empty() : tensor<4x{et}>
  %r = linalg.generic {{indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}} ins(%a, %b : tensor<4x{et}>, tensor<4x{et}>) outs(%e : tensor<4x{et}>) {{
  ^bb0(%x: {et}, %y: {et}, %o: {et}):
    %d = arith.{op} %x, %y : {et}
    linalg.yield %d : {et}
  }} -> tensor<4x{et}>
  return %r : tensor<4x{et}>
}}""")
    return "\n".join(fns)


@pytest.mark.parametrize("et,dtype", [("i32", np.int32), ("i64", np.int64), ("i8", np.int8)])
def test_arith_division_poison_cases_do_not_trap(et, dtype):
    m = ireec.compile_source(_arith_module(et), source_name=f"traps_arith_{et}.mlir")
    lo = np.iinfo(dtype).min
    a = np.array([7, lo, 100, -9], dtype)
    b = np.array([0, -1, 0, 4], dtype)
    for op in _ARITH_OPS:
        r = m[f"{op}_{et}"](a, b)  # lanes 0-2 are poison: any value, but no trap
        if op in ("divsi", "floordivsi", "ceildivsi"):
            expect = {"divsi": -2, "floordivsi": -3, "ceildivsi": -2}[op]
            assert r[3] == expect, (op, r)
        elif op == "remsi":
            assert r[3] == -1


def test_tosa_intdiv_by_zero_does_not_trap():
    m = ireec.compile_source("""
func.func @intdiv(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %r = tosa.intdiv %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %r : tensor<4xi32>
}
""", source_name="traps_tosa.mlir")
    r = m.intdiv(np.array([7, I32_MIN, 5, -9], np.int32), np.array([0, -1, 0, 2], np.int32))
    assert r[3] == -4  # the defined lane; the others are undefined


def test_host_scalar_division_does_not_trap():
    m = ireec.compile_source("""
func.func @host_div(%a: tensor<i32>, %b: tensor<i32>) -> tensor<2xi32> {
  %x = tensor.extract %a[] : tensor<i32>
  %y = tensor.extract %b[] : tensor<i32>
  %q = arith.divsi %x, %y : i32
  %r = arith.remsi %x, %y : i32
  %t = tensor.from_elements %q, %r : tensor<2xi32>
  return %t : tensor<2xi32>
}
""", source_name="traps_host.mlir")
    m.host_div(np.int32(7), np.int32(0))
    m.host_div(np.int32(I32_MIN), np.int32(-1))
    np.testing.assert_array_equal(m.host_div(np.int32(-9), np.int32(2)), [-4, -1])


INDEXING = """
func.func @host_extract(%a: tensor<2x4xf32>, %i: tensor<i32>, %j: tensor<i32>) -> f32 {
  %ii = tensor.extract %i[] : tensor<i32>
  %jj = tensor.extract %j[] : tensor<i32>
  %x = arith.index_cast %ii : i32 to index
  %y = arith.index_cast %jj : i32 to index
  %v = tensor.extract %a[%x, %y] : tensor<2x4xf32>
  return %v : f32
}
func.func @host_insert(%a: tensor<2x3xi32>, %i: tensor<i32>, %v: tensor<i32>) -> tensor<2x3xi32> {
  %ii = tensor.extract %i[] : tensor<i32>
  %x = arith.index_cast %ii : i32 to index
  %vv = tensor.extract %v[] : tensor<i32>
  %c1 = arith.constant 1 : index
  %r = tensor.insert %vv into %a[%c1, %x] : tensor<2x3xi32>
  return %r : tensor<2x3xi32>
}
func.func @kernel_extract(%a: tensor<4xf32>, %i: tensor<3xi32>) -> tensor<3xf32> {
  %e = tensor.empty() : tensor<3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]} ins(%i : tensor<3xi32>) outs(%e : tensor<3xf32>) {
  ^bb0(%x: i32, %o: f32):
    %idx = arith.index_cast %x : i32 to index
    %v = tensor.extract %a[%idx] : tensor<4xf32>
    linalg.yield %v : f32
  } -> tensor<3xf32>
  return %r : tensor<3xf32>
}
func.func @dynamic_slice(%a: tensor<8xi32>, %i: tensor<i32>) -> tensor<3xi32> {
  %r = stablehlo.dynamic_slice %a, %i, sizes = [3] : (tensor<8xi32>, tensor<i32>) -> tensor<3xi32>
  return %r : tensor<3xi32>
}
func.func @dynamic_update_slice(%a: tensor<8xi32>, %u: tensor<3xi32>, %i: tensor<i32>) -> tensor<8xi32> {
  %r = stablehlo.dynamic_update_slice %a, %u, %i : (tensor<8xi32>, tensor<3xi32>, tensor<i32>) -> tensor<8xi32>
  return %r : tensor<8xi32>
}
func.func @scatter(%a: tensor<8xi32>, %i: tensor<4x1xi32>, %u: tensor<4xi32>) -> tensor<8xi32> {
  %r = "stablehlo.scatter"(%a, %i, %u) ({
  ^bb0(%x: tensor<i32>, %y: tensor<i32>):
    stablehlo.return %y : tensor<i32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0],
        scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}
     : (tensor<8xi32>, tensor<4x1xi32>, tensor<4xi32>) -> tensor<8xi32>
  return %r : tensor<8xi32>
}
func.func @gather(%a: tensor<5x3xi32>, %i: tensor<i64>) -> tensor<3xi32> {
  %r = "stablehlo.gather"(%a, %i) {
    dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], index_vector_dim = 0,
                                          offset_dims = [0], start_index_map = [0]>,
    slice_sizes = array<i64: 1, 3>
  } : (tensor<5x3xi32>, tensor<i64>) -> tensor<3xi32>
  return %r : tensor<3xi32>
}
"""


@pytest.fixture(scope="module")
def idx():
    return ireec.compile_source(INDEXING, source_name="traps_index.mlir")


@pytest.mark.parametrize("i,j", [(0, 9), (5, 1), (-3, -1), (2**31 - 1, -2**31), (1, 3)])
def test_host_extract_out_of_range_stays_in_the_tensor(idx, i, j):
    a = np.arange(8, dtype=np.float32).reshape(2, 4) + 1
    v = idx.host_extract(a, np.int32(i), np.int32(j))
    assert v == a[min(max(i, 0), 1), min(max(j, 0), 3)]


@pytest.mark.parametrize("i", [-4, 1, 3, 2**31 - 1])
def test_host_insert_out_of_range_stays_in_the_tensor(idx, i):
    a = np.arange(6, dtype=np.int32).reshape(2, 3)
    r = idx.host_insert(a, np.int32(i), np.int32(-1))
    expect = a.copy()
    expect[1, min(max(i, 0), 2)] = -1
    np.testing.assert_array_equal(r, expect)


def test_kernel_extract_out_of_range_stays_in_the_tensor(idx):
    a = np.array([1, 2, 3, 4], np.float32)
    r = idx.kernel_extract(a, np.array([-1, 9, 2], np.int32))
    np.testing.assert_array_equal(r, [1, 4, 3])


@pytest.mark.parametrize("start", [-5, 0, 3, 5, 6, 100, -2**31])
def test_dynamic_slice_clamps_start(idx, start):
    a = np.arange(8, dtype=np.int32) * 10
    s = min(max(start, 0), 8 - 3)
    np.testing.assert_array_equal(idx.dynamic_slice(a, np.int32(start)), a[s:s + 3])


@pytest.mark.parametrize("start", [-5, 2, 6, 2**31 - 1])
def test_dynamic_update_slice_clamps_start(idx, start):
    a = np.arange(8, dtype=np.int32)
    u = np.array([-1, -2, -3], np.int32)
    s = min(max(start, 0), 8 - 3)
    expect = a.copy()
    expect[s:s + 3] = u
    np.testing.assert_array_equal(idx.dynamic_update_slice(a, u, np.int32(start)), expect)


@pytest.mark.parametrize("start", [-7, 0, 2, 4, 5, 1 << 40])
def test_gather_clamps_start(idx, start):
    a = np.arange(15, dtype=np.int32).reshape(5, 3)
    s = min(max(start, 0), 4)
    np.testing.assert_array_equal(idx.gather(a, np.int64(start)), a[s])


def test_scatter_skips_out_of_range_updates(idx):
    a = np.zeros(8, np.int32)
    r = idx.scatter(a, np.array([[1], [-3], [8], [1 << 30]], np.int32), np.array([9, 10, 11, 12], np.int32))
    np.testing.assert_array_equal(r, [0, 9, 0, 0, 0, 0, 0, 0])  # the spec skips such updates

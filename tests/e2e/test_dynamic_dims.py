"""Dynamic dimensions at the ABI, end to end: one library per program, any extent at run
time (ireec compiles one static slice and the entry loops over the extents; see
ireec/passes/input/map_dynamic_dims.py). JAX LeNet exported with a symbolic batch (both
flatten forms) against the static LeNet run per sample, a torch-style linalg program with
``?x8`` matmul rows, a program with two batch symbols, the run-time checks, run-module."""
from __future__ import annotations

import numpy as np
import pytest

import ireec
from ireec.runtime.loader import StatusError

from .common import build, run_cli, shared_path

TORCH_STYLE = """
#map = affine_map<(d0, d1) -> (d0, d1)>
#bias = affine_map<(d0, d1) -> (d1)>
func.func @mlp(%x: tensor<?x8xf32>, %w: tensor<8x3xf32>, %b: tensor<3xf32>) -> tensor<?x3xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %d = tensor.dim %x, %c0 : tensor<?x8xf32>
  %e = tensor.empty(%d) : tensor<?x3xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x3xf32>) -> tensor<?x3xf32>
  %y = linalg.matmul ins(%x, %w : tensor<?x8xf32>, tensor<8x3xf32>) outs(%z : tensor<?x3xf32>) -> tensor<?x3xf32>
  %e2 = tensor.empty(%d) : tensor<?x3xf32>
  %r = linalg.generic {indexing_maps = [#map, #bias, #map], iterator_types = ["parallel", "parallel"]}
      ins(%y, %b : tensor<?x3xf32>, tensor<3xf32>) outs(%e2 : tensor<?x3xf32>) {
  ^bb0(%v: f32, %bv: f32, %o: f32):
    %s = arith.addf %v, %bv : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<?x3xf32>
  return %r : tensor<?x3xf32>
}
"""

TWO_SYMBOLS = """
func.func @outer_add(%x: tensor<?x4xf32>, %y: tensor<?x4xf32>) -> tensor<?x?x4xf32> {
  %c4 = stablehlo.constant dense<4> : tensor<1xi32>
  %n = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?x4xf32>) -> tensor<i32>
  %m = stablehlo.get_dimension_size %y, dim = 0 : (tensor<?x4xf32>) -> tensor<i32>
  %n1 = stablehlo.reshape %n : (tensor<i32>) -> tensor<1xi32>
  %m1 = stablehlo.reshape %m : (tensor<i32>) -> tensor<1xi32>
  %s = stablehlo.concatenate %n1, %m1, %c4, dim = 0 : (tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<3xi32>
  %bx = stablehlo.dynamic_broadcast_in_dim %x, %s, dims = [0, 2] : (tensor<?x4xf32>, tensor<3xi32>) -> tensor<?x?x4xf32>
  %by = stablehlo.dynamic_broadcast_in_dim %y, %s, dims = [1, 2] : (tensor<?x4xf32>, tensor<3xi32>) -> tensor<?x?x4xf32>
  %z = stablehlo.multiply %bx, %by : tensor<?x?x4xf32>
  return %z : tensor<?x?x4xf32>
}

func.func @add(%a: tensor<?x4xf32>, %b: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %c = stablehlo.add %a, %b : tensor<?x4xf32>
  return %c : tensor<?x4xf32>
}
"""


TOSA = """
func.func @t(%x: tensor<?x3x5xf32>, %w: tensor<?x5x4xf32>, %img: tensor<?x6x7x2xf32>) -> (tensor<?x3x4xf32>, tensor<?x3x1x2xf32>, tensor<?x1x5xf32>) {
  %z = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %y = tosa.exp %x : (tensor<?x3x5xf32>) -> tensor<?x3x5xf32>
  %m = tosa.matmul %y, %w, %z, %z : (tensor<?x3x5xf32>, tensor<?x5x4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<?x3x4xf32>
  %r = tosa.max_pool2d %img kernel([2, 2]) stride([2, 2]) pad([0, 0, 0, 1]) : (tensor<?x6x7x2xf32>) -> tensor<?x3x4x2xf32>
  %s = tosa.reduce_sum %r {axis = 2 : i32} : (tensor<?x3x4x2xf32>) -> tensor<?x3x1x2xf32>
  %t = tosa.reduce_max %y {axis = 1 : i32} : (tensor<?x3x5xf32>) -> tensor<?x1x5xf32>
  return %m, %s, %t : tensor<?x3x4xf32>, tensor<?x3x1x2xf32>, tensor<?x1x5xf32>
}
"""


def _lib(tmp_path, capsys, name: str, text: str, target: str = "c"):
    src = tmp_path / f"{name}.mlir"
    src.write_text(text)
    return ireec.load(build(src, tmp_path, capsys, target=target))


@pytest.mark.parametrize("target", ["c", "openmp"])
def test_torch_style_matmul_rows_any_batch(tmp_path, capsys, target):
    m = _lib(tmp_path, capsys, "mlp", TORCH_STYLE, target)
    info = m.mlp.info
    assert info.signature == "@mlp(tensor<?x8xf32>, tensor<8x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>"
    rng = np.random.default_rng(0)
    w = rng.standard_normal((8, 3)).astype(np.float32)
    b = rng.standard_normal(3).astype(np.float32)
    for n in (0, 1, 5):
        x = rng.standard_normal((n, 8)).astype(np.float32)
        got = m.mlp(x, w, b)
        assert got.shape == (n, 3)
        np.testing.assert_allclose(got, np.maximum(x @ w + b, 0), rtol=1e-5, atol=1e-5)


def test_two_symbols_and_unified_extents(tmp_path, capsys):
    m = _lib(tmp_path, capsys, "two", TWO_SYMBOLS)
    x = np.arange(8, dtype=np.float32).reshape(2, 4)
    y = np.arange(12, dtype=np.float32).reshape(3, 4) + 1
    np.testing.assert_array_equal(m.outer_add(x, y), x[:, None, :] * y[None, :, :])
    np.testing.assert_array_equal(m.add(x, x), x + x)
    with pytest.raises(StatusError) as e:  # the two batches are unified: unequal is refused
        m.add(x, y)
    assert e.value.status_name == "INVALID_ARGUMENT"
    # The generic trampoline refuses a missing dims array and negative extents.
    ffi, call = m._ffi, m._calls["add"]
    out = np.zeros((2, 4), np.float32)
    argv = ffi.new("void *[]", [ffi.cast("void *", x.ctypes.data)] * 2)
    resv = ffi.new("void *[]", [ffi.cast("void *", out.ctypes.data)])
    argp, resp = ffi.cast("const void *const *", argv), ffi.cast("void *const *", resv)
    assert call(argp, resp, ffi.NULL, ffi.NULL, 0) == 3
    assert call(argp, resp, ffi.new("int64_t[]", [-1, -1]), ffi.NULL, 0) == 3
    assert call(argp, resp, ffi.new("int64_t[]", [2, 2]), ffi.NULL, 0) == 0
    np.testing.assert_array_equal(out, x + x)


def test_tosa_batch(tmp_path, capsys):
    """TOSA matmul (the two batches unified), max_pool2d and reductions over other dims."""
    m = _lib(tmp_path, capsys, "tosa", TOSA)
    rng = np.random.default_rng(3)
    x = rng.standard_normal((4, 3, 5)).astype(np.float32)
    w = rng.standard_normal((4, 5, 4)).astype(np.float32)
    img = rng.standard_normal((2, 6, 7, 2)).astype(np.float32)
    mm, pooled_sum, mx = m.t(x, w, img)
    np.testing.assert_allclose(mm, np.exp(x) @ w, rtol=1e-5, atol=1e-5)
    padded = np.pad(img, ((0, 0), (0, 0), (0, 1), (0, 0)), constant_values=-np.inf)
    pool = padded.reshape(2, 3, 2, 4, 2, 2).max(axis=(2, 4))
    np.testing.assert_allclose(pooled_sum, pool.sum(axis=2, keepdims=True), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(mx, np.exp(x).max(axis=1, keepdims=True), rtol=1e-6)


def test_run_module_takes_any_extent(tmp_path, capsys):
    src = tmp_path / "mlp.mlir"
    src.write_text(TORCH_STYLE)
    lib = build(src, tmp_path, capsys)
    rc, out, err = run_cli(["run-module", f"--module={lib}", "--function=mlp", "--input=2x8xf32=1",
                            "--input=8x3xf32=0.5", "--input=3xf32=-1"], capsys)
    assert rc == 0, err
    assert out == "EXEC @mlp\nresult[0]: hal.buffer_view\n2x3xf32=[3 3 3][3 3 3]\n"


def test_memory_plan_is_the_worst_case(tmp_path, capsys):
    src = tmp_path / "mlp.mlir"
    src.write_text(TORCH_STYLE)
    rc, _, err = run_cli(["build", src, "-o", tmp_path / "m.so", "--print-memory-plan"], capsys)
    assert rc == 0, err
    assert "worst case for every extent of its 1 dynamic dimension" in err


def test_header_declares_the_dims(tmp_path, capsys):
    src = tmp_path / "mlp.mlir"
    src.write_text(TORCH_STYLE)
    rc, _, err = run_cli(["compile", src, "--output-format=vm-c", "--module-name=m", "-o", tmp_path / "c"], capsys)
    assert rc == 0, err
    header = (tmp_path / "c" / "m.h").read_text()
    assert ("ireec_status_t m_mlp(const float *input0, int64_t input0_dim0, const float *input1, "
            "const float *input2, float *result0, int64_t *result0_shape, void *workspace);") in header
    assert "int64_t m_mlp_workspace_size(int64_t input0_dim0);" in header
    assert "#define M_MLP_INPUT0_SHAPE { -1, 8 }" in header


def test_lenet_dynbatch_matches_static_lenet_per_sample(tmp_path, capsys):
    """Both exports (flatten by reshape and by dynamic_reshape) give the expected batch of 3
    and, at batches 1 and 8, what the static LeNet (same weights) gives sample by sample."""
    static_path = shared_path("models", "jax", "lenet", "lenet.args.mlir")
    dyn_dir = shared_path("models", "jax", "lenet_dynbatch")
    weights = [np.load(dyn_dir / f"arg{i}.npy") for i in range(1, 11)]
    static = ireec.load(build(static_path, tmp_path / "static", capsys))
    rng = np.random.default_rng(1)
    for name in ("lenet.dynbatch.args.mlir", "lenet.dynbatch.flatten.args.mlir"):
        lib = build(dyn_dir / name, tmp_path / name.replace(".", "_"), capsys)
        m = ireec.load(lib)
        out = m.main(np.load(dyn_dir / "arg0.npy"), *weights)
        np.testing.assert_allclose(out, np.load(dyn_dir / "out0.npy"), rtol=1e-5, atol=1e-5)
        for batch in (1, 8):
            x = rng.standard_normal((batch, 28, 28, 1)).astype(np.float32)
            got = m.main(x, *weights)
            want = np.concatenate([static.main(x[i:i + 1], *weights) for i in range(batch)])
            np.testing.assert_array_equal(got, want)


def test_cuda_entries_loop_over_the_extents(tmp_path):
    """The cuda target's device and host-pointer entries, run on the CPU through the emulated
    CUDA runtime (tests/e2e/cuda_emulation), loop over the extents like the C entry."""
    from .test_cuda import CXX, emulated_cuda_library

    if CXX is None:
        pytest.skip("no C++ compiler for the emulated CUDA runtime (set CXX)")
    for name, text in (("mlp", TORCH_STYLE), ("two", TWO_SYMBOLS)):
        (tmp_path / f"{name}.mlir").write_text(text)
    mlp = ireec.load(emulated_cuda_library(tmp_path / "mlp.mlir", tmp_path / "mlp"))
    two = ireec.load(emulated_cuda_library(tmp_path / "two.mlir", tmp_path / "two"))
    rng = np.random.default_rng(2)
    x = rng.standard_normal((4, 8)).astype(np.float32)
    w = rng.standard_normal((8, 3)).astype(np.float32)
    b = rng.standard_normal(3).astype(np.float32)
    np.testing.assert_allclose(mlp.mlp(x, w, b), np.maximum(x @ w + b, 0), rtol=1e-5, atol=1e-5)
    assert mlp.mlp(x[:0], w, b).shape == (0, 3)
    p, q = x[:2, :4], x[:3, 4:]
    np.testing.assert_array_equal(two.outer_add(p, q), p[:, None, :] * q[None, :, :])
    with pytest.raises(StatusError):
        two.add(p, q)


GATHER = """
func.func @embed(%table: tensor<10x4xf32>, %tokens: tensor<?x1xi32>) -> tensor<?x4xf32> {
  %0 = "stablehlo.gather"(%table, %tokens) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 4>, indices_are_sorted = false} : (tensor<10x4xf32>, tensor<?x1xi32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

func.func @select_rows(%table: tensor<10x4xf32>, %rows: tensor<?xi32>) -> tensor<?x4xf32> {
  %0 = "stablehlo.torch_index_select"(%table, %rows) {dim = 0 : i64, batch_dims = 0 : i64} : (tensor<10x4xf32>, tensor<?xi32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
"""


def test_gather_with_dynamically_shaped_indices(tmp_path, capsys):
    """An embedding lookup over a dynamic number of tokens: the start indices' dynamic dim is
    a batch dim of the gather's result (StableHLO spec), so each slice gathers one row."""
    m = _lib(tmp_path, capsys, "gather", GATHER)
    table = np.arange(40, dtype=np.float32).reshape(10, 4)
    for n in (0, 1, 5):
        tokens = np.random.default_rng(n).integers(0, 10, size=(n, 1)).astype(np.int32)
        np.testing.assert_array_equal(m.embed(table, tokens), table[tokens[:, 0]])
        np.testing.assert_array_equal(m.select_rows(table, tokens[:, 0].copy()), table[tokens[:, 0]])

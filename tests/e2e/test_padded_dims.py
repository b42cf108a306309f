"""Dynamic dimensions padded to an upper bound, end to end (ireec-pad-dynamic-dims-to-bounds,
ireec/passes/input/pad_dynamic_dims_to_bounds.py): a JAX encoder layer exported with a
symbolic batch and sequence length (one library, called at two lengths, against JAX's
outputs), softmax and Gram matrices over a dynamic token count against numpy, the bound from
a JAX shape assertion, calls beyond the bound, and the errors that name the flag."""
from __future__ import annotations

import json

import numpy as np
import pytest

import ireec
from ireec.compiler import compile_file
from ireec.ir.diagnostics import CompileError
from ireec.runtime.loader import StatusError

from .common import build, run_cli, shared_path

ENCODER = ("models", "jax", "encoder_dynseq")

SOFTMAX = """
func.func @softmax_keys(%x: tensor<?x4xf32>) -> tensor<?x?xf32> {
  %c17 = stablehlo.constant dense<17> : tensor<i32>
  %n = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?x4xf32>) -> tensor<i32>
  %ok = stablehlo.compare LT, %n, %c17, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
  stablehlo.custom_call @shape_assertion(%ok, %n) {error_message = "s < 17", has_side_effect = true} : (tensor<i1>, tensor<i32>) -> ()
  %s = stablehlo.dot_general %x, %x, contracting_dims = [1] x [1] : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x?xf32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %m = stablehlo.reduce(%s init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<?x?xf32>, tensor<f32>) -> tensor<?xf32>
  %n1 = stablehlo.reshape %n : (tensor<i32>) -> tensor<1xi32>
  %shape = stablehlo.concatenate %n1, %n1, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %mb = stablehlo.dynamic_broadcast_in_dim %m, %shape, dims = [0] : (tensor<?xf32>, tensor<2xi32>) -> tensor<?x?xf32>
  %d = stablehlo.subtract %s, %mb : tensor<?x?xf32>
  %e = stablehlo.exponential %d : tensor<?x?xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %sum = stablehlo.reduce(%e init: %z) applies stablehlo.add across dimensions = [1] : (tensor<?x?xf32>, tensor<f32>) -> tensor<?xf32>
  %sb = stablehlo.dynamic_broadcast_in_dim %sum, %shape, dims = [0] : (tensor<?xf32>, tensor<2xi32>) -> tensor<?x?xf32>
  %p = stablehlo.divide %e, %sb : tensor<?x?xf32>
  return %p : tensor<?x?xf32>
}
"""

GRAM = """
func.func @gram(%x: tensor<?x4xf32>) -> (tensor<?x?xf32>, tensor<?xf32>) {
  %s = stablehlo.dot_general %x, %x, contracting_dims = [1] x [1] : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x?xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%s init: %z) applies stablehlo.add across dimensions = [1] : (tensor<?x?xf32>, tensor<f32>) -> tensor<?xf32>
  return %s, %r : tensor<?x?xf32>, tensor<?xf32>
}

func.func @pool_tokens(%x: tensor<?x?x3xf32>, %w: tensor<?x?x3xf32>) -> tensor<?x3xf32> {
  %p = stablehlo.multiply %x, %w : tensor<?x?x3xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%p init: %z) applies stablehlo.add across dimensions = [1] : (tensor<?x?x3xf32>, tensor<f32>) -> tensor<?x3xf32>
  return %r : tensor<?x3xf32>
}
"""

#: input0_dim0 bounds @gram's row count and @pool_tokens' batch (which stays mapped: the
#: smallest padded set is chosen); the token counts of @pool_tokens are reduced over.
GRAM_BOUNDS = ["--dim-bound", "input0_dim0=8", "--dim-bound", "input0_dim1=5", "--dim-bound", "input1_dim1=5"]

SCATTER = """
func.func @scatter_add(%operand: tensor<8xf32>, %indices: tensor<?x1xi32>, %updates: tensor<?xf32>) -> tensor<8xf32> {
  %r = "stablehlo.scatter"(%operand, %indices, %updates) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0],
        scatter_dims_to_operand_dims = [0], index_vector_dim = 1>,
      indices_are_sorted = false, unique_indices = false}
      : (tensor<8xf32>, tensor<?x1xi32>, tensor<?xf32>) -> tensor<8xf32>
  return %r : tensor<8xf32>
}
"""

#: torch-mlir's linalg spelling of attention over a dynamic number of keys (the queries'
#: count stays mapped): matmuls and generic reductions whose reduction loop runs over keys.
LINALG_ATTENTION = """
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#tr = affine_map<(d0, d1) -> (d1, d0)>
func.func @attn(%q: tensor<?x8xf32>, %k: tensor<?x8xf32>, %v: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %n = tensor.dim %q, %c0 : tensor<?x8xf32>
  %m = tensor.dim %k, %c0 : tensor<?x8xf32>
  %ekt = tensor.empty(%m) : tensor<8x?xf32>
  %kt = linalg.transpose ins(%k : tensor<?x8xf32>) outs(%ekt : tensor<8x?xf32>) permutation = [1, 0]
  %es = tensor.empty(%n, %m) : tensor<?x?xf32>
  %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<?x?xf32>) -> tensor<?x?xf32>
  %s = linalg.matmul ins(%q, %kt : tensor<?x8xf32>, tensor<8x?xf32>) outs(%zs : tensor<?x?xf32>) -> tensor<?x?xf32>
  %er = tensor.empty(%n) : tensor<?xf32>
  %fm = linalg.fill ins(%ninf : f32) outs(%er : tensor<?xf32>) -> tensor<?xf32>
  %mx = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%s : tensor<?x?xf32>) outs(%fm : tensor<?xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.maximumf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%er : tensor<?xf32>) -> tensor<?xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]} ins(%s, %mx : tensor<?x?xf32>, tensor<?xf32>) outs(%fs : tensor<?xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %d = arith.subf %a, %b : f32
    %e = math.exp %d : f32
    %r = arith.addf %e, %acc : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  %p = linalg.generic {indexing_maps = [#id, #row, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%s, %mx, %sum : tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>) outs(%es : tensor<?x?xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %o: f32):
    %d = arith.subf %a, %b : f32
    %e = math.exp %d : f32
    %r = arith.divf %e, %c : f32
    linalg.yield %r : f32
  } -> tensor<?x?xf32>
  %eo = tensor.empty(%n) : tensor<?x8xf32>
  %zo = linalg.fill ins(%zero : f32) outs(%eo : tensor<?x8xf32>) -> tensor<?x8xf32>
  %o = linalg.matmul ins(%p, %v : tensor<?x?xf32>, tensor<?x8xf32>) outs(%zo : tensor<?x8xf32>) -> tensor<?x8xf32>
  return %o : tensor<?x8xf32>
}
"""

#: A mean over a padded token count divides by the count (a dimension size used as data:
#: read at run time); positions are a table sliced to the count (JAX's ``table[:s]``).
MEAN_AND_POSITIONS = """
func.func @mean_tokens(%x: tensor<?x?x4xf32>) -> tensor<?x4xf32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : (tensor<?x?x4xf32>, tensor<f32>) -> tensor<?x4xf32>
  %n = stablehlo.get_dimension_size %x, dim = 1 : (tensor<?x?x4xf32>) -> tensor<i32>
  %b = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?x?x4xf32>) -> tensor<i32>
  %nf = stablehlo.convert %n : (tensor<i32>) -> tensor<f32>
  %b1 = stablehlo.reshape %b : (tensor<i32>) -> tensor<1xi32>
  %c4 = stablehlo.constant dense<4> : tensor<1xi32>
  %shape = stablehlo.concatenate %b1, %c4, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %nb = stablehlo.dynamic_broadcast_in_dim %nf, %shape, dims = [] : (tensor<f32>, tensor<2xi32>) -> tensor<?x4xf32>
  %m = stablehlo.divide %r, %nb : tensor<?x4xf32>
  return %m : tensor<?x4xf32>
}
func.func @add_positions(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %table = stablehlo.iota dim = 0 : tensor<12x4xf32>
  %n = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?x4xf32>) -> tensor<i32>
  %n1 = stablehlo.reshape %n : (tensor<i32>) -> tensor<1xi32>
  %c4 = stablehlo.constant dense<4> : tensor<1xi32>
  %limit = stablehlo.concatenate %n1, %c4, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %start = stablehlo.constant dense<0> : tensor<2xi32>
  %one = stablehlo.constant dense<1> : tensor<2xi32>
  %p = stablehlo.real_dynamic_slice %table, %start, %limit, %one : (tensor<12x4xf32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) -> tensor<?x4xf32>
  %y = stablehlo.add %x, %p : tensor<?x4xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%y init: %z) applies stablehlo.add across dimensions = [0] : (tensor<?x4xf32>, tensor<f32>) -> tensor<4xf32>
  %rb = stablehlo.broadcast_in_dim %r, dims = [1] : (tensor<4xf32>) -> tensor<1x4xf32>
  %rd = stablehlo.dynamic_broadcast_in_dim %rb, %limit, dims = [0, 1] : (tensor<1x4xf32>, tensor<2xi32>) -> tensor<?x4xf32>
  %o = stablehlo.subtract %y, %rd : tensor<?x4xf32>
  return %o : tensor<?x4xf32>
}
"""

#: Heads split and merged by dynamic_reshape around a padded sequence that is not the
#: leading dimension (the reshape keeps the dims up to it in place).
SPLIT_HEADS = """
func.func @split_heads(%x: tensor<1x?x8xf32>) -> tensor<1x?x8xf32> {
  %n = stablehlo.get_dimension_size %x, dim = 1 : (tensor<1x?x8xf32>) -> tensor<i32>
  %n1 = stablehlo.reshape %n : (tensor<i32>) -> tensor<1xi32>
  %c1 = stablehlo.constant dense<1> : tensor<1xi32>
  %c2 = stablehlo.constant dense<2> : tensor<1xi32>
  %c4 = stablehlo.constant dense<4> : tensor<1xi32>
  %c8 = stablehlo.constant dense<8> : tensor<1xi32>
  %s4 = stablehlo.concatenate %c1, %n1, %c2, %c4, dim = 0 : (tensor<1xi32>, tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<4xi32>
  %h = stablehlo.dynamic_reshape %x, %s4 : (tensor<1x?x8xf32>, tensor<4xi32>) -> tensor<1x?x2x4xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%h init: %z) applies stablehlo.add across dimensions = [1] : (tensor<1x?x2x4xf32>, tensor<f32>) -> tensor<1x2x4xf32>
  %rb = stablehlo.broadcast_in_dim %r, dims = [0, 2, 3] : (tensor<1x2x4xf32>) -> tensor<1x1x2x4xf32>
  %rd = stablehlo.dynamic_broadcast_in_dim %rb, %s4, dims = [0, 1, 2, 3] : (tensor<1x1x2x4xf32>, tensor<4xi32>) -> tensor<1x?x2x4xf32>
  %y = stablehlo.subtract %h, %rd : tensor<1x?x2x4xf32>
  %s3 = stablehlo.concatenate %c1, %n1, %c8, dim = 0 : (tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<3xi32>
  %o = stablehlo.dynamic_reshape %y, %s3 : (tensor<1x?x2x4xf32>, tensor<3xi32>) -> tensor<1x?x8xf32>
  return %o : tensor<1x?x8xf32>
}
"""

#: Bounded dynamism spelled in the types (StableHLO's ``#stablehlo.bounds``), no flag.
TYPE_BOUNDS = """
func.func @f(%x: tensor<?x4xf32, #stablehlo.bounds<16, ?>>) -> tensor<?xf32, #stablehlo.bounds<16>> {
  %s = stablehlo.dot_general %x, %x, contracting_dims = [1] x [1] : (tensor<?x4xf32, #stablehlo.bounds<16, ?>>, tensor<?x4xf32, #stablehlo.bounds<16, ?>>) -> tensor<?x?xf32, #stablehlo.bounds<16, 16>>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%s init: %z) applies stablehlo.add across dimensions = [1] : (tensor<?x?xf32, #stablehlo.bounds<16, 16>>, tensor<f32>) -> tensor<?xf32, #stablehlo.bounds<16>>
  return %r : tensor<?xf32, #stablehlo.bounds<16>>
}
"""


def _softmax(s: np.ndarray) -> np.ndarray:
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("form,target", [("args", "c"), ("args", "openmp"), ("const", "c")])
def test_encoder_with_a_symbolic_sequence_length(tmp_path, capsys, form, target):
    """JAX's encoder layer with x: (b, s, 48): the batch is mapped, the sequence (which the
    attention reduces over) is padded to --dim-bound s=32; one library gives JAX's outputs
    at (b, s) = (1, 7) and (2, 20), refuses s = 33, and its workspace is the plan for the
    bound."""
    d = shared_path(*ENCODER)
    lib = build(d / f"encoder_dynseq.{form}.mlir", tmp_path, capsys, target, "--dim-bound", "s=32",
                "--report", str(tmp_path / "report.json"))
    m = ireec.load(lib)
    weights = [np.load(d / f"arg{i}.npy") for i in range(1, 17)] if form == "args" else []
    for tag in ("s7", "s20"):
        x = np.load(d / f"arg0.{tag}.npy")
        got = m.main(x, *weights)
        assert got.shape == x.shape
        np.testing.assert_allclose(got, np.load(d / f"out0.{tag}.npy"), rtol=1e-5, atol=1e-5)
    with pytest.raises(StatusError) as e:
        m.main(np.zeros((1, 33, 48), np.float32), *weights)
    assert e.value.status_name == "INVALID_ARGUMENT"
    assert m.main.info.signature.startswith("@main(tensor<?x?x48xf32>")
    plan = json.loads((tmp_path / "report.json").read_text())["functions"]["main"]
    assert plan["bounds"] == [[0, 1, 32]]
    # The staging buffers: x and the result at the bound, 32 x 48 floats each.
    assert plan["staging_bytes"] == 2 * 32 * 48 * 4
    assert plan["lower_bound_bytes"] <= plan["arena_bytes"] <= 1.1 * plan["lower_bound_bytes"]


def test_encoder_without_a_bound_names_the_flag():
    path = shared_path(*ENCODER, "encoder_dynseq.args.mlir")
    with pytest.raises(CompileError) as e:
        compile_file(str(path), target="c")
    assert e.value.loc.line > 0
    assert "--dim-bound b=N (dynamic dimensions: b, s)" in e.value.message


def test_header_states_the_bound(tmp_path, capsys):
    src = tmp_path / "gram.mlir"
    src.write_text(GRAM)
    rc, _, err = run_cli(["compile", src, "--output-format=vm-c", "--module-name=g", "-o", tmp_path / "c",
                          *GRAM_BOUNDS], capsys)
    assert rc == 0, err
    header = (tmp_path / "c" / "g.h").read_text()
    assert "Dimensions padded to an upper bound: input0_dim0 <= 8." in header
    assert "ireec_status_t g_gram(const float *input0, int64_t input0_dim0, float *result0, " \
           "int64_t *result0_shape, float *result1, int64_t *result1_shape, void *workspace);" in header


@pytest.mark.parametrize("target", ["c", "openmp"])
def test_softmax_over_a_bounded_token_count(tmp_path, capsys, target):
    """The bound comes from the program (JAX's assertion s < 17): no flag; the padding of the
    max reads -inf, of the sum 0; every count up to 16 matches numpy, 17 is refused."""
    src = tmp_path / "softmax.mlir"
    src.write_text(SOFTMAX)
    m = ireec.load(build(src, tmp_path, capsys, target))
    rng = np.random.default_rng(0)
    for n in (1, 3, 16):
        x = rng.standard_normal((n, 4)).astype(np.float32)
        np.testing.assert_allclose(m.softmax_keys(x), _softmax(x @ x.T), rtol=1e-5, atol=1e-6)
    with pytest.raises(StatusError):
        m.softmax_keys(np.zeros((17, 4), np.float32))


def test_results_padded_in_two_dimensions_and_mapped_with_padded(tmp_path, capsys):
    """A Gram matrix (one padded symbol in both dimensions of a result, copied out row by
    row) and its row sums; a mapped batch beside a padded token count, the two arguments'
    token counts unified (unequal ones refused)."""
    src = tmp_path / "gram.mlir"
    src.write_text(GRAM)
    m = ireec.load(build(src, tmp_path, capsys, "c", *GRAM_BOUNDS))
    rng = np.random.default_rng(1)
    for n in (0, 1, 5, 8):
        x = rng.standard_normal((n, 4)).astype(np.float32)
        s, r = m.gram(x)
        np.testing.assert_allclose(s, x @ x.T, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(r, (x @ x.T).sum(axis=1), rtol=1e-5, atol=1e-5)
    for b, t in ((1, 1), (3, 5), (2, 0)):
        x = rng.standard_normal((b, t, 3)).astype(np.float32)
        w = rng.standard_normal((b, t, 3)).astype(np.float32)
        np.testing.assert_allclose(m.pool_tokens(x, w), (x * w).sum(axis=1), rtol=1e-5, atol=1e-5)
    with pytest.raises(StatusError):
        m.pool_tokens(np.zeros((2, 3, 3), np.float32), np.zeros((2, 4, 3), np.float32))
    with pytest.raises(StatusError):
        m.pool_tokens(np.zeros((2, 6, 3), np.float32), np.zeros((2, 6, 3), np.float32))


def test_dim_bound_errors(tmp_path, capsys):
    src = tmp_path / "gram.mlir"
    src.write_text(GRAM)
    rc, _, err = run_cli(["compile", src, "-o", tmp_path / "o", "--dim-bound", "t=8"], capsys)
    assert rc == 1 and "--dim-bound t: no public function has a dynamic dimension of that name" in err
    rc, _, err = run_cli(["compile", src, "-o", tmp_path / "o", "--dim-bound", "s"], capsys)
    assert rc == 1 and "--dim-bound s: expected NAME=N" in err
    rc, _, err = run_cli(["compile", src, "-o", tmp_path / "o", "--dim-bound", "input0_dim0=0"], capsys)
    assert rc == 1 and "the upper bound of input0_dim0 is 0" in err and "gram.mlir:2:1: error" in err
    rc, _, err = run_cli(["compile", src, "-o", tmp_path / "o", "--dim-bound", "input0_dim0=99999999999",
                          "--dim-bound", "input0_dim1=5", "--dim-bound", "input1_dim1=5"], capsys)
    assert rc == 1 and "more than the C ABI's int64_t sizes can hold" in err
    rc, _, err = run_cli(["compile", src, "-o", tmp_path / "o", "--target=cuda", *GRAM_BOUNDS], capsys)
    assert rc == 1 and "the cuda target does not stage them" in err


@pytest.mark.parametrize("target", ["c", "openmp"])
def test_scatter_add_with_a_dynamic_number_of_updates(tmp_path, capsys, target):
    """Indices and updates from the caller, their count bounded by one flag (the other
    dimension is unified with it and shares the bound): padding indices become -1, so those
    updates are skipped; out-of-range indices of the caller are skipped too (StableHLO spec)."""
    src = tmp_path / "scatter.mlir"
    src.write_text(SCATTER)
    m = ireec.load(build(src, tmp_path, capsys, target, "--dim-bound", "input1_dim0=16"))
    assert m.scatter_add.info.signature == "@scatter_add(tensor<8xf32>, tensor<?x1xi32>, tensor<?xf32>) -> tensor<8xf32>"
    rng = np.random.default_rng(4)
    operand = rng.standard_normal(8).astype(np.float32)
    for n in (0, 1, 5, 16):
        idx = rng.integers(-2, 10, size=(n, 1)).astype(np.int32)
        upd = rng.standard_normal(n).astype(np.float32)
        want = operand.copy()
        for i, u in zip(idx[:, 0], upd):
            if 0 <= i < 8:
                want[i] += u
        np.testing.assert_allclose(m.scatter_add(operand, idx, upd), want, rtol=1e-6, atol=1e-6)
    with pytest.raises(StatusError):
        m.scatter_add(operand, np.zeros((3, 1), np.int32), np.zeros(2, np.float32))
    with pytest.raises(StatusError):
        m.scatter_add(operand, np.zeros((17, 1), np.int32), np.zeros(17, np.float32))


@pytest.mark.parametrize("target", ["c", "openmp"])
def test_linalg_attention_over_a_bounded_key_count(tmp_path, capsys, target):
    """linalg reductions over a padded loop keep their accumulator past the extent (any
    combiner: max, exp-sum, matmul); the values' count is unified with the keys' and padded
    with it; the queries' count is mapped."""
    src = tmp_path / "attn.mlir"
    src.write_text(LINALG_ATTENTION)
    m = ireec.load(build(src, tmp_path, capsys, target, "--dim-bound", "input1_dim0=16"))
    rng = np.random.default_rng(5)
    for n, k in ((1, 1), (3, 5), (4, 16)):
        q, kk, v = (rng.standard_normal(shape).astype(np.float32) for shape in ((n, 8), (k, 8), (k, 8)))
        np.testing.assert_allclose(m.attn(q, kk, v), _softmax(q @ kk.T) @ v, rtol=1e-5, atol=1e-5)
    assert m.attn(np.zeros((0, 8), np.float32), kk, v).shape == (0, 8)
    with pytest.raises(StatusError):
        m.attn(q, np.zeros((17, 8), np.float32), np.zeros((17, 8), np.float32))


def test_mean_over_tokens_and_sliced_positions(tmp_path, capsys):
    src = tmp_path / "mean.mlir"
    src.write_text(MEAN_AND_POSITIONS)
    m = ireec.load(build(src, tmp_path, capsys, "c", "--dim-bound", "input0_dim1=10",
                         "--dim-bound", "input0_dim0=12"))
    rng = np.random.default_rng(6)
    for b, t in ((1, 1), (2, 7), (3, 10)):
        x = rng.standard_normal((b, t, 4)).astype(np.float32)
        np.testing.assert_allclose(m.mean_tokens(x), x.mean(axis=1), rtol=1e-6, atol=1e-6)
    for t in (1, 5, 12):
        x = rng.standard_normal((t, 4)).astype(np.float32)
        y = x + np.arange(t, dtype=np.float32)[:, None]
        np.testing.assert_allclose(m.add_positions(x), y - y.sum(axis=0), rtol=1e-5, atol=1e-5)


def test_reshapes_around_a_padded_middle_dimension(tmp_path, capsys):
    src = tmp_path / "heads.mlir"
    src.write_text(SPLIT_HEADS)
    m = ireec.load(build(src, tmp_path, capsys, "c", "--dim-bound", "input0_dim1=6"))
    rng = np.random.default_rng(7)
    for t in (1, 4, 6):
        x = rng.standard_normal((1, t, 8)).astype(np.float32)
        np.testing.assert_allclose(m.split_heads(x), x - x.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-5)


def test_bounds_from_stablehlo_bounds_encodings(tmp_path, capsys):
    src = tmp_path / "bounds.mlir"
    src.write_text(TYPE_BOUNDS)
    m = ireec.load(build(src, tmp_path, capsys, "c"))
    assert m.f.info.signature == "@f(tensor<?x4xf32>) -> tensor<?xf32>"
    rng = np.random.default_rng(8)
    for n in (1, 9, 16):
        x = rng.standard_normal((n, 4)).astype(np.float32)
        np.testing.assert_allclose(m.f(x), (x @ x.T).sum(axis=1), rtol=1e-5, atol=1e-5)
    with pytest.raises(StatusError):
        m.f(np.zeros((17, 4), np.float32))

"""StableHLO gather/scatter/slicing, sort, control flow, complex and random ops:
compiled through the whole pipeline (target c) and compared with numpy references
written from the StableHLO spec; control flow also checked structurally after the input
phase."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

import ireec
from ireec.frontend.parser import parse_source
from ireec.ir.core import Operation
from ireec.ir.diagnostics import CompileError
from ireec.ir.printer import print_module
from ireec.passes.input.convert_stablehlo_to_linalg import ConvertStableHloToLinalgPass
from ireec.passes.pass_base import PassContext

RNG = np.random.default_rng(1234)


def compile_fn(src: str):
    return ireec.compile_source(src, target="c")


def after_stablehlo_conversion(src: str) -> Operation:
    """The module right after ``iree-stablehlo-to-linalg`` (before scf is lowered to cf)."""
    module = parse_source(src, "test.mlir")
    ConvertStableHloToLinalgPass().run(module, PassContext())
    return module


def op_names(module: Operation):
    return [op.name for op in module.walk()]


# ------------------------------------------------------------------ numpy references
def ref_gather(operand, indices, offset_dims, collapsed, start_map, ivd, sizes,
               obatch=(), ibatch=()):
    """StableHLO spec §gather, element by element."""
    if ivd == indices.ndim:
        indices = indices[..., None]
    batch_shape = [s for d, s in enumerate(indices.shape) if d != ivd]
    offset_operand_dims = [d for d in range(operand.ndim) if d not in collapsed and d not in obatch]
    rrank = len(batch_shape) + len(offset_dims)
    batch_dims = [d for d in range(rrank) if d not in offset_dims]
    rshape = [0] * rrank
    for d, s in zip(batch_dims, batch_shape):
        rshape[d] = s
    for d, od in zip(offset_dims, offset_operand_dims):
        rshape[d] = sizes[od]
    out = np.zeros(rshape, operand.dtype)
    for r in itertools.product(*[range(s) for s in rshape]):
        bi = [r[d] for d in batch_dims]
        pos = list(bi)
        pos.insert(ivd, slice(None))
        sv = indices[tuple(pos)]
        full = [0] * operand.ndim
        for k, d in enumerate(start_map):
            full[d] = int(np.clip(sv[k], 0, operand.shape[d] - sizes[d]))
        for d_op, d_st in zip(obatch, ibatch):
            full[d_op] += bi[d_st if d_st < ivd else d_st - 1]
        for j, d in enumerate(offset_operand_dims):
            full[d] += r[offset_dims[j]]
        out[r] = operand[tuple(full)]
    return out


def ref_scatter(operand, indices, updates, uwd, inserted, to_operand, ivd, combine):
    """StableHLO spec §scatter (no batching dims), updates applied in order."""
    out = operand.copy()
    if ivd == indices.ndim:
        indices = indices[..., None]
    scatter_dims = [d for d in range(updates.ndim) if d not in uwd]
    window_operand_dims = [d for d in range(operand.ndim) if d not in inserted]
    for u in itertools.product(*[range(s) for s in updates.shape]):
        si = [u[d] for d in scatter_dims]
        pos = list(si)
        pos.insert(ivd, slice(None))
        sv = indices[tuple(pos)]
        full = [0] * operand.ndim
        for k, d in enumerate(to_operand):
            full[d] = int(sv[k])
        for j, d in enumerate(window_operand_dims):
            full[d] += u[uwd[j]]
        if all(0 <= full[d] < operand.shape[d] for d in range(operand.ndim)):
            # the whole window must fit
            ok = True
            for j, d in enumerate(window_operand_dims):
                start = full[d] - u[uwd[j]]
                if not (0 <= start <= operand.shape[d] - updates.shape[uwd[j]]):
                    ok = False
            if ok:
                out[tuple(full)] = combine(out[tuple(full)], updates[u])
    return out


def _gather_src(o_t, i_t, r_t, offset_dims, collapsed, start_map, ivd, sizes, extra=""):
    return f"""
func.func @g(%o: {o_t}, %i: {i_t}) -> {r_t} {{
  %r = "stablehlo.gather"(%o, %i) {{
    dimension_numbers = #stablehlo.gather<offset_dims = {list(offset_dims)},
      collapsed_slice_dims = {list(collapsed)}, {extra} start_index_map = {list(start_map)},
      index_vector_dim = {ivd}>,
    indices_are_sorted = false, slice_sizes = array<i64: {", ".join(map(str, sizes))}>
  }} : ({o_t}, {i_t}) -> {r_t}
  return %r : {r_t}
}}"""


def _t(shape, et):
    return "tensor<" + "".join(f"{d}x" for d in shape) + et + ">"


# ------------------------------------------------------------------------ gather
GATHER_CASES = [
    # operand shape, indices (array), offset_dims, collapsed, start_map, ivd, sizes
    ((5, 1, 5), np.array(2, np.int64), [0, 1], [0], [0], 0, [1, 1, 5]),
    ((1, 4, 8), np.array([[[0, 1], [0, 2], [0, 3], [0, 0], [0, 0], [0, 1], [0, 2], [0, 3]]], np.int32),
     [2], [0, 1], [0, 1], 2, [1, 1, 8]),
    ((1, 4, 8), np.array([[[0, 1], [0, 2], [0, 2], [0, 0]]], np.int32), [1, 2], [0], [0, 1], 2, [1, 2, 3]),
    ((1, 3, 2, 4), np.array([[0, 1, 0, 0], [1, 0, 0, 0]], np.int32), [1, 2], [0, 2], [3, 2, 0, 1], 1,
     [1, 2, 1, 3]),
    # out-of-range starts are clamped; implicit index vector dim (ivd == rank)
    ((6, 4), np.array([-3, 1, 5, 9], np.int32), [1], [0], [0], 1, [1, 4]),
    # index vector dim first
    ((5, 7), np.array([[0, 4, 2], [6, 1, 3]], np.int32), [1, 2], [], [0, 1], 0, [2, 3]),
]


@pytest.mark.parametrize("case", range(len(GATHER_CASES)))
def test_gather_matches_spec(case):
    o_shape, idx, offset_dims, collapsed, start_map, ivd, sizes = GATHER_CASES[case]
    operand = RNG.integers(-100, 100, size=o_shape).astype(np.int32)
    expect = ref_gather(operand, idx, offset_dims, collapsed, start_map, ivd, sizes)
    it = "i64" if idx.dtype == np.int64 else "i32"
    src = _gather_src(_t(o_shape, "i32"), _t(idx.shape, it), _t(expect.shape, "i32"),
                      offset_dims, collapsed, start_map, ivd, sizes)
    np.testing.assert_array_equal(compile_fn(src).g(operand, idx), expect)


def test_gather_batching_dims():
    operand = RNG.standard_normal((3, 5, 4)).astype(np.float32)
    idx = np.array([[1, 4], [0, 2], [3, 3]], np.int32)  # batch b, two lookups each
    expect = ref_gather(operand, idx, [2], [1], [1], 2, [1, 1, 4], obatch=[0], ibatch=[0])
    src = _gather_src(_t((3, 5, 4), "f32"), _t((3, 2), "i32"), _t(expect.shape, "f32"),
                      [2], [1], [1], 2, [1, 1, 4],
                      extra="operand_batching_dims = [0], start_indices_batching_dims = [0],")
    np.testing.assert_array_equal(compile_fn(src).g(operand, idx), expect)


def test_torch_index_select():
    operand = np.array([[6, 7], [8, 9]], np.int32)
    idx = np.array([[[[0, 1], [1, 0]], [[0, 0], [1, 1]]], [[[1, 1], [0, 0]], [[0, 1], [1, 0]]]], np.int32)
    src = """
func.func @f(%o: tensor<2x2xi32>, %i: tensor<2x2x2x2xi32>) -> (tensor<2x2x2x2xi32>, tensor<2x2x2x2x2xi32>) {
  %a = "stablehlo.torch_index_select"(%o, %i) {batch_dims = 1 : i64, dim = 1 : i64} : (tensor<2x2xi32>, tensor<2x2x2x2xi32>) -> tensor<2x2x2x2xi32>
  %b = "stablehlo.torch_index_select"(%o, %i) {batch_dims = 0 : i64, dim = 0 : i64} : (tensor<2x2xi32>, tensor<2x2x2x2xi32>) -> tensor<2x2x2x2x2xi32>
  return %a, %b : tensor<2x2x2x2xi32>, tensor<2x2x2x2x2xi32>
}"""
    a, b = compile_fn(src).f(operand, idx)
    expect_a = np.stack([operand[n][idx[n]] for n in range(2)])  # batch dim 0, select on dim 1
    np.testing.assert_array_equal(a, expect_a)
    np.testing.assert_array_equal(b, operand[idx])


# ---------------------------------------------------------- dynamic (update) slice
def test_dynamic_slice_clamps_starts():
    src = """
func.func @f(%x: tensor<3x4xi32>, %a: tensor<i64>, %b: tensor<i64>) -> tensor<2x2xi32> {
  %r = "stablehlo.dynamic_slice"(%x, %a, %b) {slice_sizes = array<i64: 2, 2>} : (tensor<3x4xi32>, tensor<i64>, tensor<i64>) -> tensor<2x2xi32>
  return %r : tensor<2x2xi32>
}"""
    m = compile_fn(src)
    x = np.arange(12, dtype=np.int32).reshape(3, 4)
    for a, b in [(1, 2), (0, 0), (5, 7), (-2, 1)]:
        ca, cb = min(max(a, 0), 1), min(max(b, 0), 2)
        np.testing.assert_array_equal(m.f(x, np.int64(a), np.int64(b)), x[ca:ca + 2, cb:cb + 2])


def test_dynamic_update_slice_clamps_starts():
    src = """
func.func @f(%x: tensor<4x5xf32>, %u: tensor<2x3xf32>, %a: tensor<i32>, %b: tensor<i32>) -> tensor<4x5xf32> {
  %r = "stablehlo.dynamic_update_slice"(%x, %u, %a, %b) : (tensor<4x5xf32>, tensor<2x3xf32>, tensor<i32>, tensor<i32>) -> tensor<4x5xf32>
  return %r : tensor<4x5xf32>
}"""
    m = compile_fn(src)
    x = RNG.standard_normal((4, 5)).astype(np.float32)
    u = RNG.standard_normal((2, 3)).astype(np.float32)
    for a, b in [(0, 0), (1, 2), (3, 4), (-1, 9)]:
        ca, cb = min(max(a, 0), 2), min(max(b, 0), 2)
        e = x.copy()
        e[ca:ca + 2, cb:cb + 3] = u
        np.testing.assert_array_equal(m.f(x, u, np.int32(a), np.int32(b)), e)


# ----------------------------------------------------------------------- scatter
def _scatter_src(o_t, i_t, u_t, uwd, inserted, to_operand, ivd, body, et):
    return f"""
func.func @s(%o: {o_t}, %i: {i_t}, %u: {u_t}) -> {o_t} {{
  %r = "stablehlo.scatter"(%o, %i, %u) ({{
  ^bb0(%a: tensor<{et}>, %b: tensor<{et}>):
    {body}
  }}) {{indices_are_sorted = false,
      scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = {list(uwd)},
        inserted_window_dims = {list(inserted)}, scatter_dims_to_operand_dims = {list(to_operand)},
        index_vector_dim = {ivd}>, unique_indices = false
  }} : ({o_t}, {i_t}, {u_t}) -> {o_t}
  return %r : {o_t}
}}"""


REPLACE = '"stablehlo.return"(%b) : (tensor<ET>) -> ()'
ADD = '%c = stablehlo.add %a, %b : tensor<ET>\n    "stablehlo.return"(%c) : (tensor<ET>) -> ()'
MAX = '%c = stablehlo.maximum %a, %b : tensor<ET>\n    "stablehlo.return"(%c) : (tensor<ET>) -> ()'

SCATTER_CASES = [
    # o shape, indices, u shape, uwd, inserted, to_operand, ivd, body, combine
    ((8,), np.array([[1], [3], [4], [7]], np.int32), (4,), [], [0], [0], 1, REPLACE, lambda a, b: b),
    ((8,), np.array([[1], [1], [7], [7]], np.int32), (4,), [], [0], [0], 1, REPLACE, lambda a, b: b),
    ((8,), np.array([[1], [1], [7], [7]], np.int32), (4,), [], [0], [0], 1, ADD, lambda a, b: a + b),
    ((4, 3), np.array([[0, 0], [1, 1], [2, 2]], np.int32), (3,), [], [0, 1], [0, 1], 1, REPLACE,
     lambda a, b: b),
    ((6, 3), np.array([[2], [4]], np.int32), (2, 3), [1], [0], [0], 1, ADD, lambda a, b: a + b),
    # window of 2 rows; one window does not fit (start 5 of 6 rows) and is skipped
    ((6, 3), np.array([1, 5, 0], np.int32), (3, 2, 3), [1, 2], [], [0], 1, MAX, np.maximum),
    # negative index is skipped
    ((5,), np.array([[-1], [2]], np.int32), (2,), [], [0], [0], 1, REPLACE, lambda a, b: b),
]


@pytest.mark.parametrize("case", range(len(SCATTER_CASES)))
def test_scatter_matches_spec(case):
    o_shape, idx, u_shape, uwd, inserted, to_operand, ivd, body, combine = SCATTER_CASES[case]
    operand = RNG.integers(-10, 10, size=o_shape).astype(np.int32)
    updates = RNG.integers(-10, 10, size=u_shape).astype(np.int32)
    expect = ref_scatter(operand, idx, updates, uwd, inserted, to_operand, ivd, combine)
    src = _scatter_src(_t(o_shape, "i32"), _t(idx.shape, "i32"), _t(u_shape, "i32"), uwd, inserted,
                       to_operand, ivd, body.replace("ET", "i32"), "i32")
    np.testing.assert_array_equal(compile_fn(src).s(operand, idx, updates), expect)


def test_scatter_two_operands_float():
    src = """
func.func @s(%o0: tensor<5xf32>, %o1: tensor<5xi32>, %i: tensor<3x1xi32>, %u0: tensor<3xf32>, %u1: tensor<3xi32>) -> (tensor<5xf32>, tensor<5xi32>) {
  %r:2 = "stablehlo.scatter"(%o0, %o1, %i, %u0, %u1) ({
  ^bb0(%a0: tensor<f32>, %a1: tensor<i32>, %b0: tensor<f32>, %b1: tensor<i32>):
    %s = stablehlo.add %a0, %b0 : tensor<f32>
    %m = stablehlo.maximum %a1, %b1 : tensor<i32>
    "stablehlo.return"(%s, %m) : (tensor<f32>, tensor<i32>) -> ()
  }) {scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0],
        scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}
    : (tensor<5xf32>, tensor<5xi32>, tensor<3x1xi32>, tensor<3xf32>, tensor<3xi32>) -> (tensor<5xf32>, tensor<5xi32>)
  return %r#0, %r#1 : tensor<5xf32>, tensor<5xi32>
}"""
    o0 = RNG.standard_normal(5).astype(np.float32)
    o1 = RNG.integers(-5, 5, 5).astype(np.int32)
    idx = np.array([[2], [0], [2]], np.int32)
    u0 = RNG.standard_normal(3).astype(np.float32)
    u1 = RNG.integers(-5, 5, 3).astype(np.int32)
    r0, r1 = compile_fn(src).s(o0, o1, idx, u0, u1)
    e0, e1 = o0.copy(), o1.copy()
    for k in range(3):
        e0[idx[k, 0]] += u0[k]
        e1[idx[k, 0]] = max(e1[idx[k, 0]], u1[k])
    np.testing.assert_allclose(r0, e0, rtol=1e-6)
    np.testing.assert_array_equal(r1, e1)


# -------------------------------------------------------------------------- sort
def _sort_src(shape, et, dim, direction, compare_type=""):
    t = _t(shape, et)
    ct = f", compare_type = #stablehlo<comparison_type {compare_type}>" if compare_type else ""
    return f"""
func.func @s(%x: {t}) -> {t} {{
  %r = "stablehlo.sort"(%x) ({{
  ^bb0(%a: tensor<{et}>, %b: tensor<{et}>):
    %c = "stablehlo.compare"(%a, %b) {{comparison_direction = #stablehlo<comparison_direction {direction}>{ct}}} : (tensor<{et}>, tensor<{et}>) -> tensor<i1>
    "stablehlo.return"(%c) : (tensor<i1>) -> ()
  }}) {{dimension = {dim} : i64, is_stable = false}} : ({t}) -> {t}
  return %r : {t}
}}"""


@pytest.mark.parametrize("shape,dim,direction", [((7,), 0, "LT"), ((3, 6), 1, "LT"), ((5, 4), 0, "GT"),
                                                  ((2, 3, 4), 1, "LT"), ((2, 3, 4), -1, "GT")])
def test_sort_one_operand(shape, dim, direction):
    x = RNG.integers(-5, 5, size=shape).astype(np.int32)  # with ties
    r = compile_fn(_sort_src(shape, "i32", dim, direction)).s(x)
    e = np.sort(x, axis=dim)
    np.testing.assert_array_equal(r, e if direction == "LT" else np.flip(e, axis=dim))


def test_sort_float_total_order():
    x = np.array([3.0, -0.0, np.nan, -np.inf, 0.0, -1.5, np.inf, 2.0], np.float32)
    r = compile_fn(_sort_src((8,), "f32", 0, "LT", "TOTALORDER")).s(x)
    e = np.array([-np.inf, -1.5, -0.0, 0.0, 2.0, 3.0, np.inf, np.nan], np.float32)
    np.testing.assert_array_equal(r.view(np.uint32), e.view(np.uint32))


def test_sort_key_value_stable():
    src = """
func.func @s(%k: tensor<3x8xi32>, %v: tensor<3x8xf32>) -> (tensor<3x8xi32>, tensor<3x8xf32>) {
  %r:2 = "stablehlo.sort"(%k, %v) ({
  ^bb0(%a: tensor<i32>, %b: tensor<i32>, %c: tensor<f32>, %d: tensor<f32>):
    %p = stablehlo.compare GT, %a, %b, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  }) {dimension = 1 : i64, is_stable = true} : (tensor<3x8xi32>, tensor<3x8xf32>) -> (tensor<3x8xi32>, tensor<3x8xf32>)
  return %r#0, %r#1 : tensor<3x8xi32>, tensor<3x8xf32>
}"""
    k = RNG.integers(0, 3, size=(3, 8)).astype(np.int32)
    v = RNG.standard_normal((3, 8)).astype(np.float32)
    rk, rv = compile_fn(src).s(k, v)
    order = np.argsort(-k, axis=1, kind="stable")
    np.testing.assert_array_equal(rk, np.take_along_axis(k, order, 1))
    np.testing.assert_array_equal(rv, np.take_along_axis(v, order, 1))


# ------------------------------------------------------------------ control flow
WHILE_SRC = """
func.func @w(%x: tensor<i32>, %bound: tensor<i32>, %v: tensor<4xf32>) -> (tensor<i32>, tensor<4xf32>) {
  %r:2 = stablehlo.while(%i = %x, %acc = %v) : tensor<i32>, tensor<4xf32>
   cond {
    %c = stablehlo.compare LT, %i, %bound : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i32>
    %n = stablehlo.add %i, %one : tensor<i32>
    %a = stablehlo.add %acc, %acc : tensor<4xf32>
    stablehlo.return %n, %a : tensor<i32>, tensor<4xf32>
  }
  return %r#0, %r#1 : tensor<i32>, tensor<4xf32>
}"""

IF_SRC = """
func.func @i(%p: tensor<i1>, %a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %r = "stablehlo.if"(%p) ({
    %s = stablehlo.add %a, %b : tensor<4xf32>
    "stablehlo.return"(%s) : (tensor<4xf32>) -> ()
  }, {
    %s = stablehlo.subtract %a, %b : tensor<4xf32>
    "stablehlo.return"(%s) : (tensor<4xf32>) -> ()
  }) : (tensor<i1>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}"""

CASE_SRC = """
func.func @c(%k: tensor<i32>, %a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %r = "stablehlo.case"(%k) ({
    %s = stablehlo.add %a, %b : tensor<4xf32>
    "stablehlo.return"(%s) : (tensor<4xf32>) -> ()
  }, {
    %s = stablehlo.subtract %a, %b : tensor<4xf32>
    "stablehlo.return"(%s) : (tensor<4xf32>) -> ()
  }, {
    %s = stablehlo.multiply %a, %b : tensor<4xf32>
    "stablehlo.return"(%s) : (tensor<4xf32>) -> ()
  }) : (tensor<i32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}"""


def test_while_becomes_scf_while():
    m = after_stablehlo_conversion(WHILE_SRC)
    names = op_names(m)
    assert not [n for n in names if n.startswith("stablehlo.")]
    (w,) = [op for op in m.walk() if op.name == "scf.while"]
    assert [str(t) for t in w.result_types] == ["tensor<i32>", "tensor<4xf32>"]
    cond, body = w.regions[0].blocks[0], w.regions[1].blocks[0]
    term = cond.terminator
    assert term.name == "scf.condition"
    # the predicate is the i1 read from the compare's rank-0 result
    pred = term.operands[0].owner
    assert pred.name == "tensor.extract" and str(pred.operands[0].type) == "tensor<i1>"
    assert term.operands[1:] == cond.args
    assert body.terminator.name == "scf.yield" and len(body.terminator.operands) == 2
    print_module(m)  # prints without error


def test_while_runs():
    m = compile_fn(WHILE_SRC)
    for start, bound in [(1, 5), (7, 3), (0, 0), (-2, 3)]:
        v = RNG.standard_normal(4).astype(np.float32)
        i, acc = m.w(np.int32(start), np.int32(bound), v)
        steps = max(bound - start, 0)
        assert int(i) == max(start, bound)
        np.testing.assert_allclose(acc, v * 2.0 ** steps, rtol=1e-6)


def test_if_becomes_scf_if_and_runs():
    m = after_stablehlo_conversion(IF_SRC)
    (i,) = [op for op in m.walk() if op.name == "scf.if"]
    assert i.operands[0].owner.name == "tensor.extract"
    assert all(r.blocks[0].terminator.name == "scf.yield" for r in i.regions)
    f = compile_fn(IF_SRC)
    a = RNG.standard_normal(4).astype(np.float32)
    b = RNG.standard_normal(4).astype(np.float32)
    np.testing.assert_allclose(f.i(np.bool_(True), a, b), a + b, rtol=1e-6)
    np.testing.assert_allclose(f.i(np.bool_(False), a, b), a - b, rtol=1e-6)


def test_case_becomes_nested_scf_if_and_runs():
    m = after_stablehlo_conversion(CASE_SRC)
    ifs = [op for op in m.walk() if op.name == "scf.if"]
    assert len(ifs) == 2  # index == 0, else index == 1, else the last branch
    f = compile_fn(CASE_SRC)
    a = RNG.standard_normal(4).astype(np.float32)
    b = RNG.standard_normal(4).astype(np.float32)
    expect = {0: a + b, 1: a - b, 2: a * b}
    for k in (-1, 0, 1, 2, 3, 100):
        np.testing.assert_allclose(f.c(np.int32(k), a, b), expect.get(k, a * b), rtol=1e-6)


def test_shape_assertion_is_dropped_and_other_custom_calls_rejected():
    src = """
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %p = stablehlo.compare EQ, %x, %x, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  stablehlo.custom_call @shape_assertion(%p) {error_message = "Shape assertion failed", has_side_effect = true} : (tensor<4xi1>) -> ()
  return %x : tensor<4xf32>
}"""
    assert "stablehlo.custom_call" not in op_names(after_stablehlo_conversion(src))
    bad = src.replace("@shape_assertion", "@my_kernel")
    with pytest.raises(CompileError, match="my_kernel"):
        after_stablehlo_conversion(bad)


# ------------------------------------------------------------------------ random
def ref_rng_uniform(shape, lo, hi):
    """IREE's LCG hash per element (uint32 arithmetic), scaled to [lo, hi) in float32."""
    out = np.zeros(shape, np.float32)
    for idx in itertools.product(*[range(s) for s in shape]):
        x = 0
        for i in idx:
            x = ((x + i) * 1103515245 + 12345) & 0xFFFFFFFF
        scale = np.float32(np.float32(hi - lo) * np.float32(2.3283064e-10))
        out[idx] = np.float32(np.float32(x) * scale) + np.float32(lo)
    return out


@pytest.mark.parametrize("shape", [(10,), (3, 3), (2, 2, 2)])
def test_rng_uniform_matches_iree_lcg(shape):
    t = _t(shape, "f32")
    src = f"""
func.func @r(%lo: tensor<f32>, %hi: tensor<f32>) -> {t} {{
  %shape = stablehlo.constant dense<{list(shape)}> : tensor<{len(shape)}xi32>
  %r = "stablehlo.rng"(%lo, %hi, %shape) {{rng_distribution = #stablehlo<rng_distribution UNIFORM>}} : (tensor<f32>, tensor<f32>, tensor<{len(shape)}xi32>) -> {t}
  return %r : {t}
}}"""
    r = compile_fn(src).r(np.float32(-10), np.float32(10))
    np.testing.assert_allclose(r, ref_rng_uniform(shape, -10.0, 10.0), atol=1e-5)
    assert np.all((r >= -10) & (r < 10))


def test_rng_normal_moments():
    src = """
func.func @r(%mu: tensor<f32>, %sigma: tensor<f32>) -> tensor<64x64xf32> {
  %shape = stablehlo.constant dense<[64, 64]> : tensor<2xi64>
  %r = "stablehlo.rng"(%mu, %sigma, %shape) {rng_distribution = #stablehlo<rng_distribution NORMAL>} : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}"""
    r = compile_fn(src).r(np.float32(3.0), np.float32(2.0))
    assert np.all(np.isfinite(r))
    assert abs(r.mean() - 3.0) < 0.1 and abs(r.std() - 2.0) < 0.1


def ref_philox4x32(k0, k1, counter):
    """Philox-4x32-10 (Salmon et al. 2011), words (counter lo, counter hi, k0, k1)."""
    m = 0xFFFFFFFF
    x = [counter & m, (counter >> 32) & m, k0, k1]
    for _ in range(10):
        p0 = x[0] * 0xD2511F53
        p1 = x[2] * 0xCD9E8D57
        x = [((p1 >> 32) ^ x[1] ^ k0) & m, p1 & m, ((p0 >> 32) ^ x[3] ^ k1) & m, p0 & m]
        k0, k1 = (k0 + 0x9E3779B9) & m, (k1 + 0xBB67AE85) & m
    return x


@pytest.mark.parametrize("n,et", [(8, "i32"), (6, "i32"), (5, "i64")])
def test_rng_bit_generator_philox(n, et):
    src = f"""
func.func @g(%s: tensor<4xi32>) -> (tensor<4xi32>, tensor<{n}x{et}>) {{
  %0:2 = "stablehlo.rng_bit_generator"(%s) {{rng_algorithm = #stablehlo<rng_algorithm PHILOX>}} : (tensor<4xi32>) -> (tensor<4xi32>, tensor<{n}x{et}>)
  return %0#0, %0#1 : tensor<4xi32>, tensor<{n}x{et}>
}}"""
    s = np.array([1, 2, 3, 4], np.int32)
    new_state, bits = compile_fn(src).g(s)
    base = int(s[3]) | (int(s[2]) << 32)
    per = 2 if et == "i64" else 4
    count = (n + per - 1) // per
    words = sum((ref_philox4x32(1, 2, base + i) for i in range(count)), [])
    if et == "i64":
        words = [words[2 * i] | (words[2 * i + 1] << 32) for i in range(len(words) // 2)]
        expect = np.array(words[:n], np.uint64).view(np.int64)
    else:
        expect = np.array(words[:n], np.uint32).view(np.int32)
    np.testing.assert_array_equal(bits, expect)
    nb = base + count
    np.testing.assert_array_equal(new_state, np.array([1, 2, nb & 0xFFFFFFFF, nb >> 32], np.uint32).view(np.int32))


# ----------------------------------------------------------------------- complex
@pytest.mark.parametrize("fn,np_fn", [("sine", np.sin), ("cosine", np.cos), ("exponential", np.exp),
                                      ("log", np.log), ("sqrt", np.sqrt), ("negate", np.negative)])
def test_complex_unary(fn, np_fn):
    src = f"""
func.func @f(%re: tensor<6xf32>, %im: tensor<6xf32>) -> (tensor<6xf32>, tensor<6xf32>) {{
  %c = stablehlo.complex %re, %im : tensor<6xcomplex<f32>>
  %r = "stablehlo.{fn}"(%c) : (tensor<6xcomplex<f32>>) -> tensor<6xcomplex<f32>>
  %a = stablehlo.real %r : (tensor<6xcomplex<f32>>) -> tensor<6xf32>
  %b = stablehlo.imag %r : (tensor<6xcomplex<f32>>) -> tensor<6xf32>
  return %a, %b : tensor<6xf32>, tensor<6xf32>
}}"""
    re = np.array([0.0, 1.0, 1.0, -1.0, 0.5, -2.0], np.float32)
    im = np.array([0.5, 1.0, -1.0, 1.0, -0.25, 0.0], np.float32)
    a, b = compile_fn(src).f(re, im)
    e = np_fn((re + 1j * im).astype(np.complex64))
    np.testing.assert_allclose(a, e.real, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(b, e.imag, rtol=1e-5, atol=1e-6)


def test_complex_binary_abs_compare_and_constant():
    src = """
func.func @f(%ar: tensor<4xf32>, %ai: tensor<4xf32>, %br: tensor<4xf32>, %bi: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi1>) {
  %a = stablehlo.complex %ar, %ai : tensor<4xcomplex<f32>>
  %b = stablehlo.complex %br, %bi : tensor<4xcomplex<f32>>
  %k = stablehlo.constant dense<(2.0, -1.0)> : tensor<4xcomplex<f32>>
  %m = stablehlo.multiply %a, %b : tensor<4xcomplex<f32>>
  %d = stablehlo.divide %m, %k : tensor<4xcomplex<f32>>
  %s = stablehlo.add %d, %a : tensor<4xcomplex<f32>>
  %x = stablehlo.real %s : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  %y = stablehlo.imag %s : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  %n = stablehlo.abs %b : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  %e = stablehlo.compare EQ, %a, %b : (tensor<4xcomplex<f32>>, tensor<4xcomplex<f32>>) -> tensor<4xi1>
  return %x, %y, %n, %e : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi1>
}"""
    ar, ai = RNG.standard_normal(4).astype(np.float32), RNG.standard_normal(4).astype(np.float32)
    br, bi = RNG.standard_normal(4).astype(np.float32), RNG.standard_normal(4).astype(np.float32)
    br[1], bi[1] = ar[1], ai[1]
    x, y, n, e = compile_fn(src).f(ar, ai, br, bi)
    a, b = ar + 1j * ai, br + 1j * bi
    s = a * b / (2 - 1j) + a
    np.testing.assert_allclose(x, s.real, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(y, s.imag, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(n, np.abs(b), rtol=1e-6)
    np.testing.assert_array_equal(e.astype(bool), a == b)


def test_complex_reaching_return_is_an_error():
    src = """
func.func @f(%re: tensor<2xf32>) -> tensor<2xcomplex<f32>> {
  %c = stablehlo.complex %re, %re : tensor<2xcomplex<f32>>
  return %c : tensor<2xcomplex<f32>>
}"""
    with pytest.raises(CompileError, match="complex"):
        after_stablehlo_conversion(src)


@pytest.mark.parametrize("kind", ["FFT", "IFFT", "RFFT", "IRFFT"])
def test_fft_matches_numpy(kind):
    n = 16
    x = RNG.standard_normal((3, n)).astype(np.float32)
    y = RNG.standard_normal((3, n)).astype(np.float32)
    if kind == "RFFT":
        src = f"""
func.func @f(%x: tensor<3x{n}xf32>, %unused: tensor<3x{n}xf32>) -> (tensor<3x9xf32>, tensor<3x9xf32>) {{
  %0 = stablehlo.fft %x, type = RFFT, length = [{n}] : (tensor<3x{n}xf32>) -> tensor<3x9xcomplex<f32>>
  %1 = stablehlo.real %0 : (tensor<3x9xcomplex<f32>>) -> tensor<3x9xf32>
  %2 = stablehlo.imag %0 : (tensor<3x9xcomplex<f32>>) -> tensor<3x9xf32>
  return %1, %2 : tensor<3x9xf32>, tensor<3x9xf32>
}}"""
        a, b = compile_fn(src).f(x, y)
        e = np.fft.rfft(x.astype(np.float64), axis=-1)
        np.testing.assert_allclose(a, e.real, atol=1e-4)
        np.testing.assert_allclose(b, e.imag, atol=1e-4)
        return
    if kind == "IRFFT":
        m = n // 2 + 1
        src = f"""
func.func @f(%re: tensor<3x{m}xf32>, %im: tensor<3x{m}xf32>) -> tensor<3x{n}xf32> {{
  %c = stablehlo.complex %re, %im : tensor<3x{m}xcomplex<f32>>
  %0 = stablehlo.fft %c, type = IRFFT, length = [{n}] : (tensor<3x{m}xcomplex<f32>>) -> tensor<3x{n}xf32>
  return %0 : tensor<3x{n}xf32>
}}"""
        re, im = x[:, :m].copy(), y[:, :m].copy()
        r = compile_fn(src).f(re, im)
        np.testing.assert_allclose(r, np.fft.irfft(re + 1j * im, n=n, axis=-1), atol=1e-5)
        return
    src = f"""
func.func @f(%re: tensor<3x{n}xf32>, %im: tensor<3x{n}xf32>) -> (tensor<3x{n}xf32>, tensor<3x{n}xf32>) {{
  %c = stablehlo.complex %re, %im : tensor<3x{n}xcomplex<f32>>
  %0 = stablehlo.fft %c, type = {kind}, length = [{n}] : (tensor<3x{n}xcomplex<f32>>) -> tensor<3x{n}xcomplex<f32>>
  %1 = stablehlo.real %0 : (tensor<3x{n}xcomplex<f32>>) -> tensor<3x{n}xf32>
  %2 = stablehlo.imag %0 : (tensor<3x{n}xcomplex<f32>>) -> tensor<3x{n}xf32>
  return %1, %2 : tensor<3x{n}xf32>, tensor<3x{n}xf32>
}}"""
    a, b = compile_fn(src).f(x, y)
    e = (np.fft.fft if kind == "FFT" else np.fft.ifft)(x + 1j * y.astype(np.float64), axis=-1)
    np.testing.assert_allclose(a, e.real, atol=1e-4)
    np.testing.assert_allclose(b, e.imag, atol=1e-4)

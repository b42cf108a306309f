"""The host program: branches, host scalars, globals, calls, scalar ABI values, and `ireec check`."""
from __future__ import annotations

import io

import numpy as np
import ireec
from ireec.compiler import compile_source
from ireec.tools import check

LOOP = """
func.func @loop() -> tensor<f32> {
  %init = arith.constant dense<0.0> : tensor<f32>
  %lim = arith.constant dense<5.0> : tensor<f32>
  %one = arith.constant dense<1.0> : tensor<f32>
  cf.br ^bb1(%init : tensor<f32>)
^bb1(%x: tensor<f32>):
  %c = arith.cmpf olt, %x, %lim : tensor<f32>
  %p = tensor.extract %c[] : tensor<i1>
  cf.cond_br %p, ^bb2, ^bb3(%x : tensor<f32>)
^bb2:
  %y = arith.addf %x, %one : tensor<f32>
  cf.br ^bb1(%y : tensor<f32>)
^bb3(%r: tensor<f32>):
  return %r : tensor<f32>
}
"""

WHILE = """
func.func @triple_until(%init: tensor<i32>) -> tensor<i32> {
  %r = scf.while (%a = %init) : (tensor<i32>) -> tensor<i32> {
    %lim = arith.constant dense<100> : tensor<i32>
    %c = arith.cmpi slt, %a, %lim : tensor<i32>
    %p = tensor.extract %c[] : tensor<i1>
    scf.condition(%p) %a : tensor<i32>
  } do {
  ^bb0(%b: tensor<i32>):
    %three = arith.constant dense<3> : tensor<i32>
    %n = arith.muli %b, %three : tensor<i32>
    scf.yield %n : tensor<i32>
  }
  return %r : tensor<i32>
}
func.func @pick(%c: tensor<i1>, %a: tensor<4xf32>) -> tensor<4xf32> {
  %p = tensor.extract %c[] : tensor<i1>
  %r = scf.if %p -> tensor<4xf32> {
    %d = arith.addf %a, %a : tensor<4xf32>
    scf.yield %d : tensor<4xf32>
  } else {
    %n = arith.negf %a : tensor<4xf32>
    scf.yield %n : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
func.func @count(%n: index) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0 : i32
  %k = arith.constant 2 : i32
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (i32) {
    %t = arith.addi %acc, %k : i32
    scf.yield %t : i32
  }
  return %s : i32
}
"""

GLOBALS = """
util.global private mutable @counter = dense<2.0> : tensor<f32>
util.global private @weights = dense<[1.0, 2.0]> : tensor<2xf32>
ml_program.global private mutable @state(dense<[10, 20]> : tensor<2xi32>): tensor<2xi32>
func.func @inc() -> tensor<f32> {
  %0 = util.global.load @counter : tensor<f32>
  %c1 = arith.constant dense<1.0> : tensor<f32>
  %1 = arith.addf %0, %c1 : tensor<f32>
  util.global.store %1, @counter : tensor<f32>
  %2 = util.global.load @counter : tensor<f32>
  return %2 : tensor<f32>
}
func.func @weights_twice() -> tensor<2xf32> {
  %p = util.global.address @weights : !util.ptr<tensor<2xf32>>
  %w = util.global.load.indirect %p : !util.ptr<tensor<2xf32>> -> tensor<2xf32>
  %d = arith.addf %w, %w : tensor<2xf32>
  return %d : tensor<2xf32>
}
func.func @bump() -> tensor<2xi32> {
  %s = ml_program.global_load @state : tensor<2xi32>
  %t = arith.addi %s, %s : tensor<2xi32>
  ml_program.global_store @state = %t : tensor<2xi32>
  return %s : tensor<2xi32>
}
"""

CALLS_AND_SCALARS = """
func.func private @twice(%a: tensor<4xf32>) -> tensor<4xf32> {
  %b = arith.addf %a, %a : tensor<4xf32>
  return %b : tensor<4xf32>
}
func.func private @branchy(%a: tensor<4xf32>, %c: i1) -> tensor<4xf32> {
  cf.cond_br %c, ^t, ^f
^t:
  return %a : tensor<4xf32>
^f:
  %n = arith.negf %a : tensor<4xf32>
  return %n : tensor<4xf32>
}
func.func @main(%x: tensor<4xf32>, %s: tensor<f32>) -> tensor<4xf32> {
  %y = call @twice(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %z = call @twice(%y) : (tensor<4xf32>) -> tensor<4xf32>
  %v = tensor.extract %s[] : tensor<f32>
  %zero = arith.constant 0.0 : f32
  %pos = arith.cmpf ogt, %v, %zero : f32
  %w = call @branchy(%z, %pos) : (tensor<4xf32>, i1) -> tensor<4xf32>
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%v : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r = arith.addf %w, %f : tensor<4xf32>
  return %r : tensor<4xf32>
}
func.func @scalar() -> i32 {
  %r = util.unfoldable_constant 42 : i32
  return %r : i32
}
"""


def test_cf_loop_over_tensors():
    m = ireec.compile_source(LOOP)
    assert float(m.loop()) == 5.0


def test_scf_while_if_for_on_the_host():
    m = ireec.compile_source(WHILE)
    assert int(m.triple_until(np.int32(1))) == 243
    assert int(m.triple_until(np.int32(200))) == 200
    a = np.array([1, -2, 3, 4], np.float32)
    np.testing.assert_array_equal(m.pick(np.bool_(True), a), 2 * a)
    np.testing.assert_array_equal(m.pick(np.bool_(False), a), -a)
    assert int(m.count(np.int64(7))) == 14


def test_scf_becomes_blocks_before_the_abi():
    ir = compile_source(WHILE, "w.mlir", compile_to="input").ir_text
    assert "scf.while" not in ir and "scf.if" not in ir and "scf.for" not in ir
    assert "cf.cond_br" in ir


def test_globals_mutable_state_and_folded_constants():
    m = ireec.compile_source(GLOBALS)
    assert [float(m.inc()) for _ in range(3)] == [3.0, 4.0, 5.0]
    np.testing.assert_array_equal(m.weights_twice(), [2.0, 4.0])
    np.testing.assert_array_equal(m.bump(), [10, 20])
    np.testing.assert_array_equal(m.bump(), [20, 40])
    ir = compile_source(GLOBALS, "g.mlir", compile_to="input").ir_text
    assert "util.global private @weights" not in ir  # never stored: folded into a constant


def test_calls_inlined_and_host_scalars_reach_dispatches():
    m = ireec.compile_source(CALLS_AND_SCALARS)
    x = np.array([1, 2, 3, 4], np.float32)
    np.testing.assert_allclose(m.main(x, np.float32(0.5)), 4 * x + 0.5)
    np.testing.assert_allclose(m.main(x, np.float32(-1.0)), -4 * x - 1.0)
    assert int(m.scalar()) == 42
    ir = compile_source(CALLS_AND_SCALARS, "c.mlir", compile_to="input").ir_text
    assert "call @" not in ir and "@twice" not in ir


def test_multi_block_function_keeps_every_transient():
    out = compile_source(LOOP, "l.mlir")
    fn = out.report["functions"]["loop"]
    assert fn["arena_bytes"] >= fn["lower_bound_bytes"] > 0


CHECKS = """
func.func @passes() {
  %a = util.unfoldable_constant dense<[1, 2]> : tensor<2xi32>
  %b = arith.addi %a, %a : tensor<2xi32>
  check.expect_eq_const(%b, dense<[2, 4]> : tensor<2xi32>) : tensor<2xi32>
  %f = util.unfoldable_constant dense<[1.0, 2.0]> : tensor<2xf32>
  %g = arith.mulf %f, %f : tensor<2xf32>
  check.expect_almost_eq_const(%g, dense<[1.0, 4.00001]> : tensor<2xf32>) : tensor<2xf32>
  %t = util.unfoldable_constant 1 : i32
  check.expect_true(%t) : i32
  %z = util.unfoldable_constant 0 : i32
  check.expect_false(%z) : i32
  %n = util.unfoldable_constant dense<[0x7FC00000, 1.0]> : tensor<2xf32>
  check.expect_almost_eq(%n, %n) : tensor<2xf32>
  return
}
func.func @fails() {
  %a = util.unfoldable_constant dense<[1, 2]> : tensor<2xi32>
  %b = arith.addi %a, %a : tensor<2xi32>
  check.expect_eq(%b, %a) : tensor<2xi32>
  %f = util.unfoldable_constant dense<[1.0, 2.0]> : tensor<2xf32>
  check.expect_almost_eq_const(%f, dense<[1.0, 2.1]> : tensor<2xf32>, atol 1.0e-2) : tensor<2xf32>
  return
}
func.func @zero_signs() {
  %a = util.unfoldable_constant dense<[0.0]> : tensor<1xf32>
  %n = arith.negf %a : tensor<1xf32>
  check.expect_eq(%n, %a) : tensor<1xf32>
  return
}
func.func @not_a_test(%x: tensor<f32>) -> tensor<f32> {
  return %x : tensor<f32>
}
"""


def test_check_tool_reports_each_test(tmp_path):
    src = tmp_path / "t.mlir"
    src.write_text(CHECKS)
    out = io.StringIO()
    rc = check.main(str(src), stream=out)
    lines = out.getvalue().splitlines()
    assert rc == 1
    assert lines[0] == "PASS @passes"
    assert lines[1].startswith(f"FAIL @fails: {src}:20:3: check.expect_eq: expected 2xi32=1 2, got 2xi32=2 4")
    assert "check.expect_almost_eq_const: expected 2xf32=1 2.1, got 2xf32=1 2 (atol 0.01" in lines[2]
    assert lines[3].startswith("FAIL @zero_signs")  # byte-wise: -0.0 != +0.0
    assert lines[-1] == "3 tests: 1 passed, 2 failed, 0 unsupported, 0 errors"


def test_check_tool_isolates_unsupported_tests(tmp_path):
    src = tmp_path / "u.mlir"
    src.write_text("""
func.func @good() {
  %a = util.unfoldable_constant dense<3> : tensor<i32>
  check.expect_eq_const(%a, dense<3> : tensor<i32>) : tensor<i32>
  return
}
func.func @bad() {
  %a = util.unfoldable_constant dense<3> : tensor<i32>
  %b = "test.unknown"(%a) : (tensor<i32>) -> tensor<i32>
  check.expect_eq_const(%b, dense<3> : tensor<i32>) : tensor<i32>
  return
}
""")
    results = check.check_source(src.read_text(), str(src))
    assert [(r.name, r.status) for r in results] == [("good", "pass"), ("bad", "unsupported")]
    assert ":9:" in results[1].message


def test_checks_inside_control_flow_count_only_when_they_run(tmp_path):
    src = tmp_path / "cf.mlir"
    src.write_text("""
func.func @taken_branch_fails() {
  %a = util.unfoldable_constant dense<true> : tensor<i1>
  %p = tensor.extract %a[] : tensor<i1>
  %zero = util.unfoldable_constant 0 : i32
  cf.cond_br %p, ^b1, ^b2
^b1:
  check.expect_true(%zero) : i32
  cf.br ^b2
^b2:
  return
}
func.func @untaken_branch_is_skipped() {
  %a = util.unfoldable_constant dense<false> : tensor<i1>
  %p = tensor.extract %a[] : tensor<i1>
  %zero = util.unfoldable_constant 0 : i32
  %v = util.unfoldable_constant dense<[1, 2]> : tensor<2xi32>
  scf.if %p {
    check.expect_true(%zero) : i32
    scf.yield
  } else {
    check.expect_eq_const(%v, dense<[1, 2]> : tensor<2xi32>) : tensor<2xi32>
    scf.yield
  }
  return
}
""")
    results = check.check_source(src.read_text(), str(src))
    assert [(r.name, r.status) for r in results] == [("taken_branch_fails", "fail"),
                                                      ("untaken_branch_is_skipped", "pass")]
    assert ":8:3: check.expect_true: expected true" in results[0].failures[0]


def test_sub_byte_elements_at_the_abi_are_a_located_error():
    from ireec.ir.diagnostics import CompileError

    try:
        compile_source("func.func @f(%a: tensor<4xi4>) -> tensor<4xi4> {\n  return %a : tensor<4xi4>\n}\n", "s.mlir")
    except CompileError as e:
        assert (e.loc.line, e.loc.col) == (1, 1) and "i4 elements at the ABI" in e.message
    else:
        raise AssertionError("expected a CompileError")

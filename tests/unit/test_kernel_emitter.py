"""The kernel emitter (scf/memref/arith kernels → emitc ops → C), checked numerically.

Each test writes one kernel as IREE's HAL phase leaves it (a ``hal.executable`` whose
kernel reads and writes ``hal.interface.binding.subspan`` memrefs), lowers it with the
vm-phase pass, renders it with the ``c`` or ``openmp`` target, builds it with cc and calls
its launch function through ctypes on numpy buffers; results are compared with numpy.
"""
from __future__ import annotations

import ctypes
import re

import numpy as np
import pytest

from ireec.frontend.parser import parse_source
from ireec.ir.diagnostics import CompileError
from ireec.passes.pass_base import PassContext
from ireec.passes.pipeline import passes_for
from ireec.runtime.build import build_shared_library, compile_object_check
from ireec.targets import get_target

_NP = {"f32": np.float32, "f64": np.float64, "i32": np.int32, "i64": np.int64, "i8": np.int8,
       "f16": np.float16, "i1": np.uint8}


def _memref_np(t: str):
    m = re.fullmatch(r"memref<((?:\d+x)*)(\w+)>", t)
    shape = tuple(int(d) for d in m.group(1).split("x") if d)
    return shape, _NP[m.group(2)]


def kernel_module(bindings, body, workgroup_count=(1, 1, 1), globals_=""):
    """MLIR text of one hal.executable with kernel @k. ``bindings``: [(memref type, readonly)]."""
    subspans = "\n".join(
        f'%b{i} = "hal.interface.binding.subspan"() {{binding = {i} : index, descriptor_flags = '
        f'"{"ReadOnly" if ro else "None"}"}} : () -> ({t})' for i, (t, ro) in enumerate(bindings))
    wg = ", ".join(str(c) for c in workgroup_count)
    return f"""
"hal.executable"() ({{
  "hal.executable.variant"() ({{
    "hal.executable.export"() {{sym_name = "k", ordinal = 0 : index, workgroup_count = array<i64: {wg}>}} : () -> ()
    module {{
      {globals_}
      func.func @k() {{
        {subspans}
        {body}
        return
      }}
    }}
  }}) {{sym_name = "embedded_c", target = "c"}} : () -> ()
}}) {{sym_name = "ex", sym_visibility = "private"}} : () -> ()
"""


def render(text, target="c"):
    module = parse_source(text, "kernel.mlir")
    ctx = PassContext(target=target, module_name="ktest", source_name="kernel.mlir")
    for cls, _why in passes_for("vm"):  # the emitc lowering and the passes after it
        cls().run(module, ctx)
    return get_target(target).render(module, ctx)


def run_kernel(tmp_path, bindings, body, inputs, target="c", workgroup_count=(1, 1, 1), globals_=""):
    """Build kernel @k and run it; ``inputs`` fill the read-only bindings in order; the
    writable bindings start zeroed. Returns the writable bindings' arrays."""
    files = render(kernel_module(bindings, body, workgroup_count, globals_), target)
    lib = build_shared_library(files, "ktest", tmp_path / f"k_{target}.so", target=target)
    fn = getattr(ctypes.CDLL(str(lib)), "ktest_k")
    arrays, outs, it = [], [], iter(inputs)
    for t, ro in bindings:
        shape, dt = _memref_np(t)
        a = np.ascontiguousarray(next(it), dtype=dt) if ro else np.zeros(shape, dt)
        assert a.shape == shape
        arrays.append(a)
        if not ro:
            outs.append(a)
    fn.restype = None
    fn(*[ctypes.c_void_p(a.ctypes.data) for a in arrays])
    return outs


def kernel_c(text, target="c"):
    return render(text, target)["ktest_kernels.c"]


# ----------------------------------------------------------------------------- scf.if
IF_NO_RESULTS = """
%c0 = arith.constant 0 : index
%c1 = arith.constant 1 : index
%c8 = arith.constant 8 : index
%z = arith.constant 0.0 : f32
scf.for %i = %c0 to %c8 step %c1 {
  %x = memref.load %b0[%i] : memref<8xf32>
  %p = arith.cmpf ogt, %x, %z : f32
  scf.if %p {
    memref.store %x, %b1[%i] : memref<8xf32>
  } else {
    %n = arith.negf %x : f32
    memref.store %n, %b2[%i] : memref<8xf32>
  }
  scf.if %p {
    %d = arith.addf %x, %x : f32
    memref.store %d, %b2[%i] : memref<8xf32>
  }
}
"""


@pytest.mark.parametrize("target", ["c", "openmp"])
def test_scf_if_without_results(tmp_path, target):
    x = np.array([-2, 3, 0, 5, -1, 7, -8, 0.5], np.float32)
    a, b = run_kernel(tmp_path, [("memref<8xf32>", True), ("memref<8xf32>", False), ("memref<8xf32>", False)],
                      IF_NO_RESULTS, [x], target)
    np.testing.assert_array_equal(a, np.where(x > 0, x, 0))
    np.testing.assert_array_equal(b, np.where(x > 0, 2 * x, -x))


def test_scf_if_with_results(tmp_path):
    body = """
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c6 = arith.constant 6 : index
    %z = arith.constant 0 : i32
    %two = arith.constant 2 : i32
    scf.for %i = %c0 to %c6 step %c1 {
      %x = memref.load %b0[%i] : memref<6xi32>
      %p = arith.cmpi slt, %x, %z : i32
      %r:2 = scf.if %p -> (i32, i32) {
        %n = arith.subi %z, %x : i32
        scf.yield %n, %two : i32, i32
      } else {
        %m = arith.muli %x, %two : i32
        scf.yield %m, %x : i32, i32
      }
      %s = arith.addi %r#0, %r#1 : i32
      memref.store %s, %b1[%i] : memref<6xi32>
    }
    """
    x = np.array([-3, 4, 0, -7, 9, 1], np.int32)
    (out,) = run_kernel(tmp_path, [("memref<6xi32>", True), ("memref<6xi32>", False)], body, [x])
    np.testing.assert_array_equal(out, np.where(x < 0, -x + 2, 3 * x))


# ------------------------------------------------------------------------- iter_args
def test_scf_for_iter_args_reduction(tmp_path):
    """Row sums and row maxima carried through one loop (two iter_args)."""
    body = """
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c5 = arith.constant 5 : index
    %z = arith.constant 0.0 : f32
    %ninf = arith.constant 0xFF800000 : f32
    scf.for %i = %c0 to %c3 step %c1 {
      %r:2 = scf.for %j = %c0 to %c5 step %c1 iter_args(%acc = %z, %mx = %ninf) -> (f32, f32) {
        %x = memref.load %b0[%i, %j] : memref<3x5xf32>
        %a = arith.addf %acc, %x : f32
        %m = arith.maximumf %mx, %x : f32
        scf.yield %a, %m : f32, f32
      }
      memref.store %r#0, %b1[%i] : memref<3xf32>
      memref.store %r#1, %b2[%i] : memref<3xf32>
    }
    """
    x = np.random.default_rng(0).standard_normal((3, 5)).astype(np.float32)
    s, m = run_kernel(tmp_path, [("memref<3x5xf32>", True), ("memref<3xf32>", False), ("memref<3xf32>", False)],
                      body, [x])
    expect = np.zeros(3, np.float32)
    for j in range(5):  # same summation order as the kernel
        expect = expect + x[:, j]
    np.testing.assert_array_equal(s, expect)
    np.testing.assert_array_equal(m, x.max(axis=1))


def test_scf_for_iter_args_swap(tmp_path):
    """Fibonacci with yielded values that are the loop's own arguments (a swap)."""
    body = """
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c10 = arith.constant 10 : index
    %zero = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %r:2 = scf.for %j = %c0 to %c10 step %c1 iter_args(%a = %zero, %b = %one) -> (i64, i64) {
      %n = arith.addi %a, %b : i64
      scf.yield %b, %n : i64, i64
    }
    %c2 = arith.constant 2 : index
    %s:2 = scf.for %j = %c0 to %c2 step %c1 iter_args(%p = %r#0, %q = %r#1) -> (i64, i64) {
      scf.yield %q, %p : i64, i64
    }
    memref.store %r#0, %b0[%c0] : memref<4xi64>
    memref.store %r#1, %b0[%c1] : memref<4xi64>
    %c3 = arith.constant 3 : index
    memref.store %s#0, %b0[%c2] : memref<4xi64>
    memref.store %s#1, %b0[%c3] : memref<4xi64>
    """
    (out,) = run_kernel(tmp_path, [("memref<4xi64>", False)], body, [])
    np.testing.assert_array_equal(out, [55, 89, 55, 89])


def test_scf_while(tmp_path):
    """Collatz step counts: a while loop whose condition forwards the loop state."""
    body = """
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c6 = arith.constant 6 : index
    %one = arith.constant 1 : i32
    %two = arith.constant 2 : i32
    %three = arith.constant 3 : i32
    %zero = arith.constant 0 : i32
    scf.for %i = %c0 to %c6 step %c1 {
      %x0 = memref.load %b0[%i] : memref<6xi32>
      %res:2 = scf.while (%x = %x0, %n = %zero) : (i32, i32) -> (i32, i32) {
        %go = arith.cmpi sgt, %x, %one : i32
        scf.condition(%go) %x, %n : i32, i32
      } do {
      ^bb0(%y: i32, %m: i32):
        %r = arith.remsi %y, %two : i32
        %odd = arith.cmpi ne, %r, %zero : i32
        %t = arith.muli %y, %three : i32
        %t1 = arith.addi %t, %one : i32
        %h = arith.divsi %y, %two : i32
        %nx = arith.select %odd, %t1, %h : i32
        %m1 = arith.addi %m, %one : i32
        scf.yield %nx, %m1 : i32, i32
      }
      memref.store %res#1, %b1[%i] : memref<6xi32>
    }
    """

    def steps(v):
        n = 0
        while v > 1:
            v = 3 * v + 1 if v % 2 else v // 2
            n += 1
        return n

    x = np.array([1, 2, 3, 7, 27, 97], np.int32)
    (out,) = run_kernel(tmp_path, [("memref<6xi32>", True), ("memref<6xi32>", False)], body, [x])
    np.testing.assert_array_equal(out, [steps(int(v)) for v in x])


# ------------------------------------------------------------------------- constants
def test_dense_constants_in_kernel(tmp_path):
    """A tensor constant read with tensor.extract, a memref.global read through
    memref.get_global, and a splat constant."""
    globals_ = "memref.global \"private\" constant @lut : memref<2x3xi32> = dense<[[10, 20, 30], [-40, 50, 2147483647]]>"
    body = """
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %w = arith.constant dense<[[0.5, -1.5, 2.0], [1.0e-3, 0x7F800000, 3.25]]> : tensor<2x3xf32>
    %s = arith.constant dense<7.0> : tensor<2x3xf32>
    %g = memref.get_global @lut : memref<2x3xi32>
    scf.for %i = %c0 to %c2 step %c1 {
      scf.for %j = %c0 to %c3 step %c1 {
        %x = memref.load %b0[%i, %j] : memref<2x3xf32>
        %a = tensor.extract %w[%i, %j] : tensor<2x3xf32>
        %b = tensor.extract %s[%i, %j] : tensor<2x3xf32>
        %m = arith.mulf %x, %a : f32
        %r = arith.addf %m, %b : f32
        memref.store %r, %b1[%i, %j] : memref<2x3xf32>
        %l = memref.load %g[%i, %j] : memref<2x3xi32>
        memref.store %l, %b2[%i, %j] : memref<2x3xi32>
      }
    }
    """
    x = np.array([[1, 2, 3], [4, 5, 6]], np.float32)
    bindings = [("memref<2x3xf32>", True), ("memref<2x3xf32>", False), ("memref<2x3xi32>", False)]
    y, lut = run_kernel(tmp_path, bindings, body, [x], globals_=globals_)
    w = np.array([[0.5, -1.5, 2.0], [1.0e-3, np.inf, 3.25]], np.float32)
    np.testing.assert_array_equal(y, x * w + np.float32(7))
    np.testing.assert_array_equal(lut, [[10, 20, 30], [-40, 50, 2147483647]])
    c = kernel_c(kernel_module(bindings, body, globals_=globals_))
    assert re.search(r"static const float c\d+\[6\]", c) and re.search(r"static const int32_t c\d+\[6\]", c)
    assert "INFINITY" in c


def test_f16_and_i1_constants(tmp_path):
    body = """
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %h = arith.constant dense<[0.1, -2.5, 65504.0, 3.0e-5]> : tensor<4xf16>
    %m = arith.constant dense<[true, false, false, true]> : tensor<4xi1>
    scf.for %i = %c0 to %c4 step %c1 {
      %x = tensor.extract %h[%i] : tensor<4xf16>
      %p = tensor.extract %m[%i] : tensor<4xi1>
      %e = arith.extf %x : f16 to f32
      %z = arith.constant 0.0 : f32
      %r = arith.select %p, %e, %z : f32
      memref.store %r, %b0[%i] : memref<4xf32>
    }
    """
    (out,) = run_kernel(tmp_path, [("memref<4xf32>", False)], body, [])
    h = np.array([0.1, -2.5, 65504.0, 3.0e-5], np.float16).astype(np.float32)
    np.testing.assert_array_equal(out, np.where([True, False, False, True], h, 0))


# -------------------------------------------------------- indices, views, temporaries
def test_computed_indices_select_and_views(tmp_path):
    """out[i, j] = in[3 - i, 2 * j] (computed indices) through a subview, clamped with
    select; an alloca temporary filled then copied with memref.copy."""
    body = """
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %lim = arith.constant 5.0 : f32
    %v = memref.subview %b0[1, 0] [4, 6] [1, 1] : memref<5x6xf32> to memref<4x6xf32, strided<[6, 1], offset: 6>>
    %t = memref.alloca() : memref<4x3xf32>
    scf.for %i = %c0 to %c4 step %c1 {
      scf.for %j = %c0 to %c3 step %c1 {
        %ri = arith.subi %c3, %i : index
        %cj = arith.muli %j, %c2 : index
        %x = memref.load %v[%ri, %cj] : memref<4x6xf32, strided<[6, 1], offset: 6>>
        %big = arith.cmpf ogt, %x, %lim : f32
        %y = arith.select %big, %lim, %x : f32
        memref.store %y, %t[%i, %j] : memref<4x3xf32>
      }
    }
    memref.copy %t, %b1 : memref<4x3xf32> to memref<4x3xf32>
    """
    x = np.arange(30, dtype=np.float32).reshape(5, 6) / 4
    (out,) = run_kernel(tmp_path, [("memref<5x6xf32>", True), ("memref<4x3xf32>", False)], body, [x])
    expect = np.minimum(x[1:][::-1, ::2], 5.0)
    np.testing.assert_array_equal(out, expect)


# ---------------------------------------------------------------------- workgroups
@pytest.mark.parametrize("target", ["c", "openmp"])
def test_workgroup_ids_and_counts(tmp_path, target):
    """A 4x3 grid of workgroups, each writing a 2x2 tile of a 6x8 output with its ids."""
    body = """
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %wx = "hal.interface.workgroup.id"() {dimension = 0 : index} : () -> index
    %wy = "hal.interface.workgroup.id"() {dimension = 1 : index} : () -> index
    %nx = "hal.interface.workgroup.count"() {dimension = 0 : index} : () -> index
    %r0 = arith.muli %wy, %c2 : index
    %c0_ = arith.muli %wx, %c2 : index
    scf.for %i = %c0 to %c2 step %c1 {
      scf.for %j = %c0 to %c2 step %c1 {
        %r = arith.addi %r0, %i : index
        %c = arith.addi %c0_, %j : index
        %x = memref.load %b0[%r, %c] : memref<6x8xf32>
        %lin = arith.muli %wy, %nx : index
        %id = arith.addi %lin, %wx : index
        %idi = arith.index_cast %id : index to i32
        %f = arith.sitofp %idi : i32 to f32
        %y = arith.addf %x, %f : f32
        memref.store %y, %b1[%r, %c] : memref<6x8xf32>
      }
    }
    """
    x = np.random.default_rng(1).standard_normal((6, 8)).astype(np.float32)
    (out,) = run_kernel(tmp_path, [("memref<6x8xf32>", True), ("memref<6x8xf32>", False)], body, [x],
                        target, workgroup_count=(4, 3, 1))
    ids = (np.arange(6)[:, None] // 2) * 4 + np.arange(8)[None, :] // 2
    np.testing.assert_array_equal(out, x + ids.astype(np.float32))
    c = kernel_c(kernel_module([("memref<6x8xf32>", True), ("memref<6x8xf32>", False)], body, (4, 3, 1)), target)
    launch = c[c.index("void ktest_k("):]
    assert ("#pragma omp parallel for schedule(static) collapse(2)" in launch) == (target == "openmp")
    assert "#ifdef _OPENMP" in launch or target == "c"
    assert "for (int64_t y = 0; y < 3; ++y)" in launch and "for (int64_t z" not in launch


# ------------------------------------------------------------- vectorizable loops
def test_ivdep_and_hoisting(tmp_path):
    """Independent innermost loops are marked IREEC_IVDEP, reductions are not; address
    arithmetic that does not depend on the inner induction variable leaves the loop."""
    body = """
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    scf.for %i = %c0 to %c4 step %c1 {
      scf.for %j = %c0 to %c8 step %c1 {
        %r = arith.addi %i, %c1 : index
        %x = memref.load %b0[%r, %j] : memref<5x8xf32>
        %y = arith.mulf %x, %x : f32
        memref.store %y, %b1[%i, %j] : memref<4x8xf32>
      }
    }
    scf.for %i = %c0 to %c4 step %c1 {
      scf.for %j = %c0 to %c8 step %c1 {
        %x = memref.load %b1[%i, %j] : memref<4x8xf32>
        %a = memref.load %b2[%i] : memref<4xf32>
        %s = arith.addf %a, %x : f32
        memref.store %s, %b2[%i] : memref<4xf32>
      }
    }
    """
    bindings = [("memref<5x8xf32>", True), ("memref<4x8xf32>", False), ("memref<4xf32>", False)]
    c = kernel_c(kernel_module(bindings, body))
    assert len(re.findall(r"^ +IREEC_IVDEP$", c, re.M)) == 1
    # i + 1 is computed once per row, before the inner loop.
    # Kernels with loops get an AVX2 clone where GCC supports it (same results).
    fn = c[c.index("static IREEC_KERNEL_CLONES void k_workgroup"):]
    first_inner = fn.index("IREEC_IVDEP")
    assert re.search(r"const int(?:32|64)_t v\d+ = i0 \+ 1;", fn[:first_inner]), fn
    x = np.random.default_rng(2).standard_normal((5, 8)).astype(np.float32)
    sq, sums = run_kernel(tmp_path, bindings, body, [x])
    np.testing.assert_array_equal(sq, x[1:] * x[1:])
    expect = np.zeros(4, np.float32)
    for j in range(8):
        expect = expect + sq[:, j]
    np.testing.assert_array_equal(sums, expect)


# --------------------------------------------------------------------- warnings, errors
@pytest.mark.parametrize("target", ["c", "openmp"])
@pytest.mark.parametrize("openmp_flag", [False, True])
def test_generated_c_is_warning_free(tmp_path, target, openmp_flag):
    """All constructs above compile under -Wall -Wextra -Werror, with and without -fopenmp."""
    files = render(kernel_module([("memref<8xf32>", True), ("memref<8xf32>", False), ("memref<8xf32>", False)],
                                 IF_NO_RESULTS, (2, 2, 2)), target)
    compile_object_check(files, ["-fopenmp"] if openmp_flag else [], out_dir=tmp_path / "out")


def test_unused_results_leave_no_unused_variables(tmp_path):
    body = """
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %z = arith.constant 0.0 : f32
    %r = scf.for %j = %c0 to %c4 step %c1 iter_args(%acc = %z) -> (f32) {
      %x = memref.load %b0[%j] : memref<4xf32>
      %a = arith.addf %acc, %x : f32
      memref.store %a, %b1[%j] : memref<4xf32>
      scf.yield %a : f32
    }
    """
    files = render(kernel_module([("memref<4xf32>", True), ("memref<4xf32>", False)], body))
    compile_object_check(files, out_dir=tmp_path / "out")
    (out,) = run_kernel(tmp_path, [("memref<4xf32>", True), ("memref<4xf32>", False)], body,
                        [np.array([1, 2, 3, 4], np.float32)])
    np.testing.assert_array_equal(out, [1, 3, 6, 10])


def test_unsupported_op_reports_location():
    body = """
    %c0 = arith.constant 0 : index
    %x = memref.load %b0[%c0] : memref<4xf32>
    %y = "foo.bar"(%x) : (f32) -> f32
    memref.store %y, %b1[%c0] : memref<4xf32>
    """
    with pytest.raises(CompileError) as e:
        render(kernel_module([("memref<4xf32>", True), ("memref<4xf32>", False)], body))
    assert "foo.bar" in str(e.value) and e.value.loc is not None and e.value.loc.line > 0


def test_shifted_subscripts_and_unit_loops(tmp_path):
    """A unit-trip loop is inlined; ``out[j + 1] = in[j]`` is independent (IREEC_IVDEP), the
    in-place ``b[j + 1] = b[j]`` carries a dependence and must stay sequential."""
    body = """
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c63 = arith.constant 63 : index
    %five = arith.constant 5.0 : f32
    scf.for %u = %c0 to %c1 step %c1 {
      scf.for %j = %c0 to %c63 step %c1 {
        %jj = arith.addi %j, %c1 : index
        %x = memref.load %b0[%j] : memref<64xf32>
        memref.store %x, %b1[%jj] : memref<64xf32>
      }
    }
    memref.store %five, %b2[%c0] : memref<64xf32>
    scf.for %j = %c0 to %c63 step %c1 {
      %jj = arith.addi %j, %c1 : index
      %x = memref.load %b2[%j] : memref<64xf32>
      memref.store %x, %b2[%jj] : memref<64xf32>
    }
    """
    bindings = [("memref<64xf32>", True), ("memref<64xf32>", False), ("memref<64xf32>", False)]
    c = kernel_c(kernel_module(bindings, body))
    assert "< 1;" not in c
    assert len(re.findall(r"^ +IREEC_IVDEP$", c, re.M)) == 1
    x = np.arange(64, dtype=np.float32) + 1
    shifted, filled = run_kernel(tmp_path, bindings, body, [x])
    np.testing.assert_array_equal(shifted, np.concatenate([[0], x[:63]]))
    np.testing.assert_array_equal(filled, np.full(64, 5, np.float32))

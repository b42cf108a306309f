"""``ireec check`` survives tests that trap: each result is printed as soon as it is known,
and a test that dies by a signal is reported as ``CRASH @name (SIGNAME)`` while the others
still run and report."""
from __future__ import annotations

import pytest

from ireec.runtime.build import build_shared_library
from ireec.tools import check

from .common import run_cli

# One test divides by zero (arith.divsi of values the compiler cannot fold, and StableHLO's
# defined x / 0 = -1), one indexes out of range (tensor.extract: undefined, the index is
# clamped; dynamic_slice: clamped by the spec), one passes.
TRAPS = """
func.func @divide_by_zero() {
  %a = util.unfoldable_constant dense<[7, -7, -2147483648, 9]> : tensor<4xi32>
  %b = util.unfoldable_constant dense<[0, 0, -1, 2]> : tensor<4xi32>
  %q = stablehlo.divide %a, %b : tensor<4xi32>
  %r = stablehlo.remainder %a, %b : tensor<4xi32>
  check.expect_eq_const(%q, dense<[-1, -1, -2147483648, 4]> : tensor<4xi32>) : tensor<4xi32>
  check.expect_eq_const(%r, dense<[7, -7, 0, 1]> : tensor<4xi32>) : tensor<4xi32>
  %x = util.unfoldable_constant 7 : i32
  %z = util.unfoldable_constant 0 : i32
  %d = arith.divsi %x, %z : i32
  %m = arith.remsi %d, %z : i32
  %dm = tensor.from_elements %d, %m : tensor<2xi32>
  check.expect_eq(%dm, %dm) : tensor<2xi32>
  return
}
func.func @index_out_of_range() {
  %t = util.unfoldable_constant dense<[10, 20, 30, 40]> : tensor<4xi32>
  %i = util.unfoldable_constant 9 : index
  %v = tensor.extract %t[%i] : tensor<4xi32>
  %vt = tensor.from_elements %v : tensor<1xi32>
  check.expect_eq_const(%vt, dense<[40]> : tensor<1xi32>) : tensor<1xi32>
  %s = util.unfoldable_constant dense<7> : tensor<i32>
  %d = stablehlo.dynamic_slice %t, %s, sizes = [2] : (tensor<4xi32>, tensor<i32>) -> tensor<2xi32>
  check.expect_eq_const(%d, dense<[30, 40]> : tensor<2xi32>) : tensor<2xi32>
  return
}
func.func @passes() {
  %a = util.unfoldable_constant dense<3> : tensor<i32>
  check.expect_eq_const(%a, dense<3> : tensor<i32>) : tensor<i32>
  return
}
"""


def test_division_by_zero_and_out_of_range_index_report_with_the_others(tmp_path, capsys):
    src = tmp_path / "traps.mlir"
    src.write_text(TRAPS)
    rc, out, err = run_cli(["check", src], capsys)
    assert out.splitlines() == ["PASS @divide_by_zero", "PASS @index_out_of_range", "PASS @passes",
                                "3 tests: 3 passed, 0 failed, 0 unsupported, 0 errors"], err
    assert rc == 0


# A module whose code really crashes: the same C ABI as generated modules (reflection table,
# generic trampolines), with tests that die by SIGSEGV and SIGFPE around one that returns.
_CRASHING_C = r"""
#include <signal.h>
#include "ireec_runtime.h"

static ireec_status_t crashy_call_segv(const void *const *a, void *const *r, const int64_t *dims, void *ws, int64_t n) {
  (void)dims;
  (void)a; (void)r; (void)ws; (void)n;
  raise(SIGSEGV);
  return IREEC_STATUS_OK;
}
static ireec_status_t crashy_call_passes(const void *const *a, void *const *r, const int64_t *dims, void *ws, int64_t n) {
  (void)dims;
  (void)a; (void)r; (void)ws; (void)n;
  return IREEC_STATUS_OK;
}
static ireec_status_t crashy_call_fpe(const void *const *a, void *const *r, const int64_t *dims, void *ws, int64_t n) {
  (void)dims;
  (void)a; (void)r; (void)ws; (void)n;
  raise(SIGFPE);
  return IREEC_STATUS_OK;
}
static const ireec_function_info_t crashy_functions[] = {
  {"segv", 0, NULL, 0, NULL, crashy_call_segv, 0, 0},
  {"passes", 0, NULL, 0, NULL, crashy_call_passes, 0, 0},
  {"fpe", 0, NULL, 0, NULL, crashy_call_fpe, 0, 0},
};
const ireec_module_info_t crashy_module_info = {IREEC_ABI_VERSION, "crashy", 3, crashy_functions, 0, 0, 0u, 0, NULL};
"""

_CRASHING_TESTS = """
func.func @segv() {
  return
}
func.func @passes() {
  return
}
func.func @fpe() {
  return
}
"""


class _Recorder:
    """A stream that remembers what had been written at each flush."""

    def __init__(self):
        self.text = ""
        self.flushed = []

    def write(self, s):
        self.text += s

    def flush(self):
        self.flushed.append(self.text)


@pytest.fixture
def crashing_module(tmp_path, monkeypatch):
    lib = build_shared_library({"crashy.c": _CRASHING_C}, "crashy", tmp_path / "libcrashy.so")
    monkeypatch.setattr(check, "_build", lambda output, target: lib)
    src = tmp_path / "crashy.mlir"
    src.write_text(_CRASHING_TESTS)
    return src


def test_crashing_tests_are_reported_and_the_others_still_run(crashing_module):
    stream = _Recorder()
    rc = check.main(str(crashing_module), stream=stream)
    assert stream.text.splitlines() == [
        "CRASH @segv (SIGSEGV)", "PASS @passes", "CRASH @fpe (SIGFPE)",
        "3 tests: 1 passed, 0 failed, 0 unsupported, 0 errors, 2 crashed"]
    assert rc == 1
    # Each result line was flushed on its own, as soon as it was known.
    assert stream.flushed[:3] == ["CRASH @segv (SIGSEGV)\n", "CRASH @segv (SIGSEGV)\nPASS @passes\n",
                                  "CRASH @segv (SIGSEGV)\nPASS @passes\nCRASH @fpe (SIGFPE)\n"]


def test_check_source_reports_results_in_order_as_they_come(crashing_module):
    seen = []
    results = check.check_source(crashing_module.read_text(), str(crashing_module),
                                 report=lambda r: seen.append((r.name, r.status, r.message)))
    assert seen == [("segv", "crash", "SIGSEGV"), ("passes", "pass", ""), ("fpe", "crash", "SIGFPE")]
    assert [(r.name, r.status) for r in results] == [(n, s) for n, s, _ in seen]


def test_corpus_runner_reads_crash_lines(monkeypatch):
    from . import corpus

    out = "CRASH @segv (SIGSEGV)\nPASS @passes\n2 tests: 1 passed, 0 failed, 0 unsupported, 0 errors, 1 crashed\n"
    monkeypatch.setattr(corpus, "_run", lambda cmd, stdin="": (1, out, ""))
    rows = corpus.run_check_file(corpus.CORPUS / "dir" / "t.mlir", "c")
    assert rows == [("dir/t.mlir", "segv", "fail", "crashed (SIGSEGV)"), ("dir/t.mlir", "passes", "pass", "")]

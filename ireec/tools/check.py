"""``ireec check``: runs the ``check.expect_*`` tests of an MLIR file, like iree-check-module.

Every public function without arguments is a test (names starting with ``__`` or containing
``$`` are skipped, as IREE's runner does). The file is compiled once; the check ops have become
extra results (see :mod:`ireec.passes.input.convert_check_to_results`) that are compared here
with the semantics of IREE's check module (compiler/src/iree/compiler/Modules/Check and
runtime/src/iree/modules/check):

- ``expect_true`` / ``expect_false``: the scalar is != 0 / == 0;
- ``expect_all_true``: every element != 0;
- ``expect_eq`` / ``expect_eq_const``: same shape and byte-wise equal contents;
- ``expect_almost_eq`` / ``_const``: same shape and, per element, ``a == b``, both NaN, or
  ``|a - b| <= atol + rtol * |b|`` with ``b`` finite (b = expected; defaults atol 1e-4, rtol 0).

When the whole file does not compile, each test is compiled alone, so one unsupported test does
not hide the others; it is then reported as ``UNSUPPORTED`` with the compiler's diagnostic.
Each test prints one line as soon as it has run (``PASS``, ``FAIL`` with the failing check's
location, expected and actual values, ``CRASH @name (SIGNAME)`` or ``UNSUPPORTED``/``ERROR``);
the exit code is 1 unless every test passed. Tests run in a child process, so a test that
crashes (a signal) is reported and the tests after it still run.
"""
from __future__ import annotations

import faulthandler
import json
import os
import signal
import sys
from dataclasses import asdict, dataclass, field
from typing import Callable, Dict, Iterator, List, Optional, TextIO

import numpy as np

from ..compiler import compile_module
from ..ir.verifier import verify
from ..dialects.func import func_name, func_type, is_declaration
from ..frontend.parser import parse_source
from ..ir import types as T
from ..ir.attributes import DenseElementsAttr, to_raw_bytes
from ..ir.diagnostics import CompileError


@dataclass
class TestResult:
    """Outcome of one test function: ``status`` is 'pass', 'fail', 'unsupported', 'error'
    or 'crash' (``message``: the signal that ended it, e.g. ``SIGSEGV``)."""

    name: str
    status: str
    message: str = ""
    failures: List[str] = field(default_factory=list)


def _is_public(f) -> bool:
    v = f.attributes.get("sym_visibility")
    return v is None or v.value == "public"


def test_functions(module) -> List[str]:
    """Names of the public, defined, argument-free functions of ``module`` (the tests)."""
    names = []
    for f in module.body.ops:
        if f.name != "func.func" or not _is_public(f) or is_declaration(f):
            continue
        n = func_name(f)
        if n.startswith("__") or "$" in n or func_type(f).inputs:
            continue
        names.append(n)
    return names


def _only(module, keep: str):
    """Drop every public function but ``keep`` (private helpers and globals stay)."""
    for f in list(module.body.ops):
        if f.name == "func.func" and _is_public(f) and func_name(f) != keep:
            f.drop_all_references()
            f.detach()
    return module


# Element types numpy cannot hold natively travel as raw bits; ml_dtypes decodes them.
_ML_DTYPES = {"bf16": "bfloat16", "f8E4M3FN": "float8_e4m3fn", "f8E5M2": "float8_e5m2",
              "f8E4M3FNUZ": "float8_e4m3fnuz", "f8E5M2FNUZ": "float8_e5m2fnuz",
              "f8E4M3B11FNUZ": "float8_e4m3b11fnuz", "f8E4M3": "float8_e4m3", "f8E3M4": "float8_e3m4",
              "f8E8M0FNU": "float8_e8m0fnu", "f4E2M1FN": "float4_e2m1fn", "f6E2M3FN": "float6_e2m3fn",
              "f6E3M2FN": "float6_e3m2fn"}


def _as_float(raw: np.ndarray, et: T.Type) -> np.ndarray:
    """Values of ``raw`` (as the loader returns them) widened to float64 for comparison."""
    name = str(et)
    if name in _ML_DTYPES:
        import ml_dtypes

        dt = np.dtype(getattr(ml_dtypes, _ML_DTYPES[name]))
        bits = np.ascontiguousarray(raw).view(np.uint8 if dt.itemsize == 1 else np.uint16)
        return bits.view(dt).astype(np.float64)
    return np.asarray(raw).astype(np.float64)


def _expected_array(attr, et: T.Type, like: np.ndarray) -> np.ndarray:
    """An ``*_const`` check's expected value as stored bytes viewed like the actual array."""
    if not isinstance(attr, DenseElementsAttr):
        raise CompileError(f"unsupported expected value {attr}")
    raw = to_raw_bytes(attr.array, et)
    return np.frombuffer(raw, dtype=like.dtype).reshape(like.shape)


def _fmt(a: np.ndarray, et: T.Type) -> str:
    from ..runtime.io_format import format_result

    try:
        return format_result(a, str(et), max_element_count=16)
    except (KeyError, ValueError):
        return format_result(np.asarray(a), None, max_element_count=16)


def evaluate(entry: Dict[str, object], results: List[np.ndarray]) -> Optional[str]:
    """None when the check holds, else a one-line description of the failure."""
    kind = entry["op"]
    if entry.get("hit") is not None and int(np.asarray(results[entry["hit"]]).reshape(-1)[0]) == 0:
        return None  # inside control flow that did not run
    actual = np.asarray(results[entry["actual"]])
    t = entry["type"]
    et = t.element_type if isinstance(t, T.TensorType) else t
    if entry["expected"] is not None:
        expected = np.asarray(results[entry["expected"]])
    elif entry["expected_value"] is not None:
        expected = _expected_array(entry["expected_value"], et, actual)
    else:
        expected = None
    where = f"{entry['location']}: check.{kind}"
    if kind == "expect_true":
        return None if actual.reshape(-1)[0] != 0 else f"{where}: expected true, got {_fmt(actual, et)}"
    if kind == "expect_false":
        return None if actual.reshape(-1)[0] == 0 else f"{where}: expected false, got {_fmt(actual, et)}"
    if kind == "expect_all_true":
        return None if np.all(actual != 0) else f"{where}: expected all true, got {_fmt(actual, et)}"
    if expected.shape != actual.shape:
        return f"{where}: shapes differ: expected {expected.shape}, got {actual.shape}"
    if kind in ("expect_eq", "expect_eq_const"):
        if np.ascontiguousarray(actual).tobytes() == np.ascontiguousarray(expected).tobytes():
            return None
        return f"{where}: expected {_fmt(expected, et)}, got {_fmt(actual, et)}"
    # expect_almost_eq[_const]
    a, b = _as_float(actual, et), _as_float(expected, et)
    atol, rtol = float(entry["atol"]), float(entry["rtol"])
    with np.errstate(invalid="ignore", over="ignore"):
        ok = (a == b) | (np.isnan(a) & np.isnan(b)) | (np.isfinite(b) & (np.abs(a - b) <= atol + rtol * np.abs(b)))
    if np.all(ok):
        return None
    return (f"{where}: expected {_fmt(expected, et)}, got {_fmt(actual, et)} "
            f"(atol {atol:g}, rtol {rtol:g}; {int(np.sum(~ok))} of {ok.size} elements differ)")


def _results_in_process(lib_path, names: List[str], checks: Dict[str, list]) -> Iterator[TestResult]:
    """Load the library in this process and run ``names`` in order, yielding each result."""
    from ..runtime.loader import load

    try:
        m = load(lib_path)
    except (OSError, ValueError) as e:
        for n in names:
            yield TestResult(n, "error", str(e))
        return
    for n in names:
        try:
            res = m.call(n)
            if res is None:
                res = []
            elif not isinstance(res, tuple):
                res = [res]
            failures = [msg for msg in (evaluate(e, list(res)) for e in checks.get(n, [])) if msg]
        except Exception as e:  # noqa: BLE001 -- one test's failure is reported, the rest go on
            yield TestResult(n, "error", str(e) or type(e).__name__)
            continue
        yield TestResult(n, "fail" if failures else "pass", failures=failures)


def _signal_name(sig: int) -> str:
    try:
        return signal.Signals(sig).name
    except ValueError:
        return f"signal {sig}"


def _run_tests(lib_path, names: List[str], checks: Dict[str, list],
               report: Callable[[TestResult], None]) -> None:
    """Run the tests ``names`` of the built library, calling ``report`` with each result as
    soon as it is known.

    The tests run in a forked child process that loads the library and sends one JSON line
    per finished test through a pipe; this process loads nothing. When the child dies (a
    signal such as SIGSEGV or SIGFPE, or an exit), the test it was running is reported as
    ``crash`` (message: the signal's name) and a new child runs the tests after it, so one
    crashing test does not hide the others. Without ``os.fork`` the tests run in-process."""
    if not hasattr(os, "fork"):
        for r in _results_in_process(lib_path, names, checks):
            report(r)
        return
    pending = list(names)
    while pending:
        rfd, wfd = os.pipe()
        pid = os.fork()
        if pid == 0:  # child: run the tests, never return into the caller's stack
            code = 0
            try:
                faulthandler.disable()  # the parent reports the crash; no traceback dump
                os.close(rfd)
                with os.fdopen(wfd, "w", encoding="utf-8") as out:
                    for r in _results_in_process(lib_path, pending, checks):
                        out.write(json.dumps(asdict(r)) + "\n")
                        out.flush()
            except BaseException:  # noqa: BLE001 -- reported by the parent as a crash
                code = 70
            os._exit(code)
        os.close(wfd)
        done = 0
        with os.fdopen(rfd, "r", encoding="utf-8") as inp:
            for line in inp:
                report(TestResult(**json.loads(line)))
                done += 1
        _, status = os.waitpid(pid, 0)
        pending = pending[done:]
        if not pending:
            break
        name = pending.pop(0)
        if os.WIFSIGNALED(status):
            report(TestResult(name, "crash", _signal_name(os.WTERMSIG(status))))
        else:
            code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else status
            report(TestResult(name, "crash", f"exit status {code}"))


class _InOrder:
    """Passes results to ``report`` in the order of ``names``, each as soon as it and every
    result before it are known."""

    def __init__(self, names: List[str], report: Optional[Callable[[TestResult], None]]):
        self.names = names
        self.report = report
        self.known: Dict[str, TestResult] = {}
        self.next = 0

    def __call__(self, r: TestResult) -> None:
        self.known[r.name] = r
        while self.next < len(self.names) and self.names[self.next] in self.known:
            if self.report is not None:
                self.report(self.known[self.names[self.next]])
            self.next += 1

    def results(self) -> List[TestResult]:
        return [self.known[n] for n in self.names if n in self.known]


def _build(output, target: str):
    from .. import _library_for

    return _library_for(output, target)


def _function_at(module, loc) -> Optional[str]:
    """The public function whose source lines contain ``loc`` (None when outside all)."""
    spans = []
    for f in module.body.ops:
        if f.name == "func.func" and f.loc is not None:
            spans.append((f.loc.line, func_name(f), _is_public(f)))
    spans.sort()
    owner = None
    for line, name, public in spans:
        if line <= loc.line:
            owner = name if public else None
    return owner


def check_source(text: str, filename: str, target: str = "c",
                 report: Optional[Callable[[TestResult], None]] = None) -> List[TestResult]:
    """Compile ``text`` and run its tests; returns their results in file order and, when
    ``report`` is given, calls it with each result (in the same order) as soon as it is
    known. CompileError only for syntax errors and IR that does not verify (the file cannot be read at all); tests that
    do not compile come back as 'unsupported', tests that crash as 'crash'.

    A test whose code fails to compile is dropped and the rest compiled again; when an error
    lies outside the tests (a private helper), each test is compiled alone."""
    parsed = parse_source(text, filename)  # read-only: each compilation parses afresh
    verify(parsed)  # ill-typed IR is an error of the file, not an unsupported test
    names = test_functions(parsed)
    if not names:
        return []
    order = _InOrder(names, report)
    unsupported: List[str] = []
    remaining = list(names)
    while remaining:
        module = parse_source(text, filename)
        for n in unsupported:
            _drop(module, n)
        try:
            output = compile_module(module, filename, target=target)
        except CompileError as e:
            bad = _function_at(parsed, e.loc)
            if bad is None or bad not in remaining:
                _one_by_one(text, filename, target, [n for n in names if n not in unsupported], order)
                return order.results()
            order(TestResult(bad, "unsupported", e.render().splitlines()[0]))
            unsupported.append(bad)
            remaining.remove(bad)
            continue
        _run_tests(_build(output, target), remaining, output.report.get("checks", {}), order)
        break
    return order.results()


def _drop(module, name: str) -> None:
    for f in list(module.body.ops):
        if f.name == "func.func" and func_name(f) == name:
            f.drop_all_references()
            f.detach()


def _one_by_one(text: str, filename: str, target: str, names: List[str],
                report: Callable[[TestResult], None]) -> None:
    for n in names:
        try:
            output = compile_module(_only(parse_source(text, filename), n), filename, target=target)
        except CompileError as e:
            report(TestResult(n, "unsupported", e.render().splitlines()[0]))
            continue
        _run_tests(_build(output, target), [n], output.report.get("checks", {}), report)


def format_result(r: TestResult) -> str:
    """The line(s) of one result: ``PASS @name``, ``FAIL @name: <check>`` (one more line per
    further failing check), ``CRASH @name (SIGSEGV)`` or ``UNSUPPORTED``/``ERROR @name: <why>``."""
    if r.status == "pass":
        return f"PASS @{r.name}\n"
    if r.status == "fail":
        return "".join([f"FAIL @{r.name}: {r.failures[0]}\n"] +
                       [f"     @{r.name}: {more}\n" for more in r.failures[1:]])
    if r.status == "crash":
        return f"CRASH @{r.name} ({r.message})\n"
    return f"{r.status.upper()} @{r.name}: {r.message}\n"


def format_summary(results: List[TestResult]) -> str:
    """``N tests: a passed, b failed, c unsupported, d errors`` (``, e crashed`` when any)."""
    counts = {s: sum(1 for r in results if r.status == s)
              for s in ("pass", "fail", "unsupported", "error", "crash")}
    crashed = f", {counts['crash']} crashed" if counts["crash"] else ""
    return (f"{len(results)} tests: {counts['pass']} passed, {counts['fail']} failed, "
            f"{counts['unsupported']} unsupported, {counts['error']} errors{crashed}\n")


def format_results(results: List[TestResult], stream: TextIO) -> None:
    """One line per test, then a summary line."""
    for r in results:
        stream.write(format_result(r))
    stream.write(format_summary(results))


def main(path: str, target: str = "c", stream: Optional[TextIO] = None) -> int:
    """Entry of ``ireec check``: exit code 0 when every test passed, else 1."""
    stream = stream or sys.stdout
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        sys.stderr.write(f"{path}:0:0: error: cannot read input file: {e.strerror}\n")
        return 1
    def emit(r: TestResult) -> None:
        stream.write(format_result(r))
        stream.flush()

    results = check_source(text, path, target, report=emit)
    stream.write(format_summary(results))
    stream.flush()
    return 0 if results and all(r.status == "pass" for r in results) else (0 if not results else 1)

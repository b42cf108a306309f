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
Each test prints one line (``PASS``, ``FAIL`` with the failing check's location, expected and
actual values, or ``UNSUPPORTED``/``ERROR``); the exit code is 1 unless every test passed.
"""
from __future__ import annotations

import io
import sys
from dataclasses import dataclass, field
from typing import Dict, List, Optional, TextIO

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
    """Outcome of one test function: ``status`` is 'pass', 'fail', 'unsupported' or 'error'."""

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


def _run_tests(lib_path, names: List[str], checks: Dict[str, list]) -> List[TestResult]:
    from ..runtime.loader import load

    m = load(lib_path)
    out = []
    for n in names:
        try:
            res = m.call(n)
        except (RuntimeError, TypeError, ValueError) as e:
            out.append(TestResult(n, "error", str(e)))
            continue
        if res is None:
            res = []
        elif not isinstance(res, tuple):
            res = [res]
        failures = [msg for msg in (evaluate(e, list(res)) for e in checks.get(n, [])) if msg]
        out.append(TestResult(n, "fail" if failures else "pass", failures=failures))
    return out


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


def check_source(text: str, filename: str, target: str = "c") -> List[TestResult]:
    """Compile ``text`` and run its tests. CompileError only for syntax errors and IR that
    does not verify (the file cannot be read at all); tests that do not compile come back as 'unsupported'.

    A test whose code fails to compile is dropped and the rest compiled again; when an error
    lies outside the tests (a private helper), each test is compiled alone."""
    parsed = parse_source(text, filename)  # read-only: each compilation parses afresh
    verify(parsed)  # ill-typed IR is an error of the file, not an unsupported test
    names = test_functions(parsed)
    if not names:
        return []
    unsupported: Dict[str, TestResult] = {}
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
                return _one_by_one(text, filename, target, names)
            unsupported[bad] = TestResult(bad, "unsupported", e.render().splitlines()[0])
            remaining.remove(bad)
            continue
        ran = {r.name: r for r in _run_tests(_build(output, target), remaining, output.report.get("checks", {}))}
        break
    else:
        ran = {}
    return [ran[n] if n in ran else unsupported[n] for n in names]


def _drop(module, name: str) -> None:
    for f in list(module.body.ops):
        if f.name == "func.func" and func_name(f) == name:
            f.drop_all_references()
            f.detach()


def _one_by_one(text: str, filename: str, target: str, names: List[str]) -> List[TestResult]:
    results = []
    for n in names:
        try:
            output = compile_module(_only(parse_source(text, filename), n), filename, target=target)
        except CompileError as e:
            results.append(TestResult(n, "unsupported", e.render().splitlines()[0]))
            continue
        results.extend(_run_tests(_build(output, target), [n], output.report.get("checks", {})))
    return results


def format_results(results: List[TestResult], stream: TextIO) -> None:
    """One line per test, then a summary line."""
    for r in results:
        if r.status == "pass":
            stream.write(f"PASS @{r.name}\n")
        elif r.status == "fail":
            stream.write(f"FAIL @{r.name}: {r.failures[0]}\n")
            for more in r.failures[1:]:
                stream.write(f"     @{r.name}: {more}\n")
        else:
            stream.write(f"{r.status.upper()} @{r.name}: {r.message}\n")
    counts = {s: sum(1 for r in results if r.status == s) for s in ("pass", "fail", "unsupported", "error")}
    stream.write(f"{len(results)} tests: {counts['pass']} passed, {counts['fail']} failed, "
                 f"{counts['unsupported']} unsupported, {counts['error']} errors\n")


def main(path: str, target: str = "c", stream: Optional[TextIO] = None) -> int:
    """Entry of ``ireec check``: exit code 0 when every test passed, else 1."""
    stream = stream or sys.stdout
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        sys.stderr.write(f"{path}:0:0: error: cannot read input file: {e.strerror}\n")
        return 1
    results = check_source(text, path, target)
    buf = io.StringIO()
    format_results(results, buf)
    stream.write(buf.getvalue())
    return 0 if results and all(r.status == "pass" for r in results) else (0 if not results else 1)

"""The op verifier (ireec.ir.verifier): ill-typed programs are rejected with a located error.

- ``tests/verifier/*.mlir`` are diagnostics files in the style of MLIR's
  ``-split-input-file -verify-diagnostics`` tests: chunks separated by ``// -----``, each
  ``// expected-error @+N {{text}}`` naming the message expected N lines below the comment
  (``@-N`` above, no offset: the comment's own line). A chunk without one must verify.
- The ill-typed programs of the issue tracker go through ``ireec build`` and must exit 1
  with ``file:line:col: error:``, the source line and a caret.
- Every file of ../shared/corpus/iree_e2e and ../shared/models parses and verifies.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ireec.frontend.parser import parse_source
from ireec.ir.diagnostics import CompileError
from ireec.ir.verifier import verify

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared"
DIAG_DIR = REPO / "tests" / "verifier"

_EXPECTED = re.compile(r"//\s*expected-error\s*(?:@([+-]\d+))?\s*\{\{(.*?)\}\}")


def _chunks(path: Path):
    """(first line number, text padded so line numbers match the file) per chunk."""
    lines = path.read_text().split("\n")
    start = 0
    for i, line in enumerate(lines + ["// -----"]):
        if line.strip() == "// -----":
            yield start + 1, "\n" * start + "\n".join(lines[start:i])
            start = i + 1


def _expected(text: str):
    out = []
    for n, line in enumerate(text.split("\n"), 1):
        m = _EXPECTED.search(line)
        if m:
            out.append((n + int(m.group(1) or 0), m.group(2)))
    return out


def _diag_cases():
    for path in sorted(DIAG_DIR.glob("*.mlir")):
        for first, text in _chunks(path):
            yield pytest.param(path, text, id=f"{path.stem}:{first}")


@pytest.mark.parametrize("path,text", list(_diag_cases()))
def test_verify_diagnostics(path, text):
    """Each chunk produces exactly its expected error (message and line), or none."""
    expected = _expected(text)
    assert len(expected) <= 1, "the verifier reports the first error only: one per chunk"
    try:
        verify(parse_source(text, str(path)))
    except CompileError as e:
        assert expected, f"unexpected error: {e.render()}"
        line, msg = expected[0]
        assert msg in e.message, f"expected {msg!r}, got {e.message!r}"
        assert e.loc.line == line, f"error at line {e.loc.line}, expected line {line}: {e.message}"
        assert e.loc.file == str(path)
        return
    assert not expected, f"expected error {expected[0][1]!r} at line {expected[0][0]} was not produced"


def test_diagnostics_files_have_cases():
    """The runner sees the files (a glob that matches nothing would pass vacuously)."""
    cases = list(_diag_cases())
    assert len(cases) >= 30
    assert sum(bool(_expected(c.values[1])) for c in cases) >= 25


# ------------------------------------------------------------------ through the CLI
ILL_TYPED = {
    "return_shape": ("func.func @f(%a: tensor<4xf32>) -> tensor<2xf32> {\n"
                     "  return %a : tensor<4xf32>\n}\n", 2, 3,
                     "'func.return' op type of return operand 0 ('tensor<4xf32>') doesn't match "
                     "function result type ('tensor<2xf32>')"),
    "return_element_type": ("func.func @f(%a: tensor<4xf32>) -> tensor<4xi32> {\n"
                            "  return %a : tensor<4xf32>\n}\n", 2, 3,
                            "doesn't match function result type ('tensor<4xi32>')"),
    "stablehlo_add": ("func.func @f(%a: tensor<4xf32>) -> tensor<4xi32> {\n"
                      "  %0 = \"stablehlo.add\"(%a, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi32>\n"
                      "  return %0 : tensor<4xi32>\n}\n", 2, 8,
                      "'stablehlo.add' op requires the same element type for all operands and results"),
    "expect_eq_const": ("func.func @t() {\n  %a = arith.constant dense<1> : tensor<4xi32>\n"
                        "  check.expect_eq_const(%a, dense<1> : tensor<4xi8>) : tensor<4xi32>\n"
                        "  return\n}\n", 3, 3, "'check.expect_eq_const' op failed to verify"),
    "linalg_matmul": ("func.func @f(%a: tensor<4x3xf32>, %b: tensor<4x5xf32>, %c: tensor<4x5xf32>) -> tensor<4x5xf32> {\n"
                      "  %0 = linalg.matmul ins(%a, %b : tensor<4x3xf32>, tensor<4x5xf32>) outs(%c : tensor<4x5xf32>) -> tensor<4x5xf32>\n"
                      "  return %0 : tensor<4x5xf32>\n}\n", 2, 8,
                      "'linalg.matmul' op inferred input/output operand #1 has shape's dimension #0 "
                      "to be 3, but found 4"),
    "dot_general": ("func.func @f(%a: tensor<4x3xf32>, %b: tensor<4x5xf32>) -> tensor<4x5xf32> {\n"
                    "  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<4x3xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>\n"
                    "  return %0 : tensor<4x5xf32>\n}\n", 2, 8,
                    "'stablehlo.dot_general' op contracting dimension sizes must match for lhs/rhs"),
    "addf_on_integers": ("func.func @f(%a: tensor<4xi32>) -> tensor<4xi32> {\n"
                         "  %0 = arith.addf %a, %a : tensor<4xi32>\n"
                         "  return %0 : tensor<4xi32>\n}\n", 2, 8,
                         "'arith.addf' op operand #0 must be floating-point-like, but got 'tensor<4xi32>'"),
    "use_before_def": ("func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
                       "  %0 = arith.addf %1, %a : tensor<4xf32>\n"
                       "  %1 = arith.addf %a, %a : tensor<4xf32>\n"
                       "  return %0 : tensor<4xf32>\n}\n", 2, 8,
                       "'arith.addf' op operand #0 does not dominate this use"),
    "extract_indices": ("func.func @f(%t: tensor<4x4xf32>, %i: index) -> f32 {\n"
                        "  %0 = tensor.extract %t[%i] : tensor<4x4xf32>\n"
                        "  return %0 : f32\n}\n", 2, 8,
                        "'tensor.extract' op incorrect number of indices for extract_element"),
    "gather_collapsed_slice_size": ("func.func @f(%a: tensor<5x1x5xi32>, %i: tensor<i64>) -> tensor<1x5xi32> {\n"
                                    '  %0 = "stablehlo.gather"(%a, %i) {dimension_numbers = #stablehlo.gather<'
                                    "offset_dims = [0, 1], collapsed_slice_dims = [0], start_index_map = [0], "
                                    "index_vector_dim = 0>, slice_sizes = array<i64: 2, 1, 5>} "
                                    ": (tensor<5x1x5xi32>, tensor<i64>) -> tensor<1x5xi32>\n"
                                    "  return %0 : tensor<1x5xi32>\n}\n", 2, 8,
                                    "'stablehlo.gather' op slice size 2 of collapsed_slice_dims element 0 "
                                    "is larger than 1 (C9)"),
    "gather_start_index_map": ("func.func @f(%a: tensor<1x4x8xi32>, %i: tensor<1x8x2xi32>) -> tensor<1x8x8xi32> {\n"
                               '  %0 = "stablehlo.gather"(%a, %i) {dimension_numbers = #stablehlo.gather<'
                               "offset_dims = [2], collapsed_slice_dims = [0, 1], start_index_map = [0, 3], "
                               "index_vector_dim = 2>, slice_sizes = array<i64: 1, 1, 8>} "
                               ": (tensor<1x4x8xi32>, tensor<1x8x2xi32>) -> tensor<1x8x8xi32>\n"
                               "  return %0 : tensor<1x8x8xi32>\n}\n", 2, 8,
                               "'stablehlo.gather' op start_index_map element 3 is out of range [0, 3), "
                               "the rank of the operand (C19)"),
    "scatter_update_shape": ("func.func @f(%a: tensor<4x3xi32>, %i: tensor<3x2xi32>, %u: tensor<2xi32>) -> tensor<4x3xi32> {\n"
                             '  %0 = "stablehlo.scatter"(%a, %i, %u) ({\n'
                             "  ^bb0(%x: tensor<i32>, %y: tensor<i32>):\n"
                             '    "stablehlo.return"(%y) : (tensor<i32>) -> ()\n'
                             "  }) {scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0, 1], "
                             "scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 1>} "
                             ": (tensor<4x3xi32>, tensor<3x2xi32>, tensor<2xi32>) -> tensor<4x3xi32>\n"
                             "  return %0 : tensor<4x3xi32>\n}\n", 2, 8,
                             "'stablehlo.scatter' op update scatter dimension 0 has size 2, but "
                             "scatter_indices' matching dimension has 3 (C4)"),
    "dense_complex_integer_literal": ("func.func @f() -> tensor<2xcomplex<f32>> {\n"
                                      "  %0 = stablehlo.constant dense<[1, 2]> : tensor<2xcomplex<f32>>\n"
                                      "  return %0 : tensor<2xcomplex<f32>>\n}\n", 2, 33,
                                      "expected a complex element (re, im) for type complex<f32>"),
    "dense_quant_elements": ("func.func @f() -> tensor<2x!quant.uniform<i8:f32, 1.0>> {\n"
                             "  %0 = stablehlo.constant dense<5> : tensor<2x!quant.uniform<i8:f32, 1.0>>\n"
                             "  return %0 : tensor<2x!quant.uniform<i8:f32, 1.0>>\n}\n", 2, 33,
                             "dense elements of type !quant.uniform<i8:f32, 1.0> are not supported"),
    "array_tuple_elements": ("func.func @f(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {\n"
                             '  %0 = "stablehlo.transpose"(%a) {permutation = array<tuple<i32>: 1, 0>} '
                             ": (tensor<2x3xf32>) -> tensor<3x2xf32>\n"
                             "  return %0 : tensor<3x2xf32>\n}\n", 2, 55,
                             "array<> elements must be integers or floats, not tuple<i32>"),
    "dense_attr_alias_none": ("#a = dense<1> : tensor<2xnone>\n"
                              "func.func @f() -> tensor<2xnone> {\n"
                              "  %0 = arith.constant #a : tensor<2xnone>\n"
                              "  return %0 : tensor<2xnone>\n}\n", 1, 12,
                              "dense elements of type none are not supported"),
}


@pytest.mark.parametrize("name", sorted(ILL_TYPED))
def test_build_rejects_ill_typed(name, tmp_path, capsys):
    """``ireec build`` exits 1 with file:line:col, the source line and a caret."""
    from ireec.cli import main

    text, line, col, msg = ILL_TYPED[name]
    src = tmp_path / f"{name}.mlir"
    src.write_text(text)
    rc = main(["build", str(src), "-o", str(tmp_path / "x.so")])
    err = capsys.readouterr().err
    assert rc == 1
    lines = err.splitlines()
    assert lines[0].startswith(f"{src}:{line}:{col}: error: "), err
    assert msg in lines[0], err
    assert lines[1] == text.split("\n")[line - 1]
    assert lines[2] == " " * (col - 1) + "^"
    assert "Traceback" not in err and "internal error" not in err
    assert not (tmp_path / "x.so").exists()


def test_build_subprocess_exit_code(tmp_path):
    """The real command line: ``python3 -m ireec.cli build FILE -o x.so`` exits 1, no
    traceback."""
    text = ILL_TYPED["return_shape"][0]
    src = tmp_path / "f.mlir"
    src.write_text(text)
    r = subprocess.run([sys.executable, "-m", "ireec.cli", "build", str(src), "-o",
                        str(tmp_path / "x.so")], capture_output=True, text=True, cwd=REPO,
                       timeout=120)
    assert r.returncode == 1
    assert r.stderr.startswith(f"{src}:2:3: error: 'func.return' op type of return operand 0")
    assert "Traceback" not in r.stderr


def test_check_rejects_ill_typed_file(tmp_path, capsys):
    """``ireec check`` reports an ill-typed check as an error of the file, never a pass."""
    from ireec.cli import main

    src = tmp_path / "t.mlir"
    src.write_text(ILL_TYPED["expect_eq_const"][0])
    rc = main(["check", str(src)])
    cap = capsys.readouterr()
    assert rc == 1
    assert "PASS" not in cap.out
    assert f"{src}:3:3: error: 'check.expect_eq_const' op failed to verify" in cap.err


# ------------------------------------------------------------------ verify-each
def test_verify_each_names_the_pass(monkeypatch):
    """A pass that leaves ill-formed IR is reported at the op it broke, naming the pass."""
    from ireec import compiler
    from ireec.passes import pipeline

    text = ("func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
            "  %0 = arith.addf %a, %a : tensor<4xf32>\n  return %0 : tensor<4xf32>\n}\n")

    class BreakTypes:
        """Retypes the function's return value (a deliberately broken pass)."""
        name = "test-break-types"

        def run(self, module, ctx):
            from ireec.ir import types as T

            for op in module.walk():
                if op.name == "arith.addf":
                    op.results[0].type = T.TensorType((4,), T.f64)

    real = pipeline.passes_for

    def passes_for(phase):
        out = list(real(phase))
        return ([(BreakTypes, "test")] + out) if phase == "input" else out

    monkeypatch.setattr(compiler, "passes_for", passes_for)
    with pytest.raises(CompileError) as e:
        compiler.compile_source(text, "f.mlir", compile_to="input", verify_each=True)
    assert e.value.loc.line == 2
    assert "'arith.addf' op requires the same type for all operands and results" in e.value.message
    assert any("test-break-types" in n for n in e.value.notes)
    # Without verify-each the broken IR goes on (the verifier runs only after parsing).
    compiler.compile_source(text, "f.mlir", compile_to="input", verify_each=False)


def test_verify_each_flag_and_env(monkeypatch):
    """--verify-each is a flag of compile, build and check; IREEC_VERIFY_EACH=1 sets the
    default of the compile functions."""
    from ireec import compiler
    from ireec.cli import _make_parser

    p = _make_parser()
    for cmd in (["compile", "x.mlir"], ["build", "x.mlir", "-o", "x.so"], ["check", "x.mlir"]):
        assert p.parse_args(cmd + ["--verify-each"]).verify_each is True
        assert p.parse_args(cmd).verify_each is False
    monkeypatch.setenv("IREEC_VERIFY_EACH", "1")
    assert compiler.verify_each_default()
    monkeypatch.setenv("IREEC_VERIFY_EACH", "0")
    assert not compiler.verify_each_default()


def test_suite_runs_with_verify_each():
    """tests/conftest.py turns verify-each on for the whole suite."""
    assert os.environ.get("IREEC_VERIFY_EACH") == "1"


# ------------------------------------------------------------------ corpus and models
def _shared_files():
    files = []
    for sub in ("corpus/iree_e2e", "models"):
        root = SHARED / sub
        if root.is_dir():
            files += sorted(root.rglob("*.mlir"))
    return files


@pytest.mark.skipif(not SHARED.is_dir(), reason="../shared (corpus and models) is not present")
@pytest.mark.parametrize("path", _shared_files(), ids=lambda p: str(p.relative_to(SHARED)))
def test_shared_file_verifies(path):
    """Valid programs are never rejected: every corpus and model file verifies."""
    verify(parse_source(path.read_text(), str(path)))


def test_shared_files_found():
    if not SHARED.is_dir():
        pytest.skip("../shared (corpus and models) is not present")
    assert len(_shared_files()) >= 100


def test_verify_is_linear():
    """Verifying a 20,000-op chain takes well under a second (one pass, no rescans)."""
    n = 20000
    body = ["func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {", "  %v0 = arith.addf %a, %a : tensor<4xf32>"]
    body += [f"  %v{i} = arith.mulf %v{i - 1}, %a : tensor<4xf32>" for i in range(1, n)]
    body += [f"  return %v{n - 1} : tensor<4xf32>", "}"]
    module = parse_source("\n".join(body), "chain.mlir")
    t0 = time.perf_counter()
    verify(module)
    assert time.perf_counter() - t0 < 2.0

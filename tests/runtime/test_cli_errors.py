"""The ``ireec`` command line: IREE's run-module output, and clean errors (no tracebacks).

run-module runs against tests/runtime/fixtures/fixture.c built as a shared library. The
compile/build subcommands are exercised with a stand-in ``ireec.compiler`` so that these
tests check the CLI's plumbing, not the compiler.
"""
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pytest

import ireec
from ireec.cli import main
from ireec.ir.diagnostics import CompileError, Location, register_source
from ireec.runtime.build import build_shared_library

FIXTURES = Path(__file__).parent / "fixtures"
REPO = Path(__file__).resolve().parents[2]


def _sources():
    return {n: (FIXTURES / n).read_text() for n in ("fixture.c", "fixture.h")}


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    out = tmp_path_factory.mktemp("cli") / "libfixture.so"
    return str(build_shared_library(_sources(), "fixture", out))


def run(capsys, *argv):
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def assert_clean_error(rc, err, fragment):
    assert rc == 1
    assert err.startswith("error: "), err
    assert fragment in err, err
    assert "Traceback" not in err
    assert err.count("\n") == 1, err  # one line


# ---------------------------------------------------------------------------
# run-module output (shared/seeds/002)
# ---------------------------------------------------------------------------

def test_run_module_add(lib, capsys):
    rc, out, err = run(capsys, "run-module", "--device=local-task", f"--module={lib}",
                       "--function=add", "--input=4xf32=[1 2 3 4]", "--input=4xf32=[2 2 2 2]")
    assert (rc, err) == (0, "")
    assert out == "EXEC @add\nresult[0]: hal.buffer_view\n4xf32=3 4 5 6\n"


def test_run_module_abs(lib, capsys):
    rc, out, err = run(capsys, "run-module", "--device=local-sync", f"--module={lib}",
                       "--function=abs", "--input=f32=-2")
    assert rc == 0
    assert out == "EXEC @abs\nresult[0]: hal.buffer_view\nf32=2\n"


def test_run_module_matmul(lib, capsys):
    rc, out, _ = run(capsys, "run-module", "--module", lib, "--function", "matmul_static",
                     "--input=3x5xf32=1", "--input=5x3xf32=2", "--input=3x3xf32=42")
    assert rc == 0
    assert out == ("EXEC @matmul_static\nresult[0]: hal.buffer_view\n"
                   "3x3xf32=[52 52 52][52 52 52][52 52 52]\n")


def test_run_module_two_results_and_types(lib, capsys):
    rc, out, _ = run(capsys, "run-module", f"--module={lib}", "--function=divrem",
                     "--input=3xi32=7 -7 7", "--input=3xi32=2,2,-2")
    assert rc == 0
    assert out == ("EXEC @divrem\nresult[0]: hal.buffer_view\n3xi32=3 -4 -4\n"
                   "result[1]: hal.buffer_view\n3xi32=1 1 -1\n")
    rc, out, _ = run(capsys, "run-module", f"--module={lib}", "--function=logical_not",
                     "--input=4xi1=1 0 1 0")
    assert rc == 0 and out.endswith("4xi1=0 1 0 1\n")
    rc, out, _ = run(capsys, "run-module", f"--module={lib}", "--function=half_bf16",
                     "--input=2xf16=1.5 -3", "--input=2xbf16=0.75 100")
    assert rc == 0 and out.endswith("2xf16=3 -6\nresult[1]: hal.buffer_view\n2xbf16=1.5 200\n")
    rc, out, _ = run(capsys, "run-module", f"--module={lib}", "--function=@noop")
    assert (rc, out) == (0, "EXEC @noop\n")


def test_run_module_npy_in_and_out(lib, capsys, tmp_path):
    np.save(tmp_path / "a.npy", np.array([1, 2, 3, 4], np.float32))
    rc, out, _ = run(capsys, "run-module", f"--module={lib}", "--function=add",
                     f"--input=@{tmp_path / 'a.npy'}", "--input=4xf32=10",
                     f"--output=@{tmp_path / 'r.npy'}")
    assert (rc, out) == (0, "EXEC @add\n")
    np.testing.assert_array_equal(np.load(tmp_path / "r.npy"), [11, 12, 13, 14])
    rc, out, _ = run(capsys, "run-module", f"--module={lib}", "--function=add",
                     "--input=4xf32=1", "--input=4xf32=1", "--output=-")
    assert out == "EXEC @add\nhal.buffer_view\n4xf32=2 2 2 2\n"


def test_run_module_max_element_count(lib, capsys):
    for flag in ("--print_max_element_count=2", "--output_max_element_count=2"):
        rc, out, _ = run(capsys, "run-module", f"--module={lib}", "--function=matmul_static",
                         "--input=3x5xf32=1", "--input=5x3xf32=2", "--input=3x3xf32=42", flag)
        assert rc == 0 and out.endswith("3x3xf32=[52 52...][...][...]\n")


# ---------------------------------------------------------------------------
# run-module errors
# ---------------------------------------------------------------------------

def test_bad_input_spec(lib, capsys):
    rc, out, err = run(capsys, "run-module", f"--module={lib}", "--function=add",
                       "--input=4xf32=1 2", "--input=4xf32=1")
    assert_clean_error(rc, err, "needs 4")
    assert out == ""  # parse errors come before EXEC, as in IREE
    rc, _, err = run(capsys, "run-module", f"--module={lib}", "--function=add",
                     "--input=4xq9=1", "--input=4xf32=1")
    assert_clean_error(rc, err, "unsupported element type 'q9'")
    rc, _, err = run(capsys, "run-module", f"--module={lib}", "--function=add",
                     "--input=@missing.npy", "--input=4xf32=1")
    assert_clean_error(rc, err, "cannot open input file 'missing.npy'")


def test_unknown_function(lib, capsys):
    rc, out, err = run(capsys, "run-module", f"--module={lib}", "--function=nope")
    assert_clean_error(rc, err, "has no function 'nope'")
    assert "available: add, abs" in err and out == ""


def test_function_required_when_several(lib, capsys):
    rc, _, err = run(capsys, "run-module", f"--module={lib}")
    assert_clean_error(rc, err, "no --function= given")


def test_function_defaults_to_the_only_one(capsys, tmp_path):
    tiny = build_shared_library({"tiny.c": (FIXTURES / "tiny.c").read_text()}, "tiny",
                                tmp_path / "libtiny.so")
    rc, out, _ = run(capsys, "run-module", f"--module={tiny}", "--input=2xi64=5 -6")
    assert rc == 0
    assert out == "EXEC @negate\nresult[0]: hal.buffer_view\n2xi64=-5 6\n"


def test_missing_module(capsys, tmp_path):
    rc, _, err = run(capsys, "run-module", f"--module={tmp_path / 'nope.so'}", "--function=add")
    assert_clean_error(rc, err, "cannot open module")
    rc, _, err = run(capsys, "run-module", "--function=add")
    assert_clean_error(rc, err, "no module specified")
    junk = tmp_path / "junk.so"
    junk.write_text("junk")
    rc, _, err = run(capsys, "run-module", f"--module={junk}", "--function=add")
    assert_clean_error(rc, err, "cannot load")


def test_wrong_input_count_and_type(lib, capsys):
    rc, _, err = run(capsys, "run-module", f"--module={lib}", "--function=add", "--input=4xf32=1")
    assert_clean_error(rc, err, "@add takes 2 inputs")
    rc, out, err = run(capsys, "run-module", f"--module={lib}", "--function=add",
                       "--input=4xi32=1", "--input=4xf32=1")
    assert_clean_error(rc, err, "argument 0 (input0) expects tensor<4xf32>, got int32 array")
    rc, out, err = run(capsys, "run-module", f"--module={lib}", "--function=add",
                       "--input=3xf32=1", "--input=4xf32=1")
    assert_clean_error(rc, err, "got float32 array of shape (3,)")


def test_failing_call(lib, capsys):
    rc, out, err = run(capsys, "run-module", f"--module={lib}", "--function=fail", "--input=f32=1")
    assert out == "EXEC @fail\n"
    assert_clean_error(rc, err, "status 13 (INTERNAL)")


def test_bad_flags(lib, capsys):
    rc, _, err = run(capsys, "run-module", f"--module={lib}", "--device=vulkan", "--function=add")
    assert_clean_error(rc, err, "unsupported --device=vulkan")
    rc, _, err = run(capsys, "run-module", f"--module={lib}", "--bogus-flag")
    assert_clean_error(rc, err, "unrecognized arguments: --bogus-flag")
    rc, _, err = run(capsys, "no-such-command")
    assert_clean_error(rc, err, "invalid choice")
    rc, _, err = run(capsys, "run-module", f"--module={lib}", "--function=add",
                     "--input=4xf32=1", "--input=4xf32=1", "--output=a", "--output=b")
    assert_clean_error(rc, err, "2 outputs specified")


def test_help_and_version(capsys):
    rc, out, _ = run(capsys, "--version")
    assert rc == 0 and out.strip() == f"ireec {ireec.__version__}"
    rc, out, _ = run(capsys, "run-module", "--help")
    assert rc == 0 and "--input" in out and "--function" in out


# ---------------------------------------------------------------------------
# compile / build through a stand-in compiler
# ---------------------------------------------------------------------------

@pytest.fixture
def fake_compiler(monkeypatch):
    calls = []
    behaviour = {"raise": None}

    def compile_file(path, *, target="c", module_name=None, compile_to="end", **opts):
        calls.append(dict(path=path, target=target, module_name=module_name,
                          compile_to=compile_to, **opts))
        if behaviour["raise"] is not None:
            raise behaviour["raise"]
        if opts.get("print_ir_after_all") and opts.get("ir_sink"):
            opts["ir_sink"]("// -----// IR Dump After Fake (fake) //----- //\nmodule {}")
        if compile_to != "end":
            return types.SimpleNamespace(files={}, module_name="fixture",
                                         ir_text=f"// IR after {compile_to}\nmodule {{\n}}\n",
                                         report={})
        return types.SimpleNamespace(files=_sources(), module_name=module_name or "fixture",
                                     ir_text=None, report={})

    fake = types.ModuleType("ireec.compiler")
    fake.compile_file = compile_file
    monkeypatch.setitem(sys.modules, "ireec.compiler", fake)
    monkeypatch.setattr(ireec, "compiler", fake, raising=False)
    return calls, behaviour


@pytest.fixture
def mlir_file(tmp_path):
    p = tmp_path / "model.mlir"
    p.write_text("func.func @abs(%a: tensor<f32>) -> tensor<f32> {\n  return %a : tensor<f32>\n}\n")
    return p


def test_compile_to_prints_ir(fake_compiler, mlir_file, capsys, tmp_path):
    calls, _ = fake_compiler
    rc, out, err = run(capsys, "compile", str(mlir_file), "--compile-to=flow")
    assert (rc, err) == (0, "")
    assert out == "// IR after flow\nmodule {\n}\n"
    assert calls[-1]["compile_to"] == "flow" and calls[-1]["target"].name == "c"
    rc, out, _ = run(capsys, "compile", str(mlir_file), "--compile-to=hal", "-o",
                     str(tmp_path / "hal.mlir"))
    assert rc == 0 and out == ""
    assert (tmp_path / "hal.mlir").read_text().startswith("// IR after hal")
    rc, out, _ = run(capsys, "compile", str(mlir_file), "--output-format=vm-asm")
    assert rc == 0 and calls[-1]["compile_to"] == "vm"


def test_compile_vm_c_writes_sources(fake_compiler, mlir_file, capsys, tmp_path):
    calls, _ = fake_compiler
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    (out_dir / "keep.txt").write_text("not ours")
    (out_dir / "fixture.c").write_text("stale")
    rc, out, err = run(capsys, "compile", str(mlir_file), "--output-format=vm-c", "-o",
                       str(out_dir), "--iree-hal-target-backends=llvm-cpu",
                       "--module-name=fixture", "--dump-compilation-phases-to",
                       str(tmp_path / "phases"), "--mlir-print-ir-after-all")
    assert rc == 0, err
    assert (out_dir / "fixture.c").read_text() == _sources()["fixture.c"]
    assert (out_dir / "fixture.h").is_file()
    assert (out_dir / "keep.txt").read_text() == "not ours"
    assert calls[-1]["target"].name == "c" and calls[-1]["module_name"] == "fixture"
    assert calls[-1]["dump_phases_to"] == str(tmp_path / "phases")
    assert calls[-1]["print_ir_after_all"] is True
    assert "IR Dump After Fake" in err and out == ""


def test_compile_errors(fake_compiler, mlir_file, capsys, tmp_path):
    calls, behaviour = fake_compiler
    rc, _, err = run(capsys, "compile", str(tmp_path / "missing.mlir"), "--compile-to=input")
    assert_clean_error(rc, err, "cannot open input file")
    rc, _, err = run(capsys, "compile", str(mlir_file))
    assert_clean_error(rc, err, "-o DIR")
    rc, _, err = run(capsys, "compile", str(mlir_file), "--output-format=vm-bytecode", "-o", "x")
    assert_clean_error(rc, err, "invalid choice: 'vm-bytecode'")
    rc, _, err = run(capsys, "compile", str(mlir_file), "--iree-hal-target-backends=vmvx")
    assert_clean_error(rc, err, "unsupported --iree-hal-target-backends=vmvx")
    rc, _, err = run(capsys, "compile", str(mlir_file), "--target=openmp",
                     "--iree-hal-target-backends=cuda")
    assert_clean_error(rc, err, "contradicts")
    rc, _, err = run(capsys, "compile", str(mlir_file), "--compile-to=bogus")
    assert_clean_error(rc, err, "invalid choice: 'bogus'")
    (tmp_path / "afile").write_text("x")
    rc, _, err = run(capsys, "compile", str(mlir_file), "-o", str(tmp_path / "afile"))
    assert_clean_error(rc, err, "not a directory")


def test_compile_error_is_rendered_with_caret(fake_compiler, mlir_file, capsys):
    _, behaviour = fake_compiler
    register_source(str(mlir_file), mlir_file.read_text())
    behaviour["raise"] = CompileError("unknown op 'foo.bar'", Location(str(mlir_file), 2, 3))
    rc, out, err = run(capsys, "compile", str(mlir_file), "--compile-to=input")
    assert rc == 1 and out == ""
    assert err == (f"{mlir_file}:2:3: error: unknown op 'foo.bar'\n"
                   "  return %a : tensor<f32>\n"
                   "  ^\n")


def test_internal_error_has_no_traceback(fake_compiler, mlir_file, capsys):
    _, behaviour = fake_compiler
    behaviour["raise"] = ZeroDivisionError("oops")
    rc, _, err = run(capsys, "build", str(mlir_file))
    assert_clean_error(rc, err, "internal error in ireec: ZeroDivisionError: oops")


def test_build_then_run(fake_compiler, mlir_file, capsys, tmp_path):
    calls, _ = fake_compiler
    lib = tmp_path / "libmodel.so"
    rc, out, err = run(capsys, "build", str(mlir_file), "-o", str(lib), "--target=openmp")
    assert (rc, out, err) == (0, "", "")
    assert calls[-1]["target"].name == "openmp" and calls[-1]["compile_to"] == "end"
    rc, out, _ = run(capsys, "run-module", f"--module={lib}", "--function=abs", "--input=f32=-2")
    assert out == "EXEC @abs\nresult[0]: hal.buffer_view\nf32=2\n"


def test_build_failure_reports_compiler_output(fake_compiler, mlir_file, capsys, tmp_path,
                                               monkeypatch):
    monkeypatch.setenv("CFLAGS", "-DIREEC_FORCE_ERROR=1 -include nonexistent_header_for_test.h")
    rc, _, err = run(capsys, "build", str(mlir_file), "-o", str(tmp_path / "libx.so"))
    assert rc == 1
    assert err.startswith("error: compiling C failed")
    assert "nonexistent_header_for_test.h" in err and "Traceback" not in err


# ---------------------------------------------------------------------------
# python -m ireec, as a real process
# ---------------------------------------------------------------------------

def test_python_dash_m(lib):
    proc = subprocess.run([sys.executable, "-m", "ireec", "run-module", f"--module={lib}",
                           "--function=add", "--input=4xf32=[1 2 3 4]", "--input=4xf32=[2 2 2 2]"],
                          capture_output=True, text=True, cwd=str(REPO))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "EXEC @add\nresult[0]: hal.buffer_view\n4xf32=3 4 5 6\n"
    bad = subprocess.run([sys.executable, "-m", "ireec", "run-module", f"--module={lib}",
                          "--function=add", "--input=4xf32=1 2"],
                         capture_output=True, text=True, cwd=str(REPO))
    assert bad.returncode == 1
    assert bad.stderr.startswith("error: ") and "Traceback" not in bad.stderr

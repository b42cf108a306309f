"""Bad input: `file:line:col: error: ...`, the source line and a caret, exit code 1, no traceback."""
from __future__ import annotations

import pytest

from .common import run_cli

CASES = {
    "syntax": ("func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = arith.addf %a, %a : tensor<4xf32>\n  return %0 tensor<4xf32>\n}\n",
               3, "expected"),
    "unknown_pretty_op": ("func.func @f(%a: f32) -> f32 {\n  %0 = foo.bar %a : f32\n  return %0 : f32\n}\n",
                          2, "custom op 'foo.bar' is unknown"),
    "type_mismatch": ("func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = arith.addf %a, %a : tensor<3xf32>\n  return %0 : tensor<4xf32>\n}\n",
                      2, "expects different type"),
    "unsupported_op": ("func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = \"foo.frobnicate\"(%a) : (tensor<4xf32>) -> tensor<4xf32>\n  return %0 : tensor<4xf32>\n}\n",
                       2, "foo.frobnicate"),
    "undefined_value": ("func.func @f(%a: f32) -> f32 {\n  return %b : f32\n}\n", 2, "undeclared SSA value"),
    "huge_global": ("util.global private @g = #util.byte_pattern<4> : tensor<9223372036854775807xf32>\n"
                    "func.func @f() -> tensor<1xf32> {\n"
                    "  %0 = util.global.load @g : tensor<9223372036854775807xf32>\n"
                    "  %1 = tensor.extract_slice %0[0] [1] [1] : tensor<9223372036854775807xf32> to tensor<1xf32>\n"
                    "  return %1 : tensor<1xf32>\n}\n", 1, "is too large to be held"),
}


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("command", ["build", "compile"])
def test_bad_input_reports_location(case, command, tmp_path, capsys):
    text, line, message = CASES[case]
    src = tmp_path / "bad.mlir"
    src.write_text(text)
    args = [command, src, "-o", tmp_path / ("out.so" if command == "build" else "outdir")]
    if command == "compile":
        args.append("--output-format=vm-c")
    rc, out, err = run_cli(args, capsys)
    assert rc == 1
    assert "Traceback" not in err
    first = err.splitlines()[0]
    assert first.startswith(f"{src}:{line}:"), err
    assert ": error: " in first and message in first, err
    lines = err.splitlines()
    src_line = text.splitlines()[line - 1]
    assert lines[1] == src_line
    col = int(first.split(":")[2])
    assert lines[2] == " " * (col - 1) + "^"


def test_missing_file_is_an_error(tmp_path, capsys):
    rc, out, err = run_cli(["build", tmp_path / "nope.mlir", "-o", tmp_path / "x.so"], capsys)
    assert rc == 1
    assert "Traceback" not in err and "error" in err

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
    # Literals read against a type with no integer width or array form.
    "dense_tuple_elements": ("func.func @f() -> tensor<2xtuple<i32>> {\n"
                             "  %0 = arith.constant dense<[1, 2]> : tensor<2xtuple<i32>>\n"
                             "  return %0 : tensor<2xtuple<i32>>\n}\n",
                             2, "dense elements of type tuple<i32> are not supported"),
    "dense_resource_complex_int": ("func.func @f() -> tensor<2xcomplex<i32>> {\n"
                                   "  %0 = arith.constant dense_resource<r> : tensor<2xcomplex<i32>>\n"
                                   "  return %0 : tensor<2xcomplex<i32>>\n}\n"
                                   '{-#\n  dialect_resources: {\n    builtin: {\n'
                                   '      r: "0x0400000001000000020000000300000004000000"\n    }\n  }\n#-}\n',
                                   2, "dense elements of type complex<i32> are not supported"),
    "array_complex_elements": ("func.func @f(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {\n"
                               '  %0 = "stablehlo.transpose"(%a) {permutation = array<complex<f32>: 1, 0>} '
                               ": (tensor<2x3xf32>) -> tensor<3x2xf32>\n"
                               "  return %0 : tensor<3x2xf32>\n}\n",
                               2, "array<> elements must be integers or floats, not complex<f32>"),
    "switch_on_complex": ("func.func @f(%a: complex<f32>) {\n  cf.switch %a : complex<f32>, [\n"
                          "    default: ^bb1,\n    1: ^bb1\n  ]\n^bb1:\n  return\n}\n",
                          4, "integer literal in switch case of type complex<f32>"),
    # stablehlo.gather / scatter dimension numbers that disagree with the shapes.
    "gather_offset_dims": ("func.func @f(%a: tensor<5x1x5xi32>, %i: tensor<i64>) -> tensor<1x5xi32> {\n"
                           '  %0 = "stablehlo.gather"(%a, %i) {dimension_numbers = #stablehlo.gather<'
                           "offset_dims = [0, 2], collapsed_slice_dims = [0], start_index_map = [0], "
                           "index_vector_dim = 0>, slice_sizes = array<i64: 1, 1, 5>} "
                           ": (tensor<5x1x5xi32>, tensor<i64>) -> tensor<1x5xi32>\n"
                           "  return %0 : tensor<1x5xi32>\n}\n",
                           2, "offset_dims element 2 is out of range [0, 2), the rank of the result (C5)"),
    "scatter_window_dims": ("func.func @f(%a: tensor<8xi32>, %i: tensor<4x1xi32>, %u: tensor<4xi32>) -> tensor<8xi32> {\n"
                            '  %0 = "stablehlo.scatter"(%a, %i, %u) ({\n'
                            "  ^bb0(%x: tensor<i32>, %y: tensor<i32>):\n"
                            '    "stablehlo.return"(%y) : (tensor<i32>) -> ()\n'
                            "  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], "
                            "inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} "
                            ": (tensor<8xi32>, tensor<4x1xi32>, tensor<4xi32>) -> tensor<8xi32>\n"
                            "  return %0 : tensor<8xi32>\n}\n",
                            2, "'stablehlo.scatter' op input rank 1 is not the number of update_window_dims (1)"),
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
    assert "Traceback" not in err and "internal error" not in err
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

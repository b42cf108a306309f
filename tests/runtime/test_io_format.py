"""IREE tool syntax: --input parsing and result formatting (ireec.runtime.io_format).

Expected strings come from IREE's behaviour (runtime/src/iree/hal/string_util.c,
buffer_view_util.c, tooling/function_io.c) and the iree-run-module examples of
shared/seeds/002 (``f32=2``, ``4xf32=3 4 5 6``, ``3x3xf32=[52 52 52][52 52 52][52 52 52]``).
"""
import io
import math

import numpy as np
import pytest

from ireec.runtime import io_format as iof
from ireec.runtime.io_format import (
    InputError,
    bf16_bits_to_f32,
    f32_to_bf16_bits,
    format_invocation,
    format_result,
    parse_input,
    parse_inputs,
    write_outputs,
)


# ---------------------------------------------------------------------------
# parse_input: the seeds' examples
# ---------------------------------------------------------------------------

def test_rank0_scalar():
    a = parse_input("f32=-2")
    assert a.shape == () and a.dtype == np.float32 and a == -2


def test_bracketed_vector():
    a = parse_input("4xf32=[1 2 3 4]")
    assert a.dtype == np.float32
    np.testing.assert_array_equal(a, [1, 2, 3, 4])


def test_unbracketed_and_comma_separated():
    np.testing.assert_array_equal(parse_input("4xf32=1 2 3 4"), [1, 2, 3, 4])
    np.testing.assert_array_equal(parse_input("4xf32=1,2,3,4"), [1, 2, 3, 4])
    np.testing.assert_array_equal(parse_input("  4xf32=[1, 2, 3, 4]\n"), [1, 2, 3, 4])


@pytest.mark.parametrize("spec", ["2x2xi32=[[1 2][3 4]]", "2x2xi32=[1 2][3 4]",
                                  "2x2xi32=1 2 3 4", '"2x2xi32=[[1 2][3 4]]"'])
def test_nested_brackets(spec):
    a = parse_input(spec)
    assert a.dtype == np.int32 and a.shape == (2, 2)
    np.testing.assert_array_equal(a, [[1, 2], [3, 4]])


def test_splat():
    a = parse_input("3x5xf32=1")
    assert a.shape == (3, 5) and a.dtype == np.float32 and (a == 1).all()
    b = parse_input("3x3xf32=42")
    assert (b == 42).all()


def test_no_values_gives_zeros():
    # iree_hal_parse_buffer_elements: an empty data string zero-fills.
    a = parse_input("2x3xi32=")
    assert a.shape == (2, 3) and not a.any()


def test_matmul_seed_inputs():
    a, b, c = parse_inputs(["3x5xf32=1", "5x3xf32=2", "3x3xf32=42"])
    np.testing.assert_array_equal(a @ b + c, np.full((3, 3), 52, np.float32))


# ---------------------------------------------------------------------------
# parse_input: element types
# ---------------------------------------------------------------------------

def test_i1_forms():
    np.testing.assert_array_equal(parse_input("2xi1=1 0"), [True, False])
    np.testing.assert_array_equal(parse_input("3xi1=true False 0"), [True, False, False])
    np.testing.assert_array_equal(parse_input("2xi1=01 00"), [True, False])  # IREE's hex bytes
    assert parse_input("2xi1=1 0").dtype == np.bool_


@pytest.mark.parametrize("spec,dtype,values", [
    ("2xi8=255 -128", np.int8, [-1, -128]),          # signless takes both ranges
    ("2xsi8=127 -128", np.int8, [127, -128]),
    ("2xui8=0 255", np.uint8, [0, 255]),
    ("2xi16=65535 -1", np.int16, [-1, -1]),
    ("2xi32=4294967295 -2147483648", np.int32, [-1, -2147483648]),
    ("2xi64=9223372036854775807 -9223372036854775808", np.int64,
     [9223372036854775807, -9223372036854775808]),
    ("1xui64=18446744073709551615", np.uint64, [18446744073709551615]),
    ("3xi32=0x1F 010 -7", np.int32, [31, 8, -7]),    # strtol base 0: hex, octal
    ("2xindex=1 2", np.int64, [1, 2]),
])
def test_integers(spec, dtype, values):
    a = parse_input(spec)
    assert a.dtype == dtype
    assert a.tolist() == values


def test_floats():
    a = parse_input("6xf64=1.5 -2e3 inf -INF .25 0x1.8p1")
    assert a.dtype == np.float64
    assert a.tolist() == [1.5, -2000.0, math.inf, -math.inf, 0.25, 3.0]
    n = parse_input("2xf32=nan -nan")
    assert np.isnan(n).all() and not np.signbit(n[0]) and np.signbit(n[1])


def test_f16_rounds_like_strtof_then_f16():
    a = parse_input("3xf16=0.1 65504 1e-8")
    assert a.dtype == np.float16
    np.testing.assert_array_equal(a, np.array([0.1, 65504, 1e-8], np.float32).astype(np.float16))


def test_bf16_is_uint16_bits():
    a = parse_input("3xbf16=1.5 -2 3.14159")
    assert a.dtype == np.uint16
    assert a.tolist()[:2] == [0x3FC0, 0xC000]
    assert bf16_bits_to_f32(a)[2] == np.float32(3.140625)


def test_complex_uses_iree_hex_bytes():
    a = parse_input("complex<f32>=0000803F00000040")
    assert a.dtype == np.complex64 and a.shape == () and a == 1 + 2j
    assert parse_input("1xcf64=0000803F00000040")[0] == 1 + 2j


# ---------------------------------------------------------------------------
# parse_input: files
# ---------------------------------------------------------------------------

def test_npy_input(tmp_path):
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    p = tmp_path / "x.npy"
    np.save(p, x)
    a = parse_input(f"@{p}")
    assert a.dtype == np.float32
    np.testing.assert_array_equal(a, x)


def test_npy_sequential_and_all(tmp_path):
    p = tmp_path / "multi.npy"
    with open(p, "wb") as f:
        np.save(f, np.array([1, 2], np.int32))
        np.save(f, np.array(3.5, np.float64))
        np.save(f, np.array([True, False]))
    first, second = parse_inputs([f"@{p}", f"+{p}"])
    np.testing.assert_array_equal(first, [1, 2])
    assert second.shape == () and second == 3.5
    everything = parse_inputs([f"*{p}"])
    assert len(everything) == 3 and everything[2].dtype == np.bool_
    # '@' reopens from the start.
    again = parse_inputs([f"@{p}", f"@{p}"])
    np.testing.assert_array_equal(again[1], [1, 2])


def test_raw_binary_input(tmp_path):
    p = tmp_path / "raw.bin"
    np.arange(8, dtype=np.int32).tofile(p)
    a, b = parse_inputs([f"2x2xi32=@{p}", f"4xi32=+{p}"])
    np.testing.assert_array_equal(a, [[0, 1], [2, 3]])
    np.testing.assert_array_equal(b, [4, 5, 6, 7])


# ---------------------------------------------------------------------------
# parse_input: errors
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("spec,fragment", [
    ("", "no value specified"),
    ("   ", "no value specified"),
    ("3.14", "requires at least a shape/type"),
    ("4xf32=1 2", "needs 4"),
    ("2xf32=1 2 3", "holds 2"),
    ("0xf32=1", "holds 0"),
    ("4xq32=1", "unsupported element type 'q32'"),
    ("4xf32=1 abc 3 4", "invalid number 'abc'"),
    ("2xi32=1 2.5", "invalid integer '2.5'"),
    ("2xi32=1 2x", "invalid integer '2x'"),
    ("?xf32=1", "dynamic dimension"),
    ("axbxf32=1", "invalid shape"),
    ("4x-1xf32=1", "invalid shape"),
    ("2xsi8=1 200", "out of range"),
    ("2xui8=1 -1", "out of range"),
    ("2xi8=1 256", "out of range"),
    ("2xi1=1 2", "invalid boolean"),
    ("complex<f32>=1", "hex digits"),
    ("(null)", "not supported"),
    ("@data.txt", "only numpy (.npy)"),
])
def test_bad_specs(spec, fragment):
    with pytest.raises(InputError) as e:
        parse_input(spec)
    assert fragment in str(e.value)
    assert "\n" not in str(e.value)
    assert isinstance(e.value, ValueError)


def test_missing_and_short_files(tmp_path):
    with pytest.raises(InputError, match="cannot open input file"):
        parse_input(f"@{tmp_path / 'missing.npy'}")
    raw = tmp_path / "short.bin"
    raw.write_bytes(b"\0" * 8)
    with pytest.raises(InputError, match="ended after 8 bytes"):
        parse_input(f"4xf32=@{raw}")
    npy = tmp_path / "one.npy"
    np.save(npy, np.zeros(2))
    with pytest.raises(InputError, match="no more arrays"):
        parse_inputs([f"@{npy}", f"+{npy}"])
    bad = tmp_path / "bad.npy"
    bad.write_bytes(b"not a numpy file")
    with pytest.raises(InputError, match="cannot read a numpy array"):
        parse_input(f"@{bad}")
    with pytest.raises(InputError, match="parse_inputs"):
        parse_input(f"*{npy}")


# ---------------------------------------------------------------------------
# format_result
# ---------------------------------------------------------------------------

def test_format_seed_examples():
    assert format_result(np.float32(2), "f32") == "f32=2"
    assert format_result(np.array([3, 4, 5, 6], np.float32), "f32") == "4xf32=3 4 5 6"
    assert (format_result(np.full((3, 3), 52, np.float32), "f32")
            == "3x3xf32=[52 52 52][52 52 52][52 52 52]")


def test_format_3d_and_empty():
    a = np.arange(12, dtype=np.int32).reshape(2, 2, 3)
    assert format_result(a, "i32") == "2x2x3xi32=[[0 1 2][3 4 5]][[6 7 8][9 10 11]]"
    assert format_result(np.zeros((0, 3), np.float32), "f32") == "0x3xf32="
    assert format_result(np.zeros((2, 0), np.float32), "f32") == "2x0xf32=[][]"


def test_format_floats_use_percent_G():
    a = np.array([0.1, 1e-5, 123456789, 1e20, 2.5, -0.0, 1 / 3], np.float32)
    assert format_result(a, "f32") == "7xf32=0.1 1E-05 1.23457E+08 1E+20 2.5 -0 0.333333"
    s = np.array([np.inf, -np.inf, np.nan, -np.nan], np.float64)
    assert format_result(s, "f64") == "4xf64=INF -INF NAN -NAN"
    assert format_result(np.array([1.5, 65504], np.float16), "f16") == "2xf16=1.5 65504"
    assert format_result(f32_to_bf16_bits([1.5, 3.14159]), "bf16") == "2xbf16=1.5 3.14062"


def test_format_integers_and_type_names():
    assert format_result(np.array([-1, 127], np.int8), "si8") == "2xsi8=-1 127"
    assert format_result(np.array([255], np.uint8), "ui8") == "1xui8=255"
    assert (format_result(np.array([2**64 - 1], np.uint64), "ui64")
            == "1xui64=18446744073709551615")
    assert format_result(np.array([-5], np.int64), "index") == "1xi64=-5"
    assert format_result(np.array([1 + 2j], np.complex64), "complex<f32>") == "1xcf64=0000803F00000040"


def test_format_i1():
    v = np.array([True, False, True])
    assert format_result(v, "i1") == "3xi1=1 0 1"
    assert format_result(v, "i1", i1_format="hex") == "3xi1=01 00 01"  # IREE's own output


def test_format_type_from_dtype():
    assert format_result(np.array([1, 2], np.int32)) == "2xi32=1 2"
    assert format_result(np.array([1, 2], np.uint16)) == "2xui16=1 2"
    assert format_result(np.array(True)) == "i1=1"


def test_format_truncation_like_iree():
    assert format_result(np.arange(5, dtype=np.int32), "i32", max_element_count=3) == "5xi32=0 1 2..."
    a = np.arange(10, dtype=np.int32).reshape(2, 5)
    assert format_result(a, "i32", max_element_count=3) == "2x5xi32=[0 1 2...][...]"
    assert format_result(a, "i32", max_element_count=7) == "2x5xi32=[0 1 2 3 4][5 6...]"
    assert format_result(a, "i32", max_element_count=0) == "2x5xi32=[...][...]"
    big = np.zeros(2000, np.float32)
    text = format_result(big, "f32")  # default --output_max_element_count=1024
    assert text.startswith("2000xf32=0 0") and text.endswith("0...")
    assert text.count("0") == 1024 + 3  # 1024 zeros plus the three of "2000"


def test_format_invocation():
    out = format_invocation("add", [np.array([3, 4, 5, 6], np.float32)], ["f32"])
    assert out == "EXEC @add\nresult[0]: hal.buffer_view\n4xf32=3 4 5 6\n"
    out = format_invocation("abs", [np.float32(2)], ["f32"])
    assert out == "EXEC @abs\nresult[0]: hal.buffer_view\nf32=2\n"
    two = format_invocation("f", [np.array([1], np.int32), np.array([True])], ["i32", "i1"])
    assert two == ("EXEC @f\nresult[0]: hal.buffer_view\n1xi32=1\n"
                   "result[1]: hal.buffer_view\n1xi1=1\n")
    assert format_invocation("noop", [], []) == "EXEC @noop\n"


def test_parse_format_round_trip():
    for spec in ["4xf32=3 4 5 6", "f32=2", "2x2xi32=[1 2][3 4]", "3xsi8=-1 0 1", "2xui16=1 65535",
                 "2x1xf64=[0.5][-0.25]"]:
        meta = spec.split("=")[0]
        tname = meta.split("x")[-1]
        assert format_result(parse_input(spec), tname) == spec


# ---------------------------------------------------------------------------
# --output specs
# ---------------------------------------------------------------------------

def test_write_outputs(tmp_path):
    r0 = np.array([1, 2], np.int32)
    r1 = np.array([0.5], np.float32)
    r2 = np.array([True])
    stream = io.StringIO()
    write_outputs([r0, r1, r2], ["i32", "f32", "i1"],
                  [f"@{tmp_path / 'a.npy'}", "-", ""], stream)
    np.testing.assert_array_equal(np.load(tmp_path / "a.npy"), r0)
    assert stream.getvalue() == "hal.buffer_view\n1xf32=0.5\n"
    write_outputs([r0], ["i32"], [f"+{tmp_path / 'a.npy'}"], stream)
    with open(tmp_path / "a.npy", "rb") as f:
        np.testing.assert_array_equal(np.load(f), r0)
        np.testing.assert_array_equal(np.load(f), r0)
    write_outputs([r0], ["i32"], [f"@{tmp_path / 'a.bin'}"], stream)
    assert (tmp_path / "a.bin").read_bytes() == r0.tobytes()


def test_write_outputs_errors(tmp_path):
    with pytest.raises(InputError, match="2 outputs specified but the function has 1 results"):
        write_outputs([np.zeros(1)], ["f64"], ["-", "-"])
    with pytest.raises(InputError, match="unsupported output mode"):
        write_outputs([np.zeros(1)], ["f64"], ["out.npy"])
    with pytest.raises(InputError, match="cannot write output file"):
        write_outputs([np.zeros(1)], ["f64"], [f"@{tmp_path / 'no' / 'dir' / 'x.npy'}"])


# ---------------------------------------------------------------------------
# element type table
# ---------------------------------------------------------------------------

def test_element_type_codes_and_names():
    assert iof.element_type("f32").code == 0x21000020
    assert iof.element_type("i1").code == 0x13000008
    assert iof.element_type("bf16").code == 0x22000010
    assert iof.element_type("si8").code == 0x11000008
    assert iof.element_type("ui64").code == 0x12000040
    assert iof.element_type("complex<f64>").code == 0x23000080
    assert iof.iree_element_type_name(0x13000008) == "i1"
    assert iof.iree_element_type_name(0x23000040) == "cf64"
    assert iof.iree_element_type_name(0x25000008) == "f8E4M3FN"
    assert iof.iree_element_type_name(0x00000008) == "*8"


def test_bf16_helpers_round_to_nearest_even():
    x = np.array([1.0, 1.00390625, 1.01171875, -2.0, np.inf, 3.4e38], np.float32)
    bits = f32_to_bf16_bits(x)
    # 1 + 2^-8 is a tie -> even (1.0); 1 + 3*2^-8 is a tie -> even (1 + 2^-6).
    assert bits.tolist()[:4] == [0x3F80, 0x3F80, 0x3F82, 0xC000]
    assert bits[4] == 0x7F80 and bits[5] == 0x7F80  # inf stays inf; 3.4e38 rounds up to inf
    assert np.isnan(bf16_bits_to_f32(f32_to_bf16_bits(np.float32(np.nan))))
    assert f32_to_bf16_bits(np.float32(1.5)).shape == ()

"""Building and loading ireec modules, and the helpers of runtime_c/ireec_runtime.h.

The module under test is tests/runtime/fixtures/fixture.c: hand-written C that follows the
ABI the generated code follows (typed entry points, generic trampolines, a reflection
table). Nothing here depends on the compiler.
"""
import os
import re
import shutil
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pytest

import ireec
from ireec.runtime import io_format
from ireec.runtime.build import (
    BuildError,
    build_shared_library,
    compile_object_check,
    runtime_header_text,
    undefined_symbols,
)
from ireec.runtime.loader import STATUS_NAMES, LoadedModule, load

FIXTURES = Path(__file__).parent / "fixtures"
HEADER_PATH = Path(__file__).resolve().parents[2] / "runtime_c" / "ireec_runtime.h"


def _sources(*names):
    return {n: (FIXTURES / n).read_text() for n in names}


@pytest.fixture(scope="module")
def fixture_lib(tmp_path_factory):
    out = tmp_path_factory.mktemp("fixture") / "libfixture.so"
    return build_shared_library(_sources("fixture.c", "fixture.h"), "fixture", out)


@pytest.fixture(scope="module")
def m(fixture_lib):
    return load(fixture_lib)


@pytest.fixture(scope="module")
def helpers(tmp_path_factory):
    """helpers.c built as a plain shared library and opened with cffi."""
    import cffi

    d = tmp_path_factory.mktemp("helpers")
    (d / "ireec_runtime.h").write_text(runtime_header_text())
    shutil.copy(FIXTURES / "helpers.c", d / "helpers.c")
    lib_path = d / "libhelpers.so"
    subprocess.run(["cc", "-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC",
                    "-I", str(d), str(d / "helpers.c"), "-o", str(lib_path), "-lm"], check=True)
    ffi = cffi.FFI()
    ffi.cdef(re.sub(r"\{[^}]*\}", ";", "\n".join(
        line for line in (FIXTURES / "helpers.c").read_text().splitlines()
        if line.startswith(("void h_", "const char *h_")) and line.rstrip().endswith(";"))))
    return ffi, ffi.dlopen(str(lib_path))


def _ptr(ffi, a):
    return ffi.cast("void *", a.ctypes.data)


# ---------------------------------------------------------------------------
# loading and calling
# ---------------------------------------------------------------------------

def test_reflection(m):
    assert isinstance(m, LoadedModule)
    assert m.name == "fixture"
    assert m.functions == ["add", "abs", "matmul_static", "divrem", "logical_not",
                           "half_bf16", "fail", "noop"]
    mm = m.info("matmul_static")
    assert [t.shape for t in mm.args] == [(3, 5), (5, 3), (3, 3)]
    assert [t.name for t in mm.args] == ["input0", "input1", "input2"]
    assert mm.results[0].mlir_type == "tensor<3x3xf32>"
    assert mm.results[0].element_type == 0x21000020
    assert mm.workspace_size == 36 and m.workspace_size == 36
    assert m.info("abs").signature == "@abs(tensor<f32>) -> tensor<f32>"
    assert (m.info("divrem").signature
            == "@divrem(tensor<3xi32>, tensor<3xi32>) -> (tensor<3xi32>, tensor<3xi32>)")
    assert m.info("half_bf16").args[1].dtype == np.uint16
    assert m.info("logical_not").args[0].dtype == np.bool_
    assert "add" in dir(m)


def test_add_matches_numpy(m):
    rng = np.random.default_rng(0)
    a = rng.standard_normal(4).astype(np.float32)
    b = rng.standard_normal(4).astype(np.float32)
    r = m.add(a, b)
    assert r.dtype == np.float32 and r.shape == (4,)
    np.testing.assert_array_equal(r, a + b)
    # Python lists of ints/floats take the expected dtype.
    np.testing.assert_array_equal(m.add([1, 2, 3, 4], [0.5, 0.5, 0.5, 0.5]), [1.5, 2.5, 3.5, 4.5])
    # m["name"] works too.
    np.testing.assert_array_equal(m["add"](a, b), a + b)


def test_rank0(m):
    r = m.abs(np.float32(-2))
    assert r.shape == () and r.dtype == np.float32 and r == 2
    assert m.abs(-3.5) == 3.5  # Python float
    assert m.abs(np.array(-1, np.float32)) == 1


def test_matmul_uses_aligned_workspace(m):
    # fixture_matmul_static returns FAILED_PRECONDITION unless the workspace is 64-byte aligned.
    a = np.ones((3, 5), np.float32)
    b = np.full((5, 3), 2, np.float32)
    c = np.full((3, 3), 42, np.float32)
    np.testing.assert_array_equal(m.matmul_static(a, b, c), np.full((3, 3), 52, np.float32))
    rng = np.random.default_rng(1)
    a, b, c = (rng.standard_normal(s).astype(np.float32) for s in ((3, 5), (5, 3), (3, 3)))
    np.testing.assert_allclose(m.matmul_static(a, b, c), a @ b + c, rtol=1e-5, atol=1e-5)


def test_non_contiguous_arguments(m):
    a = np.arange(15, dtype=np.float32).reshape(5, 3).T  # a transposed view
    b = np.ones((5, 3), np.float32)
    c = np.zeros((3, 3), np.float32)
    np.testing.assert_allclose(m.matmul_static(a, b, c), a @ b + c)



def test_exact_arrays_take_the_prepared_call_plan(m, monkeypatch):
    """C-contiguous arrays of the exact dtype and shape are passed in place by the function's
    CallPlan: the checked conversion never runs, a read-only input is fine, and out= arrays
    are written and returned as given."""
    from ireec.runtime import loader

    def no_conversion(*a, **k):
        raise AssertionError("the checked conversion ran on exact arrays")
    monkeypatch.setattr(loader, "_check_argument", no_conversion)
    a = np.arange(4, dtype=np.float32)
    a.flags.writeable = False
    b = np.full(4, 0.5, np.float32)
    np.testing.assert_array_equal(m.add(a, b), a + b)
    out = np.empty(4, np.float32)
    assert m.add(a, b, out=out) is out
    np.testing.assert_array_equal(out, a + b)
    q, r = m.divrem(np.array([7, -7, 9], np.int32), np.array([2, 2, -2], np.int32),
                    out=(np.empty(3, np.int32), np.empty(3, np.int32)))
    np.testing.assert_array_equal(q, [3, -4, -5])
    assert isinstance(m.plan("add"), loader.CallPlan)
    assert m.plan("add").info is m.info("add")
    monkeypatch.undo()
    with pytest.raises(ValueError, match="C-contiguous and writeable"):
        m.add(a, b, out=a)  # read-only result array


def test_call_overhead_reports_both_paths(m):
    """ireec.tools.benchmark.call_overhead times the bare C call and ireec.load's call."""
    from ireec.tools.benchmark import call_overhead

    a, b = np.ones(4, np.float32), np.ones(4, np.float32)
    r = call_overhead(m, "add", [a, b], samples=200, repetitions=1)
    assert set(r) == {"raw_us", "load_us", "load_out_us", "overhead_us", "overhead_out_us"}
    assert 0 < r["raw_us"] and 0 < r["load_us"]
    assert r["overhead_us"] == pytest.approx(r["load_us"] - r["raw_us"])

def test_two_results(m):
    a = np.array([7, -7, 7, -7, 0, 9], np.int32)[:3]
    b = np.array([2, 2, -2], np.int32)
    q, r = m.divrem(a, b)
    np.testing.assert_array_equal(q, np.floor_divide(a, b))
    np.testing.assert_array_equal(r, np.mod(a, b))
    out = (np.empty(3, np.int32), np.empty(3, np.int32))
    got = m.divrem(a, b, out=out)
    assert got[0] is out[0] and got[1] is out[1]
    np.testing.assert_array_equal(out[0], q)


def test_bool_f16_bf16(m):
    np.testing.assert_array_equal(m.logical_not([True, False, True, False]),
                                  [False, True, False, True])
    h = np.array([1.5, -3.25], np.float16)
    bf = io_format.f32_to_bf16_bits(np.array([0.75, 100.0], np.float32))
    rh, rbf = m.half_bf16(h, bf)
    assert rh.dtype == np.float16 and rbf.dtype == np.uint16
    np.testing.assert_array_equal(rh, h * 2)
    np.testing.assert_array_equal(io_format.bf16_bits_to_f32(rbf), [1.5, 200.0])


def test_no_results(m):
    assert m.noop() is None


def test_status_error(m):
    with pytest.raises(RuntimeError, match=r"fail: call failed with status 13 \(INTERNAL\)"):
        m.fail(np.float32(1))
    with pytest.raises(RuntimeError, match=r"status 3 \(INVALID_ARGUMENT\)"):
        m.divrem(np.ones(3, np.int32), np.zeros(3, np.int32))


def test_argument_errors(m):
    with pytest.raises(TypeError) as e:
        m.matmul_static(np.zeros((3, 4)), np.zeros((5, 3), np.float32), np.zeros((3, 3), np.float32))
    assert str(e.value) == ("matmul_static: argument 0 (input0) expects tensor<3x5xf32>, "
                            "got float64 array of shape (3, 4)")
    with pytest.raises(ValueError) as e:
        m.matmul_static(np.zeros((3, 4), np.float32), np.zeros((5, 3), np.float32),
                        np.zeros((3, 3), np.float32))
    assert "argument 0 (input0) expects tensor<3x5xf32>, got float32 array of shape (3, 4)" in str(e.value)
    with pytest.raises(TypeError, match=r"add: expects 2 arguments .*got 1"):
        m.add(np.zeros(4, np.float32))
    with pytest.raises(TypeError, match="argument 1 \\(input1\\) expects tensor<4xf32>"):
        m.add(np.zeros(4, np.float32), np.zeros(4, np.int32))
    with pytest.raises(TypeError, match="got list of float64 values"):
        m.divrem([1.5, 2, 3], [1, 2, 3])  # floats do not silently become ints
    with pytest.raises(TypeError):
        m.add("abcd", np.zeros(4, np.float32))
    with pytest.raises(TypeError):
        m.add([[1, 2], [3]], np.zeros(4, np.float32))  # ragged
    with pytest.raises(TypeError, match="uint16 bf16 bits"):
        m.half_bf16(np.zeros(2, np.float16), np.zeros(2, np.float32))
    with pytest.raises(ValueError, match="got float32 array of shape \\(\\)"):
        m.add(np.float32(1), np.zeros(4, np.float32))
    with pytest.raises(TypeError, match="out="):
        m.divrem(np.ones(3, np.int32), np.ones(3, np.int32), out=np.empty(3, np.int32))
    with pytest.raises(ValueError, match="C-contiguous"):
        m.add(np.ones(4, np.float32), np.ones(4, np.float32), out=np.empty(8, np.float32)[::2])


def test_unknown_function(m):
    with pytest.raises(AttributeError, match="has no function 'nope'.*available: add"):
        m.nope
    with pytest.raises(KeyError, match="has no function 'nope'"):
        m.info("nope")
    with pytest.raises(KeyError):
        m["nope"]


# ---------------------------------------------------------------------------
# load errors and reloading
# ---------------------------------------------------------------------------

def test_load_errors(tmp_path):
    with pytest.raises(FileNotFoundError):
        load(tmp_path / "missing.so")
    junk = tmp_path / "junk.so"
    junk.write_bytes(b"not a library")
    with pytest.raises(OSError, match="cannot load"):
        load(junk)
    plain = tmp_path / "libplain.so"
    (tmp_path / "plain.c").write_text("int plain_function(void) { return 1; }\n")
    subprocess.run(["cc", "-shared", "-fPIC", str(tmp_path / "plain.c"), "-o", str(plain)],
                   check=True)
    with pytest.raises(ValueError, match="not an ireec module"):
        load(plain)
    bad = build_shared_library(_sources("bad_abi.c"), "bad_abi", tmp_path / "libbad.so")
    with pytest.raises(ValueError, match="ABI version 99"):
        load(bad)


def test_reload_after_rebuild(tmp_path):
    lib = tmp_path / "libreplaced.so"
    build_shared_library(_sources("fixture.c", "fixture.h"), "fixture", lib)
    first = load(lib)
    assert "add" in first.functions
    build_shared_library(_sources("tiny.c"), "tiny", lib)  # same path, new library
    second = load(lib)
    assert second.functions == ["negate"]
    np.testing.assert_array_equal(second.negate(np.array([3, -4], np.int64)), [-3, 4])
    np.testing.assert_array_equal(first.add([1, 1, 1, 1], [1, 1, 1, 1]), [2, 2, 2, 2])


def test_public_api_load(fixture_lib):
    mod = ireec.load(fixture_lib)
    assert mod.add([1, 2, 3, 4], [1, 1, 1, 1]).tolist() == [2, 3, 4, 5]
    assert ireec.__version__


def test_compile_file_builds_and_caches(tmp_path, monkeypatch):
    """ireec.compile_file/compile_source with a stand-in compiler returning fixture.c."""
    calls = []

    def fake_compile_file(path, *, target="c", **opts):
        calls.append((path, target, opts))
        return types.SimpleNamespace(files=_sources("fixture.c", "fixture.h"),
                                     module_name="fixture", ir_text=None, report={})

    def fake_compile_source(text, filename="<input>", *, target="c", **opts):
        calls.append((text, filename, target))
        return fake_compile_file(filename, target=target)

    fake = types.ModuleType("ireec.compiler")
    fake.compile_file = fake_compile_file
    fake.compile_source = fake_compile_source
    monkeypatch.setitem(sys.modules, "ireec.compiler", fake)
    monkeypatch.setattr(ireec, "compiler", fake, raising=False)
    monkeypatch.setenv("IREEC_CACHE_DIR", str(tmp_path / "cache"))
    mod = ireec.compile_file("model.mlir", module_name="fixture")
    assert calls[0] == ("model.mlir", "c", {"module_name": "fixture"})
    assert mod.abs(-2.0) == 2
    libs = list((tmp_path / "cache").glob("libfixture-c-*.so"))
    assert len(libs) == 1
    mtime = libs[0].stat().st_mtime_ns
    again = ireec.compile_source("func.func @abs() {}", source_name="m.mlir")
    assert again.path == mod.path and libs[0].stat().st_mtime_ns == mtime  # cache hit
    assert calls[1] == ("func.func @abs() {}", "m.mlir", "c")


# ---------------------------------------------------------------------------
# building
# ---------------------------------------------------------------------------

def test_build_errors(tmp_path, monkeypatch):
    broken = {"broken.c": "int broken(void) { return undeclared_thing; }\n"}
    with pytest.raises(BuildError) as e:
        build_shared_library(broken, "broken", tmp_path / "libbroken.so")
    assert "undeclared_thing" in e.value.stderr
    assert "exited with" in e.value.message
    assert not (tmp_path / "libbroken.so").exists()
    with pytest.raises(BuildError, match="unknown target"):
        build_shared_library(broken, "broken", tmp_path / "x.so", target="vulkan")
    with pytest.raises(BuildError, match="not a C identifier"):
        build_shared_library(broken, "bad-name", tmp_path / "x.so")
    monkeypatch.setenv("CC", "/nonexistent/ireec-test-cc")
    with pytest.raises(BuildError, match="not found"):
        build_shared_library(_sources("fixture.c", "fixture.h"), "fixture", tmp_path / "x.so")


def test_build_honours_cflags_and_openmp(tmp_path, monkeypatch):
    monkeypatch.setenv("CFLAGS", "-DIREEC_TEST_FLAG=1 -O1")
    src = dict(_sources("fixture.c", "fixture.h"))
    src["flag_check.c"] = "#ifndef IREEC_TEST_FLAG\n#error CFLAGS not passed\n#endif\n" \
                          "int flag_check_unused;\n"
    lib = build_shared_library(src, "fixture", tmp_path / "libflags.so")
    assert load(lib).add([0, 0, 0, 0], [1, 2, 3, 4]).tolist() == [1, 2, 3, 4]
    monkeypatch.delenv("CFLAGS")
    omp = build_shared_library(_sources("fixture.c", "fixture.h"), "fixture",
                               tmp_path / "libomp.so", target="openmp")
    assert load(omp).abs(-1.0) == 1


def test_generated_style_c_is_warning_free_and_libc_free(tmp_path):
    objs = compile_object_check(_sources("fixture.c", "fixture.h"), out_dir=tmp_path)
    assert [o.name for o in objs] == ["fixture.c.o"]
    undefined = undefined_symbols(objs[0])
    assert not undefined & {"malloc", "free", "calloc", "realloc", "printf", "fprintf", "puts"}
    with pytest.raises(BuildError, match="compile check failed"):
        compile_object_check({"w.c": "int w(int unused_param) { return 0; }\n"},
                             out_dir=tmp_path / "w")


# ---------------------------------------------------------------------------
# runtime_c/ireec_runtime.h
# ---------------------------------------------------------------------------

def test_header_is_the_packaged_one():
    assert runtime_header_text() == HEADER_PATH.read_text()


def test_header_includes_only_allowed_headers():
    text = HEADER_PATH.read_text()
    includes = set(re.findall(r'#\s*include\s*[<"]([^>"]+)[>"]', text))
    # and, under CUDA only, the cuda target's device micro-kernels
    assert includes == {"stdint.h", "stddef.h", "math.h", "string.h", "ireec_gpu_ukernel.h"}
    assert ('#if defined(__CUDACC__) || defined(IREEC_CUDA_EMULATION)\n'
            '#include "ireec_gpu_ukernel.h"\n#endif') in text
    assert "#ifndef IREEC_RUNTIME_H_" in text and "#define IREEC_ABI_VERSION 4" in text


USE_HEADER = """#include "ireec_runtime.h"
#include "ireec_runtime.h" /* include guard */
IREEC_ALIGNAS(64) static const float weights[4] = {1, 2, 3, 4};
float use_header(const float *IREEC_RESTRICT a, float *IREEC_RESTRICT b);
float use_header(const float *IREEC_RESTRICT a, float *IREEC_RESTRICT b) {
  b[0] = a[0] + weights[1];
  return ireec_maximumf(a[0], b[0]) + ireec_f16_to_f32(ireec_f32_to_f16(a[1])) +
         ireec_bf16_to_f32(ireec_f32_to_bf16(a[2])) + ireec_roundevenf(a[3]) +
         (float)ireec_floordiv_i64(-7, 2) + (float)ireec_ctpop32(7u) + ireec_erff(a[0]);
}
"""


def test_header_compiles_as_strict_c99(tmp_path):
    compile_object_check({"use.c": USE_HEADER}, flags=["-pedantic"], out_dir=tmp_path)


@pytest.mark.skipif(shutil.which("g++") is None and shutil.which("c++") is None,
                    reason="no C++ compiler installed")
def test_header_compiles_as_cpp(tmp_path):
    cxx = shutil.which("g++") or shutil.which("c++")
    (tmp_path / "ireec_runtime.h").write_text(runtime_header_text())
    (tmp_path / "use.cpp").write_text(USE_HEADER)
    subprocess.run([cxx, "-std=c++11", "-Wall", "-Wextra", "-Werror", "-I", str(tmp_path),
                    "-c", str(tmp_path / "use.cpp"), "-o", str(tmp_path / "use.o")], check=True)


@pytest.mark.skipif(shutil.which(os.environ.get("NVCC", "nvcc")) is None,
                    reason="nvcc not installed (compile-only check)")
def test_header_compiles_under_nvcc(tmp_path):
    (tmp_path / "ireec_runtime.h").write_text(runtime_header_text())
    # included by ireec_runtime.h under nvcc: the device micro-kernels compile too
    (tmp_path / "ireec_gpu_ukernel.h").write_text(runtime_header_text("ireec_gpu_ukernel.h"))
    (tmp_path / "k.cu").write_text(USE_HEADER + """
__global__ void k(const float *a, float *b, int *c) {
  b[0] = ireec_maximumf(a[0], a[1]) + ireec_roundevenf(a[2]) +
         ireec_f16_to_f32(ireec_f32_to_f16(a[3])) + ireec_erff(a[0]);
  c[0] = ireec_ctpop32(5u) + ireec_clz64(3u) + ireec_ctz32(8u) + ireec_floordiv_i32(-7, 2);
}
""")
    subprocess.run([os.environ.get("NVCC", "nvcc"), "-I", str(tmp_path), "-c",
                    str(tmp_path / "k.cu"), "-o", str(tmp_path / "k.o"),
                    "-Xcompiler", "-Wall,-Wextra,-Werror"], check=True)


ELEMENT_TYPE_ORDER = ["i1", "i8", "si8", "ui8", "i16", "si16", "ui16", "i32", "si32", "ui32",
                      "i64", "si64", "ui64", "f16", "f32", "f64", "bf16", "complex<f32>",
                      "complex<f64>", "f8E4M3FN"]


def test_header_codes_match_python_tables(helpers):
    ffi, lib = helpers
    out = ffi.new("uint32_t[]", len(ELEMENT_TYPE_ORDER))
    lib.h_element_types(out)
    for name, code in zip(ELEMENT_TYPE_ORDER, out):
        assert io_format.element_type(name).code == code, name
    assert list(out)[14] == 0x21000020  # f32, as IREE
    for code, name in STATUS_NAMES.items():
        assert ffi.string(lib.h_status_string(code)).decode() == name
    assert ffi.string(lib.h_status_string(99)).decode() == "UNKNOWN_CODE"


def test_f16_conversions_match_numpy(helpers):
    ffi, lib = helpers
    every = np.arange(65536, dtype=np.uint32).astype(np.uint16)
    widened = np.empty(65536, np.float32)
    lib.h_f16_to_f32(_ptr(ffi, every), _ptr(ffi, widened), 65536)
    ref = every.view(np.float16).astype(np.float32)
    nan = np.isnan(ref)
    assert (np.isnan(widened) == nan).all()
    np.testing.assert_array_equal(widened.view(np.uint32)[~nan], ref.view(np.uint32)[~nan])

    rng = np.random.default_rng(2)
    bits = np.concatenate([
        rng.integers(0, 2**32, 400000, dtype=np.uint64).astype(np.uint32),
        # f16 range edges, subnormals, ties and the overflow threshold 65520.
        np.array([0x477FE000, 0x477FEFFF, 0x477FF000, 0x477FF001, 0x38800000, 0x387FFFFF,
                  0x33000000, 0x33000001, 0x32FFFFFF, 0x33800000, 0x3F801000, 0x3F803000,
                  0x7F800000, 0xFF800000, 0x80000000, 0], np.uint32),
        (rng.integers(0x33000000, 0x38800000, 100000, dtype=np.uint64)).astype(np.uint32),
    ])
    x = bits.view(np.float32)
    got = np.empty(x.size, np.uint16)
    lib.h_f32_to_f16(_ptr(ffi, x), _ptr(ffi, got), x.size)
    with np.errstate(over="ignore"):
        ref16 = x.astype(np.float16)
    nan = np.isnan(x)
    np.testing.assert_array_equal(got[~nan], ref16.view(np.uint16)[~nan])
    assert np.isnan(got[nan].view(np.float16)).all()


def test_bf16_conversions(helpers):
    ffi, lib = helpers
    rng = np.random.default_rng(3)
    bits = np.concatenate([rng.integers(0, 2**32, 200000, dtype=np.uint64).astype(np.uint32),
                           np.array([0x3F808000, 0x3F818000, 0x7F7FFFFF, 0x7F800000,
                                     0x7FC00001, 0x00008000, 0x80018000], np.uint32)])
    x = bits.view(np.float32)
    got = np.empty(x.size, np.uint16)
    lib.h_f32_to_bf16(_ptr(ffi, x), _ptr(ffi, got), x.size)
    np.testing.assert_array_equal(got, io_format.f32_to_bf16_bits(x))
    # Independent reference: nearest of the two neighbours in float64, ties to even.
    finite = np.isfinite(x)
    lo = (bits & 0xFFFF0000).astype(np.uint64)
    hi_bits = lo + 0x10000
    with np.errstate(over="ignore", invalid="ignore"):
        lo_v = (lo.astype(np.uint32)).view(np.float32).astype(np.float64)
        hi_v = np.where(hi_bits < 2**32, (hi_bits % 2**32).astype(np.uint32).view(np.float32),
                        np.nan).astype(np.float64)
        dlo = np.abs(x.astype(np.float64) - lo_v)
        dhi = np.abs(hi_v - x.astype(np.float64))
    pick_hi = (dhi < dlo) | ((dhi == dlo) & ((lo >> 16) & 1 == 1))
    ref = np.where(pick_hi, hi_bits >> 16, lo >> 16).astype(np.uint16)
    ok = finite & np.isfinite(hi_v)
    np.testing.assert_array_equal(got[ok], ref[ok])
    back = np.empty(x.size, np.float32)
    lib.h_bf16_to_f32(_ptr(ffi, got), _ptr(ffi, back), x.size)
    np.testing.assert_array_equal(back.view(np.uint32), got.astype(np.uint32) << 16)


def test_maximum_minimum(helpers):
    ffi, lib = helpers
    nan = np.nan
    a = np.array([1, -1, nan, 2, -0.0, 0.0, np.inf, -np.inf], np.float32)
    b = np.array([2, -2, 1, nan, 0.0, -0.0, 1, nan], np.float32)
    mx, mn = np.empty_like(a), np.empty_like(a)
    lib.h_maximumf(_ptr(ffi, a), _ptr(ffi, b), _ptr(ffi, mx), a.size)
    lib.h_minimumf(_ptr(ffi, a), _ptr(ffi, b), _ptr(ffi, mn), a.size)
    np.testing.assert_array_equal(mx[[0, 1, 6]], [2, -1, np.inf])
    np.testing.assert_array_equal(mn[[0, 1, 6]], [1, -2, 1])
    assert np.isnan(mx[[2, 3, 7]]).all() and np.isnan(mn[[2, 3, 7]]).all()
    assert not np.signbit(mx[4]) and not np.signbit(mx[5])  # max(-0, +0) = +0
    assert np.signbit(mn[4]) and np.signbit(mn[5])          # min(-0, +0) = -0
    ad, bd = a.astype(np.float64), b.astype(np.float64)
    mxd, mnd = np.empty_like(ad), np.empty_like(ad)
    lib.h_maximumd(_ptr(ffi, ad), _ptr(ffi, bd), _ptr(ffi, mxd), ad.size)
    lib.h_minimumd(_ptr(ffi, ad), _ptr(ffi, bd), _ptr(ffi, mnd), ad.size)
    np.testing.assert_array_equal(mxd.view(np.uint64)[[0, 1, 4, 5, 6]],
                                  mx.astype(np.float64).view(np.uint64)[[0, 1, 4, 5, 6]])
    assert np.signbit(mnd[4]) and np.isnan(mnd[2])


def test_roundeven(helpers):
    ffi, lib = helpers
    rng = np.random.default_rng(4)
    halves = (np.arange(-40, 41) / 2.0)
    x = np.concatenate([halves, rng.standard_normal(10000) * 1000, [-0.4, -0.0, 0.0, 2.0**23 + 1,
                        -(2.0**24), 1e30, np.inf, -np.inf, np.nan]]).astype(np.float32)
    y = np.empty_like(x)
    lib.h_roundevenf(_ptr(ffi, x), _ptr(ffi, y), x.size)
    ref = np.round(x)  # numpy rounds half to even
    np.testing.assert_array_equal(y, ref)
    assert np.signbit(y[np.where(x == np.float32(-0.4))[0][0]])  # keeps -0
    xd = np.concatenate([halves, rng.standard_normal(10000) * 1e6, [2.0**52 + 1, -0.5]])
    yd = np.empty_like(xd)
    lib.h_roundevend(_ptr(ffi, xd), _ptr(ffi, yd), xd.size)
    np.testing.assert_array_equal(yd, np.round(xd))
    assert np.signbit(yd[-1])


def test_floordiv_ceildiv(helpers):
    ffi, lib = helpers
    rng = np.random.default_rng(5)
    a = rng.integers(-1000, 1000, 20000).astype(np.int64)
    b = rng.integers(-50, 50, 20000).astype(np.int64)
    b[b == 0] = 7
    a = np.concatenate([a, [np.iinfo(np.int64).min, 7, -7, 0]])
    b = np.concatenate([b, [-1, -1, 1, -3]])
    fl, ce = np.empty_like(a), np.empty_like(a)
    lib.h_divs_i64(_ptr(ffi, a), _ptr(ffi, b), _ptr(ffi, fl), _ptr(ffi, ce), a.size)
    ref_fl = [x // y for x, y in zip(a.tolist(), b.tolist())]
    ref_ce = [-((-x) // y) for x, y in zip(a.tolist(), b.tolist())]
    ref_fl[-4] = ref_ce[-4] = np.iinfo(np.int64).min  # MIN / -1 wraps
    assert fl.tolist() == ref_fl and ce.tolist() == ref_ce
    a32, b32 = a[:-4].astype(np.int32), b[:-4].astype(np.int32)
    fl32, ce32 = np.empty_like(a32), np.empty_like(a32)
    lib.h_divs_i32(_ptr(ffi, a32), _ptr(ffi, b32), _ptr(ffi, fl32), _ptr(ffi, ce32), a32.size)
    assert fl32.tolist() == ref_fl[:-4] and ce32.tolist() == ref_ce[:-4]
    # A zero divisor (poison in MLIR) gives some value instead of a trap.
    z, zb, zf, zc = np.array([5, -5], np.int64), np.zeros(2, np.int64), np.empty(2, np.int64), np.empty(2, np.int64)
    lib.h_divs_i64(_ptr(ffi, z), _ptr(ffi, zb), _ptr(ffi, zf), _ptr(ffi, zc), 2)
    z32, zb32, zf32, zc32 = z.astype(np.int32), zb.astype(np.int32), np.empty(2, np.int32), np.empty(2, np.int32)
    lib.h_divs_i32(_ptr(ffi, z32), _ptr(ffi, zb32), _ptr(ffi, zf32), _ptr(ffi, zc32), 2)


def test_bit_counting(helpers):
    ffi, lib = helpers
    rng = np.random.default_rng(6)
    x32 = np.concatenate([[0, 1, 0x80000000, 0xFFFFFFFF],
                          rng.integers(0, 2**32, 1000, dtype=np.uint64)]).astype(np.uint32)
    pop, clz, ctz = (np.empty(x32.size, np.int32) for _ in range(3))
    lib.h_bits32(_ptr(ffi, x32), _ptr(ffi, pop), _ptr(ffi, clz), _ptr(ffi, ctz), x32.size)
    for v, p, l, t in zip(x32.tolist(), pop.tolist(), clz.tolist(), ctz.tolist()):
        assert p == bin(v).count("1")
        assert l == 32 - v.bit_length()
        assert t == (32 if v == 0 else (v & -v).bit_length() - 1)
    x64 = np.concatenate([np.array([0, 1, 2**63, 2**64 - 1], np.uint64),
                          rng.integers(0, 2**63, 1000, dtype=np.uint64) * 2])
    pop, clz, ctz = (np.empty(x64.size, np.int32) for _ in range(3))
    lib.h_bits64(_ptr(ffi, x64), _ptr(ffi, pop), _ptr(ffi, clz), _ptr(ffi, ctz), x64.size)
    for v, p, l, t in zip(x64.tolist(), pop.tolist(), clz.tolist(), ctz.tolist()):
        assert p == bin(v).count("1")
        assert l == 64 - v.bit_length()
        assert t == (64 if v == 0 else (v & -v).bit_length() - 1)


@pytest.mark.skipif(shutil.which(os.environ.get("NVCC", "nvcc")) is None,
                    reason="nvcc not installed")
def test_build_cuda_target_links_cu_files(tmp_path):
    """target='cuda' compiles .cu files with nvcc and links with it; host code runs
    without a GPU (no kernel is launched here)."""
    src = dict(_sources("fixture.c", "fixture.h"))
    src["kernels.cu"] = ('#include "ireec_runtime.h"\n'
                         "__global__ void k_relu(float *x) {\n"
                         "  x[threadIdx.x] = ireec_maximumf(x[threadIdx.x], 0.0f);\n}\n")
    lib = build_shared_library(src, "fixture", tmp_path / "libcu.so", target="cuda")
    assert load(lib).add([1, 2, 3, 4], [1, 1, 1, 1]).tolist() == [2, 3, 4, 5]
    with pytest.raises(BuildError, match="need --target=cuda"):
        build_shared_library(src, "fixture", tmp_path / "libc.so", target="c")


def test_openmp_module_stays_mapped_when_closed(tmp_path):
    """An ``openmp`` module's library and libgomp stay mapped after its handle is closed (as
    cffi does when Python finalizes): libgomp's idle workers spin in its code after a call, and
    unmapping it under them killed the process with SIGSEGV at exit."""
    script = tmp_path / "close.py"
    script.write_text(
        "import numpy as np, ireec\n"
        "src = '''func.func @f(%a: tensor<4096xf32>) -> tensor<4096xf32> {\n"
        "  %r = math.tanh %a : tensor<4096xf32>\n  return %r : tensor<4096xf32>\n}'''\n"
        f"m = ireec.compile_source(src, target='openmp', source_name='close.mlir')\n"
        "m.f(np.ones(4096, np.float32))\n"
        "m._ffi.dlclose(m._lib)\n"
        "maps = open('/proc/self/maps').read()\n"
        "assert 'libgomp' in maps and m.path in maps, 'module unmapped by dlclose'\n"
        "print('mapped')\n")
    root = str(Path(__file__).resolve().parents[2])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([root, os.environ.get("PYTHONPATH", "")]))
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 0 and "mapped" in r.stdout, r.stdout + r.stderr


# ---------------------------------------------------------------------------
# libgomp's wait policy (ireec.runtime.loader.OPENMP_ENVIRONMENT)
# ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def openmp_tanh(tmp_path_factory):
    """A small ``openmp`` module, built but not loaded in this process."""
    from ireec.compiler import compile_source

    out = compile_source("func.func @f(%a: tensor<4096xf32>) -> tensor<4096xf32> {\n"
                         "  %r = math.tanh %a : tensor<4096xf32>\n  return %r : tensor<4096xf32>\n}\n",
                         "wait.mlir", target="openmp", module_name="wait")
    return build_shared_library(out.files, out.module_name,
                                tmp_path_factory.mktemp("wait") / "libwait.so", target="openmp")


def _load_in_child(lib, env_update, before=""):
    """Load ``lib`` in a fresh Python with libgomp's OMP_DISPLAY_ENV=verbose (it prints what
    it read to stderr when it loads) after running ``before``; (stdout lines, stderr)."""
    from ireec.runtime.loader import GOMP_WAIT_VARIABLES

    env = {k: v for k, v in os.environ.items() if k not in GOMP_WAIT_VARIABLES}
    env.update(OMP_DISPLAY_ENV="verbose", **env_update)
    root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])
    code = (f"{before}\n"
            "import os, numpy as np, ireec\n"
            "from ireec.runtime.loader import openmp_wait_policy\n"
            f"m = ireec.load({str(lib)!r})\n"
            "assert np.allclose(m.f(np.ones(4096, np.float32)), np.tanh(1.0))\n"
            "print(openmp_wait_policy())\n"
            "print(os.environ.get('GOMP_SPINCOUNT'), os.environ.get('OMP_WAIT_POLICY'))\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode == 0, r.stderr
    return r.stdout.splitlines(), r.stderr


def _spincount_read(stderr: str) -> str:
    m = re.search(r"GOMP_SPINCOUNT = '(\d+)'", stderr)
    assert m, stderr
    return m.group(1)


def test_openmp_wait_policy_set_for_libgomp_only(openmp_tanh):
    """With libgomp's variables unset, ireec.load gives libgomp OPENMP_ENVIRONMENT's bounded
    spinning while libgomp loads, and leaves the process's environment as it was."""
    from ireec.runtime.loader import OPENMP_ENVIRONMENT

    out, err = _load_in_child(openmp_tanh, {})
    assert _spincount_read(err) == OPENMP_ENVIRONMENT["GOMP_SPINCOUNT"]
    assert out[0] == f"GOMP_SPINCOUNT={OPENMP_ENVIRONMENT['GOMP_SPINCOUNT']} (set by ireec.load)"
    assert out[1] == "None None"  # not left in the environment (child processes, later libraries)


def test_openmp_wait_policy_of_the_user_wins(openmp_tanh):
    out, err = _load_in_child(openmp_tanh, {"GOMP_SPINCOUNT": "1234"})
    assert _spincount_read(err) == "1234"
    assert out == ["GOMP_SPINCOUNT=1234 (the environment)", "1234 None"]
    out, err = _load_in_child(openmp_tanh, {"OMP_WAIT_POLICY": "active"})
    assert _spincount_read(err) == "30000000000"  # libgomp's own meaning of ACTIVE
    assert out[0] == "OMP_WAIT_POLICY=active (the environment)"


def test_openmp_wait_policy_when_libgomp_was_loaded_first(openmp_tanh):
    """libgomp loaded before ireec.load read its environment then: ireec cannot change it,
    and says so."""
    out, err = _load_in_child(openmp_tanh, {}, before="import ctypes; ctypes.CDLL('libgomp.so.1')")
    assert _spincount_read(err) == "300000"  # libgomp's default
    assert out[0].startswith("libgomp loaded before ireec.load")
    assert out[1] == "None None"

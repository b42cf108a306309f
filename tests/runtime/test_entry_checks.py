"""The C ABI checks what it can: typed and generic entries refuse NULL buffers, a NULL or
misaligned workspace when one is needed, and (generic entry) a workspace smaller than the
function needs, with IREEC_STATUS_INVALID_ARGUMENT and without running anything; the generic
entry returns the typed entry's status; the loader turns a non-OK status into StatusError."""
from __future__ import annotations

import subprocess

import cffi
import numpy as np
import pytest

import ireec
from ireec.runtime.loader import _CDEF, StatusError

from ireec.cli import main as cli_main

OK, INVALID_ARGUMENT = 0, 3

SOURCE = """
func.func @extract(%a: tensor<4xf32>, %i: tensor<i32>) -> f32 {
  %ii = tensor.extract %i[] : tensor<i32>
  %idx = arith.index_cast %ii : i32 to index
  %v = tensor.extract %a[%idx] : tensor<4xf32>
  return %v : f32
}
func.func @add(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %r = stablehlo.add %a, %b : tensor<4xf32>
  return %r : tensor<4xf32>
}
func.func @nothing() {
  return
}
"""


@pytest.fixture(scope="module")
def mod():
    return ireec.compile_source(SOURCE, source_name="entry_checks.mlir", module_name="entry_checks")


@pytest.fixture(scope="module")
def c(mod):
    """cffi view of the typed entries and the reflection table of the built library."""
    ffi = cffi.FFI()
    ffi.cdef(_CDEF)
    ffi.cdef("int32_t entry_checks_extract(const float *, const int32_t *, float *, void *);"
             "int32_t entry_checks_add(const float *, const float *, float *, void *);")
    lib = ffi.dlopen(mod.path)
    info = lib.ireec_query_module_info()
    calls = {ffi.string(info.functions[k].name).decode(): info.functions[k] for k in range(info.num_functions)}
    return ffi, lib, calls


def _ptr(ffi, a):
    return ffi.cast("void *", a.ctypes.data)


def _aligned(ffi, size, offset=0):
    buf = np.zeros(size + 128, np.uint8)
    start = (-buf.ctypes.data) % 64 + offset
    return buf, ffi.cast("void *", buf.ctypes.data + start)


def test_typed_entry_refuses_null_buffers(mod, c):
    ffi, lib, calls = c
    assert calls["extract"].workspace_size > 0 and calls["add"].workspace_size == 0
    a = np.arange(4, dtype=np.float32)
    i = np.array(2, np.int32)
    out = np.zeros((), np.float32)
    _keep, ws = _aligned(ffi, calls["extract"].workspace_size)
    f = lib.entry_checks_extract
    assert f(ffi.NULL, _ptr(ffi, i), _ptr(ffi, out), ws) == INVALID_ARGUMENT
    assert f(_ptr(ffi, a), ffi.NULL, _ptr(ffi, out), ws) == INVALID_ARGUMENT
    assert f(_ptr(ffi, a), _ptr(ffi, i), ffi.NULL, ws) == INVALID_ARGUMENT
    assert f(_ptr(ffi, a), _ptr(ffi, i), _ptr(ffi, out), ffi.NULL) == INVALID_ARGUMENT
    assert out == 0  # nothing ran
    assert f(_ptr(ffi, a), _ptr(ffi, i), _ptr(ffi, out), ws) == OK and out == 2


def test_typed_entry_refuses_a_misaligned_workspace(c):
    ffi, lib, calls = c
    a, i, out = np.arange(4, dtype=np.float32), np.array(1, np.int32), np.zeros((), np.float32)
    _keep, ws = _aligned(ffi, calls["extract"].workspace_size, offset=8)
    assert lib.entry_checks_extract(_ptr(ffi, a), _ptr(ffi, i), _ptr(ffi, out), ws) == INVALID_ARGUMENT


def test_workspace_may_be_null_when_none_is_needed(c):
    ffi, lib, _ = c
    a = np.ones(4, np.float32)
    out = np.zeros(4, np.float32)
    assert lib.entry_checks_add(_ptr(ffi, a), _ptr(ffi, a), _ptr(ffi, out), ffi.NULL) == OK
    np.testing.assert_array_equal(out, 2)
    assert lib.entry_checks_add(_ptr(ffi, a), _ptr(ffi, a), ffi.NULL, ffi.NULL) == INVALID_ARGUMENT


def test_generic_entry_checks_pointers_and_workspace_size(c):
    ffi, _, calls = c
    f = calls["extract"]
    need = f.workspace_size
    a, i, out = np.arange(4, dtype=np.float32), np.array(3, np.int32), np.zeros((), np.float32)
    args = ffi.new("void *[]", [_ptr(ffi, a), _ptr(ffi, i)])
    res = ffi.new("void *[]", [_ptr(ffi, out)])
    _keep, ws = _aligned(ffi, need)
    cargs, cres = ffi.cast("const void *const *", args), ffi.cast("void *const *", res)
    assert f.call(ffi.NULL, cres, ffi.NULL, ws, need) == INVALID_ARGUMENT
    assert f.call(cargs, ffi.NULL, ffi.NULL, ws, need) == INVALID_ARGUMENT
    assert f.call(cargs, cres, ffi.NULL, ws, need - 1) == INVALID_ARGUMENT  # too small
    assert f.call(cargs, cres, ffi.NULL, ws, 0) == INVALID_ARGUMENT
    assert out == 0
    # The typed entry's status comes back (a NULL buffer inside args), not always OK.
    bad = ffi.new("void *[]", [_ptr(ffi, a), ffi.NULL])
    assert f.call(ffi.cast("const void *const *", bad), cres, ffi.NULL, ws, need) == INVALID_ARGUMENT
    assert f.call(cargs, cres, ffi.NULL, ws, need) == OK and out == 3
    # Functions without arguments, results or workspace accept NULL for all of them.
    assert calls["nothing"].call(ffi.NULL, ffi.NULL, ffi.NULL, ffi.NULL, 0) == OK


def test_loader_raises_status_error_with_the_status_name(mod):
    a = np.arange(4, dtype=np.float32)
    assert mod.extract(a, np.int32(1)) == 1
    saved = mod.workspace_size
    mod.workspace_size = saved - 1  # as a caller with too small a workspace
    try:
        with pytest.raises(StatusError, match=r"status 3 \(INVALID_ARGUMENT\)") as e:
            mod.extract(a, np.int32(1))
        assert e.value.status_name == "INVALID_ARGUMENT" and e.value.status == INVALID_ARGUMENT
        assert isinstance(e.value, RuntimeError)
    finally:
        mod.workspace_size = saved


def test_vmc_sources_with_checks_compile_strictly(tmp_path, capsys):
    src = tmp_path / "entry_checks.mlir"
    src.write_text(SOURCE)
    out = tmp_path / "out"
    rc = cli_main(["compile", str(src), "--output-format=vm-c", "-o", str(out)])
    assert rc == 0, capsys.readouterr().err
    header = (out / "entry_checks.h").read_text()
    assert "#define ENTRY_CHECKS_WORKSPACE_ALIGNMENT IREEC_WORKSPACE_ALIGNMENT" in header
    for f in sorted(out.glob("*.c")):
        subprocess.run(["cc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-c", str(f), "-o",
                        str(tmp_path / (f.stem + ".o"))], check=True, cwd=out)

"""``ireec build`` links the micro-kernel families from cached objects
(ireec/runtime/ukernel_objects.py): compiled once per compiler, flags and header, the same
results as the sources compiled whole, the entry points hidden."""
from __future__ import annotations

import subprocess

import numpy as np

import ireec
from ireec.compiler import compile_file
from ireec.runtime import ukernel_objects
from ireec.runtime.build import build_shared_library

from pathlib import Path

INPUTS = Path(__file__).resolve().parents[1] / "e2e" / "inputs"


def _matmul(lib_dir, monkeypatch, cache, **env):
    monkeypatch.setenv("IREEC_CACHE_DIR", str(cache))
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    out = compile_file(str(INPUTS / "matmul_128.mlir"), target="c")
    assert ukernel_objects.families_used(out.files) == ["sgemm"]
    return build_shared_library(out.files, out.module_name, lib_dir / "lib.so")


def _check(lib):
    m = ireec.load(lib)
    fn = m.functions[0]
    args = [np.random.default_rng(i).uniform(-1, 1, t.shape).astype(np.float32)
            for i, t in enumerate(m.info(fn).args)]
    return m[fn](*args), args


def test_family_is_compiled_once_then_linked_from_the_cache(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    first = _matmul(tmp_path / "a", monkeypatch, cache)
    objs = sorted((cache / "ukernels").glob("ireec_uk_sgemm-*.o"))
    assert len(objs) == 1
    stamp = objs[0].stat().st_mtime_ns
    second = _matmul(tmp_path / "b", monkeypatch, cache)
    assert sorted((cache / "ukernels").glob("*.o")) == objs and objs[0].stat().st_mtime_ns == stamp
    whole = _matmul(tmp_path / "c", monkeypatch, tmp_path / "off", IREEC_UKERNEL_CACHE="0")
    assert not (tmp_path / "off" / "ukernels").exists() or not any((tmp_path / "off" / "ukernels").iterdir())
    (y1, args), (y2, _), (y3, _) = _check(first), _check(second), _check(whole)
    np.testing.assert_array_equal(y1, y2)
    np.testing.assert_array_equal(y1, y3)  # the same code, whether inline or linked
    np.testing.assert_allclose(y1, args[0] @ args[1] + args[2], rtol=1e-4, atol=1e-4)
    # linked in, not exported
    dyn = subprocess.run(["nm", "-D", "--defined-only", str(first)], capture_output=True, text=True,
                         check=True).stdout
    assert "ireec_uk_sgemm_fused" not in dyn
    syms = subprocess.run(["nm", str(first)], capture_output=True, text=True, check=True).stdout
    assert "ireec_uk_sgemm_fused" in syms


def test_other_flags_get_their_own_object(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    _matmul(tmp_path / "a", monkeypatch, cache)
    _matmul(tmp_path / "b", monkeypatch, cache, CFLAGS="-O2")
    assert len(list((cache / "ukernels").glob("ireec_uk_sgemm-*.o"))) == 2


def test_family_object_compiles_its_own_header(tmp_path, monkeypatch):
    """Each family's object is its header alone, keyed by that header and the common one:
    the module ships them all (ireec_ukernel.h includes the family headers)."""
    out = compile_file(str(INPUTS / "matmul_128.mlir"), target="c")
    assert all(name in out.files for name in ukernel_objects.HEADERS)
    assert ukernel_objects.library_source("sgemm")[1] == '#include "ireec_ukernel_sgemm.h"\n'
    monkeypatch.setenv("IREEC_CACHE_DIR", str(tmp_path / "cache"))
    files = dict(out.files)
    _, [(_, key)] = ukernel_objects.plan_objects(files, ["cc"], ["-O2"])
    files["ireec_ukernel_dwconv.h"] += "\n"
    assert ukernel_objects.plan_objects(files, ["cc"], ["-O2"])[1][0][1] == key
    files["ireec_ukernel_common.h"] += "\n"
    assert ukernel_objects.plan_objects(files, ["cc"], ["-O2"])[1][0][1] != key


def test_missing_runtime_headers_are_added(tmp_path):
    """Sources given without the runtime headers get them from the package: the micro-kernel
    family headers with ireec_ukernel.h, the device micro-kernels with a .cu source only."""
    from ireec.runtime.build import with_runtime_headers

    c = with_runtime_headers({"m.c": "", "ireec_ukernel.h": "/* */"})
    assert sorted(c) == sorted(["m.c", "ireec_runtime.h", *ukernel_objects.HEADERS])
    assert c["ireec_ukernel.h"] == "/* */"
    cu = with_runtime_headers({"m.cu": ""})
    assert sorted(cu) == ["ireec_gpu_ukernel.h", "ireec_runtime.h", "m.cu"]

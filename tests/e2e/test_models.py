"""Every model of ../shared/models (real JAX and torch-mlir exports), against its expected
status in ``tests/e2e/models_status.md``: a ``pass`` file is built with ``ireec build`` for
``c`` and ``openmp``, called through ``ireec.load``, and matches its expected output within
rtol = atol = 1e-5 on both; an ``unsupported`` file is rejected with a located error."""
from __future__ import annotations

import numpy as np
import pytest

import ireec
from ireec.compiler import compile_file
from ireec.ir.diagnostics import CompileError

from .common import build
from .models import STATUS_FILE, inputs_and_expected, model_files, read_status, rel

FILES = model_files()
STATUS = read_status()


def _ids():
    return [rel(p) for p in FILES] or ["absent"]


@pytest.mark.parametrize("path", FILES or [None], ids=_ids())
def test_model_matches_expected(path, tmp_path, capsys):
    if path is None:
        pytest.skip("../shared/models is not present")
    row = STATUS.get(rel(path))
    assert row is not None, f"{rel(path)} is a new model file: add its row to {STATUS_FILE.name}"
    status, reason = row
    if status == "unsupported":
        with pytest.raises(CompileError) as e:
            compile_file(str(path), target="c")
        assert e.value.loc is not None and e.value.loc.line > 0, f"error without a location: {e.value}"
        return
    args, expected = inputs_and_expected(path)
    for target in ("c", "openmp"):
        lib = build(path, tmp_path / target, capsys, target=target)
        m = ireec.load(lib)
        fn = m.functions[0] if isinstance(m.functions[0], str) else m.functions[0].name
        out = getattr(m, fn)(*args)
        if isinstance(out, (list, tuple)):
            out = out[0]
        np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5, err_msg=f"target {target}")


def test_every_status_row_names_a_model_file():
    if not FILES:
        pytest.skip("../shared/models is not present")
    names = {rel(p) for p in FILES}
    stale = sorted(set(STATUS) - names)
    assert not stale, f"rows of {STATUS_FILE.name} name no file: {stale}"

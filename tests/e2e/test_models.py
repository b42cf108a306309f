"""Real exported models built with `ireec build` and called through `ireec.load`."""
from __future__ import annotations

import numpy as np
import pytest

import ireec

from .common import build, shared_path

MODELS = [
    ("torch_mlir", "mlp", "mlp.args.linalg.mlir", True),
    ("torch_mlir", "mlp", "mlp.const.linalg.mlir", False),
    ("torch_mlir", "lenet", "lenet.args.linalg.mlir", True),
    ("torch_mlir", "lenet", "lenet.const.linalg.mlir", False),
]


@pytest.mark.parametrize("frontend,model,file,takes_weights", MODELS, ids=[m[2] for m in MODELS])
def test_model_matches_expected(frontend, model, file, takes_weights, tmp_path, capsys):
    d = shared_path("models", frontend, model)
    lib = build(d / file, tmp_path, capsys)
    m = ireec.load(lib)
    fn = m.functions[0] if isinstance(m.functions[0], str) else m.functions[0].name
    n_args = len(sorted(d.glob("arg*.npy"))) if takes_weights else 1
    args = [np.load(d / f"arg{i}.npy") for i in range(n_args)]
    out = getattr(m, fn)(*args)
    np.testing.assert_allclose(out, np.load(d / "out0.npy"), rtol=1e-5, atol=1e-5)

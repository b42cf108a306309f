"""StableHLO models exported by JAX and torch-mlir, compiled with ``ireec.compile_file``
(target c) and compared with the frontend's own output (``out0.npy``), rtol = atol = 1e-5.

JAX models come in two forms: ``.args`` (weights are arguments ``arg<i>.npy``) and
``.const`` (weights embedded, only ``arg0``); see ../shared/models/README.md.
"""
from __future__ import annotations

import numpy as np
import pytest

import ireec

from .common import shared_path

MODELS = [
    ("jax", m, f"{m}.{kind}.mlir", kind == "args")
    for m in ("mlp", "lenet", "resnet_block") for kind in ("args", "const")
] + [
    ("torch_mlir", "mlp", "mlp.args.stablehlo.mlir", True),
    ("torch_mlir", "lenet", "lenet.args.stablehlo.mlir", True),
]


def _expected(d, takes_weights):
    const_out = d / "out0.const.npy"
    if not takes_weights and const_out.exists():
        return np.load(const_out)
    return np.load(d / "out0.npy")


@pytest.mark.parametrize("frontend,model,file,takes_weights", MODELS,
                         ids=[f"{m[0]}-{m[2]}" for m in MODELS])
def test_stablehlo_model_matches_expected(frontend, model, file, takes_weights):
    d = shared_path("models", frontend, model)
    m = ireec.compile_file(str(d / file), target="c")
    n_args = len(list(d.glob("arg*.npy"))) if takes_weights else 1
    args = [np.load(d / f"arg{i}.npy") for i in range(n_args)]
    fn = m.functions[0] if isinstance(m.functions[0], str) else m.functions[0].name
    out = getattr(m, fn)(*args)
    if isinstance(out, (list, tuple)):
        out = out[0]
    np.testing.assert_allclose(out, _expected(d, takes_weights), rtol=1e-5, atol=1e-5)

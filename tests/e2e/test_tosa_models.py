"""torch-mlir's TOSA exports (both pretty syntaxes) compiled from TOSA and compared with the
frontend's own output (``out0.npy``)."""
from __future__ import annotations

import numpy as np
import pytest

import ireec

from .common import build, shared_path

MODELS = [
    ("mlp", "mlp.args.tosa.mlir"),            # torch-mlir's print: {perms = array<i32: ...>}
    ("mlp", "mlp.args.tosa.ireeopt.mlir"),    # IREE 3.13's print: perms([...]), values(...)
    ("lenet", "lenet.args.tosa.ireeopt.mlir"),  # conv2d, avg/max_pool2d, transpose, matmul
]


@pytest.mark.parametrize("model,file", MODELS, ids=[m[1] for m in MODELS])
def test_tosa_model_matches_expected(model, file, tmp_path, capsys):
    d = shared_path("models", "torch_mlir", model)
    lib = build(d / file, tmp_path, capsys)
    m = ireec.load(lib)
    args = [np.load(d / f"arg{i}.npy") for i in range(len(sorted(d.glob("arg*.npy"))))]
    out = m.main(*args)
    np.testing.assert_allclose(out, np.load(d / "out0.npy"), rtol=1e-5, atol=1e-5)


def test_tosa_model_input_phase_has_no_tosa_left():
    """After the input phase only linalg/tensor/arith/math ops remain (no tosa.*)."""
    d = shared_path("models", "torch_mlir", "lenet")
    from ireec.frontend.parser import parse_source
    from ireec.passes.input.convert_tosa_to_linalg import ConvertTosaToLinalgPass
    from ireec.passes.pass_base import PassContext

    path = d / "lenet.args.tosa.ireeopt.mlir"
    module = parse_source(path.read_text(), str(path))
    ConvertTosaToLinalgPass().run(module, PassContext())
    names = {op.name for op in module.walk()}
    assert not any(n.startswith("tosa.") for n in names)
    assert {"linalg.conv_2d_nhwc_fhwc", "linalg.pooling_nhwc_max", "linalg.pooling_nhwc_sum",
            "linalg.batch_matmul", "linalg.transpose"} <= names

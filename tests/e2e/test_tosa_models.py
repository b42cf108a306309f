"""torch-mlir's TOSA exports leave no TOSA after the input phase. (Every TOSA model file is
built and compared with its expected output in test_models.py.)"""
from __future__ import annotations

from .common import shared_path

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

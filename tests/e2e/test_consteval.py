"""Compile-time constant evaluation (``iree-consteval-jit-globals``) on the real models of
../shared/models: no dispatch of any compiling model reads only constants, and the torch-mlir
MLP (whose weights torch-mlir transposes at run time) keeps only its three real dispatches and
an arena holding activations alone."""
from __future__ import annotations

from typing import List

import pytest

from ireec.compiler import compile_file, compile_module
from ireec.frontend.parser import parse_file
from ireec.ir.core import Operation, Value

from .common import shared_path
from .models import model_files, rel, skip_unless_pass

MODELS = model_files()
#: Host ops that only re-type a value: a constant seen through them is still a constant.
_VIEWS = {"flow.tensor.reshape", "flow.tensor.bitcast", "tensor.cast"}


def _is_constant(v: Value) -> bool:
    op = v.owner
    while isinstance(op, Operation) and op.name in _VIEWS:
        op = op.operands[0].owner
    return isinstance(op, Operation) and op.name == "arith.constant"


def constant_only_dispatches(module: Operation) -> List[str]:
    """The entry points of the ``flow.dispatch`` ops of ``module`` (at the flow phase) whose
    operands all come from constants (a dispatch without operands included)."""
    return [str(d.attributes.get("entry_point")) for d in module.walk()
            if d.name == "flow.dispatch" and all(_is_constant(v) for v in d.operands)]


def flow_module(path) -> Operation:
    module = parse_file(str(path))
    compile_module(module, str(path), compile_to="flow")
    return module


@pytest.mark.parametrize("path", MODELS or [None], ids=[rel(p) for p in MODELS] or ["absent"])
def test_no_dispatch_reads_only_constants(path):
    skip_unless_pass(path)
    assert constant_only_dispatches(flow_module(path)) == []


def test_torch_mlir_mlp_has_three_dispatches_and_a_small_arena():
    """Both weight transposes are constants now: matmul+bias+relu, matmul+bias, softmax."""
    path = shared_path("models", "torch_mlir", "mlp", "mlp.const.linalg.mlir")
    module = flow_module(path)
    assert sum(1 for op in module.walk() if op.name == "flow.dispatch") == 3
    assert not any(op.name == "linalg.transpose" for op in module.walk())
    report = compile_file(str(path), compile_to="stream").report
    assert report["consteval_folded_ops"] == 2
    assert report["functions"]["main"]["arena_bytes"] <= 16 * 1024


def test_the_check_sees_a_constant_only_dispatch(tmp_path):
    """The detector itself: a transpose of a constant weight, compiled without the pass, is a
    dispatch reading only constants."""
    from ireec.passes import pipeline

    src = tmp_path / "t.mlir"
    src.write_text("""
func.func @f() -> tensor<4x3xf32> {
  %w = arith.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 1.0, 2.0, 3.0]]> : tensor<3x4xf32>
  %e = tensor.empty() : tensor<4x3xf32>
  %t = linalg.transpose ins(%w : tensor<3x4xf32>) outs(%e : tensor<4x3xf32>) permutation = [1, 0]
  return %t : tensor<4x3xf32>
}""")
    assert constant_only_dispatches(flow_module(src)) == []
    saved = list(pipeline.PIPELINE)
    try:
        pipeline.PIPELINE[:] = [r for r in saved if r[1].name != "iree-consteval-jit-globals"]
        assert len(constant_only_dispatches(flow_module(src))) == 1
    finally:
        pipeline.PIPELINE[:] = saved


#: Input constant ops whose data the constant pool holds.
_CONSTANT_OPS = ("arith.constant", "stablehlo.constant", "tosa.const")


def constant_bytes(module: Operation) -> int:
    """Bytes of the non-splat static tensor constants of ``module`` (element width from the type)."""
    from ireec.ir import types as T

    total = 0
    for op in module.walk():
        if op.name not in _CONSTANT_OPS:
            continue
        t, a = op.results[0].type, op.attributes.get("value")
        if isinstance(t, T.TensorType) and t.has_static_shape and not getattr(a, "is_splat", False):
            total += t.num_elements * T.storage_bytes(t.element_type)
    return total


#: Models whose evaluated constants are known to grow past the few KiB allowed, with the
#: growth measured (bytes) and why: the test checks it has not grown further, and fails once
#: it is fixed so that the entry is removed.
KNOWN_EXPANSIONS = {
    # The input weight W_ih [72,16] is transposed and broadcast over the 8 unrolled steps
    # into the B operand of one linalg.batch_matmul [8,16,72] (36 KB for 4.6 KB), under
    # IREE's 1 MiB size-increase threshold; a batch_matmul whose B is broadcast along the
    # batch could run as one matmul over the folded batch instead (not done yet).
    "torch_mlir/gru_onnx/gru.const.linalg.mlir": 35040,
    # ireec-unroll-slicing-host-loops copies the loop body once per step (8), each copy with
    # its own evaluated transposes of the gate weights (16x24 and 24x24 slices): the flow IR
    # holds 8 equal copies, which the stream phase's constant pool stores once (16,192-byte
    # pool, against 48,320 for the FX export of the same GRU).
    "torch_mlir/gru_onnx/gru.onnx.linalg.mlir": 76512,
}


@pytest.mark.parametrize("path", MODELS or [None], ids=[rel(p) for p in MODELS] or ["absent"])
def test_constant_evaluation_does_not_expand_weights(path):
    """Evaluated constants replace weights at about their size: a bias broadcast into a
    convolution's accumulator stays a broadcast of the bias (written into the kernel's
    destination), not a tensor of the output's size (torch-mlir's mobilenet_block held
    340 KB of broadcast biases for 14 KB of weights). A few KiB may appear (attention masks)."""
    skip_unless_pass(path)
    before = constant_bytes(parse_file(str(path)))
    grown = constant_bytes(flow_module(path)) - before
    known = KNOWN_EXPANSIONS.get(rel(path))
    if known is None:
        assert grown <= 4096
    else:
        assert 4096 < grown <= known, (
            f"{rel(path)}: constants grew by {grown} bytes, KNOWN_EXPANSIONS says {known}: "
            "update or remove its entry")


def test_a_payload_reading_its_empty_init_is_evaluated_with_zeros():
    """A generic whose payload yields its ``tensor.empty`` init (its input unread, so erased):
    the init's elements are undefined, and constant evaluation takes zeros for them instead of
    failing inside the evaluator."""
    from ireec.compiler import compile_source

    text = """
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @f(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %e = tensor.empty() : tensor<4x4xf32>
  %p = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %o : f32
  } -> tensor<4x4xf32>
  return %p : tensor<4x4xf32>
}
"""
    out = compile_source(text, "empty_init.mlir", target="c")
    assert any(name.endswith(".c") for name in out.files)

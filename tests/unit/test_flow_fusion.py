"""Flow phase: elementwise fusion and dispatch region formation (structure of the IR)."""
from __future__ import annotations

from ireec.frontend.parser import parse_source
from ireec.passes.pass_base import PassContext
from ireec.passes.pipeline import passes_for

from tests.e2e.test_fusion_tiling import CONV, MM_RELU, MULTI_USE, _row_sum, mlp_stablehlo


def run_to(text: str, last_phase: str):
    """Parse ``text`` and run the pipeline through ``last_phase``; return the module."""
    module = parse_source(text, "<test>")
    ctx = PassContext(target="c", module_name="m", source_name="test.mlir")
    for phase in ("input", "abi", "flow", "stream", "hal"):
        for cls, _why in passes_for(phase):
            cls().run(module, ctx)
        if phase == last_phase:
            return module
    raise AssertionError(last_phase)


def dispatches(module):
    return [op for op in module.walk() if op.name == "flow.dispatch"]


def executable_ops(module):
    """Names of the ops in each flow.executable's kernel, in order."""
    out = {}
    for exe in module.body.ops:
        if exe.name == "flow.executable":
            k = next(o for o in exe.walk() if o.name == "func.func")
            out[k.attributes["sym_name"].value] = [o.name for o in k.body.ops]
    return out


def test_relu_of_matmul_plus_bias_is_one_dispatch():
    m = run_to(MM_RELU, "flow")
    ds = dispatches(m)
    assert len(ds) == 1
    (name, ops), = executable_ops(m).items()
    assert name == "f_dispatch_0_matmul_130x150x70_f32"
    # fill, matmul and the fused add+relu generic all live in the dispatch.
    assert ops.count("linalg.fill") == 1 and ops.count("linalg.matmul") == 1
    assert ops.count("linalg.generic") == 1
    # The splat zero became a scalar constant: no tensor constant reaches the host.
    host = next(o for o in m.body.ops if o.name == "func.func")
    assert not [o for o in host.walk() if o.name == "arith.constant"]


def test_mlp_softmax_is_at_most_three_dispatches():
    m = run_to(mlp_stablehlo(64), "flow")
    names = [str(d.attributes["entry_point"]) for d in dispatches(m)]
    assert len(names) <= 3, names
    assert sum("matmul" in n for n in names) == 2, names


def test_conv_fuses_bias_and_relu():
    m = run_to(CONV, "flow")
    assert len(dispatches(m)) == 1
    (name, ops), = executable_ops(m).items()
    assert name.startswith("f_dispatch_0_conv_2d_nhwc_hwcf")


def test_elementwise_producer_fused_into_reduction():
    m = run_to(_row_sum(1000, 100), "flow")
    assert len(dispatches(m)) == 1
    (name, ops), = executable_ops(m).items()
    assert name == "f_dispatch_0_reduction_1000x100_f32"
    assert ops.count("linalg.generic") == 1  # a + b computed inside the reduction's payload


def test_multi_use_producer_is_duplicated_not_shared():
    """exp(a) feeds an elementwise consumer and a reduction: it is recomputed in both, so
    neither dispatch reads a value the other one is still writing."""
    m = run_to(MULTI_USE, "flow")
    kernels = executable_ops(m)
    assert len(kernels) == 2
    for ops in kernels.values():
        assert ops.count("linalg.generic") == 1
    text = "\n".join(str(o.name) for o in m.walk())
    assert text.count("math.exp") == 2


def test_dispatches_are_formed_in_every_block():
    src = """
func.func @f(%c: i1, %a: tensor<8xf32>) -> tensor<8xf32> {
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %x = math.exp %a : tensor<8xf32>
  cf.br ^bb3(%x : tensor<8xf32>)
^bb2:
  %y = math.tanh %a : tensor<8xf32>
  cf.br ^bb3(%y : tensor<8xf32>)
^bb3(%r: tensor<8xf32>):
  return %r : tensor<8xf32>
}
"""
    m = run_to(src, "flow")
    assert len(dispatches(m)) == 2
    assert not [o for o in m.walk() if o.name == "linalg.generic"
                and o.ancestor("flow.executable") is None]


def test_host_scalar_ops_are_not_dispatch_roots():
    src = """
func.func @f(%a: tensor<4xf32>) -> tensor<2xf32> {
  %i = arith.constant 1 : index
  %x = tensor.extract %a[%i] : tensor<4xf32>
  %t = tensor.from_elements %x, %x : tensor<2xf32>
  return %t : tensor<2xf32>
}
"""
    m = run_to(src, "flow")
    assert dispatches(m) == []
    host = next(o for o in m.body.ops if o.name == "func.func")
    names = [o.name for o in host.walk()]
    assert "tensor.extract" in names and "tensor.from_elements" in names


def _lhs_producer_into_contraction(payload: str) -> str:
    """A generic contraction (8x16 · 16x32) whose LHS is an elementwise ``payload`` of %a."""
    return f"""#id = affine_map<(d0, d1) -> (d0, d1)>
#lhs = affine_map<(d0, d1, d2) -> (d0, d2)>
#rhs = affine_map<(d0, d1, d2) -> (d2, d1)>
#out = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @f(%a: tensor<8x16xf32>, %w: tensor<16x32xf32>) -> tensor<8x32xf32> {{
  %e = tensor.empty() : tensor<8x16xf32>
  %p = linalg.generic {{indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}}
      ins(%a : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {{
  ^bb0(%x: f32, %o: f32):
    {payload}
  }} -> tensor<8x16xf32>
  %z = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<8x32xf32>
  %f = linalg.fill ins(%z : f32) outs(%e2 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %c = linalg.generic {{indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "reduction"]}}
      ins(%p, %w : tensor<8x16xf32>, tensor<16x32xf32>) outs(%f : tensor<8x32xf32>) {{
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }} -> tensor<8x32xf32>
  return %c : tensor<8x32xf32>
}}"""


def test_expensive_producer_is_not_recomputed_per_output_column():
    """A tanh producer read by a contraction's LHS would run 32 times per element: it keeps
    its own dispatch; a relu (two cheap ops) is still fused."""
    tanh = _lhs_producer_into_contraction("%t = math.tanh %x : f32\n    linalg.yield %t : f32")
    assert len(dispatches(run_to(tanh, "flow"))) == 2
    relu = _lhs_producer_into_contraction(
        "%z0 = arith.constant 0.0 : f32\n    %r = arith.maximumf %x, %z0 : f32\n    linalg.yield %r : f32")
    assert len(dispatches(run_to(relu, "flow"))) == 1

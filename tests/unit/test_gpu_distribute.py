"""iree-codegen-gpu-distribute (ireec/passes/vm/gpu_distribute.py) reads a target's GPU
capabilities and spellings as data: another GPU target with other values gets its own C,
a CPU target's kernels stay as they are, and the pass knows no particular target."""
from __future__ import annotations

import ast
from pathlib import Path

from ireec.frontend.parser import parse_source
from ireec.ir.printer import print_module
from ireec.ir.verifier import verify
from ireec.passes.vm.gpu_distribute import distribute_kernel
from ireec.passes.vm.emitc_utils import emitc_funcs
from ireec.targets import get_target
from ireec.targets.c import CTarget

REPO = Path(__file__).resolve().parents[2]

#: A fold of 256 elements into one (an arith.addf combiner).
SUM = """
"emitc.func"() ({
^bb0(%a: memref<256xf32>, %b: memref<1xf32>):
  %c0 = "emitc.constant"() {value = 0 : index} : () -> (index)
  %c1 = "emitc.constant"() {value = 1 : index} : () -> (index)
  %n = "emitc.constant"() {value = 256 : index} : () -> (index)
  "emitc.for"(%c0, %n, %c1) ({
  ^bb0(%j: index):
    %x = "emitc.load"(%a, %j) {strides = array<i64: 1>, offset = 0 : index, element_type = f32} : (memref<256xf32>, index) -> (f32)
    %acc = "emitc.load"(%b, %c0) {strides = array<i64: 1>, offset = 0 : index, element_type = f32} : (memref<1xf32>, index) -> (f32)
    %s = "emitc.expression"(%acc, %x) {c = "{0} + {1}", source_op = "arith.addf"} : (f32, f32) -> (f32)
    "emitc.store"(%s, %b, %c0) {strides = array<i64: 1>, offset = 0 : index, element_type = f32} : (f32, memref<1xf32>, index) -> ()
  }) : (index, index, index) -> ()
}) {sym_name = "sum", kind = "kernel"} : () -> ()
"""


class WideGPU(CTarget):
    """A made-up GPU target: 64-lane subgroups, its own spellings."""

    name = "wide-gpu-test"
    max_workgroup_threads = 128
    subgroup_size = 64
    workgroup_memory_bytes = 64 * 1024
    workgroup_memory_qualifier = "__local"
    thread_id = "lid()"
    barrier = "barrier();"
    subgroup_shuffle_down = "shuffle_down({value}, {offset})"
    shuffle_types = ("f32",)


def _distributed(target):
    module = parse_source(SUM, "sum.mlir")
    (f,) = emitc_funcs(module, "kernel")
    distribute_kernel(f, target)
    verify(module)
    return f, print_module(module)


def test_spellings_come_from_the_target():
    f, text = _distributed(WideGPU())
    assert f.attributes["workgroup_size"].value == 128
    assert [o for o in (32, 16, 8, 4, 2, 1) if f'shuffle_down({{0}}, {o})' in text] == [32, 16, 8, 4, 2, 1]
    assert "barrier();" in text and '"__local float"' in text and "(int)lid() % 64 == 0" in text
    assert "threadIdx" not in text and "__shfl" not in text and "__syncthreads" not in text


def test_cuda_values():
    f, text = _distributed(get_target("cuda"))
    assert f.attributes["workgroup_size"].value == 256
    assert "__shfl_down_sync(0xffffffffu, {0}, 16)" in text and "__syncthreads();" in text


def test_cpu_target_leaves_the_kernel():
    f, text = _distributed(get_target("c"))
    assert "workgroup_size" not in f.attributes and "threadIdx" not in text


def test_pass_imports_no_target():
    for name in ("gpu_distribute.py", "gpu_distribute_reductions.py"):
        tree = ast.parse((REPO / "ireec" / "passes" / "vm" / name).read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                assert "targets" not in (node.module or ""), f"{name} imports {node.module}"

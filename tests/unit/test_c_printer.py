"""The C printer prints and never rewrites: printing every ``emitc.func`` of a module at the
vm phase leaves the module's IR text unchanged (dead ops are erased before, by the
``remove-dead-values`` pass), and printing twice gives the same C."""
from __future__ import annotations

from pathlib import Path

import pytest

from ireec.emitc.c_printer import print_function
from ireec.frontend.parser import parse_source
from ireec.ir.printer import print_module
from ireec.passes.pass_base import PassContext
from ireec.passes.pipeline import passes_for

INPUTS = Path(__file__).resolve().parents[1] / "e2e" / "inputs"


@pytest.mark.parametrize("target", ["c", "cuda"])
@pytest.mark.parametrize("name", ["add.mlir", "matmul_small.mlir"])
def test_printing_c_leaves_the_ir_unchanged(name, target):
    """Every pass up to the vm phase, then each emitc.func printed as C twice: the module's
    IR text is the same before and after, and so is the C."""
    path = INPUTS / name
    if not path.exists():
        pytest.skip(f"{path} is not present")
    module = parse_source(path.read_text(encoding="utf-8"), str(path))
    ctx = PassContext(target=target, module_name="m", source_name=str(path))
    for phase in ("input", "abi", "flow", "stream", "hal", "vm"):
        for cls, _why in passes_for(phase):
            cls().run(module, ctx)
    funcs = [op for op in module.body.ops if op.name == "emitc.func"]
    assert any(f.attributes["kind"].value == "kernel" for f in funcs)
    before = print_module(module)
    first = [print_function(f) for f in funcs]
    assert print_module(module) == before
    assert [print_function(f) for f in funcs] == first


DEAD = '''
"emitc.func"() ({
^bb0(%a: memref<4xf32>):
  %c0 = "emitc.constant"() {value = 0 : index} : () -> (index)
  %x = "emitc.load"(%a, %c0) {strides = array<i64: 1>, offset = 0 : index, element_type = f32} : (memref<4xf32>, index) -> (f32)
  %unused = "emitc.expression"(%x, %x) {c = "{0} * {1}", source_op = "arith.mulf"} : (f32, f32) -> (f32)
  "emitc.store"(%x, %a, %c0) {strides = array<i64: 1>, offset = 0 : index, element_type = f32} : (f32, memref<4xf32>, index) -> ()
}) {sym_name = "k", kind = "kernel", result = "void", params = ["float *binding0"],
    param_names = ["binding0"], param_types = ["float *"]} : () -> ()
'''


def test_printer_prints_dead_ops_as_given():
    """An unused expression is printed, not erased: erasing is remove-dead-values' job."""
    module = parse_source(DEAD, "dead.mlir")
    before = print_module(module)
    c = print_function(module.body.ops[0])
    assert print_module(module) == before
    assert "= v0 * v0;" in c and c.startswith("void k(float *binding0)")

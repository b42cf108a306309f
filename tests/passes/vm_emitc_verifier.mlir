// ireec opt verifies vm-phase IR before running a pass: an emitc op that breaks its
// definition (ireec/dialects/emitc.py) is rejected at its location.
// RUN: not ireec opt %s --pass-pipeline=iree-codegen-gpu-distribute --target=cuda 2>&1 | filecheck %s
// CHECK: vm_emitc_verifier.mlir:9:{{[0-9]+}}: error: 'emitc.load' op expects one index per stride (2), but found 1
// CHECK-NOT: emitc.func
"emitc.func"() ({
^bb0(%a: memref<4x4xf32>, %b: memref<4xf32>):
  %c0 = "emitc.constant"() {value = 0 : index} : () -> (index)
  %x = "emitc.load"(%a, %c0) {strides = array<i64: 4, 1>, offset = 0 : index, element_type = f32} : (memref<4x4xf32>, index) -> (f32)
  "emitc.store"(%x, %b, %c0) {strides = array<i64: 1>, offset = 0 : index, element_type = f32} : (f32, memref<4xf32>, index) -> ()
}) {sym_name = "missing_index", kind = "kernel"} : () -> ()

// RUN: ireec opt %s --pass-pipeline=iree-convert-vm-to-emitc | filecheck %s

// The kernel becomes an emitc.func over raw pointers (a workgroup function): scf.for become
// emitc.for, memref loads/stores strided emitc.load/store, arith.addf a C expression. The host
// function becomes an emitc.func calling the kernel on the caller's buffers.
// CHECK:       "emitc.func"() ({
// CHECK:         "emitc.for"
// CHECK:           "emitc.for"
// CHECK:             %[[A:.+]] = "emitc.load"(%arg0, {{.*}}) {strides = array<i64: 3, 1>, offset = 0 : index, element_type = f32}
// CHECK:             %[[B:.+]] = "emitc.load"(%arg1, {{.*}})
// CHECK:             %[[S:.+]] = "emitc.expression"(%[[A]], %[[B]]) {c = "{0} + {1}", source_op = "arith.addf"}
// CHECK:             "emitc.store"(%[[S]], %arg2, {{.*}}) {strides = array<i64: 3, 1>
// CHECK:       sym_name = "main_dispatch_0_elementwise_2x3_f32_workgroup"
// CHECK-SAME:    params = ["const float *IREEC_RESTRICT binding0", "const float *IREEC_RESTRICT binding1", "float *IREEC_RESTRICT binding2"
// CHECK:       "emitc.func"() ({
// CHECK:         "emitc.call_opaque"() {callee = "{{.*}}main_dispatch_0_elementwise_2x3_f32", args = ["(const float *)((const uint8_t *)input0 + 0)", "(const float *)((const uint8_t *)input1 + 0)", "(float *)((uint8_t *)result0 + 0)"]
// CHECK-SAME:      accesses = [#emitc.access<input0, 0, 24, ro>, #emitc.access<input1, 0, 24, ro>, #emitc.access<result0, 0, 24, wo>]
// CHECK:         "emitc.return"() {value = "IREEC_STATUS_OK"}
// CHECK-NOT:   hal.
// CHECK-NOT:   scf.for
module {
  "hal.executable"() ({
    "hal.executable.variant"() ({
      "hal.executable.export"() {sym_name = "main_dispatch_0_elementwise_2x3_f32", ordinal = 0 : index, bindings = 3 : index, workgroup_count = array<i64: 1, 1, 1>, workgroup_size = array<i64: 1, 1, 1>} : () -> ()
      module {
        func.func @main_dispatch_0_elementwise_2x3_f32() attributes {ireec.distribution = array<i64: 2, 2, 3, 3>, translation_info = #iree_codegen.translation_info<pipeline = CPUDoubleTilingExpert>} {
          %0 = "hal.interface.binding.subspan"() {binding = 0 : index, descriptor_flags = "ReadOnly"} : () -> (memref<2x3xf32>)
          %1 = "hal.interface.binding.subspan"() {binding = 1 : index, descriptor_flags = "ReadOnly"} : () -> (memref<2x3xf32>)
          %2 = "hal.interface.binding.subspan"() {binding = 2 : index, descriptor_flags = "None"} : () -> (memref<2x3xf32>)
          %3 = arith.constant 0 : index
          %4 = arith.constant 2 : index
          %5 = arith.constant 3 : index
          %6 = arith.constant 0 : index
          %7 = arith.constant 1 : index
          scf.for %arg0 = %6 to %4 step %7 {
            scf.for %arg1 = %6 to %5 step %7 {
              %8 = arith.addi %3, %arg0 : index
              %9 = arith.addi %3, %arg1 : index
              %10 = memref.load %0[%8, %9] : memref<2x3xf32>
              %11 = memref.load %1[%8, %9] : memref<2x3xf32>
              %12 = arith.addf %10, %11 : f32
              memref.store %12, %2[%8, %9] : memref<2x3xf32>
            }
          }
          return
        }
      }
    }) {sym_name = "embedded_c", target = "c"} : () -> ()
  }) {sym_name = "main_dispatch_0", sym_visibility = "private"} : () -> ()
  func.func @main(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view) -> !hal.buffer_view attributes {iree.abi.stub, iree.reflection = {iree.abi.declaration = "sync func @main(%input0: tensor<2x3xf32>, %input1: tensor<2x3xf32>) -> (%output0: tensor<2x3xf32>)"}, ireec.abi.tensor_type = (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>, stream.memory_plan = {arena_bytes = 0 : index, lower_bound_bytes = 0 : index, transient_sum_bytes = 0 : index}} {
    %0 = "stream.tensor.import"(%arg0) {index = 0 : index, size = 24 : index} : (!hal.buffer_view) -> (!stream.resource<external>)
    %1 = "stream.tensor.import"(%arg1) {index = 1 : index, size = 24 : index} : (!hal.buffer_view) -> (!stream.resource<external>)
    %2 = "stream.resource.result"() {index = 0 : index, size = 24 : index} : () -> (!stream.resource<external>)
    "hal.command_buffer.dispatch"(%0, %1, %2) {entry_point = @main_dispatch_0::@embedded_c::@main_dispatch_0_elementwise_2x3_f32, access = ["ro", "ro", "wo"], offsets = array<i64: 0, 0, 0>, sizes = array<i64: 24, 24, 24>} : (!stream.resource<external>, !stream.resource<external>, !stream.resource<external>) -> ()
    %3 = "stream.tensor.export"(%2) {index = 0 : index} : (!stream.resource<external>) -> (!hal.buffer_view)
    return %3 : !hal.buffer_view
  }
}

// RUN: ireec opt %s --pass-pipeline=math-algebraic-simplification | filecheck %s

// Input: the IR printed just before this pass (ireec compile --mlir-print-ir-after-all).
// x^3 by square and multiply: x*x, then x * (x*x); no fpowi is left.
// CHECK:       func.func @cube_dispatch_0_elementwise_64_f32()
// CHECK:           %[[X:.*]] = memref.load
// CHECK-NEXT:      %[[SQ:.*]] = arith.mulf %[[X]], %[[X]] : f32
// CHECK-NEXT:      %[[CUBE:.*]] = arith.mulf %[[X]], %[[SQ]] : f32
// CHECK-NEXT:      memref.store %[[CUBE]]
// CHECK-NOT:     math.fpowi
// x^-2 (powf with an f64 literal truncated to f32): 1 / (x*x); the unused truncf is left to
// remove-dead-values.
// CHECK:       func.func @recip_square_dispatch_0_elementwise_64_f32()
// CHECK:           %[[Y:.*]] = memref.load
// CHECK-NEXT:      arith.truncf
// CHECK-NEXT:      %[[YY:.*]] = arith.mulf %[[Y]], %[[Y]] : f32
// CHECK-NEXT:      %[[ONE:.*]] = arith.constant 1.0e+00 : f32
// CHECK-NEXT:      %[[R:.*]] = arith.divf %[[ONE]], %[[YY]] : f32
// CHECK-NEXT:      memref.store %[[R]]
// A fractional exponent keeps math.powf.
// CHECK:       func.func @root_dispatch_0_elementwise_64_f32()
// CHECK:           math.powf

module {
  "hal.executable"() ({
    "hal.executable.variant"() ({
      "hal.executable.export"() {sym_name = "cube_dispatch_0_elementwise_64_f32", ordinal = 0 : index, bindings = 2 : index, workgroup_count = array<i64: 1, 1, 1>, workgroup_size = array<i64: 1, 1, 1>} : () -> ()
      module {
        func.func @cube_dispatch_0_elementwise_64_f32() attributes {ireec.distribution = array<i64: 64, 64>, translation_info = #iree_codegen.translation_info<pipeline = CPUDoubleTilingExpert>} {
          %0 = "hal.interface.binding.subspan"() {binding = 0 : index, descriptor_flags = "ReadOnly"} : () -> (memref<64xf32>)
          %1 = "hal.interface.binding.subspan"() {binding = 1 : index, descriptor_flags = "None"} : () -> (memref<64xf32>)
          %2 = arith.constant 3 : i64
          %3 = arith.constant 0 : index
          %4 = arith.constant 64 : index
          %5 = arith.constant 0 : index
          %6 = arith.constant 1 : index
          scf.for %arg0 = %5 to %4 step %6 {
            %7 = arith.addi %3, %arg0 : index
            %8 = memref.load %0[%7] : memref<64xf32>
            %9 = math.fpowi %8, %2 : f32, i64
            memref.store %9, %1[%7] : memref<64xf32>
          }
          return
        }
      }
    }) {sym_name = "embedded_c", target = "c"} : () -> ()
  }) {sym_name = "cube_dispatch_0", sym_visibility = "private"} : () -> ()
  func.func @cube(%arg0: !hal.buffer_view) -> !hal.buffer_view attributes {iree.abi.stub, iree.reflection = {iree.abi.declaration = "sync func @cube(%input0: tensor<64xf32>) -> (%output0: tensor<64xf32>)"}, ireec.abi.tensor_type = (tensor<64xf32>) -> tensor<64xf32>, stream.memory_plan = {arena_bytes = 0 : index, lower_bound_bytes = 0 : index, transient_sum_bytes = 0 : index}} {
    %0 = "stream.tensor.import"(%arg0) {index = 0 : index, size = 256 : index} : (!hal.buffer_view) -> (!stream.resource<external>)
    %1 = "stream.resource.result"() {index = 0 : index, size = 256 : index} : () -> (!stream.resource<external>)
    "hal.command_buffer.dispatch"(%0, %1) {entry_point = @cube_dispatch_0::@embedded_c::@cube_dispatch_0_elementwise_64_f32, access = ["ro", "wo"], offsets = array<i64: 0, 0>, sizes = array<i64: 256, 256>} : (!stream.resource<external>, !stream.resource<external>) -> ()
    %2 = "stream.tensor.export"(%1) {index = 0 : index} : (!stream.resource<external>) -> (!hal.buffer_view)
    return %2 : !hal.buffer_view
  }
  "hal.executable"() ({
    "hal.executable.variant"() ({
      "hal.executable.export"() {sym_name = "recip_square_dispatch_0_elementwise_64_f32", ordinal = 0 : index, bindings = 2 : index, workgroup_count = array<i64: 1, 1, 1>, workgroup_size = array<i64: 1, 1, 1>} : () -> ()
      module {
        func.func @recip_square_dispatch_0_elementwise_64_f32() attributes {ireec.distribution = array<i64: 64, 64>, translation_info = #iree_codegen.translation_info<pipeline = CPUDoubleTilingExpert>} {
          %0 = "hal.interface.binding.subspan"() {binding = 0 : index, descriptor_flags = "ReadOnly"} : () -> (memref<64xf32>)
          %1 = "hal.interface.binding.subspan"() {binding = 1 : index, descriptor_flags = "None"} : () -> (memref<64xf32>)
          %2 = arith.constant -2.0e+00 : f64
          %3 = arith.constant 0 : index
          %4 = arith.constant 64 : index
          %5 = arith.constant 0 : index
          %6 = arith.constant 1 : index
          scf.for %arg0 = %5 to %4 step %6 {
            %7 = arith.addi %3, %arg0 : index
            %8 = memref.load %0[%7] : memref<64xf32>
            %9 = arith.truncf %2 : f64 to f32
            %10 = math.powf %8, %9 : f32
            memref.store %10, %1[%7] : memref<64xf32>
          }
          return
        }
      }
    }) {sym_name = "embedded_c", target = "c"} : () -> ()
  }) {sym_name = "recip_square_dispatch_0", sym_visibility = "private"} : () -> ()
  func.func @recip_square(%arg0: !hal.buffer_view) -> !hal.buffer_view attributes {iree.abi.stub, iree.reflection = {iree.abi.declaration = "sync func @recip_square(%input0: tensor<64xf32>) -> (%output0: tensor<64xf32>)"}, ireec.abi.tensor_type = (tensor<64xf32>) -> tensor<64xf32>, stream.memory_plan = {arena_bytes = 0 : index, lower_bound_bytes = 0 : index, transient_sum_bytes = 0 : index}} {
    %0 = "stream.tensor.import"(%arg0) {index = 0 : index, size = 256 : index} : (!hal.buffer_view) -> (!stream.resource<external>)
    %1 = "stream.resource.result"() {index = 0 : index, size = 256 : index} : () -> (!stream.resource<external>)
    "hal.command_buffer.dispatch"(%0, %1) {entry_point = @recip_square_dispatch_0::@embedded_c::@recip_square_dispatch_0_elementwise_64_f32, access = ["ro", "wo"], offsets = array<i64: 0, 0>, sizes = array<i64: 256, 256>} : (!stream.resource<external>, !stream.resource<external>) -> ()
    %2 = "stream.tensor.export"(%1) {index = 0 : index} : (!stream.resource<external>) -> (!hal.buffer_view)
    return %2 : !hal.buffer_view
  }
  "hal.executable"() ({
    "hal.executable.variant"() ({
      "hal.executable.export"() {sym_name = "root_dispatch_0_elementwise_64_f32", ordinal = 0 : index, bindings = 2 : index, workgroup_count = array<i64: 1, 1, 1>, workgroup_size = array<i64: 1, 1, 1>} : () -> ()
      module {
        func.func @root_dispatch_0_elementwise_64_f32() attributes {ireec.distribution = array<i64: 64, 64>, translation_info = #iree_codegen.translation_info<pipeline = CPUDoubleTilingExpert>} {
          %0 = "hal.interface.binding.subspan"() {binding = 0 : index, descriptor_flags = "ReadOnly"} : () -> (memref<64xf32>)
          %1 = "hal.interface.binding.subspan"() {binding = 1 : index, descriptor_flags = "None"} : () -> (memref<64xf32>)
          %2 = arith.constant 5.0e-01 : f32
          %3 = arith.constant 0 : index
          %4 = arith.constant 64 : index
          %5 = arith.constant 0 : index
          %6 = arith.constant 1 : index
          scf.for %arg0 = %5 to %4 step %6 {
            %7 = arith.addi %3, %arg0 : index
            %8 = memref.load %0[%7] : memref<64xf32>
            %9 = math.powf %8, %2 : f32
            memref.store %9, %1[%7] : memref<64xf32>
          }
          return
        }
      }
    }) {sym_name = "embedded_c", target = "c"} : () -> ()
  }) {sym_name = "root_dispatch_0", sym_visibility = "private"} : () -> ()
  func.func @root(%arg0: !hal.buffer_view) -> !hal.buffer_view attributes {iree.abi.stub, iree.reflection = {iree.abi.declaration = "sync func @root(%input0: tensor<64xf32>) -> (%output0: tensor<64xf32>)"}, ireec.abi.tensor_type = (tensor<64xf32>) -> tensor<64xf32>, stream.memory_plan = {arena_bytes = 0 : index, lower_bound_bytes = 0 : index, transient_sum_bytes = 0 : index}} {
    %0 = "stream.tensor.import"(%arg0) {index = 0 : index, size = 256 : index} : (!hal.buffer_view) -> (!stream.resource<external>)
    %1 = "stream.resource.result"() {index = 0 : index, size = 256 : index} : () -> (!stream.resource<external>)
    "hal.command_buffer.dispatch"(%0, %1) {entry_point = @root_dispatch_0::@embedded_c::@root_dispatch_0_elementwise_64_f32, access = ["ro", "wo"], offsets = array<i64: 0, 0>, sizes = array<i64: 256, 256>} : (!stream.resource<external>, !stream.resource<external>) -> ()
    %2 = "stream.tensor.export"(%1) {index = 0 : index} : (!stream.resource<external>) -> (!hal.buffer_view)
    return %2 : !hal.buffer_view
  }
}

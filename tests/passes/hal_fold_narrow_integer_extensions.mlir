// RUN: ireec opt %s --pass-pipeline=ireec-fold-narrow-integer-extensions | filecheck %s

// Input: the IR printed just before this pass (ireec compile --mlir-print-ir-after-all) for a
// quantize-dequantize payload. The i8 conversion, its saturating selects and the extension
// become one i32 conversion and i32 selects (the i8 constants are left to remove-dead-values).
// CHECK:       func.func @qdq_dispatch_0_elementwise_64_f32()
// CHECK-DAG:       %[[LO:.*]] = arith.constant -128 : i32
// CHECK-DAG:       %[[HI:.*]] = arith.constant 127 : i32
// CHECK:           %[[Q:.*]] = arith.fptosi %{{.*}} : f32 to i32
// CHECK-NEXT:      %[[S1:.*]] = arith.select %{{.*}}, %[[HI]], %[[Q]] : i32
// CHECK-NEXT:      %[[S2:.*]] = arith.select %{{.*}}, %[[LO]], %[[S1]] : i32
// CHECK-NEXT:      arith.sitofp %[[S2]] : i32 to f32
// CHECK-NOT:       arith.extsi
// CHECK-NOT:       to i8
// An extension to i64 (ONNX's DequantizeLinear) is rebuilt at i32 and extended from there:
// a float to i64 conversion is a library call on 32-bit targets.
// CHECK:       func.func @qdq64_dispatch_0_elementwise_64_f32()
// CHECK:           %[[Q6:.*]] = arith.fptosi %{{.*}} : f32 to i32
// CHECK-NEXT:      %[[T1:.*]] = arith.select %{{.*}}, %{{.*}}, %[[Q6]] : i32
// CHECK-NEXT:      %[[T2:.*]] = arith.select %{{.*}}, %{{.*}}, %[[T1]] : i32
// CHECK-NEXT:      %[[W6:.*]] = arith.extsi %[[T2]] : i32 to i64
// CHECK-NEXT:      arith.sitofp %[[W6]] : i64 to f32
// CHECK:       func.func @kept_dispatch_0_elementwise_64_i8()
// An i8 that is also stored keeps its conversion and its extension (nothing computed twice).
// CHECK:           %[[N:.*]] = arith.fptosi %{{.*}} : f32 to i8
// CHECK-NEXT:      arith.extsi %[[N]] : i8 to i32

module {
  "hal.executable"() ({
    "hal.executable.variant"() ({
      "hal.executable.export"() {sym_name = "qdq_dispatch_0_elementwise_64_f32", ordinal = 0 : index, bindings = 2 : index, workgroup_count = array<i64: 1, 1, 1>, workgroup_size = array<i64: 1, 1, 1>} : () -> ()
      module {
        func.func @qdq_dispatch_0_elementwise_64_f32() attributes {ireec.distribution = array<i64: 64, 64>, translation_info = #iree_codegen.translation_info<pipeline = CPUDoubleTilingExpert>} {
          %0 = "hal.interface.binding.subspan"() {binding = 0 : index, descriptor_flags = "ReadOnly"} : () -> (memref<64xf32>)
          %1 = "hal.interface.binding.subspan"() {binding = 1 : index, descriptor_flags = "None"} : () -> (memref<64xf32>)
          %2 = arith.constant 0 : index
          %3 = arith.constant 64 : index
          %4 = arith.constant 0 : index
          %5 = arith.constant 1 : index
          scf.for %arg0 = %4 to %3 step %5 {
            %6 = arith.addi %2, %arg0 : index
            %7 = memref.load %0[%6] : memref<64xf32>
            %8 = arith.constant 2.5e-01 : f32
            %9 = arith.constant 1.28e+02 : f32
            %10 = arith.constant -1.28e+02 : f32
            %11 = arith.constant 127 : i8
            %12 = arith.constant -128 : i8
            %13 = arith.divf %7, %8 : f32
            %14 = math.roundeven %13 : f32
            %15 = arith.fptosi %14 : f32 to i8
            %16 = arith.cmpf oge, %14, %9 : f32
            %17 = arith.cmpf olt, %14, %10 : f32
            %18 = arith.select %16, %11, %15 : i8
            %19 = arith.select %17, %12, %18 : i8
            %20 = arith.extsi %19 : i8 to i32
            %21 = arith.sitofp %20 : i32 to f32
            %22 = arith.mulf %21, %8 : f32
            memref.store %22, %1[%6] : memref<64xf32>
          }
          return
        }
      }
    }) {sym_name = "embedded_c", target = "c"} : () -> ()
  }) {sym_name = "qdq_dispatch_0", sym_visibility = "private"} : () -> ()
  func.func @qdq(%arg0: !hal.buffer_view) -> !hal.buffer_view attributes {iree.abi.stub, iree.reflection = {iree.abi.declaration = "sync func @qdq(%input0: tensor<64xf32>) -> (%output0: tensor<64xf32>)"}, ireec.abi.tensor_type = (tensor<64xf32>) -> tensor<64xf32>, stream.memory_plan = {arena_bytes = 0 : index, lower_bound_bytes = 0 : index, transient_sum_bytes = 0 : index}} {
    %0 = "stream.tensor.import"(%arg0) {index = 0 : index, size = 256 : index} : (!hal.buffer_view) -> (!stream.resource<external>)
    %1 = "stream.resource.result"() {index = 0 : index, size = 256 : index} : () -> (!stream.resource<external>)
    "hal.command_buffer.dispatch"(%0, %1) {entry_point = @qdq_dispatch_0::@embedded_c::@qdq_dispatch_0_elementwise_64_f32, access = ["ro", "wo"], offsets = array<i64: 0, 0>, sizes = array<i64: 256, 256>} : (!stream.resource<external>, !stream.resource<external>) -> ()
    %2 = "stream.tensor.export"(%1) {index = 0 : index} : (!stream.resource<external>) -> (!hal.buffer_view)
    return %2 : !hal.buffer_view
  }
  "hal.executable"() ({
    "hal.executable.variant"() ({
      "hal.executable.export"() {sym_name = "qdq64_dispatch_0_elementwise_64_f32", ordinal = 0 : index, bindings = 2 : index, workgroup_count = array<i64: 1, 1, 1>, workgroup_size = array<i64: 1, 1, 1>} : () -> ()
      module {
        func.func @qdq64_dispatch_0_elementwise_64_f32() attributes {ireec.distribution = array<i64: 64, 64>, translation_info = #iree_codegen.translation_info<pipeline = CPUDoubleTilingExpert>} {
          %0 = "hal.interface.binding.subspan"() {binding = 0 : index, descriptor_flags = "ReadOnly"} : () -> (memref<64xf32>)
          %1 = "hal.interface.binding.subspan"() {binding = 1 : index, descriptor_flags = "None"} : () -> (memref<64xf32>)
          %2 = arith.constant 0 : index
          %3 = arith.constant 64 : index
          %4 = arith.constant 0 : index
          %5 = arith.constant 1 : index
          scf.for %arg0 = %4 to %3 step %5 {
            %6 = arith.addi %2, %arg0 : index
            %7 = memref.load %0[%6] : memref<64xf32>
            %8 = arith.constant 2.5e-01 : f32
            %9 = arith.constant 1.28e+02 : f32
            %10 = arith.constant -1.28e+02 : f32
            %11 = arith.constant 127 : i8
            %12 = arith.constant -128 : i8
            %13 = arith.divf %7, %8 : f32
            %14 = math.roundeven %13 : f32
            %15 = arith.fptosi %14 : f32 to i8
            %16 = arith.cmpf oge, %14, %9 : f32
            %17 = arith.cmpf olt, %14, %10 : f32
            %18 = arith.select %16, %11, %15 : i8
            %19 = arith.select %17, %12, %18 : i8
            %20 = arith.extsi %19 : i8 to i64
            %21 = arith.sitofp %20 : i64 to f32
            %22 = arith.mulf %21, %8 : f32
            memref.store %22, %1[%6] : memref<64xf32>
          }
          return
        }
      }
    }) {sym_name = "embedded_c", target = "c"} : () -> ()
  }) {sym_name = "qdq64_dispatch_0", sym_visibility = "private"} : () -> ()
  func.func @qdq64(%arg0: !hal.buffer_view) -> !hal.buffer_view attributes {iree.abi.stub, iree.reflection = {iree.abi.declaration = "sync func @qdq64(%input0: tensor<64xf32>) -> (%output0: tensor<64xf32>)"}, ireec.abi.tensor_type = (tensor<64xf32>) -> tensor<64xf32>, stream.memory_plan = {arena_bytes = 0 : index, lower_bound_bytes = 0 : index, transient_sum_bytes = 0 : index}} {
    %0 = "stream.tensor.import"(%arg0) {index = 0 : index, size = 256 : index} : (!hal.buffer_view) -> (!stream.resource<external>)
    %1 = "stream.resource.result"() {index = 0 : index, size = 256 : index} : () -> (!stream.resource<external>)
    "hal.command_buffer.dispatch"(%0, %1) {entry_point = @qdq64_dispatch_0::@embedded_c::@qdq64_dispatch_0_elementwise_64_f32, access = ["ro", "wo"], offsets = array<i64: 0, 0>, sizes = array<i64: 256, 256>} : (!stream.resource<external>, !stream.resource<external>) -> ()
    %2 = "stream.tensor.export"(%1) {index = 0 : index} : (!stream.resource<external>) -> (!hal.buffer_view)
    return %2 : !hal.buffer_view
  }
  "hal.executable"() ({
    "hal.executable.variant"() ({
      "hal.executable.export"() {sym_name = "kept_dispatch_0_elementwise_64_i8", ordinal = 0 : index, bindings = 3 : index, workgroup_count = array<i64: 1, 1, 1>, workgroup_size = array<i64: 1, 1, 1>} : () -> ()
      module {
        func.func @kept_dispatch_0_elementwise_64_i8() attributes {ireec.distribution = array<i64: 64, 64>, translation_info = #iree_codegen.translation_info<pipeline = CPUDoubleTilingExpert>} {
          %0 = "hal.interface.binding.subspan"() {binding = 0 : index, descriptor_flags = "ReadOnly"} : () -> (memref<64xf32>)
          %1 = "hal.interface.binding.subspan"() {binding = 1 : index, descriptor_flags = "None"} : () -> (memref<64xi8>)
          %2 = "hal.interface.binding.subspan"() {binding = 2 : index, descriptor_flags = "None"} : () -> (memref<64xi32>)
          %3 = arith.constant 0 : index
          %4 = arith.constant 64 : index
          %5 = arith.constant 0 : index
          %6 = arith.constant 1 : index
          scf.for %arg0 = %5 to %4 step %6 {
            %7 = arith.addi %3, %arg0 : index
            %8 = memref.load %0[%7] : memref<64xf32>
            %9 = arith.fptosi %8 : f32 to i8
            %10 = arith.extsi %9 : i8 to i32
            memref.store %9, %1[%7] : memref<64xi8>
            memref.store %10, %2[%7] : memref<64xi32>
          }
          return
        }
      }
    }) {sym_name = "embedded_c", target = "c"} : () -> ()
  }) {sym_name = "kept_dispatch_0", sym_visibility = "private"} : () -> ()
  func.func @kept(%arg0: !hal.buffer_view) -> (!hal.buffer_view, !hal.buffer_view) attributes {iree.abi.stub, iree.reflection = {iree.abi.declaration = "sync func @kept(%input0: tensor<64xf32>) -> (%output0: tensor<64xi8>, %output1: tensor<64xi32>)"}, ireec.abi.tensor_type = (tensor<64xf32>) -> (tensor<64xi8>, tensor<64xi32>), stream.memory_plan = {arena_bytes = 0 : index, lower_bound_bytes = 0 : index, transient_sum_bytes = 0 : index}} {
    %0 = "stream.tensor.import"(%arg0) {index = 0 : index, size = 256 : index} : (!hal.buffer_view) -> (!stream.resource<external>)
    %1 = "stream.resource.result"() {index = 0 : index, size = 64 : index} : () -> (!stream.resource<external>)
    %2 = "stream.resource.result"() {index = 1 : index, size = 256 : index} : () -> (!stream.resource<external>)
    "hal.command_buffer.dispatch"(%0, %1, %2) {entry_point = @kept_dispatch_0::@embedded_c::@kept_dispatch_0_elementwise_64_i8, access = ["ro", "wo", "wo"], offsets = array<i64: 0, 0, 0>, sizes = array<i64: 256, 64, 256>} : (!stream.resource<external>, !stream.resource<external>, !stream.resource<external>) -> ()
    %3 = "stream.tensor.export"(%1) {index = 0 : index} : (!stream.resource<external>) -> (!hal.buffer_view)
    %4 = "stream.tensor.export"(%2) {index = 1 : index} : (!stream.resource<external>) -> (!hal.buffer_view)
    return %3, %4 : !hal.buffer_view, !hal.buffer_view
  }
}


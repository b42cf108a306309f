// RUN: ireec opt %s --target=c --pass-pipeline=ireec-promote-narrow-operands | filecheck %s

// Input: the IR printed just before this pass (ireec compile --mlir-print-ir-after-all).
// A causal mask (i1, read-only binding) selecting f32 scores: the kernel widens it once into
// an i32 stack copy before its reader, which reads the copy next to its f32 data and
// truncates to i1 at the top of its payload.
// CHECK-LABEL:   func.func @masked_max_dispatch_0
// CHECK:           %[[M:[0-9]+]] = "hal.interface.binding.subspan"() {binding = 0 : index, descriptor_flags = "ReadOnly"} : () -> (memref<16x16xi1>)
// CHECK:           %[[W:[0-9]+]] = memref.alloca() : memref<16x16xi32>
// CHECK-NEXT:      linalg.generic {{.*}} ins(%[[M]] : memref<16x16xi1>) outs(%[[W]] : memref<16x16xi32>)
// CHECK-NEXT:      ^bb0(%[[A:.*]]: i1, %{{.*}}: i32):
// CHECK-NEXT:        %[[E:[0-9]+]] = arith.extui %[[A]] : i1 to i32
// CHECK-NEXT:        linalg.yield %[[E]] : i32
// CHECK:           linalg.generic {{.*}} ins(%[[W]], %{{.*}} : memref<16x16xi32>, memref<4x16x16xf32>)
// CHECK-NEXT:      ^bb0(%[[B:.*]]: i32, %{{.*}}: f32, %{{.*}}: f32):
// CHECK-NEXT:        %[[T:[0-9]+]] = arith.trunci %[[B]] : i32 to i1
// CHECK:             arith.select %[[T]],
// CHECK-NOT:       memref<16x16xi1>
// CHECK:           return

// An i1 operand that only meets other i1 values is left as it is: nothing to widen for.
// CHECK-LABEL:   func.func @mask_and_dispatch_0
// CHECK-NOT:       memref.alloca
// CHECK:           return

module {
  "hal.executable"() ({
    "hal.executable.variant"() ({
      "hal.executable.export"() {sym_name = "masked_max_dispatch_0_reduction_4x16x16_f32", ordinal = 0 : index, bindings = 3 : index, workgroup_count = array<i64: 1, 1, 1>, workgroup_size = array<i64: 1, 1, 1>} : () -> ()
      module {
        func.func @masked_max_dispatch_0_reduction_4x16x16_f32() attributes {ireec.distribution = array<i64: 4, 4, 16, 16>, translation_info = #iree_codegen.translation_info<pipeline = CPUDoubleTilingExpert>} {
          %0 = "hal.interface.binding.subspan"() {binding = 0 : index, descriptor_flags = "ReadOnly"} : () -> (memref<16x16xi1>)
          %1 = "hal.interface.binding.subspan"() {binding = 1 : index, descriptor_flags = "ReadOnly"} : () -> (memref<4x16x16xf32>)
          %2 = "hal.interface.binding.subspan"() {binding = 2 : index, descriptor_flags = "None"} : () -> (memref<4x16xf32>)
          %3 = arith.constant 0xFF800000 : f32
          linalg.generic {indexing_maps = [affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%3 : f32) outs(%2 : memref<4x16xf32>) attrs =  {ireec.distribute = array<i64: 0, 1>} {
          ^bb0(%arg0: f32, %arg1: f32):
            linalg.yield %arg0 : f32
          }
          %4 = arith.constant 0xFF800000 : f32
          linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%0, %1 : memref<16x16xi1>, memref<4x16x16xf32>) outs(%2 : memref<4x16xf32>) attrs =  {ireec.distribute = array<i64: 0, 1>, lowering_config = #iree_codegen.lowering_config<tile_sizes = [[4, 16, 0]]>} {
          ^bb0(%arg2: i1, %arg3: f32, %arg4: f32):
            %5 = arith.select %arg2, %arg3, %4 : f32
            %6 = arith.maximumf %5, %arg4 : f32
            linalg.yield %6 : f32
          }
          return
        }
      }
    }) {sym_name = "embedded_c", target = "c"} : () -> ()
  }) {sym_name = "masked_max_dispatch_0", sym_visibility = "private"} : () -> ()
  func.func @masked_max(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view) -> !hal.buffer_view attributes {iree.abi.stub, iree.reflection = {iree.abi.declaration = "sync func @masked_max(%input0: tensor<16x16xi1>, %input1: tensor<4x16x16xf32>) -> (%output0: tensor<4x16xf32>)"}, ireec.abi.tensor_type = (tensor<16x16xi1>, tensor<4x16x16xf32>) -> tensor<4x16xf32>, stream.memory_plan = {arena_bytes = 0 : index, lower_bound_bytes = 0 : index, transient_sum_bytes = 0 : index}} {
    %0 = "stream.tensor.import"(%arg0) {index = 0 : index, size = 256 : index} : (!hal.buffer_view) -> (!stream.resource<external>)
    %1 = "stream.tensor.import"(%arg1) {index = 1 : index, size = 4096 : index} : (!hal.buffer_view) -> (!stream.resource<external>)
    %2 = "stream.resource.result"() {index = 0 : index, size = 256 : index} : () -> (!stream.resource<external>)
    "hal.command_buffer.dispatch"(%0, %1, %2) {entry_point = @masked_max_dispatch_0::@embedded_c::@masked_max_dispatch_0_reduction_4x16x16_f32, access = ["ro", "ro", "wo"], offsets = array<i64: 0, 0, 0>, sizes = array<i64: 256, 4096, 256>} : (!stream.resource<external>, !stream.resource<external>, !stream.resource<external>) -> ()
    %3 = "stream.tensor.export"(%2) {index = 0 : index} : (!stream.resource<external>) -> (!hal.buffer_view)
    return %3 : !hal.buffer_view
  }
  "hal.executable"() ({
    "hal.executable.variant"() ({
      "hal.executable.export"() {sym_name = "mask_and_dispatch_0_elementwise_64_i1", ordinal = 0 : index, bindings = 3 : index, workgroup_count = array<i64: 1, 1, 1>, workgroup_size = array<i64: 1, 1, 1>} : () -> ()
      module {
        func.func @mask_and_dispatch_0_elementwise_64_i1() attributes {ireec.distribution = array<i64: 64, 64>, translation_info = #iree_codegen.translation_info<pipeline = CPUDoubleTilingExpert>} {
          %0 = "hal.interface.binding.subspan"() {binding = 0 : index, descriptor_flags = "ReadOnly"} : () -> (memref<64xi1>)
          %1 = "hal.interface.binding.subspan"() {binding = 1 : index, descriptor_flags = "ReadOnly"} : () -> (memref<64xi1>)
          %2 = "hal.interface.binding.subspan"() {binding = 2 : index, descriptor_flags = "None"} : () -> (memref<64xi1>)
          linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%0, %1 : memref<64xi1>, memref<64xi1>) outs(%2 : memref<64xi1>) attrs =  {ireec.distribute = array<i64: 0>, lowering_config = #iree_codegen.lowering_config<tile_sizes = [[64]]>} {
          ^bb0(%arg0: i1, %arg1: i1, %arg2: i1):
            %3 = arith.andi %arg0, %arg1 : i1
            linalg.yield %3 : i1
          }
          return
        }
      }
    }) {sym_name = "embedded_c", target = "c"} : () -> ()
  }) {sym_name = "mask_and_dispatch_0", sym_visibility = "private"} : () -> ()
  func.func @mask_and(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view) -> !hal.buffer_view attributes {iree.abi.stub, iree.reflection = {iree.abi.declaration = "sync func @mask_and(%input0: tensor<64xi1>, %input1: tensor<64xi1>) -> (%output0: tensor<64xi1>)"}, ireec.abi.tensor_type = (tensor<64xi1>, tensor<64xi1>) -> tensor<64xi1>, stream.memory_plan = {arena_bytes = 0 : index, lower_bound_bytes = 0 : index, transient_sum_bytes = 0 : index}} {
    %0 = "stream.tensor.import"(%arg0) {index = 0 : index, size = 64 : index} : (!hal.buffer_view) -> (!stream.resource<external>)
    %1 = "stream.tensor.import"(%arg1) {index = 1 : index, size = 64 : index} : (!hal.buffer_view) -> (!stream.resource<external>)
    %2 = "stream.resource.result"() {index = 0 : index, size = 64 : index} : () -> (!stream.resource<external>)
    "hal.command_buffer.dispatch"(%0, %1, %2) {entry_point = @mask_and_dispatch_0::@embedded_c::@mask_and_dispatch_0_elementwise_64_i1, access = ["ro", "ro", "wo"], offsets = array<i64: 0, 0, 0>, sizes = array<i64: 64, 64, 64>} : (!stream.resource<external>, !stream.resource<external>, !stream.resource<external>) -> ()
    %3 = "stream.tensor.export"(%2) {index = 0 : index} : (!stream.resource<external>) -> (!hal.buffer_view)
    return %3 : !hal.buffer_view
  }
}

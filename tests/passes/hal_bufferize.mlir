// RUN: ireec opt %s --pass-pipeline=iree-codegen-iree-comprehensive-bufferize | filecheck %s

// Input: the IR printed just before this pass (ireec compile --mlir-print-ir-after-all).
// Bindings become memrefs; the fill and the matmul write straight into the output binding
// (no tensor, no flow.dispatch.tensor load/store left in the kernel).
// CHECK:       func.func @mm_dispatch_0_matmul_64x48x32_f32()
// CHECK:         %[[A:[0-9]+]] = {{.*}}hal.interface.binding.subspan{{.*}}binding = 0 : index{{.*}}memref<64x32xf32>
// CHECK:         %[[B:[0-9]+]] = {{.*}}hal.interface.binding.subspan{{.*}}binding = 1 : index{{.*}}memref<32x48xf32>
// CHECK:         %[[C:[0-9]+]] = {{.*}}hal.interface.binding.subspan{{.*}}binding = 2 : index{{.*}}memref<64x48xf32>
// CHECK-NOT:     flow.dispatch.tensor
// CHECK-NOT:     tensor.empty
// CHECK:         linalg.generic
// CHECK-SAME:      outs(%[[C]] : memref<64x48xf32>)
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%[[A]], %[[B]] : memref<64x32xf32>, memref<32x48xf32>) outs(%[[C]] : memref<64x48xf32>)
// CHECK-NOT:     flow.dispatch.tensor
// CHECK:         return

module {
  "hal.executable"() ({
    "hal.executable.variant"() ({
      "hal.executable.export"() {sym_name = "mm_dispatch_0_matmul_64x48x32_f32", ordinal = 0 : index, bindings = 3 : index, workgroup_count = array<i64: 1, 1, 1>, workgroup_size = array<i64: 1, 1, 1>} : () -> ()
      module {
        func.func @mm_dispatch_0_matmul_64x48x32_f32() attributes {ireec.distribution = array<i64: 64, 64, 48, 48>, translation_info = #iree_codegen.translation_info<pipeline = CPUDoubleTilingExpert>} {
          %0 = "hal.interface.binding.subspan"() {binding = 0 : index, descriptor_flags = "ReadOnly"} : () -> (!flow.dispatch.tensor<readonly:tensor<64x32xf32>>)
          %1 = "hal.interface.binding.subspan"() {binding = 1 : index, descriptor_flags = "ReadOnly"} : () -> (!flow.dispatch.tensor<readonly:tensor<32x48xf32>>)
          %2 = "hal.interface.binding.subspan"() {binding = 2 : index, descriptor_flags = "None"} : () -> (!flow.dispatch.tensor<writeonly:tensor<64x48xf32>>)
          %3 = "flow.dispatch.tensor.load"(%0) {static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 64, 32>, static_strides = array<i64: 1, 1>} : (!flow.dispatch.tensor<readonly:tensor<64x32xf32>>) -> (tensor<64x32xf32>)
          %4 = "flow.dispatch.tensor.load"(%1) {static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 32, 48>, static_strides = array<i64: 1, 1>} : (!flow.dispatch.tensor<readonly:tensor<32x48xf32>>) -> (tensor<32x48xf32>)
          %5 = arith.constant 0.0e+00 : f32
          %6 = tensor.empty() : tensor<64x48xf32>
          %7 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%5 : f32) outs(%6 : tensor<64x48xf32>) attrs =  {ireec.distribute = array<i64: 0, 1>} {
          ^bb0(%arg0: f32, %arg1: f32):
            linalg.yield %arg0 : f32
          } -> tensor<64x48xf32>
          %8 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%3, %4 : tensor<64x32xf32>, tensor<32x48xf32>) outs(%7 : tensor<64x48xf32>) attrs =  {ireec.distribute = array<i64: 0, 1>, iree_codegen.ukernel = #iree_codegen.ukernel_descriptor<"ireec_uk_sgemm", memref>, ireec.ukernel_blocking = array<i64: 64, 48, 32>, lowering_config = #iree_codegen.lowering_config<tile_sizes = [[64, 48, 0], [64, 48, 32]]>} {
          ^bb0(%arg2: f32, %arg3: f32, %arg4: f32):
            %9 = arith.mulf %arg2, %arg3 : f32
            %10 = arith.addf %arg4, %9 : f32
            linalg.yield %10 : f32
          } -> tensor<64x48xf32>
          "flow.dispatch.tensor.store"(%8, %2) {static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 64, 48>, static_strides = array<i64: 1, 1>} : (tensor<64x48xf32>, !flow.dispatch.tensor<writeonly:tensor<64x48xf32>>) -> ()
          return
        }
      }
    }) {sym_name = "embedded_c", target = "c"} : () -> ()
  }) {sym_name = "mm_dispatch_0", sym_visibility = "private"} : () -> ()
  func.func @mm(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view) -> !hal.buffer_view attributes {iree.abi.stub, iree.reflection = {iree.abi.declaration = "sync func @mm(%input0: tensor<64x32xf32>, %input1: tensor<32x48xf32>) -> (%output0: tensor<64x48xf32>)"}, ireec.abi.tensor_type = (tensor<64x32xf32>, tensor<32x48xf32>) -> tensor<64x48xf32>, stream.memory_plan = {arena_bytes = 0 : index, lower_bound_bytes = 0 : index, transient_sum_bytes = 0 : index}} {
    %0 = "stream.tensor.import"(%arg0) {index = 0 : index, size = 8192 : index} : (!hal.buffer_view) -> (!stream.resource<external>)
    %1 = "stream.tensor.import"(%arg1) {index = 1 : index, size = 6144 : index} : (!hal.buffer_view) -> (!stream.resource<external>)
    %2 = "stream.resource.result"() {index = 0 : index, size = 12288 : index} : () -> (!stream.resource<external>)
    "hal.command_buffer.dispatch"(%0, %1, %2) {entry_point = @mm_dispatch_0::@embedded_c::@mm_dispatch_0_matmul_64x48x32_f32, access = ["ro", "ro", "wo"], offsets = array<i64: 0, 0, 0>, sizes = array<i64: 8192, 6144, 12288>} : (!stream.resource<external>, !stream.resource<external>, !stream.resource<external>) -> ()
    %3 = "stream.tensor.export"(%2) {index = 0 : index} : (!stream.resource<external>) -> (!hal.buffer_view)
    return %3 : !hal.buffer_view
  }
}

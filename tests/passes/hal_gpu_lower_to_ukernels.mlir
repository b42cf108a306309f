// RUN: ireec opt %s --target=cuda --pass-pipeline=iree-codegen-gpu-lower-to-ukernels | filecheck %s

// Input: the IR printed just before this pass (ireec compile --mlir-print-ir-after-all).
// The marked f32 matmul becomes the micro-kernel op over its bindings, with the workgroup
// ids carrying m (y) and n (x); its zero fill goes (accumulate = 0); the bias+relu epilogue
// stays a linalg.generic after it. Strides are (batch, row, column) per operand, in elements.
// CHECK:       func.func @mm_dispatch_0_matmul_256x200x128_f32()
// CHECK-NOT:     linalg.generic{{.*}}ins(%{{.*}} : f32)
// CHECK:         %[[Y:.*]] = "hal.interface.workgroup.id"() {dimension = 1 : index}
// CHECK:         %[[X:.*]] = "hal.interface.workgroup.id"() {dimension = 0 : index}
// CHECK:         "iree_codegen.ukernel.generic"(%{{.*}}, %{{.*}}, %{{.*}}, %[[Y]], %[[X]])
// CHECK-SAME:      u_kernel_fn_name = "ireec_gpu_matmul_f32"
// CHECK-SAME:      sizes = array<i64: 256, 200, 128>
// CHECK-SAME:      strides = array<i64: 0, 128, 1, 0, 200, 1, 0, 200, 1>
// CHECK-SAME:      tiles = array<i64: 128, 128>, accumulate = 0
// CHECK:         linalg.generic
// CHECK:           arith.maximumf

module {
  "hal.executable"() ({
    "hal.executable.variant"() ({
      "hal.executable.export"() {sym_name = "mm_dispatch_0_matmul_256x200x128_f32", ordinal = 0 : index, bindings = 4 : index, workgroup_count = array<i64: 2, 2, 1>, workgroup_size = array<i64: 256, 1, 1>} : () -> ()
      module {
        func.func @mm_dispatch_0_matmul_256x200x128_f32() attributes {ireec.distribution = array<i64: 256, 128, 200, 128>, translation_info = #iree_codegen.translation_info<pipeline = LLVMGPUMatmulSimt workgroup_size = [256, 1, 1]>} {
          %0 = "hal.interface.binding.subspan"() {binding = 0 : index, descriptor_flags = "ReadOnly"} : () -> (memref<256x128xf32>)
          %1 = "hal.interface.binding.subspan"() {binding = 1 : index, descriptor_flags = "ReadOnly"} : () -> (memref<128x200xf32>)
          %2 = "hal.interface.binding.subspan"() {binding = 2 : index, descriptor_flags = "ReadOnly"} : () -> (memref<200xf32>)
          %3 = "hal.interface.binding.subspan"() {binding = 3 : index, descriptor_flags = "None"} : () -> (memref<256x200xf32>)
          %4 = arith.constant 0.0e+00 : f32
          linalg.generic {indexing_maps = [affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%4 : f32) outs(%3 : memref<256x200xf32>) attrs =  {ireec.distribute = array<i64: 0, 1>} {
          ^bb0(%arg0: f32, %arg1: f32):
            linalg.yield %arg0 : f32
          }
          linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%0, %1 : memref<256x128xf32>, memref<128x200xf32>) outs(%3 : memref<256x200xf32>) attrs =  {ireec.distribute = array<i64: 0, 1>, lowering_config = #iree_gpu.lowering_config<{workgroup = [128, 128, 0], ukernel = #iree_gpu.ukernel_config<name = "ireec_gpu_matmul_f32">}>, ireec.gpu_ukernel = "ireec_gpu_matmul_f32"} {
          ^bb0(%arg2: f32, %arg3: f32, %arg4: f32):
            %5 = arith.mulf %arg2, %arg3 : f32
            %6 = arith.addf %arg4, %5 : f32
            linalg.yield %6 : f32
          }
          %7 = arith.constant 0.0e+00 : f32
          linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%3, %2 : memref<256x200xf32>, memref<200xf32>) outs(%3 : memref<256x200xf32>) attrs =  {ireec.distribute = array<i64: 0, 1>} {
          ^bb0(%arg5: f32, %arg6: f32, %arg7: f32):
            %8 = arith.addf %arg5, %arg6 : f32
            %9 = arith.maximumf %8, %7 : f32
            linalg.yield %9 : f32
          }
          return
        }
      }
    }) {sym_name = "cuda_nvptx_fb", target = "cuda"} : () -> ()
  }) {sym_name = "mm_dispatch_0", sym_visibility = "private"} : () -> ()
  func.func @mm(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view, %arg2: !hal.buffer_view) -> !hal.buffer_view attributes {iree.abi.stub, iree.reflection = {iree.abi.declaration = "sync func @mm(%input0: tensor<256x128xf32>, %input1: tensor<128x200xf32>, %input2: tensor<200xf32>) -> (%output0: tensor<256x200xf32>)"}, ireec.abi.tensor_type = (tensor<256x128xf32>, tensor<128x200xf32>, tensor<200xf32>) -> tensor<256x200xf32>, stream.memory_plan = {arena_bytes = 0 : index, lower_bound_bytes = 0 : index, transient_sum_bytes = 0 : index}} {
    %0 = "stream.tensor.import"(%arg0) {index = 0 : index, size = 131072 : index} : (!hal.buffer_view) -> (!stream.resource<external>)
    %1 = "stream.tensor.import"(%arg1) {index = 1 : index, size = 102400 : index} : (!hal.buffer_view) -> (!stream.resource<external>)
    %2 = "stream.tensor.import"(%arg2) {index = 2 : index, size = 800 : index} : (!hal.buffer_view) -> (!stream.resource<external>)
    %3 = "stream.resource.result"() {index = 0 : index, size = 204800 : index} : () -> (!stream.resource<external>)
    "hal.command_buffer.dispatch"(%0, %1, %2, %3) {entry_point = @mm_dispatch_0::@cuda_nvptx_fb::@mm_dispatch_0_matmul_256x200x128_f32, access = ["ro", "ro", "ro", "wo"], offsets = array<i64: 0, 0, 0, 0>, sizes = array<i64: 131072, 102400, 800, 204800>} : (!stream.resource<external>, !stream.resource<external>, !stream.resource<external>, !stream.resource<external>) -> ()
    %4 = "stream.tensor.export"(%3) {index = 0 : index} : (!stream.resource<external>) -> (!hal.buffer_view)
    return %4 : !hal.buffer_view
  }
}

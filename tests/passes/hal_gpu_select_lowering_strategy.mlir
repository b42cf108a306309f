// RUN: ireec opt %s --target=cuda --pass-pipeline=iree-llvmgpu-select-lowering-strategy | filecheck %s
// RUN: ireec opt %s --target=c --pass-pipeline=iree-llvmgpu-select-lowering-strategy | filecheck %s --check-prefix=CPU

// Input: the IR printed just before this pass (ireec compile --mlir-print-ir-after-all).
// The GPU config per dispatch kind. Elementwise: tiles of 1024 elements (4 per thread of a
// 256-thread block), 100000 elements are 98 workgroups. Row sums (the innermost loop is the
// reduction): 8 rows per workgroup, a warp each. Matmul (f32): 128x128 output tiles for the
// micro-kernel, 256 threads; 256x200 is 2x2 workgroups (x = n).
// CHECK:       hal.executable.export
// CHECK-SAME:    sym_name = "ew_dispatch_0_elementwise_100000_f32"
// CHECK-SAME:    workgroup_count = array<i64: 98, 1, 1>, workgroup_size = array<i64: 256, 1, 1>
// CHECK:       func.func @ew_dispatch_0_elementwise_100000_f32()
// CHECK-SAME:    ireec.distribution = array<i64: 100000, 1024>
// CHECK-SAME:    translation_info = #iree_codegen.translation_info<pipeline = LLVMGPUVectorize workgroup_size = [256, 1, 1]>
// CHECK:         linalg.generic
// CHECK-SAME:      lowering_config = #iree_gpu.lowering_config<{workgroup = [1024]}>
// CHECK:       hal.executable.export
// CHECK-SAME:    sym_name = "rows_dispatch_0_reduction_1000x64_f32"
// CHECK-SAME:    workgroup_count = array<i64: 125, 1, 1>, workgroup_size = array<i64: 256, 1, 1>
// CHECK:       translation_info = #iree_codegen.translation_info<pipeline = LLVMGPUWarpReduction workgroup_size = [256, 1, 1]>
// CHECK:         lowering_config = #iree_gpu.lowering_config<{workgroup = [8, 0]}>
// CHECK:       hal.executable.export
// CHECK-SAME:    sym_name = "mm_dispatch_0_matmul_256x200x128_f32"
// CHECK-SAME:    workgroup_count = array<i64: 2, 2, 1>, workgroup_size = array<i64: 256, 1, 1>
// CHECK:       translation_info = #iree_codegen.translation_info<pipeline = LLVMGPUMatmulSimt workgroup_size = [256, 1, 1]>
// CHECK:         linalg.generic{{.*}}iterator_types = ["parallel", "parallel", "reduction"]
// CHECK-SAME:      lowering_config = #iree_gpu.lowering_config<{workgroup = [128, 128, 0], ukernel = #iree_gpu.ukernel_config<name = "ireec_gpu_matmul_f32">}>
// CHECK-SAME:      ireec.gpu_ukernel = "ireec_gpu_matmul_f32"

// On a CPU target the pass leaves the CPU configuration of iree-llvmcpu-select-lowering-strategy
// (the input's CPUDoubleTilingExpert) as it is.
// CPU-NOT:     iree_gpu
// CPU:         CPUDoubleTilingExpert

module {
  "hal.executable"() ({
    "hal.executable.variant"() ({
      "hal.executable.export"() {sym_name = "ew_dispatch_0_elementwise_100000_f32", ordinal = 0 : index, bindings = 2 : index, workgroup_count = array<i64: 25, 1, 1>, workgroup_size = array<i64: 1, 1, 1>} : () -> ()
      module {
        func.func @ew_dispatch_0_elementwise_100000_f32() attributes {ireec.distribution = array<i64: 100000, 4096>, translation_info = #iree_codegen.translation_info<pipeline = CPUDoubleTilingExpert>} {
          %0 = "hal.interface.binding.subspan"() {binding = 0 : index, descriptor_flags = "ReadOnly"} : () -> (!flow.dispatch.tensor<readonly:tensor<100000xf32>>)
          %1 = "hal.interface.binding.subspan"() {binding = 1 : index, descriptor_flags = "None"} : () -> (!flow.dispatch.tensor<writeonly:tensor<100000xf32>>)
          %2 = "flow.dispatch.tensor.load"(%0) {static_offsets = array<i64: 0>, static_sizes = array<i64: 100000>, static_strides = array<i64: 1>} : (!flow.dispatch.tensor<readonly:tensor<100000xf32>>) -> (tensor<100000xf32>)
          %3 = tensor.empty() : tensor<100000xf32>
          %4 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%2 : tensor<100000xf32>) outs(%3 : tensor<100000xf32>) attrs =  {ireec.distribute = array<i64: 0>, lowering_config = #iree_codegen.lowering_config<tile_sizes = [[4096]]>} {
          ^bb0(%arg0: f32, %arg1: f32):
            %5 = math.exp %arg0 : f32
            linalg.yield %5 : f32
          } -> tensor<100000xf32>
          "flow.dispatch.tensor.store"(%4, %1) {static_offsets = array<i64: 0>, static_sizes = array<i64: 100000>, static_strides = array<i64: 1>} : (tensor<100000xf32>, !flow.dispatch.tensor<writeonly:tensor<100000xf32>>) -> ()
          return
        }
      }
    }) {sym_name = "cuda_nvptx_fb", target = "cuda"} : () -> ()
  }) {sym_name = "ew_dispatch_0", sym_visibility = "private"} : () -> ()
  func.func @ew(%arg0: !hal.buffer_view) -> !hal.buffer_view attributes {iree.abi.stub, iree.reflection = {iree.abi.declaration = "sync func @ew(%input0: tensor<100000xf32>) -> (%output0: tensor<100000xf32>)"}, ireec.abi.tensor_type = (tensor<100000xf32>) -> tensor<100000xf32>, stream.memory_plan = {arena_bytes = 0 : index, lower_bound_bytes = 0 : index, transient_sum_bytes = 0 : index}} {
    %0 = "stream.tensor.import"(%arg0) {index = 0 : index, size = 400000 : index} : (!hal.buffer_view) -> (!stream.resource<external>)
    %1 = "stream.resource.result"() {index = 0 : index, size = 400000 : index} : () -> (!stream.resource<external>)
    "hal.command_buffer.dispatch"(%0, %1) {entry_point = @ew_dispatch_0::@cuda_nvptx_fb::@ew_dispatch_0_elementwise_100000_f32, access = ["ro", "wo"], offsets = array<i64: 0, 0>, sizes = array<i64: 400000, 400000>} : (!stream.resource<external>, !stream.resource<external>) -> ()
    %2 = "stream.tensor.export"(%1) {index = 0 : index} : (!stream.resource<external>) -> (!hal.buffer_view)
    return %2 : !hal.buffer_view
  }
  "hal.executable"() ({
    "hal.executable.variant"() ({
      "hal.executable.export"() {sym_name = "rows_dispatch_0_reduction_1000x64_f32", ordinal = 0 : index, bindings = 2 : index, workgroup_count = array<i64: 2, 1, 1>, workgroup_size = array<i64: 1, 1, 1>} : () -> ()
      module {
        func.func @rows_dispatch_0_reduction_1000x64_f32() attributes {ireec.distribution = array<i64: 1000, 512>, translation_info = #iree_codegen.translation_info<pipeline = CPUDoubleTilingExpert>} {
          %0 = "hal.interface.binding.subspan"() {binding = 0 : index, descriptor_flags = "ReadOnly"} : () -> (!flow.dispatch.tensor<readonly:tensor<1000x64xf32>>)
          %1 = "hal.interface.binding.subspan"() {binding = 1 : index, descriptor_flags = "None"} : () -> (!flow.dispatch.tensor<writeonly:tensor<1000xf32>>)
          %2 = "flow.dispatch.tensor.load"(%0) {static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 1000, 64>, static_strides = array<i64: 1, 1>} : (!flow.dispatch.tensor<readonly:tensor<1000x64xf32>>) -> (tensor<1000x64xf32>)
          %3 = arith.constant 0.0e+00 : f32
          %4 = tensor.empty() : tensor<1000xf32>
          %5 = linalg.generic {indexing_maps = [affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%3 : f32) outs(%4 : tensor<1000xf32>) attrs =  {ireec.distribute = array<i64: 0>} {
          ^bb0(%arg0: f32, %arg1: f32):
            linalg.yield %arg0 : f32
          } -> tensor<1000xf32>
          %6 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%2 : tensor<1000x64xf32>) outs(%5 : tensor<1000xf32>) attrs =  {ireec.distribute = array<i64: 0>, lowering_config = #iree_codegen.lowering_config<tile_sizes = [[512, 0]]>} {
          ^bb0(%arg2: f32, %arg3: f32):
            %7 = arith.addf %arg3, %arg2 : f32
            linalg.yield %7 : f32
          } -> tensor<1000xf32>
          "flow.dispatch.tensor.store"(%6, %1) {static_offsets = array<i64: 0>, static_sizes = array<i64: 1000>, static_strides = array<i64: 1>} : (tensor<1000xf32>, !flow.dispatch.tensor<writeonly:tensor<1000xf32>>) -> ()
          return
        }
      }
    }) {sym_name = "cuda_nvptx_fb", target = "cuda"} : () -> ()
  }) {sym_name = "rows_dispatch_0", sym_visibility = "private"} : () -> ()
  func.func @rows(%arg0: !hal.buffer_view) -> !hal.buffer_view attributes {iree.abi.stub, iree.reflection = {iree.abi.declaration = "sync func @rows(%input0: tensor<1000x64xf32>) -> (%output0: tensor<1000xf32>)"}, ireec.abi.tensor_type = (tensor<1000x64xf32>) -> tensor<1000xf32>, stream.memory_plan = {arena_bytes = 0 : index, lower_bound_bytes = 0 : index, transient_sum_bytes = 0 : index}} {
    %0 = "stream.tensor.import"(%arg0) {index = 0 : index, size = 256000 : index} : (!hal.buffer_view) -> (!stream.resource<external>)
    %1 = "stream.resource.result"() {index = 0 : index, size = 4000 : index} : () -> (!stream.resource<external>)
    "hal.command_buffer.dispatch"(%0, %1) {entry_point = @rows_dispatch_0::@cuda_nvptx_fb::@rows_dispatch_0_reduction_1000x64_f32, access = ["ro", "wo"], offsets = array<i64: 0, 0>, sizes = array<i64: 256000, 4000>} : (!stream.resource<external>, !stream.resource<external>) -> ()
    %2 = "stream.tensor.export"(%1) {index = 0 : index} : (!stream.resource<external>) -> (!hal.buffer_view)
    return %2 : !hal.buffer_view
  }
  "hal.executable"() ({
    "hal.executable.variant"() ({
      "hal.executable.export"() {sym_name = "mm_dispatch_0_matmul_256x200x128_f32", ordinal = 0 : index, bindings = 3 : index, workgroup_count = array<i64: 4, 4, 1>, workgroup_size = array<i64: 1, 1, 1>} : () -> ()
      module {
        func.func @mm_dispatch_0_matmul_256x200x128_f32() attributes {ireec.distribution = array<i64: 256, 64, 200, 64>, translation_info = #iree_codegen.translation_info<pipeline = CPUDoubleTilingExpert>} {
          %0 = "hal.interface.binding.subspan"() {binding = 0 : index, descriptor_flags = "ReadOnly"} : () -> (!flow.dispatch.tensor<readonly:tensor<256x128xf32>>)
          %1 = "hal.interface.binding.subspan"() {binding = 1 : index, descriptor_flags = "ReadOnly"} : () -> (!flow.dispatch.tensor<readonly:tensor<128x200xf32>>)
          %2 = "hal.interface.binding.subspan"() {binding = 2 : index, descriptor_flags = "None"} : () -> (!flow.dispatch.tensor<writeonly:tensor<256x200xf32>>)
          %3 = "flow.dispatch.tensor.load"(%0) {static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 256, 128>, static_strides = array<i64: 1, 1>} : (!flow.dispatch.tensor<readonly:tensor<256x128xf32>>) -> (tensor<256x128xf32>)
          %4 = "flow.dispatch.tensor.load"(%1) {static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 128, 200>, static_strides = array<i64: 1, 1>} : (!flow.dispatch.tensor<readonly:tensor<128x200xf32>>) -> (tensor<128x200xf32>)
          %5 = arith.constant 0.0e+00 : f32
          %6 = tensor.empty() : tensor<256x200xf32>
          %7 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%5 : f32) outs(%6 : tensor<256x200xf32>) attrs =  {ireec.distribute = array<i64: 0, 1>} {
          ^bb0(%arg0: f32, %arg1: f32):
            linalg.yield %arg0 : f32
          } -> tensor<256x200xf32>
          %8 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%3, %4 : tensor<256x128xf32>, tensor<128x200xf32>) outs(%7 : tensor<256x200xf32>) attrs =  {ireec.distribute = array<i64: 0, 1>, lowering_config = #iree_codegen.lowering_config<tile_sizes = [[64, 64, 0]]>} {
          ^bb0(%arg2: f32, %arg3: f32, %arg4: f32):
            %9 = arith.mulf %arg2, %arg3 : f32
            %10 = arith.addf %arg4, %9 : f32
            linalg.yield %10 : f32
          } -> tensor<256x200xf32>
          "flow.dispatch.tensor.store"(%8, %2) {static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 256, 200>, static_strides = array<i64: 1, 1>} : (tensor<256x200xf32>, !flow.dispatch.tensor<writeonly:tensor<256x200xf32>>) -> ()
          return
        }
      }
    }) {sym_name = "cuda_nvptx_fb", target = "cuda"} : () -> ()
  }) {sym_name = "mm_dispatch_0", sym_visibility = "private"} : () -> ()
  func.func @mm(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view) -> !hal.buffer_view attributes {iree.abi.stub, iree.reflection = {iree.abi.declaration = "sync func @mm(%input0: tensor<256x128xf32>, %input1: tensor<128x200xf32>) -> (%output0: tensor<256x200xf32>)"}, ireec.abi.tensor_type = (tensor<256x128xf32>, tensor<128x200xf32>) -> tensor<256x200xf32>, stream.memory_plan = {arena_bytes = 0 : index, lower_bound_bytes = 0 : index, transient_sum_bytes = 0 : index}} {
    %0 = "stream.tensor.import"(%arg0) {index = 0 : index, size = 131072 : index} : (!hal.buffer_view) -> (!stream.resource<external>)
    %1 = "stream.tensor.import"(%arg1) {index = 1 : index, size = 102400 : index} : (!hal.buffer_view) -> (!stream.resource<external>)
    %2 = "stream.resource.result"() {index = 0 : index, size = 204800 : index} : () -> (!stream.resource<external>)
    "hal.command_buffer.dispatch"(%0, %1, %2) {entry_point = @mm_dispatch_0::@cuda_nvptx_fb::@mm_dispatch_0_matmul_256x200x128_f32, access = ["ro", "ro", "wo"], offsets = array<i64: 0, 0, 0>, sizes = array<i64: 131072, 102400, 204800>} : (!stream.resource<external>, !stream.resource<external>, !stream.resource<external>) -> ()
    %3 = "stream.tensor.export"(%2) {index = 0 : index} : (!stream.resource<external>) -> (!hal.buffer_view)
    return %3 : !hal.buffer_view
  }
}

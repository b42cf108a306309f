// RUN: ireec opt %s --target=cuda --pass-pipeline=iree-abi-wrap-entry-points,iree-dispatch-creation-form-dispatch-regions,iree-flow-outline-dispatch-regions,iree-stream-schedule-allocation,iree-hal-materialize-interfaces,linalg-generalize-named-ops,iree-llvmcpu-select-lowering-strategy,iree-llvmgpu-select-lowering-strategy | filecheck %s
// RUN: ireec opt %s --target=c --pass-pipeline=iree-abi-wrap-entry-points,iree-dispatch-creation-form-dispatch-regions,iree-flow-outline-dispatch-regions,iree-stream-schedule-allocation,iree-hal-materialize-interfaces,linalg-generalize-named-ops,iree-llvmcpu-select-lowering-strategy,iree-llvmgpu-select-lowering-strategy | filecheck %s --check-prefix=CPU

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

// A CPU target keeps the CPU configuration.
// CPU-NOT:     iree_gpu
// CPU:         CPUDoubleTilingExpert
func.func @ew(%a: tensor<100000xf32>) -> tensor<100000xf32> {
  %e = tensor.empty() : tensor<100000xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<100000xf32>) outs(%e : tensor<100000xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = math.exp %x : f32
    linalg.yield %s : f32
  } -> tensor<100000xf32>
  return %0 : tensor<100000xf32>
}
func.func @rows(%a: tensor<1000x64xf32>) -> tensor<1000xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1000xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1000xf32>) -> tensor<1000xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%a : tensor<1000x64xf32>) outs(%init : tensor<1000xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %acc, %x : f32
    linalg.yield %s : f32
  } -> tensor<1000xf32>
  return %0 : tensor<1000xf32>
}
func.func @mm(%x: tensor<256x128xf32>, %w: tensor<128x200xf32>) -> tensor<256x200xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x200xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<256x200xf32>) -> tensor<256x200xf32>
  %0 = linalg.matmul ins(%x, %w : tensor<256x128xf32>, tensor<128x200xf32>) outs(%init : tensor<256x200xf32>) -> tensor<256x200xf32>
  return %0 : tensor<256x200xf32>
}

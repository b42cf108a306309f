// RUN: ireec opt %s --target=cuda --pass-pipeline=iree-abi-wrap-entry-points,iree-dispatch-creation-form-dispatch-regions,iree-flow-outline-dispatch-regions,iree-stream-schedule-allocation,iree-hal-materialize-interfaces,linalg-generalize-named-ops,iree-llvmcpu-select-lowering-strategy,iree-llvmgpu-select-lowering-strategy,iree-codegen-iree-comprehensive-bufferize,iree-codegen-gpu-lower-to-ukernels | filecheck %s

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
func.func @mm(%x: tensor<256x128xf32>, %w: tensor<128x200xf32>, %b: tensor<200xf32>) -> tensor<256x200xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x200xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<256x200xf32>) -> tensor<256x200xf32>
  %0 = linalg.matmul ins(%x, %w : tensor<256x128xf32>, tensor<128x200xf32>) outs(%init : tensor<256x200xf32>) -> tensor<256x200xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%0, %b : tensor<256x200xf32>, tensor<200xf32>) outs(%e : tensor<256x200xf32>) {
  ^bb0(%v: f32, %c: f32, %o: f32):
    %s = arith.addf %v, %c : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<256x200xf32>
  return %1 : tensor<256x200xf32>
}

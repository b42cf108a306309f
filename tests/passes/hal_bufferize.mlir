// RUN: ireec opt %s --pass-pipeline=iree-abi-wrap-entry-points,iree-dispatch-creation-form-dispatch-regions,iree-flow-outline-dispatch-regions,iree-stream-schedule-allocation,iree-hal-materialize-interfaces,linalg-generalize-named-ops,iree-llvmcpu-select-lowering-strategy,iree-codegen-iree-comprehensive-bufferize | filecheck %s

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
func.func @mm(%x: tensor<64x32xf32>, %w: tensor<32x48xf32>) -> tensor<64x48xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x48xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x48xf32>) -> tensor<64x48xf32>
  %m = linalg.matmul ins(%x, %w : tensor<64x32xf32>, tensor<32x48xf32>) outs(%f : tensor<64x48xf32>) -> tensor<64x48xf32>
  return %m : tensor<64x48xf32>
}

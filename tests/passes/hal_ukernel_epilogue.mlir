// RUN: ireec opt %s --pass-pipeline=iree-abi-wrap-entry-points,iree-dispatch-creation-form-dispatch-regions,iree-flow-outline-dispatch-regions,iree-stream-schedule-allocation,iree-hal-materialize-interfaces,linalg-generalize-named-ops,iree-llvmcpu-select-lowering-strategy,iree-codegen-iree-comprehensive-bufferize,convert-linalg-to-loops | filecheck %s

// The bias add and the NaN-propagating ReLU6 after the matmul become the micro-kernel's
// epilogue: the bias memref follows the work buffer, its origin follows C's, and no loop
// nest is left for the consumer.
// CHECK:       func.func @dense_relu6_dispatch_0_matmul_32x64x16_f32()
// CHECK:         "iree_codegen.ukernel.generic"(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}},
// CHECK-SAME:      u_kernel_fn_name = "ireec_uk_sgemm"
// CHECK-SAME:      accumulate = false, bias_strides = array<i64: 0, 1>, clamp_lo = 0.0e+00 : f32, lo_keeps_nan, clamp_hi = 6.0e+00 : f32
// CHECK-SAME:      (memref<32x16xf32>, memref<16x64xf32>, memref<32x64xf32>, memref<{{[0-9]+}}xf32>, memref<64xf32>, index
// CHECK-NOT:     scf.for
// CHECK-NOT:     linalg.
func.func @dense_relu6(%a: tensor<32x16xf32>, %b: tensor<16x64xf32>, %v: tensor<64xf32>) -> tensor<32x64xf32> {
  %zero = arith.constant 0.0 : f32
  %six = arith.constant 6.0 : f32
  %e = tensor.empty() : tensor<32x64xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<32x64xf32>) -> tensor<32x64xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<32x16xf32>, tensor<16x64xf32>) outs(%c : tensor<32x64xf32>) -> tensor<32x64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm, %v : tensor<32x64xf32>, tensor<64xf32>) outs(%e : tensor<32x64xf32>) {
  ^bb0(%x: f32, %bb: f32, %o: f32):
    %s = arith.addf %x, %bb : f32
    %m = arith.maximumf %s, %zero : f32
    %y = arith.minimumf %m, %six : f32
    linalg.yield %y : f32
  } -> tensor<32x64xf32>
  return %r : tensor<32x64xf32>
}

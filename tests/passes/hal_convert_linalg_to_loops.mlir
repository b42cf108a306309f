// RUN: ireec opt %s --pass-pipeline=iree-abi-wrap-entry-points,iree-dispatch-creation-form-dispatch-regions,iree-flow-outline-dispatch-regions,iree-stream-schedule-allocation,iree-hal-materialize-interfaces,linalg-generalize-named-ops,iree-llvmcpu-select-lowering-strategy,iree-codegen-iree-comprehensive-bufferize,convert-linalg-to-loops | filecheck %s

// Each workgroup of the 1-D elementwise kernel covers min(4096, 100000 - id * 4096) elements
// in one scf.for; the 2-D reduction becomes the init loop, then the row loop around the
// contiguous inner loop. No linalg op is left.
// CHECK:       func.func @ew_dispatch_0_elementwise_100000_f32()
// CHECK:         hal.interface.workgroup.id
// CHECK:         %[[TILE:[0-9]+]] = arith.constant 4096 : index
// CHECK:         arith.muli %{{[0-9]+}}, %[[TILE]] : index
// CHECK:         %[[N:[0-9]+]] = arith.minsi
// CHECK:         scf.for %{{.+}} = %{{[0-9]+}} to %[[N]] step
// CHECK:           memref.load
// CHECK-NEXT:      math.exp
// CHECK-NEXT:      memref.store
// CHECK-NOT:     linalg.
// CHECK:       func.func @rowsum_dispatch_0_reduction_300x64_f32()
// CHECK:         scf.for
// CHECK:           memref.store
// CHECK:         scf.for
// CHECK-NEXT:      scf.for
// CHECK:             memref.load
// CHECK:             memref.load
// CHECK:             arith.addf
// CHECK:             memref.store
// CHECK-NOT:     linalg.
func.func @ew(%a: tensor<100000xf32>) -> tensor<100000xf32> {
  %e = tensor.empty() : tensor<100000xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<100000xf32>) outs(%e : tensor<100000xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = math.exp %x : f32
    linalg.yield %s : f32
  } -> tensor<100000xf32>
  return %0 : tensor<100000xf32>
}
func.func @rowsum(%a: tensor<300x64xf32>) -> tensor<300xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<300xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<300xf32>) -> tensor<300xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%a : tensor<300x64xf32>) outs(%init : tensor<300xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  } -> tensor<300xf32>
  return %0 : tensor<300xf32>
}

// RUN: ireec opt %s --target=c --pass-pipeline=iree-abi-wrap-entry-points,iree-dispatch-creation-form-dispatch-regions,iree-flow-outline-dispatch-regions,iree-stream-schedule-allocation,iree-hal-materialize-interfaces,linalg-generalize-named-ops,iree-llvmcpu-select-lowering-strategy,iree-codegen-iree-comprehensive-bufferize,ireec-promote-narrow-operands | filecheck %s

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
func.func @masked_max(%mask: tensor<16x16xi1>, %x: tensor<4x16x16xf32>) -> tensor<4x16xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<4x16xf32>
  %init = linalg.fill ins(%ninf : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (i, j)>, affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%mask, %x : tensor<16x16xi1>, tensor<4x16x16xf32>) outs(%init : tensor<4x16xf32>) {
  ^bb0(%m: i1, %v: f32, %acc: f32):
    %s = arith.select %m, %v, %ninf : f32
    %y = arith.maximumf %s, %acc : f32
    linalg.yield %y : f32
  } -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// An i1 operand that only meets other i1 values is left as it is: nothing to widen for.
// CHECK-LABEL:   func.func @mask_and_dispatch_0
// CHECK-NOT:       memref.alloca
// CHECK:           return
func.func @mask_and(%a: tensor<64xi1>, %b: tensor<64xi1>) -> tensor<64xi1> {
  %e = tensor.empty() : tensor<64xi1>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%a, %b : tensor<64xi1>, tensor<64xi1>) outs(%e : tensor<64xi1>) {
  ^bb0(%x: i1, %y: i1, %o: i1):
    %z = arith.andi %x, %y : i1
    linalg.yield %z : i1
  } -> tensor<64xi1>
  return %r : tensor<64xi1>
}

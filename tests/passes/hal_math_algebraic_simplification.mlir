// RUN: ireec opt %s --pass-pipeline=iree-abi-wrap-entry-points,iree-dispatch-creation-form-dispatch-regions,iree-flow-outline-dispatch-regions,iree-stream-schedule-allocation,iree-hal-materialize-interfaces,linalg-generalize-named-ops,iree-llvmcpu-select-lowering-strategy,iree-codegen-iree-comprehensive-bufferize,convert-linalg-to-loops,math-algebraic-simplification | filecheck %s

// x^3 by square and multiply: x*x, then x * (x*x); no fpowi is left.
// CHECK:       func.func @cube_dispatch_0_elementwise_64_f32()
// CHECK:           %[[X:.*]] = memref.load
// CHECK-NEXT:      %[[SQ:.*]] = arith.mulf %[[X]], %[[X]] : f32
// CHECK-NEXT:      %[[CUBE:.*]] = arith.mulf %[[X]], %[[SQ]] : f32
// CHECK-NEXT:      memref.store %[[CUBE]]
// CHECK-NOT:     math.fpowi
// x^-2 (powf with an f64 literal truncated to f32): 1 / (x*x); the unused truncf is left to
// remove-dead-values.
// CHECK:       func.func @recip_square_dispatch_0_elementwise_64_f32()
// CHECK:           %[[Y:.*]] = memref.load
// CHECK-NEXT:      arith.truncf
// CHECK-NEXT:      %[[YY:.*]] = arith.mulf %[[Y]], %[[Y]] : f32
// CHECK-NEXT:      %[[ONE:.*]] = arith.constant 1.0e+00 : f32
// CHECK-NEXT:      %[[R:.*]] = arith.divf %[[ONE]], %[[YY]] : f32
// CHECK-NEXT:      memref.store %[[R]]
// A fractional exponent keeps math.powf.
// CHECK:       func.func @root_dispatch_0_elementwise_64_f32()
// CHECK:           math.powf
func.func @cube(%a: tensor<64xf32>) -> tensor<64xf32> {
  %e = tensor.empty() : tensor<64xf32>
  %c3 = arith.constant 3 : i64
  %0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = math.fpowi %x, %c3 : f32, i64
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %0 : tensor<64xf32>
}
func.func @recip_square(%a: tensor<64xf32>) -> tensor<64xf32> {
  %e = tensor.empty() : tensor<64xf32>
  %m2 = arith.constant -2.0 : f64
  %0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.truncf %m2 : f64 to f32
    %s = math.powf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %0 : tensor<64xf32>
}
func.func @root(%a: tensor<64xf32>) -> tensor<64xf32> {
  %e = tensor.empty() : tensor<64xf32>
  %h = arith.constant 0.5 : f32
  %0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = math.powf %x, %h : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %0 : tensor<64xf32>
}

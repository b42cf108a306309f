// RUN: ireec opt %s --pass-pipeline=iree-abi-wrap-entry-points,iree-dispatch-creation-form-dispatch-regions,iree-flow-outline-dispatch-regions,iree-stream-schedule-allocation,iree-hal-materialize-interfaces,linalg-generalize-named-ops,iree-llvmcpu-select-lowering-strategy,iree-codegen-iree-comprehensive-bufferize,convert-linalg-to-loops,iree-codegen-math-transform | filecheck %s

// f32 tanh becomes the clamp, the two Horner polynomials in x^2, their quotient and the
// select of x itself for tiny |x|; no math.tanh is left. f64 tanh keeps its libm call.
// CHECK:       func.func @t_dispatch_0_elementwise_64_f32()
// CHECK:         scf.for
// CHECK:           memref.load
// CHECK:           arith.cmpf olt
// CHECK:           arith.select
// CHECK:           arith.cmpf ogt
// CHECK:           arith.select
// CHECK:           arith.mulf
// CHECK:           arith.divf
// CHECK:           math.absf
// CHECK:           arith.cmpf olt
// CHECK:           arith.select
// CHECK-NEXT:      memref.store
// CHECK-NOT:     math.tanh
// CHECK:       func.func @d_dispatch_0_elementwise_64_f64()
// CHECK:           math.tanh
// f32 exp: floor(x log2 e + 0.5), the reduced argument's polynomial, 2^k from exponent
// bits in two halves, then +inf / 0 outside the range.
// CHECK:       func.func @x_dispatch_0_elementwise_64_f32()
// CHECK:           math.floor
// CHECK:           arith.fptosi
// CHECK:           arith.shrsi
// CHECK:           arith.shli
// CHECK:           arith.bitcast
// CHECK:           arith.shli
// CHECK:           arith.bitcast
// CHECK:           arith.select
// CHECK:           arith.select
// CHECK-NEXT:      memref.store
// CHECK-NOT:     math.exp
func.func @t(%a: tensor<64xf32>) -> tensor<64xf32> {
  %e = tensor.empty() : tensor<64xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = math.tanh %x : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %0 : tensor<64xf32>
}
func.func @d(%a: tensor<64xf64>) -> tensor<64xf64> {
  %e = tensor.empty() : tensor<64xf64>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<64xf64>) outs(%e : tensor<64xf64>) {
  ^bb0(%x: f64, %o: f64):
    %s = math.tanh %x : f64
    linalg.yield %s : f64
  } -> tensor<64xf64>
  return %0 : tensor<64xf64>
}
func.func @x(%a: tensor<64xf32>) -> tensor<64xf32> {
  %e = tensor.empty() : tensor<64xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = math.exp %x : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %0 : tensor<64xf32>
}

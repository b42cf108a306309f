// RUN: ireec opt %s --pass-pipeline=iree-util-fold-globals | filecheck %s

// ml_program globals become util globals; @weights, never stored, is folded into a constant
// and goes; the mutable @counter stays as module state.
// CHECK-NOT:   @weights
// CHECK:       util.global private mutable @counter = dense<2.0e+00> : tensor<f32>
// CHECK-LABEL: func.func @main
// CHECK-NEXT:    %[[W:.+]] = arith.constant dense<[1.0e+00, 2.0e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[C:.+]] = util.global.load @counter : tensor<f32>
// CHECK-NEXT:    %[[S:.+]] = stablehlo.add %[[C]], %[[C]] : tensor<f32>
// CHECK-NEXT:    util.global.store %[[S]], @counter : tensor<f32>
// CHECK-NEXT:    stablehlo.add %arg0, %[[W]] : tensor<2xf32>
// CHECK-NOT:   ml_program
module {
  ml_program.global private @weights(dense<[1.0e+00, 2.0e+00]> : tensor<2xf32>) : tensor<2xf32>
  ml_program.global private mutable @counter(dense<2.0e+00> : tensor<f32>) : tensor<f32>
  func.func @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {
    %0 = ml_program.global_load @weights : tensor<2xf32>
    %1 = ml_program.global_load @counter : tensor<f32>
    %2 = stablehlo.add %1, %1 : tensor<f32>
    ml_program.global_store @counter = %2 : tensor<f32>
    %3 = stablehlo.add %arg0, %0 : tensor<2xf32>
    return %3 : tensor<2xf32>
  }
}

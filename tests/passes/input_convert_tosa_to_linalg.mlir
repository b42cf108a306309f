// RUN: ireec opt %s --pass-pipeline=tosa-to-linalg | filecheck %s

// tosa.add and tosa.abs become elementwise linalg.generic ops with arith/math payloads.
// CHECK-LABEL: func.func @main(%arg0: tensor<2x3xf32>, %arg1: tensor<2x3xf32>)
// CHECK:         %[[E:.+]] = tensor.empty() : tensor<2x3xf32>
// CHECK:         %[[ADD:.+]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]} ins(%arg0, %arg1 : tensor<2x3xf32>, tensor<2x3xf32>) outs(%[[E]] : tensor<2x3xf32>)
// CHECK:           arith.addf
// CHECK:         linalg.generic {{.*}} ins(%[[ADD]] : tensor<2x3xf32>)
// CHECK:           math.absf
// CHECK-NOT:   tosa.
module {
  func.func @main(%arg0: tensor<2x3xf32>, %arg1: tensor<2x3xf32>) -> tensor<2x3xf32> {
    %0 = tosa.add %arg0, %arg1 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %1 = tosa.abs %0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
    return %1 : tensor<2x3xf32>
  }
}

// RUN: ireec opt %s --pass-pipeline=iree-codegen-decompose-softmax | filecheck %s

// softmax along dim 1: max-reduce (fill -inf, maxnumf), exp(x - max), sum-reduce (fill 0,
// addf), divide.
// CHECK-LABEL: func.func @main(%arg0: tensor<2x8xf32>)
// CHECK:         %[[NINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK:         %[[F:.+]] = linalg.fill ins(%[[NINF]] : f32) outs(%{{.+}} : tensor<2xf32>)
// CHECK:         %[[MAX:.+]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<2x8xf32>) outs(%[[F]] : tensor<2xf32>)
// CHECK:           arith.maxnumf
// CHECK:         %[[EXP:.+]] = linalg.generic {{.*}} ins(%arg0, %[[MAX]] : tensor<2x8xf32>, tensor<2xf32>)
// CHECK:           arith.subf
// CHECK:           math.exp
// CHECK:         %[[SUM:.+]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]} ins(%[[EXP]] : tensor<2x8xf32>)
// CHECK:           arith.addf
// CHECK:         %[[DIV:.+]] = linalg.generic {{.*}} ins(%[[EXP]], %[[SUM]] : tensor<2x8xf32>, tensor<2xf32>)
// CHECK:           arith.divf
// CHECK:         return %[[DIV]]
// CHECK-NOT:   linalg.softmax
module {
  func.func @main(%arg0: tensor<2x8xf32>) -> tensor<2x8xf32> {
    %0 = tensor.empty() : tensor<2x8xf32>
    %1 = linalg.softmax dimension(1) ins(%arg0 : tensor<2x8xf32>) outs(%0 : tensor<2x8xf32>) -> tensor<2x8xf32>
    return %1 : tensor<2x8xf32>
  }
}

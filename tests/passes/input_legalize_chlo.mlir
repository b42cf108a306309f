// RUN: ireec opt %s --pass-pipeline=chlo-legalize-to-stablehlo | filecheck %s

// chlo.broadcast_add: the operand of lower rank is broadcast numpy-style (trailing dims
// aligned) to the result's shape, then added with stablehlo.add.
// CHECK-LABEL: func.func @main(%arg0: tensor<4xf32>, %arg1: tensor<3x4xf32>)
// CHECK-NEXT:    %[[B:.+]] = stablehlo.broadcast_in_dim %arg0, dims = [1] : (tensor<4xf32>) -> tensor<3x4xf32>
// CHECK-NEXT:    %[[R:.+]] = stablehlo.add %[[B]], %arg1 : tensor<3x4xf32>
// CHECK-NEXT:    return %[[R]]
// CHECK-NOT:   chlo.
module {
  func.func @main(%arg0: tensor<4xf32>, %arg1: tensor<3x4xf32>) -> tensor<3x4xf32> {
    %0 = chlo.broadcast_add %arg0, %arg1 : (tensor<4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
    return %0 : tensor<3x4xf32>
  }
}

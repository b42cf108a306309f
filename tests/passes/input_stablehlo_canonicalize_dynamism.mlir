// RUN: ireec opt %s --split-input-file --pass-pipeline=stablehlo-canonicalize-dynamism | filecheck %s

// dynamic_reshape with a constant shape becomes reshape with the static result type, cast
// back to the dynamic type its users expect.
// CHECK-LABEL: func.func @main(%arg0: tensor<2x3xf32>)
// CHECK:         %[[R:.+]] = stablehlo.reshape %arg0 : (tensor<2x3xf32>) -> tensor<6xf32>
// CHECK-NEXT:    tensor.cast %[[R]] : tensor<6xf32> to tensor<?xf32>
// CHECK-NOT:   dynamic_reshape
module {
  func.func @main(%arg0: tensor<2x3xf32>) -> tensor<6xf32> {
    %0 = stablehlo.constant dense<[6]> : tensor<1xi64>
    %1 = stablehlo.dynamic_reshape %arg0, %0 : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<?xf32>
    %2 = tensor.cast %1 : tensor<?xf32> to tensor<6xf32>
    return %2 : tensor<6xf32>
  }
}

// -----

// dynamic_broadcast_in_dim with a constant shape becomes broadcast_in_dim (same dims).
// CHECK-LABEL: func.func @main(%arg0: tensor<3xf32>)
// CHECK:         %[[B:.+]] = stablehlo.broadcast_in_dim %arg0, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    tensor.cast %[[B]] : tensor<2x3xf32> to tensor<?x?xf32>
// CHECK-NOT:   dynamic_broadcast_in_dim
module {
  func.func @main(%arg0: tensor<3xf32>) -> tensor<2x3xf32> {
    %0 = stablehlo.constant dense<[2, 3]> : tensor<2xi64>
    %1 = stablehlo.dynamic_broadcast_in_dim %arg0, %0, dims = [1] : (tensor<3xf32>, tensor<2xi64>) -> tensor<?x?xf32>
    %2 = tensor.cast %1 : tensor<?x?xf32> to tensor<2x3xf32>
    return %2 : tensor<2x3xf32>
  }
}

// RUN: ireec opt %s --pass-pipeline=stablehlo-refine-shapes | filecheck %s

// stablehlo.abs of a static constant behind a cast to tensor<?x?xf32> reads the constant and
// gets the static result type; a cast gives its users the dynamic type they had.
// CHECK-LABEL: func.func @main(%arg0: tensor<2x3xf32>)
// CHECK:         %[[C:.+]] = arith.constant dense<1.0e+00> : tensor<2x3xf32>
// CHECK:         %[[A:.+]] = stablehlo.abs %[[C]] : tensor<2x3xf32>
// CHECK-NEXT:    tensor.cast %[[A]] : tensor<2x3xf32> to tensor<?x?xf32>
module {
  func.func @main(%arg0: tensor<2x3xf32>) -> tensor<2x3xf32> {
    %0 = arith.constant dense<1.0e+00> : tensor<2x3xf32>
    %1 = tensor.cast %0 : tensor<2x3xf32> to tensor<?x?xf32>
    %2 = stablehlo.abs %1 : tensor<?x?xf32>
    %3 = tensor.cast %2 : tensor<?x?xf32> to tensor<2x3xf32>
    %4 = stablehlo.add %3, %arg0 : tensor<2x3xf32>
    return %4 : tensor<2x3xf32>
  }
}

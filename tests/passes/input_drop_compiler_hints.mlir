// RUN: ireec opt %s --split-input-file --pass-pipeline=iree-util-drop-compiler-hints | filecheck %s

// util.unfoldable_constant becomes arith.constant; util.optimization_barrier forwards its
// operand.
// CHECK-LABEL: func.func @main(%arg0: tensor<3xf32>)
// CHECK-NEXT:    %[[C:.+]] = arith.constant dense<[1.0e+00, 2.0e+00, 3.0e+00]> : tensor<3xf32>
// CHECK-NEXT:    stablehlo.add %arg0, %[[C]] : tensor<3xf32>
// CHECK-NOT:   util.
module {
  func.func @main(%arg0: tensor<3xf32>) -> tensor<3xf32> {
    %0 = util.unfoldable_constant dense<[1.0e+00, 2.0e+00, 3.0e+00]> : tensor<3xf32>
    %1 = util.optimization_barrier %arg0 : tensor<3xf32>
    %2 = stablehlo.add %1, %0 : tensor<3xf32>
    return %2 : tensor<3xf32>
  }
}

// -----

// flow.tensor.dynamic_constant becomes the static constant and a cast to its dynamic type.
// CHECK-LABEL: func.func @main(%arg0: tensor<2xf32>)
// CHECK-NEXT:    %[[C:.+]] = arith.constant dense<[1.0e+00, 2.0e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[D:.+]] = tensor.cast %[[C]] : tensor<2xf32> to tensor<?xf32>
// CHECK-NEXT:    return %[[D]] : tensor<?xf32>
module {
  func.func @main(%arg0: tensor<2xf32>) -> tensor<?xf32> {
    %0 = flow.tensor.dynamic_constant dense<[1.0e+00, 2.0e+00]> : tensor<2xf32> -> tensor<?xf32>
    return %0 : tensor<?xf32>
  }
}

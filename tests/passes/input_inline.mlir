// RUN: ireec opt %s --pass-pipeline=inline | filecheck %s

// The call of @scale becomes its body, with the callee's argument replaced by the call's
// operand; @scale, private and left without callers, is erased.
// CHECK-NOT:   func.func private @scale
// CHECK-LABEL: func.func @main(%arg0: tensor<4xf32>)
// CHECK-NEXT:    %[[M:.+]] = stablehlo.multiply %arg0, %arg0 : tensor<4xf32>
// CHECK-NEXT:    %[[A:.+]] = stablehlo.add %[[M]], %arg0 : tensor<4xf32>
// CHECK-NEXT:    return %[[A]]
// CHECK-NOT:   call
func.func private @scale(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.multiply %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = call @scale(%a) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = stablehlo.add %0, %a : tensor<4xf32>
  return %1 : tensor<4xf32>
}

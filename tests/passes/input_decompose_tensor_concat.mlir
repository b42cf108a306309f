// RUN: ireec opt %s --pass-pipeline=decompose-tensor-concat | filecheck %s

// concat along dim 0 of 2x3 and 4x3: an empty 6x3 tensor and one insert_slice per input, the
// second at offset 2.
// CHECK-LABEL: func.func @main(%arg0: tensor<2x3xf32>, %arg1: tensor<4x3xf32>)
// CHECK-NEXT:    %[[E:.+]] = tensor.empty() : tensor<6x3xf32>
// CHECK-NEXT:    %[[A:.+]] = tensor.insert_slice %arg0 into %[[E]][0, 0] [2, 3] [1, 1]
// CHECK-NEXT:    %[[B:.+]] = tensor.insert_slice %arg1 into %[[A]][2, 0] [4, 3] [1, 1]
// CHECK-NEXT:    return %[[B]]
module {
  func.func @main(%arg0: tensor<2x3xf32>, %arg1: tensor<4x3xf32>) -> tensor<6x3xf32> {
    %0 = tensor.concat dim(0) %arg0, %arg1 : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<6x3xf32>
    return %0 : tensor<6x3xf32>
  }
}

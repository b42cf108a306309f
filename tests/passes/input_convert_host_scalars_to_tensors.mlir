// RUN: ireec opt %s --split-input-file --pass-pipeline=convert-host-scalars-to-tensors | filecheck %s

// The scalar %y the host computes and the payload uses is written into a rank-0 tensor by
// the host and read back at the top of the payload.
// CHECK-LABEL: func.func @main(%arg0: tensor<4xf32>, %arg1: tensor<f32>)
// CHECK:         %[[Y:.+]] = arith.mulf
// CHECK-NEXT:    %[[T:.+]] = tensor.from_elements %[[Y]] : tensor<f32>
// CHECK:         linalg.generic
// CHECK-NEXT:    ^bb0(%[[IN:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      %[[V:.+]] = tensor.extract %[[T]][] : tensor<f32>
// CHECK-NEXT:      arith.mulf %[[IN]], %[[V]] : f32
module {
  func.func @main(%arg0: tensor<4xf32>, %arg1: tensor<f32>) -> tensor<4xf32> {
    %0 = tensor.extract %arg1[] : tensor<f32>
    %1 = arith.mulf %0, %0 : f32
    %2 = tensor.empty() : tensor<4xf32>
    %3 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%arg0 : tensor<4xf32>) outs(%2 : tensor<4xf32>) {
    ^bb0(%arg2: f32, %arg3: f32):
      %4 = arith.mulf %arg2, %1 : f32
      linalg.yield %4 : f32
    } -> tensor<4xf32>
    return %3 : tensor<4xf32>
  }
}

// -----

// A named op's scalar inputs (the zero points of a quantized matmul, read from a tensor by
// the host) become rank-0 tensors; constants stay scalars, cloned into the dispatch later.
// CHECK-LABEL: func.func @zero_points
// CHECK:         %[[AZP:.+]] = tensor.extract
// CHECK-NEXT:    %[[T:.+]] = tensor.from_elements %[[AZP]] : tensor<i32>
// CHECK:         %[[BZP:.+]] = arith.constant 3 : i32
// CHECK:         linalg.quantized_matmul ins(%arg0, %arg1, %[[T]], %[[BZP]] : tensor<4x8xi8>, tensor<8x16xi8>, tensor<i32>, i32)
module {
  func.func @zero_points(%arg0: tensor<4x8xi8>, %arg1: tensor<8x16xi8>, %arg2: tensor<i32>, %arg3: tensor<4x16xi32>) -> tensor<4x16xi32> {
    %0 = tensor.extract %arg2[] : tensor<i32>
    %c3 = arith.constant 3 : i32
    %1 = linalg.quantized_matmul ins(%arg0, %arg1, %0, %c3 : tensor<4x8xi8>, tensor<8x16xi8>, i32, i32) outs(%arg3 : tensor<4x16xi32>) -> tensor<4x16xi32>
    return %1 : tensor<4x16xi32>
  }
}

// RUN: ireec opt %s --pass-pipeline=iree-flow-convert-splat-constants-to-fills | filecheck %s

// A 512x512 splat constant becomes an empty tensor filled with its value.
// CHECK-LABEL: func.func @main(%arg0: tensor<512x512xf32>)
// CHECK-NEXT:    %[[V:.+]] = arith.constant 2.0e+00 : f32
// CHECK-NEXT:    %[[E:.+]] = tensor.empty() : tensor<512x512xf32>
// CHECK-NEXT:    %[[F:.+]] = linalg.fill ins(%[[V]] : f32) outs(%[[E]] : tensor<512x512xf32>)
// CHECK:         linalg.generic {{.*}} ins(%arg0, %[[F]] : tensor<512x512xf32>, tensor<512x512xf32>)
// CHECK-NOT:   dense<2.0e+00>
module {
  func.func @main(%arg0: tensor<512x512xf32>) -> tensor<512x512xf32> {
    %0 = arith.constant dense<2.0e+00> : tensor<512x512xf32>
    %1 = tensor.empty() : tensor<512x512xf32>
    %2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%arg0, %0 : tensor<512x512xf32>, tensor<512x512xf32>) outs(%1 : tensor<512x512xf32>) {
    ^bb0(%arg1: f32, %arg2: f32, %arg3: f32):
      %3 = arith.addf %arg1, %arg2 : f32
      linalg.yield %3 : f32
    } -> tensor<512x512xf32>
    return %2 : tensor<512x512xf32>
  }
}

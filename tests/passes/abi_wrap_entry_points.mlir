// RUN: ireec opt %s --pass-pipeline=iree-abi-wrap-entry-points | filecheck %s

// The public function takes and returns !hal.buffer_view; tensors cross with
// hal.tensor.import / export, named input<i> / output<i>; the reflection attribute records
// the tensor signature.
// CHECK-LABEL: func.func @main(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view) -> !hal.buffer_view
// CHECK-SAME:    iree.abi.stub
// CHECK-SAME:    iree.abi.declaration = "sync func @main(%input0: tensor<2x3xf32>, %input1: tensor<2x3xf32>) -> (%output0: tensor<2x3xf32>)"
// CHECK-NEXT:    %[[A:.+]] = hal.tensor.import %arg0 "input0" : !hal.buffer_view -> tensor<2x3xf32>
// CHECK-NEXT:    %[[B:.+]] = hal.tensor.import %arg1 "input1" : !hal.buffer_view -> tensor<2x3xf32>
// CHECK:         %[[R:.+]] = linalg.generic {{.*}} ins(%[[A]], %[[B]] : tensor<2x3xf32>, tensor<2x3xf32>)
// CHECK:         %[[V:.+]] = hal.tensor.export %[[R]] "output0" : tensor<2x3xf32> -> !hal.buffer_view
// CHECK-NEXT:    return %[[V]] : !hal.buffer_view
module {
  func.func @main(%arg0: tensor<2x3xf32>, %arg1: tensor<2x3xf32>) -> tensor<2x3xf32> {
    %0 = tensor.empty() : tensor<2x3xf32>
    %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%arg0, %arg1 : tensor<2x3xf32>, tensor<2x3xf32>) outs(%0 : tensor<2x3xf32>) {
    ^bb0(%arg2: f32, %arg3: f32, %arg4: f32):
      %2 = arith.addf %arg2, %arg3 : f32
      linalg.yield %2 : f32
    } -> tensor<2x3xf32>
    return %1 : tensor<2x3xf32>
  }
}

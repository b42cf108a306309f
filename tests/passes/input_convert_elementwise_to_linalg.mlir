// RUN: ireec opt %s --pass-pipeline=convert-elementwise-to-linalg | filecheck %s

// arith.addf and math.exp on tensors become linalg.generic ops: identity maps, parallel
// loops, the scalar op cloned into the body.
// CHECK-LABEL: func.func @main(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>)
// CHECK:         %[[ADD:.+]] = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%arg0, %arg1 : tensor<4xf32>, tensor<4xf32>)
// CHECK-NEXT:    ^bb0(%[[X:.+]]: f32, %[[Y:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      %[[S:.+]] = arith.addf %[[X]], %[[Y]] : f32
// CHECK-NEXT:      linalg.yield %[[S]] : f32
// CHECK:         linalg.generic {{.*}} ins(%[[ADD]] : tensor<4xf32>)
// CHECK:           math.exp %{{.+}} : f32
module {
  func.func @main(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> tensor<4xf32> {
    %0 = arith.addf %arg0, %arg1 : tensor<4xf32>
    %1 = math.exp %0 : tensor<4xf32>
    return %1 : tensor<4xf32>
  }
}

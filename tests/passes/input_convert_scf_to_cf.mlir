// RUN: ireec opt %s --pass-pipeline=convert-scf-to-cf | filecheck %s

// scf.while becomes a loop of blocks: a branch to the "before" block, which ends in a
// conditional branch to the body or out; the body branches back with the yielded value.
// CHECK-LABEL: func.func @main(%arg0: tensor<f32>)
// CHECK-NEXT:    cf.br ^bb1(%arg0 : tensor<f32>)
// CHECK-NEXT:  ^bb1(%[[X:.+]]: tensor<f32>):
// CHECK:         %[[C:.+]] = tensor.extract
// CHECK-NEXT:    cf.cond_br %[[C]], ^bb2(%[[X]] : tensor<f32>), ^bb3(%[[X]] : tensor<f32>)
// CHECK-NEXT:  ^bb2(%{{.+}}: tensor<f32>):
// CHECK:         %[[Y:.+]] = linalg.generic
// CHECK:         cf.br ^bb1(%[[Y]] : tensor<f32>)
// CHECK-NEXT:  ^bb3(%[[R:.+]]: tensor<f32>):
// CHECK-NEXT:    return %[[R]] : tensor<f32>
// CHECK-NOT:   scf.
module {
  func.func @main(%arg0: tensor<f32>) -> tensor<f32> {
    %0 = scf.while (%arg1 = %arg0) : (tensor<f32>) -> tensor<f32> {
      %1 = arith.constant dense<1.0e+01> : tensor<f32>
      %2 = tensor.empty() : tensor<i1>
      %3 = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []} ins(%arg1, %1 : tensor<f32>, tensor<f32>) outs(%2 : tensor<i1>) {
      ^bb0(%arg2: f32, %arg3: f32, %arg4: i1):
        %4 = arith.cmpf olt, %arg2, %arg3 : f32
        linalg.yield %4 : i1
      } -> tensor<i1>
      %5 = tensor.extract %3[] : tensor<i1>
      scf.condition(%5) %arg1 : tensor<f32>
    } do {
    ^bb0(%arg5: tensor<f32>):
      %6 = tensor.empty() : tensor<f32>
      %7 = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []} ins(%arg5, %arg5 : tensor<f32>, tensor<f32>) outs(%6 : tensor<f32>) {
      ^bb0(%arg6: f32, %arg7: f32, %arg8: f32):
        %8 = arith.addf %arg6, %arg7 : f32
        linalg.yield %8 : f32
      } -> tensor<f32>
      scf.yield %7 : tensor<f32>
    }
    return %0 : tensor<f32>
  }
}

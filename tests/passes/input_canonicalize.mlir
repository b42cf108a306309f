// RUN: ireec opt %s --pass-pipeline=canonicalize | filecheck %s

// Constant integer arithmetic folds; a constant size moves into the static type of
// tensor.empty; the tensor.cast back to the dynamic type then folds away and the function's
// result type becomes static; dead ops are erased.
// CHECK-LABEL: func.func @refine
// CHECK-SAME:    -> tensor<6xf32>
// CHECK-NOT:     arith.addi
// CHECK:         tensor.empty() : tensor<6xf32>
// CHECK:         linalg.generic
// CHECK:         } -> tensor<6xf32>
// CHECK-NOT:     tensor.cast
// CHECK-NOT:     tensor.dim
// CHECK:         return {{.*}} : tensor<6xf32>
func.func @refine(%a: tensor<6xf32>) -> tensor<?xf32> {
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %n = arith.addi %c2, %c4 : index
  %e = tensor.empty(%n) : tensor<?xf32>
  %unused = tensor.dim %a, %c2 : tensor<6xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<6xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = math.exp %x : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// tensor.dim of a static dimension is a constant.
// CHECK-LABEL: func.func @static_dim
// CHECK:         %[[C:[0-9]+]] = arith.constant 7 : index
// CHECK-NOT:     tensor.dim
// CHECK:         return %[[C]] : index
func.func @static_dim(%a: tensor<3x7xf32>) -> index {
  %c1 = arith.constant 1 : index
  %d = tensor.dim %a, %c1 : tensor<3x7xf32>
  return %d : index
}

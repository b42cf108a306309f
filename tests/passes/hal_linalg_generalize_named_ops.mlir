// RUN: ireec opt %s --pass-pipeline=linalg-generalize-named-ops | filecheck %s

// Named ops become linalg.generic with the maps and iterators of their definition.
// CHECK-LABEL: func.func @matmul
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "reduction"]
// CHECK:           arith.mulf
// CHECK:           arith.addf
// CHECK-NOT:     linalg.matmul
func.func @matmul(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// CHECK-LABEL: func.func @transpose
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-NOT:     linalg.transpose
func.func @transpose(%a: tensor<4x8xf32>, %init: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %0 = linalg.transpose ins(%a : tensor<4x8xf32>) outs(%init : tensor<8x4xf32>) permutation = [1, 0]
  return %0 : tensor<8x4xf32>
}

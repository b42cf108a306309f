// RUN: ireec opt %s --pass-pipeline=iree-stablehlo-to-linalg | filecheck %s

// CHECK-LABEL: func.func @add
// CHECK:         tensor.empty() : tensor<2x3xf32>
// CHECK:         linalg.generic
// CHECK-SAME:      iterator_types = ["parallel", "parallel"]
// CHECK-SAME:      ins(%arg0, %arg1 : tensor<2x3xf32>, tensor<2x3xf32>)
// CHECK:           arith.addf
// CHECK-NOT:     stablehlo.
// CHECK:         return

// dot_general with the contraction of a matmul is linalg.matmul on a zero-filled init.
// CHECK-LABEL: func.func @dot
// CHECK:         %[[Z:[0-9]+]] = arith.constant 0.0{{.*}} : f32
// CHECK:         %[[F:[0-9]+]] = linalg.fill ins(%[[Z]] : f32)
// CHECK:         linalg.matmul ins(%arg0, %arg1 : tensor<2x3xf32>, tensor<3x5xf32>) outs(%[[F]] : tensor<2x5xf32>)

// broadcast_in_dim: the operand's map keeps the dims it maps to.
// CHECK-LABEL: func.func @bcast
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>]

// reduce over dimension 1: a reduction generic over a fill of the init value.
// CHECK-LABEL: func.func @sum
// CHECK:         linalg.fill
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>]
// CHECK-SAME:      iterator_types = ["parallel", "reduction"]
// CHECK:           arith.addf
// CHECK-NOT:     stablehlo.
func.func @add(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = stablehlo.add %a, %b : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
func.func @dot(%a: tensor<2x3xf32>, %b: tensor<3x5xf32>) -> tensor<2x5xf32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}
func.func @bcast(%a: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = stablehlo.broadcast_in_dim %a, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
func.func @sum(%a: tensor<2x3xf32>) -> tensor<2xf32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// A depthwise convolution (feature_group_count = input features, one output feature per
// group) indexes its feature dims by the group dim alone: no reshape of the input, the
// kernel (its input feature dim of size 1 read at 0) or the result.
// CHECK-LABEL: func.func @depthwise
// CHECK-NOT:     tensor.expand_shape
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d2 * 2 + d4, d3 * 2 + d5, d1)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5, 0, d1)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d2, d3, d1)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
// CHECK-NOT:     tensor.collapse_shape
// CHECK:         return
func.func @depthwise(%x: tensor<1x9x9x8xf32>, %w: tensor<3x3x1x8xf32>) -> tensor<1x4x4x8xf32> {
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 2]} {batch_group_count = 1 : i64, feature_group_count = 8 : i64} : (tensor<1x9x9x8xf32>, tensor<3x3x1x8xf32>) -> tensor<1x4x4x8xf32>
  return %0 : tensor<1x4x4x8xf32>
}

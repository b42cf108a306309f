// RUN: ireec opt %s --pass-pipeline=ireec-map-dynamic-dims | filecheck %s

// JAX's symbolic batch: every `?` of the batch becomes 1, the shape computation
// (get_dimension_size -> reshape -> concatenate) becomes a constant shape operand of the
// slice, the shape assertion becomes an entry check recorded with the symbols.
// CHECK-LABEL: func.func @jax_batch
// CHECK-SAME:    (%{{.*}}: tensor<1x4xf32>) -> tensor<1x4xf32>
// CHECK-SAME:    ireec.dynamic_dims = {symbols = [array<i64: 0, 0>], arg_dims = [array<i64: 0, 0, 0>], args = [array<i64: 0>], results = [array<i64: 0>], checks = {{\[\[}}0, ">=", 1]]}
// CHECK-NOT:     stablehlo.get_dimension_size
// CHECK-NOT:     stablehlo.custom_call
// CHECK:         %[[SHAPE:.*]] = stablehlo.constant dense<[1, 4]> : tensor<2xi32>
// CHECK:         stablehlo.dynamic_broadcast_in_dim %{{.*}}, %[[SHAPE]], dims = [1] : (tensor<4xf32>, tensor<2xi32>) -> tensor<1x4xf32>
// CHECK:         stablehlo.add {{.*}} : tensor<1x4xf32>
func.func @jax_batch(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %c1 = stablehlo.constant dense<1> : tensor<i32>
  %c4 = stablehlo.constant dense<4> : tensor<1xi32>
  %bias = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %n = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?x4xf32>) -> tensor<i32>
  %ok = stablehlo.compare GE, %n, %c1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
  stablehlo.custom_call @shape_assertion(%ok, %n) {error_message = "b >= 1", has_side_effect = true} : (tensor<i1>, tensor<i32>) -> ()
  %n1 = stablehlo.reshape %n : (tensor<i32>) -> tensor<1xi32>
  %s = stablehlo.concatenate %n1, %c4, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %b = stablehlo.dynamic_broadcast_in_dim %bias, %s, dims = [1] : (tensor<4xf32>, tensor<2xi32>) -> tensor<?x4xf32>
  %y = stablehlo.add %x, %b : tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}

// torch-mlir's dynamic rows: tensor.dim feeds tensor.empty, whose size operand goes.
// CHECK-LABEL: func.func @torch_rows
// CHECK-SAME:    -> tensor<1x3xf32>
// CHECK-NOT:     tensor.dim
// CHECK:         tensor.empty() : tensor<1x3xf32>
// CHECK:         linalg.matmul {{.*}} -> tensor<1x3xf32>
func.func @torch_rows(%x: tensor<?x8xf32>, %w: tensor<8x3xf32>) -> tensor<?x3xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %d = tensor.dim %x, %c0 : tensor<?x8xf32>
  %e = tensor.empty(%d) : tensor<?x3xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x3xf32>) -> tensor<?x3xf32>
  %y = linalg.matmul ins(%x, %w : tensor<?x8xf32>, tensor<8x3xf32>) outs(%z : tensor<?x3xf32>) -> tensor<?x3xf32>
  return %y : tensor<?x3xf32>
}

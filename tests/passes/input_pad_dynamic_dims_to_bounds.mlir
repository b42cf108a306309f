// RUN: ireec opt %s --pass-pipeline=ireec-pad-dynamic-dims-to-bounds --dim-bound input0_dim1=8 | filecheck %s

// A softmax over the keys of a dynamic number of tokens: the slice map cannot reduce over
// them, so they are padded to the bound JAX's shape assertion gives (s < 17: 16). The
// reductions read the padding as their init value (-inf for the max, 0 for the sum), the
// extent arrives as a hidden tensor<i32> argument, and the attribute records what the
// entry point stages.
// CHECK-LABEL: func.func @softmax_keys
// CHECK-SAME:    (%[[X:.*]]: tensor<16x4xf32>, %[[EXT:.*]]: tensor<i32>) -> tensor<16x16xf32>
// CHECK-SAME:    ireec.padded_dims = {symbols = [array<i64: 0, 0, 16>], args = [array<i64: 0, 0>, array<i64>], results = [array<i64: 0, 0, 1, 0>], extents = array<i64: 1>, staging = array<i64: 256, 0, 1024>, checks = {{\[\[}}0, "<", 17]]}
// CHECK:         %[[S:.*]] = stablehlo.dot_general %[[X]], %[[X]]{{.*}} -> tensor<16x16xf32>
// CHECK:         %[[NINF:.*]] = stablehlo.constant dense<0xFF800000> : tensor<f32>
// CHECK:         %[[IOTA:.*]] = stablehlo.iota dim = 1 : tensor<1x16xi32>
// CHECK:         %[[E:.*]] = stablehlo.broadcast_in_dim %[[EXT]], dims = [] : (tensor<i32>) -> tensor<1x16xi32>
// CHECK:         %[[KEEP:.*]] = stablehlo.compare LT, %[[IOTA]], %[[E]]
// CHECK:         %[[K:.*]] = stablehlo.broadcast_in_dim %[[KEEP]], dims = [0, 1] : (tensor<1x16xi1>) -> tensor<16x16xi1>
// CHECK:         %[[F:.*]] = stablehlo.broadcast_in_dim %[[NINF]], dims = [] : (tensor<f32>) -> tensor<16x16xf32>
// CHECK:         %[[M:.*]] = stablehlo.select %[[K]], %[[S]], %[[F]]
// CHECK:         stablehlo.reduce(%[[M]] init: %[[NINF]]) applies stablehlo.maximum
// CHECK:         stablehlo.select
// CHECK:         stablehlo.reduce({{.*}}) applies stablehlo.add
func.func @softmax_keys(%x: tensor<?x4xf32>) -> tensor<?x?xf32> {
  %c17 = stablehlo.constant dense<17> : tensor<i32>
  %n = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?x4xf32>) -> tensor<i32>
  %ok = stablehlo.compare LT, %n, %c17, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
  stablehlo.custom_call @shape_assertion(%ok, %n) {error_message = "s < 17", has_side_effect = true} : (tensor<i1>, tensor<i32>) -> ()
  %s = stablehlo.dot_general %x, %x, contracting_dims = [1] x [1] : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x?xf32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %m = stablehlo.reduce(%s init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<?x?xf32>, tensor<f32>) -> tensor<?xf32>
  %n1 = stablehlo.reshape %n : (tensor<i32>) -> tensor<1xi32>
  %shape = stablehlo.concatenate %n1, %n1, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %mb = stablehlo.dynamic_broadcast_in_dim %m, %shape, dims = [0] : (tensor<?xf32>, tensor<2xi32>) -> tensor<?x?xf32>
  %d = stablehlo.subtract %s, %mb : tensor<?x?xf32>
  %e = stablehlo.exponential %d : tensor<?x?xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %sum = stablehlo.reduce(%e init: %z) applies stablehlo.add across dimensions = [1] : (tensor<?x?xf32>, tensor<f32>) -> tensor<?xf32>
  %sb = stablehlo.dynamic_broadcast_in_dim %sum, %shape, dims = [0] : (tensor<?xf32>, tensor<2xi32>) -> tensor<?x?xf32>
  %p = stablehlo.divide %e, %sb : tensor<?x?xf32>
  return %p : tensor<?x?xf32>
}

// A batch and a sequence: the batch stays mapped (still `?`, made 1 by
// ireec-map-dynamic-dims next); the sequence, bounded by --dim-bound input0_dim1=8, is
// padded. The mask of the sum over it reads the batch's extent with get_dimension_size.
// CHECK-LABEL: func.func @batch_and_seq
// CHECK-SAME:    (%[[X:.*]]: tensor<?x8x4xf32>, %[[EXT:.*]]: tensor<i32>) -> tensor<?x4xf32>
// CHECK-SAME:    ireec.padded_dims = {symbols = [array<i64: 0, 1, 8>], args = [array<i64: 1, 0>, array<i64>], results = [array<i64>], extents = array<i64: 1>
// CHECK:         %[[IOTA:.*]] = stablehlo.iota dim = 1 : tensor<1x8x1xi32>
// CHECK:         %[[B:.*]] = stablehlo.get_dimension_size %[[X]], dim = 0
// CHECK:         stablehlo.dynamic_broadcast_in_dim {{.*}} -> tensor<?x8x4xi1>
// CHECK:         %[[M:.*]] = stablehlo.select {{.*}} : tensor<?x8x4xi1>, tensor<?x8x4xf32>
// CHECK:         stablehlo.reduce(%[[M]] init: {{.*}}) applies stablehlo.add across dimensions = [1]
func.func @batch_and_seq(%x: tensor<?x?x4xf32>) -> tensor<?x4xf32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : (tensor<?x?x4xf32>, tensor<f32>) -> tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}

// What the slice map handles alone is left to it: no bound, no padding.
// CHECK-LABEL: func.func @rows
// CHECK-SAME:    (%{{.*}}: tensor<?x4xf32>) -> tensor<?x4xf32> {
// CHECK-NOT:     ireec.padded_dims
func.func @rows(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %y = stablehlo.add %x, %x : tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}

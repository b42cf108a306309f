// RUN: ireec opt %s --split-input-file --verify-diagnostics --pass-pipeline=ireec-pad-dynamic-dims-to-bounds | filecheck %s

// Without a bound, what the slice map refuses stays an error at the op, which now names the
// flag that pads the dimension instead (each chunk is checked on its own).

// CHECK-NOT: func.func @attention_scores
// CHECK-LABEL: func.func @bounded_scores
// CHECK-SAME:    tensor<8x16xf32>
func.func @attention_scores(%q: tensor<?x16xf32>, %k: tensor<?x16xf32>) -> tensor<?xf32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %s = stablehlo.dot_general %q, %k, contracting_dims = [1] x [1] : (tensor<?x16xf32>, tensor<?x16xf32>) -> tensor<?x?xf32>
  // expected-error @+1 {{'stablehlo.reduce': dynamic dimension 1 of this operand is reduced; ireec maps programs over dynamic dimensions (compiling one static slice) and cannot reduce one; with an upper bound ireec compiles a dynamic dimension padded to it instead: --dim-bound input0_dim0=N (dynamic dimensions: input0_dim0, input1_dim0)}}
  %r = stablehlo.reduce(%s init: %z) applies stablehlo.add across dimensions = [1] : (tensor<?x?xf32>, tensor<f32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// The same with a bound JAX's shape assertion gives (dim <= 8): padded.
func.func @bounded_scores(%q: tensor<?x16xf32>) -> tensor<?xf32> {
  %c8 = stablehlo.constant dense<8> : tensor<i32>
  %n = stablehlo.get_dimension_size %q, dim = 0 : (tensor<?x16xf32>) -> tensor<i32>
  %ok = stablehlo.compare LE, %n, %c8, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
  stablehlo.custom_call @shape_assertion(%ok, %n) {error_message = "s <= 8", has_side_effect = true} : (tensor<i1>, tensor<i32>) -> ()
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %s = stablehlo.dot_general %q, %q, contracting_dims = [1] x [1] : (tensor<?x16xf32>, tensor<?x16xf32>) -> tensor<?x?xf32>
  %r = stablehlo.reduce(%s init: %z) applies stablehlo.add across dimensions = [1] : (tensor<?x?xf32>, tensor<f32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}

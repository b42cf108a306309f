// Per-op type, shape and attribute constraints.

func.func @add_mixed(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xi32> {
  // expected-error @+1 {{'stablehlo.add' op requires the same element type for all operands and results}}
  %0 = "stablehlo.add"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @addf_on_integers(%a: i32, %b: i32) -> i32 {
  // expected-error @+1 {{'arith.addf' op operand #0 must be floating-point-like, but got 'i32'}}
  %0 = arith.addf %a, %b : i32
  return %0 : i32
}

// -----

func.func @extract_indices(%t: tensor<4x4xf32>, %i: index) -> f32 {
  // expected-error @+1 {{'tensor.extract' op incorrect number of indices for extract_element}}
  %0 = tensor.extract %t[%i] : tensor<4x4xf32>
  return %0 : f32
}

// -----

func.func @matmul_inner(%a: tensor<4x3xf32>, %b: tensor<4x5xf32>, %c: tensor<4x5xf32>) -> tensor<4x5xf32> {
  // expected-error @+1 {{'linalg.matmul' op inferred input/output operand #1 has shape's dimension #0 to be 3, but found 4}}
  %0 = linalg.matmul ins(%a, %b : tensor<4x3xf32>, tensor<4x5xf32>) outs(%c : tensor<4x5xf32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

func.func @dot_general_inner(%a: tensor<4x3xf32>, %b: tensor<4x5xf32>) -> tensor<4x5xf32> {
  // expected-error @+1 {{'stablehlo.dot_general' op contracting dimension sizes must match for lhs/rhs}}
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<4x3xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

func.func @batch_matmul_batch(%a: tensor<2x4x3xf32>, %b: tensor<3x3x5xf32>, %c: tensor<2x4x5xf32>) -> tensor<2x4x5xf32> {
  // expected-error @+1 {{'linalg.batch_matmul' op inferred input/output operand #1 has shape's dimension #0 to be 2, but found 3}}
  %0 = linalg.batch_matmul ins(%a, %b : tensor<2x4x3xf32>, tensor<3x3x5xf32>) outs(%c : tensor<2x4x5xf32>) -> tensor<2x4x5xf32>
  return %0 : tensor<2x4x5xf32>
}

// -----

func.func @check_const_type() {
  %a = arith.constant dense<1> : tensor<4xi32>
  // expected-error @+1 {{'check.expect_eq_const' op failed to verify that all of {lhs, value} have same type}}
  check.expect_eq_const(%a, dense<1> : tensor<4xi8>) : tensor<4xi32>
  return
}

// -----

func.func @generic_yield_count(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%b : tensor<4xf32>) {
  ^bb0(%x: f32, %y: f32):
    // expected-error @+1 {{'linalg.yield' op expected number of yield values (2) to match the number of inits / outs operands of the enclosing LinalgOp (1)}}
    linalg.yield %x, %y : f32, f32
  } -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @generic_maps(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'linalg.generic' op expected the number of indexing_map (1) to be equal to the number of input/output operands (2)}}
  %0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%b : tensor<4xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  } -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @extf_narrows(%a: f32) -> f16 {
  // expected-error @+1 {{'arith.extf' op result type 'f16' must be wider than operand type 'f32'}}
  %0 = arith.extf %a : f32 to f16
  return %0 : f16
}

// -----

func.func @cmpi_on_floats(%a: f32) -> i1 {
  // expected-error @+1 {{'arith.cmpi' op operand #0 must be signless-integer-like, but got 'f32'}}
  %0 = arith.cmpi slt, %a, %a : f32
  return %0 : i1
}

// -----

func.func @broadcast_in_dim(%a: tensor<3xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'stablehlo.broadcast_in_dim' op size of operand dimension 0 (3) is not equal to 1 or size of result dimension 1 (4)}}
  %0 = stablehlo.broadcast_in_dim %a, dims = [1] : (tensor<3xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @reshape_count(%a: tensor<2x3xf32>) -> tensor<5xf32> {
  // expected-error @+1 {{'stablehlo.reshape' op number of output elements (5) doesn't match expected number of elements (6)}}
  %0 = stablehlo.reshape %a : (tensor<2x3xf32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

func.func @transpose_perm(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{'stablehlo.transpose' op permutation [0, 0] is not a permutation of the 2 operand dimensions}}
  %0 = stablehlo.transpose %a, dims = [0, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

func.func @compare_result(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'stablehlo.compare' op result #0 must be tensor of bool values}}
  %0 = "stablehlo.compare"(%a, %a) {comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @tosa_add(%a: tensor<4xf32>, %b: tensor<4xi32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tosa.add' op requires the same element type for all operands and result}}
  %0 = tosa.add %a, %b : (tensor<4xf32>, tensor<4xi32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @empty_dynamic_sizes(%n: index) -> tensor<?x?xf32> {
  // expected-error @+1 {{'tensor.empty' op incorrect number of dynamic sizes, has 1, expected 2}}
  %0 = tensor.empty(%n) : tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

func.func @from_elements_count(%a: f32) -> tensor<2xf32> {
  // expected-error @+1 {{'tensor.from_elements' op expected 2 operands, but found 1}}
  %0 = tensor.from_elements %a : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @expand_groups(%a: tensor<6xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'tensor.expand_shape' op expected dimension 0 of the collapsed type to be static value of 8}}
  %0 = tensor.expand_shape %a [[0, 1]] output_shape [2, 4] : tensor<6xf32> into tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @dynamic_dims_are_compatible(%a: tensor<?xf32>, %b: tensor<4xf32>) -> tensor<?xf32> {
  %0 = "stablehlo.add"(%a, %b) : (tensor<?xf32>, tensor<4xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

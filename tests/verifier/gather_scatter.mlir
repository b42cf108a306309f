// The StableHLO spec's gather and scatter constraints (https://openxla.org/stablehlo/spec#gather,
// #scatter), one chunk per constraint, on the spec's batching examples; the first two chunks
// are the examples themselves and verify.

func.func @gather_spec_example(%operand: tensor<2x3x4x2xi32>, %start_indices: tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x2xi32> {
  %0 = "stablehlo.gather"(%operand, %start_indices) {dimension_numbers = #stablehlo.gather<offset_dims = [3, 4], collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [1], start_index_map = [2, 1], index_vector_dim = 3>, slice_sizes = array<i64: 1, 1, 2, 2>} : (tensor<2x3x4x2xi32>, tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x2xi32>
  return %0 : tensor<2x2x3x2x2xi32>
}

// -----

func.func @scatter_spec_example(%input: tensor<2x3x4x2xi64>, %indices: tensor<2x2x3x2xi64>, %update: tensor<2x2x3x2x2xi64>) -> tensor<2x3x4x2xi64> {
  %0 = "stablehlo.scatter"(%input, %indices, %update) ({
  ^bb0(%a: tensor<i64>, %b: tensor<i64>):
    "stablehlo.return"(%b) : (tensor<i64>) -> ()
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [3, 4], inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [1], scatter_dims_to_operand_dims = [2, 1], index_vector_dim = 3>} : (tensor<2x3x4x2xi64>, tensor<2x2x3x2xi64>, tensor<2x2x3x2x2xi64>) -> tensor<2x3x4x2xi64>
  return %0 : tensor<2x3x4x2xi64>
}

// -----

func.func @gather_c1(%operand: tensor<2x3x4x2xi32>, %start_indices: tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x2xi32> {
  // expected-error @+1 {{'stablehlo.gather' op operand rank 4 is not the number of offset_dims (1) + collapsed_slice_dims (1) + operand_batching_dims (1) (C1)}}
  %0 = "stablehlo.gather"(%operand, %start_indices) {dimension_numbers = #stablehlo.gather<offset_dims = [3], collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [1], start_index_map = [2, 1], index_vector_dim = 3>, slice_sizes = array<i64: 1, 1, 2, 2>} : (tensor<2x3x4x2xi32>, tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x2xi32>
  return %0 : tensor<2x2x3x2x2xi32>
}

// -----

func.func @gather_c2(%operand: tensor<2x3x4x2xi32>, %start_indices: tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x2xi32> {
  // expected-error @+1 {{'stablehlo.gather' op index_vector_dim 5 is out of range [0, 4], the rank of start_indices (C2)}}
  %0 = "stablehlo.gather"(%operand, %start_indices) {dimension_numbers = #stablehlo.gather<offset_dims = [3, 4], collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [1], start_index_map = [2, 1], index_vector_dim = 5>, slice_sizes = array<i64: 1, 1, 2, 2>} : (tensor<2x3x4x2xi32>, tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x2xi32>
  return %0 : tensor<2x2x3x2x2xi32>
}

// -----

func.func @gather_c3(%operand: tensor<2x3x4x2xi32>, %start_indices: tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x2xi32> {
  // expected-error @+1 {{'stablehlo.gather' op start_index_map has length 1, but the index vector (dimension 3 of start_indices) has size 2 (C3)}}
  %0 = "stablehlo.gather"(%operand, %start_indices) {dimension_numbers = #stablehlo.gather<offset_dims = [3, 4], collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [1], start_index_map = [2], index_vector_dim = 3>, slice_sizes = array<i64: 1, 1, 2, 2>} : (tensor<2x3x4x2xi32>, tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x2xi32>
  return %0 : tensor<2x2x3x2x2xi32>
}

// -----

func.func @gather_c4(%operand: tensor<2x3x4x2xi32>, %start_indices: tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x2xi32> {
  // expected-error @+1 {{'stablehlo.gather' op offset_dims [4, 3] is not sorted (C4)}}
  %0 = "stablehlo.gather"(%operand, %start_indices) {dimension_numbers = #stablehlo.gather<offset_dims = [4, 3], collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [1], start_index_map = [2, 1], index_vector_dim = 3>, slice_sizes = array<i64: 1, 1, 2, 2>} : (tensor<2x3x4x2xi32>, tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x2xi32>
  return %0 : tensor<2x2x3x2x2xi32>
}

// -----

func.func @gather_c4_unique(%operand: tensor<2x3x4x2xi32>, %start_indices: tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x2xi32> {
  // expected-error @+1 {{'stablehlo.gather' op offset_dims [3, 3] has repeated dimensions (C4)}}
  %0 = "stablehlo.gather"(%operand, %start_indices) {dimension_numbers = #stablehlo.gather<offset_dims = [3, 3], collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [1], start_index_map = [2, 1], index_vector_dim = 3>, slice_sizes = array<i64: 1, 1, 2, 2>} : (tensor<2x3x4x2xi32>, tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x2xi32>
  return %0 : tensor<2x2x3x2x2xi32>
}

// -----

func.func @gather_c5(%operand: tensor<2x3x4x2xi32>, %start_indices: tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x2xi32> {
  // expected-error @+1 {{'stablehlo.gather' op offset_dims element 5 is out of range [0, 5), the rank of the result (C5)}}
  %0 = "stablehlo.gather"(%operand, %start_indices) {dimension_numbers = #stablehlo.gather<offset_dims = [3, 5], collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [1], start_index_map = [2, 1], index_vector_dim = 3>, slice_sizes = array<i64: 1, 1, 2, 2>} : (tensor<2x3x4x2xi32>, tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x2xi32>
  return %0 : tensor<2x2x3x2x2xi32>
}

// -----

func.func @gather_c6(%operand: tensor<2x3x4x2xi32>, %start_indices: tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x2xi32> {
  // expected-error @+1 {{'stablehlo.gather' op collapsed_slice_dims ++ operand_batching_dims [0, 0] has repeated dimensions (C6)}}
  %0 = "stablehlo.gather"(%operand, %start_indices) {dimension_numbers = #stablehlo.gather<offset_dims = [3, 4], collapsed_slice_dims = [0], operand_batching_dims = [0], start_indices_batching_dims = [1], start_index_map = [2, 1], index_vector_dim = 3>, slice_sizes = array<i64: 1, 1, 2, 2>} : (tensor<2x3x4x2xi32>, tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x2xi32>
  return %0 : tensor<2x2x3x2x2xi32>
}

// -----

func.func @gather_c7(%operand: tensor<2x3x4x2xi32>, %start_indices: tensor<2x2x3x2xi64>) -> tensor<2x2x3x2xi32> {
  // expected-error @+1 {{'stablehlo.gather' op collapsed_slice_dims [2, 1] is not sorted (C7)}}
  %0 = "stablehlo.gather"(%operand, %start_indices) {dimension_numbers = #stablehlo.gather<offset_dims = [3], collapsed_slice_dims = [2, 1], operand_batching_dims = [0], start_indices_batching_dims = [1], start_index_map = [2, 1], index_vector_dim = 3>, slice_sizes = array<i64: 1, 1, 1, 2>} : (tensor<2x3x4x2xi32>, tensor<2x2x3x2xi64>) -> tensor<2x2x3x2xi32>
  return %0 : tensor<2x2x3x2xi32>
}

// -----

func.func @gather_c8(%operand: tensor<2x3x4x2xi32>, %start_indices: tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x2xi32> {
  // expected-error @+1 {{'stablehlo.gather' op collapsed_slice_dims element 4 is out of range [0, 4), the rank of the operand (C8)}}
  %0 = "stablehlo.gather"(%operand, %start_indices) {dimension_numbers = #stablehlo.gather<offset_dims = [3, 4], collapsed_slice_dims = [4], operand_batching_dims = [0], start_indices_batching_dims = [1], start_index_map = [2, 1], index_vector_dim = 3>, slice_sizes = array<i64: 1, 1, 2, 2>} : (tensor<2x3x4x2xi32>, tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x2xi32>
  return %0 : tensor<2x2x3x2x2xi32>
}

// -----

func.func @gather_c9(%operand: tensor<2x3x4x2xi32>, %start_indices: tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x2xi32> {
  // expected-error @+1 {{'stablehlo.gather' op slice size 2 of collapsed_slice_dims element 1 is larger than 1 (C9)}}
  %0 = "stablehlo.gather"(%operand, %start_indices) {dimension_numbers = #stablehlo.gather<offset_dims = [3, 4], collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [1], start_index_map = [2, 1], index_vector_dim = 3>, slice_sizes = array<i64: 1, 2, 2, 2>} : (tensor<2x3x4x2xi32>, tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x2xi32>
  return %0 : tensor<2x2x3x2x2xi32>
}

// -----

func.func @gather_c10(%operand: tensor<2x3x4x2xi32>, %start_indices: tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x2xi32> {
  // expected-error @+1 {{'stablehlo.gather' op operand_batching_dims [3, 0] is not sorted (C10)}}
  %0 = "stablehlo.gather"(%operand, %start_indices) {dimension_numbers = #stablehlo.gather<offset_dims = [4], collapsed_slice_dims = [1], operand_batching_dims = [3, 0], start_indices_batching_dims = [1], start_index_map = [2, 1], index_vector_dim = 3>, slice_sizes = array<i64: 1, 1, 2, 2>} : (tensor<2x3x4x2xi32>, tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x2xi32>
  return %0 : tensor<2x2x3x2x2xi32>
}

// -----

func.func @gather_c11(%operand: tensor<2x3x4x2xi32>, %start_indices: tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x2xi32> {
  // expected-error @+1 {{'stablehlo.gather' op operand_batching_dims element 4 is out of range [0, 4), the rank of the operand (C11)}}
  %0 = "stablehlo.gather"(%operand, %start_indices) {dimension_numbers = #stablehlo.gather<offset_dims = [3, 4], collapsed_slice_dims = [1], operand_batching_dims = [4], start_indices_batching_dims = [1], start_index_map = [2, 1], index_vector_dim = 3>, slice_sizes = array<i64: 1, 1, 2, 2>} : (tensor<2x3x4x2xi32>, tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x2xi32>
  return %0 : tensor<2x2x3x2x2xi32>
}

// -----

func.func @gather_c12(%operand: tensor<2x3x4x2xi32>, %start_indices: tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x2xi32> {
  // expected-error @+1 {{'stablehlo.gather' op slice size 2 of operand_batching_dims element 0 is larger than 1 (C12)}}
  %0 = "stablehlo.gather"(%operand, %start_indices) {dimension_numbers = #stablehlo.gather<offset_dims = [3, 4], collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [1], start_index_map = [2, 1], index_vector_dim = 3>, slice_sizes = array<i64: 2, 1, 2, 2>} : (tensor<2x3x4x2xi32>, tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x2xi32>
  return %0 : tensor<2x2x3x2x2xi32>
}

// -----

func.func @gather_c13(%operand: tensor<2x3x4x2xi32>, %start_indices: tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x2xi32> {
  // expected-error @+1 {{'stablehlo.gather' op start_indices_batching_dims [1, 1] has repeated dimensions (C13)}}
  %0 = "stablehlo.gather"(%operand, %start_indices) {dimension_numbers = #stablehlo.gather<offset_dims = [3, 4], collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [1, 1], start_index_map = [2, 1], index_vector_dim = 3>, slice_sizes = array<i64: 1, 1, 2, 2>} : (tensor<2x3x4x2xi32>, tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x2xi32>
  return %0 : tensor<2x2x3x2x2xi32>
}

// -----

func.func @gather_c14(%operand: tensor<2x3x4x2xi32>, %start_indices: tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x2xi32> {
  // expected-error @+1 {{'stablehlo.gather' op start_indices_batching_dims element 4 is out of range [0, 4), the rank of start_indices (C14)}}
  %0 = "stablehlo.gather"(%operand, %start_indices) {dimension_numbers = #stablehlo.gather<offset_dims = [3, 4], collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [4], start_index_map = [2, 1], index_vector_dim = 3>, slice_sizes = array<i64: 1, 1, 2, 2>} : (tensor<2x3x4x2xi32>, tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x2xi32>
  return %0 : tensor<2x2x3x2x2xi32>
}

// -----

func.func @gather_c15(%operand: tensor<2x3x4x2xi32>, %start_indices: tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x2xi32> {
  // expected-error @+1 {{'stablehlo.gather' op index_vector_dim 3 is also in start_indices_batching_dims [3] (C15)}}
  %0 = "stablehlo.gather"(%operand, %start_indices) {dimension_numbers = #stablehlo.gather<offset_dims = [3, 4], collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [3], start_index_map = [2, 1], index_vector_dim = 3>, slice_sizes = array<i64: 1, 1, 2, 2>} : (tensor<2x3x4x2xi32>, tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x2xi32>
  return %0 : tensor<2x2x3x2x2xi32>
}

// -----

func.func @gather_c16(%operand: tensor<2x3x4x2xi32>, %start_indices: tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x2xi32> {
  // expected-error @+1 {{'stablehlo.gather' op operand_batching_dims [0] and start_indices_batching_dims [1, 0] differ in length (C16)}}
  %0 = "stablehlo.gather"(%operand, %start_indices) {dimension_numbers = #stablehlo.gather<offset_dims = [3, 4], collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [1, 0], start_index_map = [2, 1], index_vector_dim = 3>, slice_sizes = array<i64: 1, 1, 2, 2>} : (tensor<2x3x4x2xi32>, tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x2xi32>
  return %0 : tensor<2x2x3x2x2xi32>
}

// -----

func.func @gather_c17(%operand: tensor<2x3x4x2xi32>, %start_indices: tensor<2x3x3x2xi64>) -> tensor<2x2x3x2x2xi32> {
  // expected-error @+1 {{'stablehlo.gather' op dimension 0 of the operand has size 2, but batching dimension 1 of start_indices has size 3 (C17)}}
  %0 = "stablehlo.gather"(%operand, %start_indices) {dimension_numbers = #stablehlo.gather<offset_dims = [3, 4], collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [1], start_index_map = [2, 1], index_vector_dim = 3>, slice_sizes = array<i64: 1, 1, 2, 2>} : (tensor<2x3x4x2xi32>, tensor<2x3x3x2xi64>) -> tensor<2x2x3x2x2xi32>
  return %0 : tensor<2x2x3x2x2xi32>
}

// -----

func.func @gather_c18(%operand: tensor<2x3x4x2xi32>, %start_indices: tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x2xi32> {
  // expected-error @+1 {{'stablehlo.gather' op start_index_map ++ operand_batching_dims [2, 0, 0] has repeated dimensions (C18)}}
  %0 = "stablehlo.gather"(%operand, %start_indices) {dimension_numbers = #stablehlo.gather<offset_dims = [3, 4], collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [1], start_index_map = [2, 0], index_vector_dim = 3>, slice_sizes = array<i64: 1, 1, 2, 2>} : (tensor<2x3x4x2xi32>, tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x2xi32>
  return %0 : tensor<2x2x3x2x2xi32>
}

// -----

func.func @gather_c19(%operand: tensor<2x3x4x2xi32>, %start_indices: tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x2xi32> {
  // expected-error @+1 {{'stablehlo.gather' op start_index_map element 4 is out of range [0, 4), the rank of the operand (C19)}}
  %0 = "stablehlo.gather"(%operand, %start_indices) {dimension_numbers = #stablehlo.gather<offset_dims = [3, 4], collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [1], start_index_map = [4, 1], index_vector_dim = 3>, slice_sizes = array<i64: 1, 1, 2, 2>} : (tensor<2x3x4x2xi32>, tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x2xi32>
  return %0 : tensor<2x2x3x2x2xi32>
}

// -----

func.func @gather_c20(%operand: tensor<2x3x4x2xi32>, %start_indices: tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x2xi32> {
  // expected-error @+1 {{'stablehlo.gather' op slice_sizes has length 3, but the operand has rank 4 (C20)}}
  %0 = "stablehlo.gather"(%operand, %start_indices) {dimension_numbers = #stablehlo.gather<offset_dims = [3, 4], collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [1], start_index_map = [2, 1], index_vector_dim = 3>, slice_sizes = array<i64: 1, 1, 2>} : (tensor<2x3x4x2xi32>, tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x2xi32>
  return %0 : tensor<2x2x3x2x2xi32>
}

// -----

func.func @gather_c21(%operand: tensor<2x3x4x2xi32>, %start_indices: tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x2xi32> {
  // expected-error @+1 {{'stablehlo.gather' op slice size 3 of dimension 3 is not within [0, 2], the operand's size (C21)}}
  %0 = "stablehlo.gather"(%operand, %start_indices) {dimension_numbers = #stablehlo.gather<offset_dims = [3, 4], collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [1], start_index_map = [2, 1], index_vector_dim = 3>, slice_sizes = array<i64: 1, 1, 2, 3>} : (tensor<2x3x4x2xi32>, tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x2xi32>
  return %0 : tensor<2x2x3x2x2xi32>
}

// -----

func.func @gather_c22(%operand: tensor<2x3x4x2xi32>, %start_indices: tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x3xi32> {
  // expected-error @+1 {{'stablehlo.gather' op inferred shape '[2, 2, 3, 2, 2]' is incompatible with return type of operation 'tensor<2x2x3x2x3xi32>' (C22)}}
  %0 = "stablehlo.gather"(%operand, %start_indices) {dimension_numbers = #stablehlo.gather<offset_dims = [3, 4], collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [1], start_index_map = [2, 1], index_vector_dim = 3>, slice_sizes = array<i64: 1, 1, 2, 2>} : (tensor<2x3x4x2xi32>, tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x3xi32>
  return %0 : tensor<2x2x3x2x3xi32>
}

// -----

func.func @gather_c23(%operand: tensor<2x3x4x2xi32>, %start_indices: tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x2xf32> {
  // expected-error @+1 {{'stablehlo.gather' op result element type f32 is not the operand's i32 (C23)}}
  %0 = "stablehlo.gather"(%operand, %start_indices) {dimension_numbers = #stablehlo.gather<offset_dims = [3, 4], collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [1], start_index_map = [2, 1], index_vector_dim = 3>, slice_sizes = array<i64: 1, 1, 2, 2>} : (tensor<2x3x4x2xi32>, tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x2xf32>
  return %0 : tensor<2x2x3x2x2xf32>
}

// -----

func.func @gather_float_indices(%operand: tensor<2x3x4x2xi32>, %start_indices: tensor<2x2x3x2xf32>) -> tensor<2x2x3x2x2xi32> {
  // expected-error @+1 {{'stablehlo.gather' op start_indices must be a tensor of integers, but got 'tensor<2x2x3x2xf32>'}}
  %0 = "stablehlo.gather"(%operand, %start_indices) {dimension_numbers = #stablehlo.gather<offset_dims = [3, 4], collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [1], start_index_map = [2, 1], index_vector_dim = 3>, slice_sizes = array<i64: 1, 1, 2, 2>} : (tensor<2x3x4x2xi32>, tensor<2x2x3x2xf32>) -> tensor<2x2x3x2x2xi32>
  return %0 : tensor<2x2x3x2x2xi32>
}

// -----

func.func @gather_ivd_list(%operand: tensor<2x3x4x2xi32>, %start_indices: tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x2xi32> {
  // expected-error @+1 {{'stablehlo.gather' op attribute 'dimension_numbers' field 'index_vector_dim' must be an integer, got [3]}}
  %0 = "stablehlo.gather"(%operand, %start_indices) {dimension_numbers = #stablehlo.gather<offset_dims = [3, 4], collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [1], start_index_map = [2, 1], index_vector_dim = [3]>, slice_sizes = array<i64: 1, 1, 2, 2>} : (tensor<2x3x4x2xi32>, tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x2xi32>
  return %0 : tensor<2x2x3x2x2xi32>
}

// -----

func.func @scatter_c1(%a: tensor<8xi32>, %b: tensor<7xi32>, %i: tensor<4x1xi32>, %u: tensor<4xi32>, %v: tensor<4xi32>) -> tensor<8xi32> {
  // expected-error @+1 {{'stablehlo.scatter' op input #1 does not have the shape of input #0 (C1)}}
  %0:2 = "stablehlo.scatter"(%a, %b, %i, %u, %v) ({
  ^bb0(%x: tensor<i32>, %y: tensor<i32>, %z: tensor<i32>, %w: tensor<i32>):
    "stablehlo.return"(%z, %w) : (tensor<i32>, tensor<i32>) -> ()
  }) {scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<8xi32>, tensor<7xi32>, tensor<4x1xi32>, tensor<4xi32>, tensor<4xi32>) -> (tensor<8xi32>, tensor<7xi32>)
  return %0#0 : tensor<8xi32>
}

// -----

func.func @scatter_c3(%a: tensor<8xi32>, %b: tensor<8xi32>, %i: tensor<4x1xi32>, %u: tensor<4xi32>, %v: tensor<3xi32>) -> tensor<8xi32> {
  // expected-error @+1 {{'stablehlo.scatter' op update #1 does not have the shape of update #0 (C3)}}
  %0:2 = "stablehlo.scatter"(%a, %b, %i, %u, %v) ({
  ^bb0(%x: tensor<i32>, %y: tensor<i32>, %z: tensor<i32>, %w: tensor<i32>):
    "stablehlo.return"(%z, %w) : (tensor<i32>, tensor<i32>) -> ()
  }) {scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<8xi32>, tensor<8xi32>, tensor<4x1xi32>, tensor<4xi32>, tensor<3xi32>) -> (tensor<8xi32>, tensor<8xi32>)
  return %0#0 : tensor<8xi32>
}

// -----

func.func @scatter_c5(%a: tensor<8xi32>, %i: tensor<4x1xi32>) -> tensor<8xi32> {
  // expected-error @+1 {{'stablehlo.scatter' op expects N inputs, the scatter indices and N updates (N > 0), got 2 operands (C5)}}
  %0 = "stablehlo.scatter"(%a, %i) ({
  ^bb0(%x: tensor<i32>, %y: tensor<i32>):
    "stablehlo.return"(%y) : (tensor<i32>) -> ()
  }) {scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<8xi32>, tensor<4x1xi32>) -> tensor<8xi32>
  return %0 : tensor<8xi32>
}

// -----

func.func @dynamic_gather_c21(%x: tensor<2x6xf32>, %idx: tensor<1x2xi64>) -> tensor<1x2x7xf32> {
  %ss = stablehlo.constant dense<[2, 7]> : tensor<2xi64>
  // expected-error @+1 {{'stablehlo.dynamic_gather' op slice size 7 of dimension 1 is not within [0, 6], the operand's size (C21)}}
  %0 = "stablehlo.dynamic_gather"(%x, %idx, %ss) {dimension_numbers = #stablehlo.gather<offset_dims = [1, 2], start_index_map = [0, 1], index_vector_dim = 1>} : (tensor<2x6xf32>, tensor<1x2xi64>, tensor<2xi64>) -> tensor<1x2x7xf32>
  return %0 : tensor<1x2x7xf32>
}

// -----

func.func @scatter_c2(%input: tensor<2x3x4x2xi64>, %indices: tensor<2x2x3x2xi64>, %update: tensor<2x2x3x2x2xi64>) -> tensor<2x3x4x2xi64> {
  // expected-error @+1 {{'stablehlo.scatter' op input rank 4 is not the number of update_window_dims (1) + inserted_window_dims (1) + input_batching_dims (1) (C2)}}
  %0 = "stablehlo.scatter"(%input, %indices, %update) ({
  ^bb0(%a: tensor<i64>, %b: tensor<i64>):
    "stablehlo.return"(%b) : (tensor<i64>) -> ()
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [3], inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [1], scatter_dims_to_operand_dims = [2, 1], index_vector_dim = 3>} : (tensor<2x3x4x2xi64>, tensor<2x2x3x2xi64>, tensor<2x2x3x2x2xi64>) -> tensor<2x3x4x2xi64>
  return %0 : tensor<2x3x4x2xi64>
}

// -----

func.func @scatter_c4_window(%input: tensor<2x3x4x2xi64>, %indices: tensor<2x2x3x2xi64>, %update: tensor<2x2x3x2x3xi64>) -> tensor<2x3x4x2xi64> {
  // expected-error @+1 {{'stablehlo.scatter' op update window dimension 4 has size 3, more than the 2 of the inputs' matching dimension (C4)}}
  %0 = "stablehlo.scatter"(%input, %indices, %update) ({
  ^bb0(%a: tensor<i64>, %b: tensor<i64>):
    "stablehlo.return"(%b) : (tensor<i64>) -> ()
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [3, 4], inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [1], scatter_dims_to_operand_dims = [2, 1], index_vector_dim = 3>} : (tensor<2x3x4x2xi64>, tensor<2x2x3x2xi64>, tensor<2x2x3x2x3xi64>) -> tensor<2x3x4x2xi64>
  return %0 : tensor<2x3x4x2xi64>
}

// -----

func.func @scatter_c4_scatter(%input: tensor<2x3x4x2xi64>, %indices: tensor<2x2x3x2xi64>, %update: tensor<2x3x3x2x2xi64>) -> tensor<2x3x4x2xi64> {
  // expected-error @+1 {{'stablehlo.scatter' op update scatter dimension 1 has size 3, but scatter_indices' matching dimension has 2 (C4)}}
  %0 = "stablehlo.scatter"(%input, %indices, %update) ({
  ^bb0(%a: tensor<i64>, %b: tensor<i64>):
    "stablehlo.return"(%b) : (tensor<i64>) -> ()
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [3, 4], inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [1], scatter_dims_to_operand_dims = [2, 1], index_vector_dim = 3>} : (tensor<2x3x4x2xi64>, tensor<2x2x3x2xi64>, tensor<2x3x3x2x2xi64>) -> tensor<2x3x4x2xi64>
  return %0 : tensor<2x3x4x2xi64>
}

// -----

func.func @scatter_c6(%input: tensor<2x3x4x2xi64>, %indices: tensor<2x2x3x2xi64>, %update: tensor<2x2x3x2x2xi32>) -> tensor<2x3x4x2xi64> {
  // expected-error @+1 {{'stablehlo.scatter' op update #0 has element type i32, input #0 has i64 (C6)}}
  %0 = "stablehlo.scatter"(%input, %indices, %update) ({
  ^bb0(%a: tensor<i64>, %b: tensor<i64>):
    "stablehlo.return"(%b) : (tensor<i64>) -> ()
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [3, 4], inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [1], scatter_dims_to_operand_dims = [2, 1], index_vector_dim = 3>} : (tensor<2x3x4x2xi64>, tensor<2x2x3x2xi64>, tensor<2x2x3x2x2xi32>) -> tensor<2x3x4x2xi64>
  return %0 : tensor<2x3x4x2xi64>
}

// -----

func.func @scatter_c7(%input: tensor<2x3x4x2xi64>, %indices: tensor<2x2x3x2xi64>, %update: tensor<2x2x3x2x2xi64>) -> tensor<2x3x4x2xi64> {
  // expected-error @+1 {{'stablehlo.scatter' op update_window_dims [4, 3] is not sorted (C7)}}
  %0 = "stablehlo.scatter"(%input, %indices, %update) ({
  ^bb0(%a: tensor<i64>, %b: tensor<i64>):
    "stablehlo.return"(%b) : (tensor<i64>) -> ()
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [4, 3], inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [1], scatter_dims_to_operand_dims = [2, 1], index_vector_dim = 3>} : (tensor<2x3x4x2xi64>, tensor<2x2x3x2xi64>, tensor<2x2x3x2x2xi64>) -> tensor<2x3x4x2xi64>
  return %0 : tensor<2x3x4x2xi64>
}

// -----

func.func @scatter_c8(%input: tensor<2x3x4x2xi64>, %indices: tensor<2x2x3x2xi64>, %update: tensor<2x2x3x2x2xi64>) -> tensor<2x3x4x2xi64> {
  // expected-error @+1 {{'stablehlo.scatter' op update_window_dims element 5 is out of range [0, 5), the rank of the updates (C8)}}
  %0 = "stablehlo.scatter"(%input, %indices, %update) ({
  ^bb0(%a: tensor<i64>, %b: tensor<i64>):
    "stablehlo.return"(%b) : (tensor<i64>) -> ()
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [3, 5], inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [1], scatter_dims_to_operand_dims = [2, 1], index_vector_dim = 3>} : (tensor<2x3x4x2xi64>, tensor<2x2x3x2xi64>, tensor<2x2x3x2x2xi64>) -> tensor<2x3x4x2xi64>
  return %0 : tensor<2x3x4x2xi64>
}

// -----

func.func @scatter_c9(%input: tensor<2x3x4x2xi64>, %indices: tensor<2x2x3x2xi64>, %update: tensor<2x2x3x2x2xi64>) -> tensor<2x3x4x2xi64> {
  // expected-error @+1 {{'stablehlo.scatter' op inserted_window_dims ++ input_batching_dims [0, 0] has repeated dimensions (C9)}}
  %0 = "stablehlo.scatter"(%input, %indices, %update) ({
  ^bb0(%a: tensor<i64>, %b: tensor<i64>):
    "stablehlo.return"(%b) : (tensor<i64>) -> ()
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [3, 4], inserted_window_dims = [0], input_batching_dims = [0], scatter_indices_batching_dims = [1], scatter_dims_to_operand_dims = [2, 1], index_vector_dim = 3>} : (tensor<2x3x4x2xi64>, tensor<2x2x3x2xi64>, tensor<2x2x3x2x2xi64>) -> tensor<2x3x4x2xi64>
  return %0 : tensor<2x3x4x2xi64>
}

// -----

func.func @scatter_c10(%input: tensor<2x3x4x2xi64>, %indices: tensor<2x2x3x2xi64>, %update: tensor<2x2x3x2x2xi64>) -> tensor<2x3x4x2xi64> {
  // expected-error @+1 {{'stablehlo.scatter' op inserted_window_dims [2, 1] is not sorted (C10)}}
  %0 = "stablehlo.scatter"(%input, %indices, %update) ({
  ^bb0(%a: tensor<i64>, %b: tensor<i64>):
    "stablehlo.return"(%b) : (tensor<i64>) -> ()
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [4], inserted_window_dims = [2, 1], input_batching_dims = [0], scatter_indices_batching_dims = [1], scatter_dims_to_operand_dims = [2, 1], index_vector_dim = 3>} : (tensor<2x3x4x2xi64>, tensor<2x2x3x2xi64>, tensor<2x2x3x2x2xi64>) -> tensor<2x3x4x2xi64>
  return %0 : tensor<2x3x4x2xi64>
}

// -----

func.func @scatter_c11(%input: tensor<2x3x4x2xi64>, %indices: tensor<2x2x3x2xi64>, %update: tensor<2x2x3x2x2xi64>) -> tensor<2x3x4x2xi64> {
  // expected-error @+1 {{'stablehlo.scatter' op inserted_window_dims element 4 is out of range [0, 4), the rank of the inputs (C11)}}
  %0 = "stablehlo.scatter"(%input, %indices, %update) ({
  ^bb0(%a: tensor<i64>, %b: tensor<i64>):
    "stablehlo.return"(%b) : (tensor<i64>) -> ()
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [3, 4], inserted_window_dims = [4], input_batching_dims = [0], scatter_indices_batching_dims = [1], scatter_dims_to_operand_dims = [2, 1], index_vector_dim = 3>} : (tensor<2x3x4x2xi64>, tensor<2x2x3x2xi64>, tensor<2x2x3x2x2xi64>) -> tensor<2x3x4x2xi64>
  return %0 : tensor<2x3x4x2xi64>
}

// -----

func.func @scatter_c12(%input: tensor<2x3x4x2xi64>, %indices: tensor<2x2x3x2xi64>, %update: tensor<2x2x3x2x2xi64>) -> tensor<2x3x4x2xi64> {
  // expected-error @+1 {{'stablehlo.scatter' op input_batching_dims [3, 0] is not sorted (C12)}}
  %0 = "stablehlo.scatter"(%input, %indices, %update) ({
  ^bb0(%a: tensor<i64>, %b: tensor<i64>):
    "stablehlo.return"(%b) : (tensor<i64>) -> ()
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [4], inserted_window_dims = [1], input_batching_dims = [3, 0], scatter_indices_batching_dims = [1], scatter_dims_to_operand_dims = [2, 1], index_vector_dim = 3>} : (tensor<2x3x4x2xi64>, tensor<2x2x3x2xi64>, tensor<2x2x3x2x2xi64>) -> tensor<2x3x4x2xi64>
  return %0 : tensor<2x3x4x2xi64>
}

// -----

func.func @scatter_c13(%input: tensor<2x3x4x2xi64>, %indices: tensor<2x2x3x2xi64>, %update: tensor<2x2x3x2x2xi64>) -> tensor<2x3x4x2xi64> {
  // expected-error @+1 {{'stablehlo.scatter' op input_batching_dims element 4 is out of range [0, 4), the rank of the inputs (C13)}}
  %0 = "stablehlo.scatter"(%input, %indices, %update) ({
  ^bb0(%a: tensor<i64>, %b: tensor<i64>):
    "stablehlo.return"(%b) : (tensor<i64>) -> ()
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [3, 4], inserted_window_dims = [1], input_batching_dims = [4], scatter_indices_batching_dims = [1], scatter_dims_to_operand_dims = [2, 1], index_vector_dim = 3>} : (tensor<2x3x4x2xi64>, tensor<2x2x3x2xi64>, tensor<2x2x3x2x2xi64>) -> tensor<2x3x4x2xi64>
  return %0 : tensor<2x3x4x2xi64>
}

// -----

func.func @scatter_c14(%input: tensor<2x3x4x2xi64>, %indices: tensor<2x2x3x2xi64>, %update: tensor<2x2x3x2x2xi64>) -> tensor<2x3x4x2xi64> {
  // expected-error @+1 {{'stablehlo.scatter' op scatter_indices_batching_dims [1, 1] has repeated dimensions (C14)}}
  %0 = "stablehlo.scatter"(%input, %indices, %update) ({
  ^bb0(%a: tensor<i64>, %b: tensor<i64>):
    "stablehlo.return"(%b) : (tensor<i64>) -> ()
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [3, 4], inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [1, 1], scatter_dims_to_operand_dims = [2, 1], index_vector_dim = 3>} : (tensor<2x3x4x2xi64>, tensor<2x2x3x2xi64>, tensor<2x2x3x2x2xi64>) -> tensor<2x3x4x2xi64>
  return %0 : tensor<2x3x4x2xi64>
}

// -----

func.func @scatter_c15(%input: tensor<2x3x4x2xi64>, %indices: tensor<2x2x3x2xi64>, %update: tensor<2x2x3x2x2xi64>) -> tensor<2x3x4x2xi64> {
  // expected-error @+1 {{'stablehlo.scatter' op scatter_indices_batching_dims element 4 is out of range [0, 4), the rank of scatter_indices (C15)}}
  %0 = "stablehlo.scatter"(%input, %indices, %update) ({
  ^bb0(%a: tensor<i64>, %b: tensor<i64>):
    "stablehlo.return"(%b) : (tensor<i64>) -> ()
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [3, 4], inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [4], scatter_dims_to_operand_dims = [2, 1], index_vector_dim = 3>} : (tensor<2x3x4x2xi64>, tensor<2x2x3x2xi64>, tensor<2x2x3x2x2xi64>) -> tensor<2x3x4x2xi64>
  return %0 : tensor<2x3x4x2xi64>
}

// -----

func.func @scatter_c16(%input: tensor<2x3x4x2xi64>, %indices: tensor<2x2x3x2xi64>, %update: tensor<2x2x3x2x2xi64>) -> tensor<2x3x4x2xi64> {
  // expected-error @+1 {{'stablehlo.scatter' op index_vector_dim 3 is also in scatter_indices_batching_dims [3] (C16)}}
  %0 = "stablehlo.scatter"(%input, %indices, %update) ({
  ^bb0(%a: tensor<i64>, %b: tensor<i64>):
    "stablehlo.return"(%b) : (tensor<i64>) -> ()
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [3, 4], inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [3], scatter_dims_to_operand_dims = [2, 1], index_vector_dim = 3>} : (tensor<2x3x4x2xi64>, tensor<2x2x3x2xi64>, tensor<2x2x3x2x2xi64>) -> tensor<2x3x4x2xi64>
  return %0 : tensor<2x3x4x2xi64>
}

// -----

func.func @scatter_c17(%input: tensor<2x3x4x2xi64>, %indices: tensor<2x2x3x2xi64>, %update: tensor<2x2x3x2x2xi64>) -> tensor<2x3x4x2xi64> {
  // expected-error @+1 {{'stablehlo.scatter' op input_batching_dims [0] and scatter_indices_batching_dims [1, 0] differ in length (C17)}}
  %0 = "stablehlo.scatter"(%input, %indices, %update) ({
  ^bb0(%a: tensor<i64>, %b: tensor<i64>):
    "stablehlo.return"(%b) : (tensor<i64>) -> ()
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [3, 4], inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [1, 0], scatter_dims_to_operand_dims = [2, 1], index_vector_dim = 3>} : (tensor<2x3x4x2xi64>, tensor<2x2x3x2xi64>, tensor<2x2x3x2x2xi64>) -> tensor<2x3x4x2xi64>
  return %0 : tensor<2x3x4x2xi64>
}

// -----

func.func @scatter_c18(%input: tensor<2x3x4x2xi64>, %indices: tensor<2x3x3x2xi64>, %update: tensor<2x2x3x2x2xi64>) -> tensor<2x3x4x2xi64> {
  // expected-error @+1 {{'stablehlo.scatter' op dimension 0 of the inputs has size 2, but batching dimension 1 of scatter_indices has size 3 (C18)}}
  %0 = "stablehlo.scatter"(%input, %indices, %update) ({
  ^bb0(%a: tensor<i64>, %b: tensor<i64>):
    "stablehlo.return"(%b) : (tensor<i64>) -> ()
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [3, 4], inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [1], scatter_dims_to_operand_dims = [2, 1], index_vector_dim = 3>} : (tensor<2x3x4x2xi64>, tensor<2x3x3x2xi64>, tensor<2x2x3x2x2xi64>) -> tensor<2x3x4x2xi64>
  return %0 : tensor<2x3x4x2xi64>
}

// -----

func.func @scatter_c19(%input: tensor<2x3x4x2xi64>, %indices: tensor<2x2x3x2xi64>, %update: tensor<2x2x3x2x2xi64>) -> tensor<2x3x4x2xi64> {
  // expected-error @+1 {{'stablehlo.scatter' op scatter_dims_to_operand_dims has length 1, but the index vector (dimension 3 of scatter_indices) has size 2 (C19)}}
  %0 = "stablehlo.scatter"(%input, %indices, %update) ({
  ^bb0(%a: tensor<i64>, %b: tensor<i64>):
    "stablehlo.return"(%b) : (tensor<i64>) -> ()
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [3, 4], inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [1], scatter_dims_to_operand_dims = [2], index_vector_dim = 3>} : (tensor<2x3x4x2xi64>, tensor<2x2x3x2xi64>, tensor<2x2x3x2x2xi64>) -> tensor<2x3x4x2xi64>
  return %0 : tensor<2x3x4x2xi64>
}

// -----

func.func @scatter_c20(%input: tensor<2x3x4x2xi64>, %indices: tensor<2x2x3x2xi64>, %update: tensor<2x2x3x2x2xi64>) -> tensor<2x3x4x2xi64> {
  // expected-error @+1 {{'stablehlo.scatter' op scatter_dims_to_operand_dims ++ input_batching_dims [2, 0, 0] has repeated dimensions (C20)}}
  %0 = "stablehlo.scatter"(%input, %indices, %update) ({
  ^bb0(%a: tensor<i64>, %b: tensor<i64>):
    "stablehlo.return"(%b) : (tensor<i64>) -> ()
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [3, 4], inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [1], scatter_dims_to_operand_dims = [2, 0], index_vector_dim = 3>} : (tensor<2x3x4x2xi64>, tensor<2x2x3x2xi64>, tensor<2x2x3x2x2xi64>) -> tensor<2x3x4x2xi64>
  return %0 : tensor<2x3x4x2xi64>
}

// -----

func.func @scatter_c21(%input: tensor<2x3x4x2xi64>, %indices: tensor<2x2x3x2xi64>, %update: tensor<2x2x3x2x2xi64>) -> tensor<2x3x4x2xi64> {
  // expected-error @+1 {{'stablehlo.scatter' op scatter_dims_to_operand_dims element 4 is out of range [0, 4), the rank of the inputs (C21)}}
  %0 = "stablehlo.scatter"(%input, %indices, %update) ({
  ^bb0(%a: tensor<i64>, %b: tensor<i64>):
    "stablehlo.return"(%b) : (tensor<i64>) -> ()
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [3, 4], inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [1], scatter_dims_to_operand_dims = [4, 1], index_vector_dim = 3>} : (tensor<2x3x4x2xi64>, tensor<2x2x3x2xi64>, tensor<2x2x3x2x2xi64>) -> tensor<2x3x4x2xi64>
  return %0 : tensor<2x3x4x2xi64>
}

// -----

func.func @scatter_c22(%input: tensor<2x3x4x2xi64>, %indices: tensor<2x2x3x2xi64>, %update: tensor<2x2x3x2x2xi64>) -> tensor<2x3x4x2xi64> {
  // expected-error @+1 {{'stablehlo.scatter' op index_vector_dim 5 is out of range [0, 4], the rank of scatter_indices (C22)}}
  %0 = "stablehlo.scatter"(%input, %indices, %update) ({
  ^bb0(%a: tensor<i64>, %b: tensor<i64>):
    "stablehlo.return"(%b) : (tensor<i64>) -> ()
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [3, 4], inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [1], scatter_dims_to_operand_dims = [2, 1], index_vector_dim = 5>} : (tensor<2x3x4x2xi64>, tensor<2x2x3x2xi64>, tensor<2x2x3x2x2xi64>) -> tensor<2x3x4x2xi64>
  return %0 : tensor<2x3x4x2xi64>
}

// -----

func.func @scatter_c23(%input: tensor<2x3x4x2xi64>, %indices: tensor<2x2x3x2xi64>, %update: tensor<2x2x3x2x2xi64>) -> tensor<2x3x4x2xi64> {
  // expected-error @+1 {{'stablehlo.scatter' op update computation must take 2 rank-0 tensors, got (tensor<2xi64>, tensor<i64>) (C23)}}
  %0 = "stablehlo.scatter"(%input, %indices, %update) ({
  ^bb0(%a: tensor<2xi64>, %b: tensor<i64>):
    "stablehlo.return"(%b) : (tensor<i64>) -> ()
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [3, 4], inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [1], scatter_dims_to_operand_dims = [2, 1], index_vector_dim = 3>} : (tensor<2x3x4x2xi64>, tensor<2x2x3x2xi64>, tensor<2x2x3x2x2xi64>) -> tensor<2x3x4x2xi64>
  return %0 : tensor<2x3x4x2xi64>
}

// -----

func.func @scatter_c24(%input: tensor<2x3x4x2xi64>, %indices: tensor<2x2x3x2xi64>, %update: tensor<2x2x3x2x2xi64>) -> tensor<2x3x4x3xi64> {
  // expected-error @+1 {{'stablehlo.scatter' op result #0 'tensor<2x3x4x3xi64>' does not have the shape of input #0 'tensor<2x3x4x2xi64>' (C24)}}
  %0 = "stablehlo.scatter"(%input, %indices, %update) ({
  ^bb0(%a: tensor<i64>, %b: tensor<i64>):
    "stablehlo.return"(%b) : (tensor<i64>) -> ()
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [3, 4], inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [1], scatter_dims_to_operand_dims = [2, 1], index_vector_dim = 3>} : (tensor<2x3x4x2xi64>, tensor<2x2x3x2xi64>, tensor<2x2x3x2x2xi64>) -> tensor<2x3x4x3xi64>
  return %0 : tensor<2x3x4x3xi64>
}

// -----

func.func @scatter_c25(%input: tensor<2x3x4x2xi64>, %indices: tensor<2x2x3x2xi64>, %update: tensor<2x2x3x2x2xi64>) -> tensor<2x3x4x2xi32> {
  // expected-error @+1 {{'stablehlo.scatter' op result #0 has element type i32, the update computation's is i64 (C25)}}
  %0 = "stablehlo.scatter"(%input, %indices, %update) ({
  ^bb0(%a: tensor<i64>, %b: tensor<i64>):
    "stablehlo.return"(%b) : (tensor<i64>) -> ()
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [3, 4], inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [1], scatter_dims_to_operand_dims = [2, 1], index_vector_dim = 3>} : (tensor<2x3x4x2xi64>, tensor<2x2x3x2xi64>, tensor<2x2x3x2x2xi64>) -> tensor<2x3x4x2xi32>
  return %0 : tensor<2x3x4x2xi32>
}

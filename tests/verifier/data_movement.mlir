// Dimension, window and symbol attributes of data-movement ops.

func.func @concat_dim(%a: tensor<2x2xi32>, %b: tensor<2x3xi32>) -> tensor<2x5xi32> {
  // expected-error @+1 {{'stablehlo.concatenate' op dimension 5 is out of range [0, 2)}}
  %0 = "stablehlo.concatenate"(%a, %b) {dimension = 5 : i64} : (tensor<2x2xi32>, tensor<2x3xi32>) -> tensor<2x5xi32>
  return %0 : tensor<2x5xi32>
}

// -----

func.func @concat_shape(%a: tensor<2x2xi32>, %b: tensor<3x3xi32>) -> tensor<2x5xi32> {
  // expected-error @+1 {{'stablehlo.concatenate' op shapes of operand (0) and (1) do not match at non-concat index: dimension 0}}
  %0 = "stablehlo.concatenate"(%a, %b) {dimension = 1 : i64} : (tensor<2x2xi32>, tensor<3x3xi32>) -> tensor<2x5xi32>
  return %0 : tensor<2x5xi32>
}

// -----

func.func @slice_limits(%a: tensor<4xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'stablehlo.slice' op slice [2, 5) of dimension 0 is not within its size 4}}
  %0 = "stablehlo.slice"(%a) {start_indices = array<i64: 2>, limit_indices = array<i64: 5>, strides = array<i64: 1>} : (tensor<4xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @pad_result(%a: tensor<4xf32>, %p: tensor<f32>) -> tensor<7xf32> {
  // expected-error @+1 {{'stablehlo.pad' op inferred shape '[6]' is incompatible with return type of operation 'tensor<7xf32>'}}
  %0 = "stablehlo.pad"(%a, %p) {edge_padding_low = array<i64: 1>, edge_padding_high = array<i64: 1>, interior_padding = array<i64: 0>} : (tensor<4xf32>, tensor<f32>) -> tensor<7xf32>
  return %0 : tensor<7xf32>
}

// -----

func.func @iota_dim() -> tensor<4xi32> {
  // expected-error @+1 {{'stablehlo.iota' op iota_dimension 1 is out of range [0, 1)}}
  %0 = "stablehlo.iota"() {iota_dimension = 1 : i64} : () -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @compare_direction(%a: tensor<4xf32>) -> tensor<4xi1> {
  // expected-error @+1 {{'stablehlo.compare' op attribute 'comparison_direction' failed to satisfy constraint}}
  %0 = "stablehlo.compare"(%a, %a) {comparison_direction = #stablehlo<comparison_direction XX>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @dynamic_slice_size(%a: tensor<4xf32>, %i: tensor<i32>) -> tensor<5xf32> {
  // expected-error @+1 {{'stablehlo.dynamic_slice' op slice size 5 of dimension 0 is not within [0, 4]}}
  %0 = "stablehlo.dynamic_slice"(%a, %i) {slice_sizes = array<i64: 5>} : (tensor<4xf32>, tensor<i32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

func.func @pack_dims(%a: tensor<8x8xf32>, %d: tensor<2x8x4x1xf32>) -> tensor<2x8x4x1xf32> {
  // expected-error @+1 {{'linalg.pack' op invalid inner_dims_pos vector [0, 5] for a rank-2 tensor}}
  %0 = linalg.pack %a inner_dims_pos = [0, 5] inner_tiles = [4, 1] into %d : tensor<8x8xf32> -> tensor<2x8x4x1xf32>
  return %0 : tensor<2x8x4x1xf32>
}

// -----

func.func @pad_region(%a: tensor<4xf32>, %z: f32) -> tensor<6xf32> {
  // expected-error @+1 {{'tensor.pad' op expected the block to have 1 index arguments}}
  %0 = tensor.pad %a low[1] high[1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %z : f32
  } : tensor<4xf32> to tensor<6xf32>
  return %0 : tensor<6xf32>
}

// -----

util.global private mutable @counter = dense<0.0> : tensor<f32>
func.func @load_undefined() -> tensor<f32> {
  // expected-error @+1 {{'util.global.load' op undefined global: @countr}}
  %0 = util.global.load @countr : tensor<f32>
  return %0 : tensor<f32>
}

// -----

ml_program.global private mutable @counter(dense<2.0> : tensor<f32>) : tensor<f32>
func.func @store_undefined(%v: tensor<f32>) {
  // expected-error @+1 {{'ml_program.global_store' op undefined global: @conter}}
  ml_program.global_store @conter = %v : tensor<f32>
  return
}

// -----

ml_program.global private @weights(dense<2.0> : tensor<f32>) : tensor<f32>
func.func @store_immutable(%v: tensor<f32>) {
  // expected-error @+1 {{'ml_program.global_store' op cannot store to an immutable global: @weights}}
  ml_program.global_store @weights = %v : tensor<f32>
  return
}

// -----

func.func @extract_slice_sizes(%a: tensor<128x256xi32>) -> tensor<100x250xi32> {
  // expected-error @+1 {{'tensor.extract_slice' op expected type to be 'tensor<100x250xi32>' or a rank-reduced version of sizes [10, 250]}}
  %0 = tensor.extract_slice %a [0, 0] [10, 250] [1, 1] : tensor<128x256xi32> to tensor<100x250xi32>
  return %0 : tensor<100x250xi32>
}

// -----

func.func @extract_slice_rank_reduced(%a: tensor<4x8xf32>) -> tensor<8xf32> {
  %0 = tensor.extract_slice %a [1, 0] [1, 8] [1, 1] : tensor<4x8xf32> to tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @gather_dimension_numbers(%a: tensor<4x8xi32>, %i: tensor<2x1xi32>) -> tensor<2x8xi32> {
  // expected-error @+1 {{'stablehlo.gather' op expects attribute 'dimension_numbers' to be a #stablehlo.gather<...>, got #stablehlo.gatger<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>}}
  %0 = "stablehlo.gather"(%a, %i) {dimension_numbers = #stablehlo.gatger<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 8>} : (tensor<4x8xi32>, tensor<2x1xi32>) -> tensor<2x8xi32>
  return %0 : tensor<2x8xi32>
}

// -----

func.func @scatter_dimension_numbers(%a: tensor<4xi32>, %i: tensor<1x1xi32>, %u: tensor<1xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'stablehlo.scatter' op requires attribute 'scatter_dimension_numbers'}}
  %0 = "stablehlo.scatter"(%a, %i, %u) ({
  ^bb0(%x: tensor<i32>, %y: tensor<i32>):
    "stablehlo.return"(%y) : (tensor<i32>) -> ()
  }) {indices_are_sorted = false, unique_indices = false} : (tensor<4xi32>, tensor<1x1xi32>, tensor<1xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @reduce_result_shape(%a: tensor<2x4xf32>, %z: tensor<f32>) -> tensor<2xf32> {
  // expected-error @+1 {{'stablehlo.reduce' op inferred shape '[2, 4]' is incompatible with return type of operation 'tensor<2xf32>'}}
  %0 = stablehlo.reduce(%a init: %z) applies stablehlo.maximum across dimensions = [] : (tensor<2x4xf32>, tensor<f32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// stablehlo.scatter (add) whose number of updates is dynamic: the callee takes
// tensor<?x1xi32> indices and tensor<?xf32> updates.

func.func private @scatter_add(%operand: tensor<8xf32>, %indices: tensor<?x1xi32>,
                               %updates: tensor<?xf32>) -> tensor<8xf32> {
  %r = "stablehlo.scatter"(%operand, %indices, %updates) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0],
        scatter_dims_to_operand_dims = [0], index_vector_dim = 1>,
      indices_are_sorted = false, unique_indices = false}
      : (tensor<8xf32>, tensor<?x1xi32>, tensor<?xf32>) -> tensor<8xf32>
  return %r : tensor<8xf32>
}

func.func @five_updates() {
  %operand = util.unfoldable_constant dense<1.0> : tensor<8xf32>
  %idx = util.unfoldable_constant dense<[[0], [3], [3], [7], [0]]> : tensor<5x1xi32>
  %upd = util.unfoldable_constant dense<[10.0, 20.0, 30.0, 40.0, 50.0]> : tensor<5xf32>
  %i = tensor.cast %idx : tensor<5x1xi32> to tensor<?x1xi32>
  %u = tensor.cast %upd : tensor<5xf32> to tensor<?xf32>
  %r = func.call @scatter_add(%operand, %i, %u) : (tensor<8xf32>, tensor<?x1xi32>, tensor<?xf32>) -> tensor<8xf32>
  check.expect_almost_eq_const(%r, dense<[61.0, 1.0, 1.0, 51.0, 1.0, 1.0, 1.0, 41.0]> : tensor<8xf32>) : tensor<8xf32>
  return
}

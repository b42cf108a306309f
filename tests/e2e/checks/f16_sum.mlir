// Long f16/bf16 sums accumulate in f32 (IREE's e2e expectation for linalg.generic's
// f16 sum: 4096 x 0.001 = 4.096 within 1e-4, compared in f16). One serial f16 chain stalls at
// 4: beyond it, 0.001 is below half a unit in the last place.

// Folded at compile time (the constant evaluator).
func.func @f16_sum_constant() {
  %in = util.unfoldable_constant dense<0.001> : tensor<4096xf16>
  %init = tensor.empty() : tensor<f16>
  %zero = arith.constant 0.0 : f16
  %fill = linalg.fill ins(%zero : f16) outs(%init : tensor<f16>) -> tensor<f16>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>],
                         iterator_types = ["reduction"]}
      ins(%in : tensor<4096xf16>) outs(%fill : tensor<f16>) {
  ^bb0(%a: f16, %b: f16):
    %s = arith.addf %a, %b : f16
    linalg.yield %s : f16
  } -> tensor<f16>
  check.expect_almost_eq_const(%sum, dense<4.096> : tensor<f16>, atol 1.0e-04) : tensor<f16>
  return
}

// Computed by a kernel: the input is a stored global, not a constant.
util.global private mutable @f16_input = dense<0.001> : tensor<4096xf16>
func.func @f16_sum_kernel() {
  %in = util.global.load @f16_input : tensor<4096xf16>
  util.global.store %in, @f16_input : tensor<4096xf16>
  %init = tensor.empty() : tensor<f16>
  %zero = arith.constant 0.0 : f16
  %fill = linalg.fill ins(%zero : f16) outs(%init : tensor<f16>) -> tensor<f16>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>],
                         iterator_types = ["reduction"]}
      ins(%in : tensor<4096xf16>) outs(%fill : tensor<f16>) {
  ^bb0(%a: f16, %b: f16):
    %s = arith.addf %a, %b : f16
    linalg.yield %s : f16
  } -> tensor<f16>
  check.expect_almost_eq_const(%sum, dense<4.096> : tensor<f16>, atol 1.0e-04) : tensor<f16>
  return
}

// Rows of a 2-D bf16 tensor, reduced by a kernel: 8 rows of 2048 x 0.01 = 20.48 (bf16: 20.5).
util.global private mutable @bf16_input = dense<0.01> : tensor<8x2048xbf16>
func.func @bf16_row_sum_kernel() {
  %in = util.global.load @bf16_input : tensor<8x2048xbf16>
  util.global.store %in, @bf16_input : tensor<8x2048xbf16>
  %init = tensor.empty() : tensor<8xbf16>
  %zero = arith.constant 0.0 : bf16
  %fill = linalg.fill ins(%zero : bf16) outs(%init : tensor<8xbf16>) -> tensor<8xbf16>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                         iterator_types = ["parallel", "reduction"]}
      ins(%in : tensor<8x2048xbf16>) outs(%fill : tensor<8xbf16>) {
  ^bb0(%a: bf16, %b: bf16):
    %s = arith.addf %a, %b : bf16
    linalg.yield %s : bf16
  } -> tensor<8xbf16>
  check.expect_almost_eq_const(%sum, dense<20.48> : tensor<8xbf16>, atol 1.0e-02) : tensor<8xbf16>
  return
}

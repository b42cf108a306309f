// C = A · B for 128x128 f32 matrices (128³ multiply-adds); C starts from zeros.
// numpy: a @ b
func.func @matmul(%a: tensor<128x128xf32>, %b: tensor<128x128xf32>) -> tensor<128x128xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<128x128xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<128x128xf32>) -> tensor<128x128xf32>
  %c = linalg.matmul ins(%a, %b : tensor<128x128xf32>, tensor<128x128xf32>)
                     outs(%init : tensor<128x128xf32>) -> tensor<128x128xf32>
  return %c : tensor<128x128xf32>
}

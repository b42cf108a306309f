// C[b] = A[b] · B[b] for 8 batches of 256x256 f32 matrices (8·256³ multiply-adds); C starts from zeros.
// numpy: a @ b (np.matmul over the leading batch axis)
func.func @batch_matmul(%a: tensor<8x256x256xf32>, %b: tensor<8x256x256xf32>) -> tensor<8x256x256xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<8x256x256xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<8x256x256xf32>) -> tensor<8x256x256xf32>
  %c = linalg.batch_matmul ins(%a, %b : tensor<8x256x256xf32>, tensor<8x256x256xf32>)
                           outs(%init : tensor<8x256x256xf32>) -> tensor<8x256x256xf32>
  return %c : tensor<8x256x256xf32>
}

// C = A · B for 1024x1024 int8 matrices into int32 (1024³ multiply-adds, exact); C starts
// from zeros. numpy: a.astype(int32) @ b.astype(int32)
func.func @igemm(%a: tensor<1024x1024xi8>, %b: tensor<1024x1024xi8>) -> tensor<1024x1024xi32> {
  %zero = arith.constant 0 : i32
  %empty = tensor.empty() : tensor<1024x1024xi32>
  %init = linalg.fill ins(%zero : i32) outs(%empty : tensor<1024x1024xi32>) -> tensor<1024x1024xi32>
  %c = linalg.matmul ins(%a, %b : tensor<1024x1024xi8>, tensor<1024x1024xi8>)
                     outs(%init : tensor<1024x1024xi32>) -> tensor<1024x1024xi32>
  return %c : tensor<1024x1024xi32>
}

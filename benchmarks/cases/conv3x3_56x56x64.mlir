// 3x3 convolution, NHWC input 1x58x58x64 (a 56x56 image with its 1-pixel border), HWIO filter
// 3x3x64x64, stride 1, no padding: output 1x56x56x64 (56·56·64·64·9 multiply-adds).
// numpy: an einsum over the sliding windows
func.func @conv(%x: tensor<1x58x58x64xf32>, %w: tensor<3x3x64x64xf32>) -> tensor<1x56x56x64xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1x56x56x64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<1x56x56x64xf32>) -> tensor<1x56x56x64xf32>
  %y = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
         ins(%x, %w : tensor<1x58x58x64xf32>, tensor<3x3x64x64xf32>)
         outs(%init : tensor<1x56x56x64xf32>) -> tensor<1x56x56x64xf32>
  return %y : tensor<1x56x56x64xf32>
}

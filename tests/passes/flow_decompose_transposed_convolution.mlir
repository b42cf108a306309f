// RUN: ireec opt %s --pass-pipeline=ireec-decompose-transposed-convolution | filecheck %s

// ConvTranspose2d(4 -> 2, kernel 2, stride 2) as torch-mlir writes it: the 3x3 image inserted
// with stride 2 at offset 1 into a zero 7x7 image, then a 2x2 convolution. Each of the four
// output phases (rows and columns even or odd) uses one tap: a 1x1 convolution of the image
// itself with that tap of the filter, from the bias, inserted with stride 2.
// CHECK-LABEL: func.func @convtranspose
// CHECK:       %[[OUT:.+]] = tensor.empty() : tensor<1x2x6x6xf32>
// CHECK:       %[[B0:.+]] = linalg.broadcast ins(%arg2 : tensor<2xf32>) outs(%{{.+}} : tensor<1x2x3x3xf32>) dimensions = [0, 2, 3]
// CHECK:       %[[W0:.+]] = tensor.extract_slice %arg1[0, 0, 1, 1] [2, 4, 1, 1] [1, 1, 2, 2]
// CHECK:       %[[C0:.+]] = linalg.conv_2d_nchw_fchw {{.*}} ins(%arg0, %[[W0]] : tensor<1x4x3x3xf32>, tensor<2x4x1x1xf32>) outs(%[[B0]] : tensor<1x2x3x3xf32>)
// CHECK:       %[[R0:.+]] = tensor.insert_slice %[[C0]] into %[[OUT]][0, 0, 0, 0] [1, 2, 3, 3] [1, 1, 2, 2]
// CHECK:       tensor.extract_slice %arg1[0, 0, 1, 0] [2, 4, 1, 1] [1, 1, 2, 2]
// CHECK:       %[[R1:.+]] = tensor.insert_slice %{{.+}} into %[[R0]][0, 0, 0, 1] [1, 2, 3, 3] [1, 1, 2, 2]
// CHECK:       tensor.extract_slice %arg1[0, 0, 0, 1] [2, 4, 1, 1] [1, 1, 2, 2]
// CHECK:       %[[R2:.+]] = tensor.insert_slice %{{.+}} into %[[R1]][0, 0, 1, 0] [1, 2, 3, 3] [1, 1, 2, 2]
// CHECK:       tensor.extract_slice %arg1[0, 0, 0, 0] [2, 4, 1, 1] [1, 1, 2, 2]
// CHECK:       %[[R3:.+]] = tensor.insert_slice %{{.+}} into %[[R2]][0, 0, 1, 1] [1, 2, 3, 3] [1, 1, 2, 2]
// CHECK-NOT:   tensor<1x4x7x7xf32>
// CHECK:       return %[[R3]]
func.func @convtranspose(%x: tensor<1x4x3x3xf32>, %w: tensor<2x4x2x2xf32>, %b: tensor<2xf32>) -> tensor<1x2x6x6xf32> {
  %zero = arith.constant 0.0 : f32
  %ez = tensor.empty() : tensor<1x4x7x7xf32>
  %z = linalg.fill ins(%zero : f32) outs(%ez : tensor<1x4x7x7xf32>) -> tensor<1x4x7x7xf32>
  %d = tensor.insert_slice %x into %z[0, 0, 1, 1] [1, 4, 3, 3] [1, 1, 2, 2] : tensor<1x4x3x3xf32> into tensor<1x4x7x7xf32>
  %e = tensor.empty() : tensor<1x2x6x6xf32>
  %init = linalg.broadcast ins(%b : tensor<2xf32>) outs(%e : tensor<1x2x6x6xf32>) dimensions = [0, 2, 3]
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%d, %w : tensor<1x4x7x7xf32>, tensor<2x4x2x2xf32>) outs(%init : tensor<1x2x6x6xf32>) -> tensor<1x2x6x6xf32>
  return %r : tensor<1x2x6x6xf32>
}

// A 3x3 window, stride 2, offset 1 (ConvTranspose2d padding 1, output_padding 1): even
// output rows use the middle tap row over image rows q, odd ones taps 0 and 2 over rows q
// and q + 1, the last of which is past the image (a zero row padded after it); the init is read
// with stride 2 per phase.
// CHECK-LABEL: func.func @padded_phase
// CHECK:       tensor.extract_slice %arg2[0, 0, 0, 0] [1, 3, 4, 4] [1, 1, 2, 2]
// CHECK:       tensor.extract_slice %arg1[0, 0, 1, 1] [3, 2, 1, 1] [1, 1, 2, 2]
// CHECK:       tensor.pad %arg0 low[0, 0, 0, 0] high[0, 0, 0, 1]
// CHECK:       tensor.extract_slice %arg1[0, 0, 1, 0] [3, 2, 1, 2] [1, 1, 2, 2]
// CHECK:       tensor.pad %arg0 low[0, 0, 0, 0] high[0, 0, 1, 0]
// CHECK:       tensor.extract_slice %arg1[0, 0, 0, 1] [3, 2, 2, 1] [1, 1, 2, 2]
// CHECK:       tensor.pad %arg0 low[0, 0, 0, 0] high[0, 0, 1, 1]
// CHECK:       tensor.extract_slice %arg1[0, 0, 0, 0] [3, 2, 2, 2] [1, 1, 2, 2]
// CHECK-NOT:   tensor<1x2x10x10xf32>
func.func @padded_phase(%x: tensor<1x2x4x4xf32>, %w: tensor<3x2x3x3xf32>, %init: tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %ez = tensor.empty() : tensor<1x2x10x10xf32>
  %z = linalg.fill ins(%zero : f32) outs(%ez : tensor<1x2x10x10xf32>) -> tensor<1x2x10x10xf32>
  %d = tensor.insert_slice %x into %z[0, 0, 1, 1] [1, 2, 4, 4] [1, 1, 2, 2] : tensor<1x2x4x4xf32> into tensor<1x2x10x10xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%d, %w : tensor<1x2x10x10xf32>, tensor<3x2x3x3xf32>) outs(%init : tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  return %r : tensor<1x3x8x8xf32>
}

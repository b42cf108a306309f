// RUN: ireec opt %s --pass-pipeline=iree-preprocessing-convert-conv-filter-to-channels-last | filecheck %s

// A 3x3 image of 32 channels from a constant 32x8x3x3 filter: the GEMM's 32 x 9 (channels x
// pixels) becomes 9 x 32, so the filter is transposed to [c, kh, kw, f] and the convolution
// becomes a generic reading it as (c, kh, kw, f).
// CHECK-LABEL: func.func @few_pixels
// CHECK:       %[[W:.+]] = arith.constant dense<1.25e-01> : tensor<32x8x3x3xf32>
// CHECK:       %[[E:.+]] = tensor.empty() : tensor<8x3x3x32xf32>
// CHECK:       %[[T:.+]] = linalg.transpose ins(%[[W]] : tensor<32x8x3x3xf32>) outs(%[[E]] : tensor<8x3x3x32xf32>) permutation = [1, 2, 3, 0]
// CHECK:       linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>]
// CHECK-SAME:    ins(%arg0, %[[T]] : tensor<1x8x5x5xf32>, tensor<8x3x3x32xf32>)
// CHECK-NOT:   linalg.conv_2d
func.func @few_pixels(%x: tensor<1x8x5x5xf32>, %init: tensor<1x32x3x3xf32>) -> tensor<1x32x3x3xf32> {
  %w = arith.constant dense<0.125> : tensor<32x8x3x3xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %w : tensor<1x8x5x5xf32>, tensor<32x8x3x3xf32>) outs(%init : tensor<1x32x3x3xf32>) -> tensor<1x32x3x3xf32>
  return %0 : tensor<1x32x3x3xf32>
}

// Many pixels (a 16x16 image of 16 channels): the channels x pixels GEMM is kept.
// CHECK-LABEL: func.func @many_pixels
// CHECK-NOT:   linalg.transpose
// CHECK:       linalg.conv_2d_nchw_fchw
func.func @many_pixels(%x: tensor<1x8x18x18xf32>, %init: tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32> {
  %w = arith.constant dense<0.125> : tensor<16x8x3x3xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %w : tensor<1x8x18x18xf32>, tensor<16x8x3x3xf32>) outs(%init : tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32>
  return %0 : tensor<1x16x16x16xf32>
}

// A filter computed on every call (an argument) is not transposed on every call.
// CHECK-LABEL: func.func @filter_argument
// CHECK-NOT:   linalg.transpose
// CHECK:       linalg.conv_2d_nchw_fchw
func.func @filter_argument(%x: tensor<1x8x5x5xf32>, %w: tensor<32x8x3x3xf32>, %init: tensor<1x32x3x3xf32>) -> tensor<1x32x3x3xf32> {
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %w : tensor<1x8x5x5xf32>, tensor<32x8x3x3xf32>) outs(%init : tensor<1x32x3x3xf32>) -> tensor<1x32x3x3xf32>
  return %0 : tensor<1x32x3x3xf32>
}

// NHWC (the output channels already the GEMM's columns) is left alone.
// CHECK-LABEL: func.func @nhwc
// CHECK-NOT:   linalg.transpose
// CHECK:       linalg.conv_2d_nhwc_hwcf
func.func @nhwc(%x: tensor<1x5x5x8xf32>, %init: tensor<1x3x3x32xf32>) -> tensor<1x3x3x32xf32> {
  %w = arith.constant dense<0.125> : tensor<3x3x8x32xf32>
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %w : tensor<1x5x5x8xf32>, tensor<3x3x8x32xf32>) outs(%init : tensor<1x3x3x32xf32>) -> tensor<1x3x3x32xf32>
  return %0 : tensor<1x3x3x32xf32>
}

// A pointwise (1x1) convolution on a 3x3 image is converted too: 32 x 9 becomes 9 x 32
// (convert-1x1-filter-conv2d-to-matmul then leaves it a convolution).
// CHECK-LABEL: func.func @pointwise
// CHECK:       linalg.transpose ins(%{{.+}} : tensor<32x8x1x1xf32>) outs(%{{.+}} : tensor<8x1x1x32xf32>) permutation = [1, 2, 3, 0]
// CHECK:       linalg.generic
// CHECK-SAME:    affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
func.func @pointwise(%y: tensor<1x8x3x3xf32>, %init: tensor<1x32x3x3xf32>) -> tensor<1x32x3x3xf32> {
  %w = arith.constant dense<0.125> : tensor<32x8x1x1xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%y, %w : tensor<1x8x3x3xf32>, tensor<32x8x1x1xf32>) outs(%init : tensor<1x32x3x3xf32>) -> tensor<1x32x3x3xf32>
  return %0 : tensor<1x32x3x3xf32>
}

// NHWC with an FHWC filter (TOSA's layout) computed from constants (a dequantization):
// always transposed to HWCF, its output channels contiguous as in the output.
// CHECK-LABEL: func.func @nhwc_fhwc
// CHECK:       %[[Q:.+]] = linalg.generic
// CHECK:       linalg.transpose ins(%[[Q]] : tensor<8x3x3x1xf32>) outs(%{{.+}} : tensor<3x3x1x8xf32>) permutation = [1, 2, 3, 0]
// CHECK:       linalg.generic
// CHECK-SAME:    affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d3)>
func.func @nhwc_fhwc(%x: tensor<1x34x34x1xf32>, %init: tensor<1x32x32x8xf32>) -> tensor<1x32x32x8xf32> {
  %q = arith.constant dense<3> : tensor<8x3x3x1xi8>
  %e = tensor.empty() : tensor<8x3x3x1xf32>
  %w = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (a, b, c, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%q : tensor<8x3x3x1xi8>) outs(%e : tensor<8x3x3x1xf32>) {
  ^bb0(%a: i8, %o: f32):
    %f = arith.sitofp %a : i8 to f32
    %s = arith.constant 0.05 : f32
    %m = arith.mulf %f, %s : f32
    linalg.yield %m : f32
  } -> tensor<8x3x3x1xf32>
  %0 = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %w : tensor<1x34x34x1xf32>, tensor<8x3x3x1xf32>) outs(%init : tensor<1x32x32x8xf32>) -> tensor<1x32x32x8xf32>
  return %0 : tensor<1x32x32x8xf32>
}

// A depthwise convolution (its channels index the image too) is no GEMM: left alone.
// CHECK-LABEL: func.func @depthwise
// CHECK-NOT:   linalg.transpose
// CHECK:       linalg.depthwise_conv_2d_nchw_chw
func.func @depthwise(%x: tensor<1x96x4x4xf32>, %init: tensor<1x96x2x2xf32>) -> tensor<1x96x2x2xf32> {
  %w = arith.constant dense<0.125> : tensor<96x3x3xf32>
  %0 = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %w : tensor<1x96x4x4xf32>, tensor<96x3x3xf32>) outs(%init : tensor<1x96x2x2xf32>) -> tensor<1x96x2x2xf32>
  return %0 : tensor<1x96x2x2xf32>
}

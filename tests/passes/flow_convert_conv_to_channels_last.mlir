// RUN: ireec opt %s --pass-pipeline=iree-preprocessing-convert-conv-to-channels-last | filecheck %s

// An inverted-residual tail: pad, depthwise 3x3, relu, pointwise 1x1 with a bias, residual
// add. The depthwise convolution runs channels-last; its result's transpose sinks through the
// relu to the 1x1 convolution, which is then converted too, so no transpose is left between
// them. The pad follows its image's transpose; the residual add reads the NCHW argument and
// keeps the 1x1 result's transpose back.
// CHECK-LABEL: func.func @block
// CHECK:       %[[X:.+]] = linalg.transpose ins(%arg0 : tensor<1x16x8x8xf32>) outs(%{{.+}} : tensor<1x8x8x16xf32>) permutation = [0, 2, 3, 1]
// CHECK:       %[[P:.+]] = tensor.pad %[[X]] low[0, 1, 1, 0] high[0, 1, 1, 0]
// CHECK:       %[[WD:.+]] = linalg.transpose ins(%{{.+}} : tensor<16x3x3xf32>) outs(%{{.+}} : tensor<3x3x16xf32>) permutation = [1, 2, 0]
// CHECK:       %[[D:.+]] = linalg.depthwise_conv_2d_nhwc_hwc {{.*}} ins(%[[P]], %[[WD]] : tensor<1x10x10x16xf32>, tensor<3x3x16xf32>)
// CHECK:       %[[R:.+]] = linalg.generic {{.*}} ins(%[[D]] : tensor<1x8x8x16xf32>)
// CHECK:       arith.maximumf
// CHECK:       %[[WP:.+]] = linalg.transpose ins(%{{.+}} : tensor<16x16x1x1xf32>) outs(%{{.+}} : tensor<1x1x16x16xf32>) permutation = [2, 3, 1, 0]
// CHECK:       %[[B:.+]] = linalg.broadcast ins(%{{.+}} : tensor<16xf32>) outs(%{{.+}} : tensor<1x8x8x16xf32>) dimensions = [0, 1, 2]
// CHECK:       %[[C:.+]] = linalg.conv_2d_nhwc_hwcf {{.*}} ins(%[[R]], %[[WP]] : tensor<1x8x8x16xf32>, tensor<1x1x16x16xf32>) outs(%[[B]] : tensor<1x8x8x16xf32>)
// CHECK:       %[[T:.+]] = linalg.transpose ins(%[[C]] : tensor<1x8x8x16xf32>) outs(%{{.+}} : tensor<1x16x8x8xf32>) permutation = [0, 3, 1, 2]
// CHECK:       linalg.generic {{.*}} ins(%[[T]], %arg0 : tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>)
// CHECK-NOT:   linalg.transpose
// CHECK:       return
func.func @block(%x: tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32> {
  %cst = arith.constant 0.0 : f32
  %wd = arith.constant dense<0.5> : tensor<16x3x3xf32>
  %wp = arith.constant dense<0.25> : tensor<16x16x1x1xf32>
  %b = arith.constant dense<1.0> : tensor<16xf32>
  %e = tensor.empty() : tensor<1x16x8x8xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  %padded = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %cst : f32
  } : tensor<1x16x8x8xf32> to tensor<1x16x10x10xf32>
  %d = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%padded, %wd : tensor<1x16x10x10xf32>, tensor<16x3x3xf32>) outs(%z : tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%d : tensor<1x16x8x8xf32>) outs(%e : tensor<1x16x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %cst : f32
    linalg.yield %m : f32
  } -> tensor<1x16x8x8xf32>
  %bb = linalg.broadcast ins(%b : tensor<16xf32>) outs(%e : tensor<1x16x8x8xf32>) dimensions = [0, 2, 3]
  %p = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%r, %wp : tensor<1x16x8x8xf32>, tensor<16x16x1x1xf32>) outs(%bb : tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p, %x : tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>) outs(%e : tensor<1x16x8x8xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %m = arith.addf %in, %in2 : f32
    linalg.yield %m : f32
  } -> tensor<1x16x8x8xf32>
  return %s : tensor<1x16x8x8xf32>
}

// A 3x3 convolution of few channels stays NCHW (its im2col GEMM has the pixels as columns),
// and so does a 1x1 convolution that no channels-last value reaches.
// CHECK-LABEL: func.func @plain
// CHECK-NOT:   linalg.transpose
// CHECK:       linalg.conv_2d_nchw_fchw
// CHECK:       linalg.conv_2d_nchw_fchw
// CHECK-NOT:   nhwc
func.func @plain(%x: tensor<1x12x10x10xf32>, %init: tensor<1x12x8x8xf32>) -> tensor<1x12x8x8xf32> {
  %w = arith.constant dense<0.125> : tensor<12x12x3x3xf32>
  %w1 = arith.constant dense<0.5> : tensor<12x12x1x1xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %w : tensor<1x12x10x10xf32>, tensor<12x12x3x3xf32>) outs(%init : tensor<1x12x8x8xf32>) -> tensor<1x12x8x8xf32>
  %1 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%0, %w1 : tensor<1x12x8x8xf32>, tensor<12x12x1x1xf32>) outs(%init : tensor<1x12x8x8xf32>) -> tensor<1x12x8x8xf32>
  return %1 : tensor<1x12x8x8xf32>
}

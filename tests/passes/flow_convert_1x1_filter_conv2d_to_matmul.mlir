// RUN: ireec opt %s --pass-pipeline=iree-global-opt-convert-1x1-filter-conv2d-to-matmul | filecheck %s

// NCHW/FCHW with a 1x1 filter: the window loops go, the filter's window indices are 0.
// CHECK-LABEL: func.func @nchw_fchw
// CHECK:       linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d4, d2, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d1, d4, 0, 0)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME:    ins(%arg0, %arg1 : tensor<2x16x8x8xf32>, tensor<32x16x1x1xf32>)
// CHECK:         arith.mulf
// CHECK:         arith.addf
// CHECK-NOT:   linalg.conv_2d
func.func @nchw_fchw(%x: tensor<2x16x8x8xf32>, %w: tensor<32x16x1x1xf32>, %init: tensor<2x32x8x8xf32>) -> tensor<2x32x8x8xf32> {
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %w : tensor<2x16x8x8xf32>, tensor<32x16x1x1xf32>) outs(%init : tensor<2x32x8x8xf32>) -> tensor<2x32x8x8xf32>
  return %0 : tensor<2x32x8x8xf32>
}

// NHWC/HWCF.
// CHECK-LABEL: func.func @nhwc_hwcf
// CHECK:       linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (0, 0, d4, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>]
func.func @nhwc_hwcf(%x: tensor<1x8x8x16xf32>, %w: tensor<1x1x16x32xf32>, %init: tensor<1x8x8x32xf32>) -> tensor<1x8x8x32xf32> {
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x8x8x16xf32>, tensor<1x1x16x32xf32>) outs(%init : tensor<1x8x8x32xf32>) -> tensor<1x8x8x32xf32>
  return %0 : tensor<1x8x8x32xf32>
}

// NHWC/FHWC.
// CHECK-LABEL: func.func @nhwc_fhwc
// CHECK:       linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d3, 0, 0, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>]
func.func @nhwc_fhwc(%x: tensor<1x8x8x16xf32>, %w: tensor<32x1x1x16xf32>, %init: tensor<1x8x8x32xf32>) -> tensor<1x8x8x32xf32> {
  %0 = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x8x8x16xf32>, tensor<32x1x1x16xf32>) outs(%init : tensor<1x8x8x32xf32>) -> tensor<1x8x8x32xf32>
  return %0 : tensor<1x8x8x32xf32>
}

// The generic form the StableHLO lowering produces (loops n, f, oh, ow, kh, kw, c): the loops
// are renumbered into the result's order (n, oh, ow, f), then the reduction c.
// CHECK-LABEL: func.func @generic_nhwc
// CHECK:       linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (0, 0, d4, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
func.func @generic_nhwc(%x: tensor<1x8x8x16xf32>, %w: tensor<1x1x16x32xf32>, %init: tensor<1x8x8x32xf32>) -> tensor<1x8x8x32xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d2 + d4, d3 + d5, d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d2, d3, d1)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x8x8x16xf32>, tensor<1x1x16x32xf32>) outs(%init : tensor<1x8x8x32xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x8x8x32xf32>
  return %0 : tensor<1x8x8x32xf32>
}

// A stride of 2 keeps an index that is no plain dim: unchanged.
// CHECK-LABEL: func.func @strided_stays
// CHECK:       linalg.conv_2d_nchw_fchw
func.func @strided_stays(%x: tensor<1x16x8x8xf32>, %w: tensor<32x16x1x1xf32>, %init: tensor<1x32x4x4xf32>) -> tensor<1x32x4x4xf32> {
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%x, %w : tensor<1x16x8x8xf32>, tensor<32x16x1x1xf32>) outs(%init : tensor<1x32x4x4xf32>) -> tensor<1x32x4x4xf32>
  return %0 : tensor<1x32x4x4xf32>
}

// A 3x3 window: unchanged.
// CHECK-LABEL: func.func @window_3x3_stays
// CHECK:       linalg.conv_2d_nchw_fchw
func.func @window_3x3_stays(%x: tensor<1x16x8x8xf32>, %w: tensor<32x16x3x3xf32>, %init: tensor<1x32x6x6xf32>) -> tensor<1x32x6x6xf32> {
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %w : tensor<1x16x8x8xf32>, tensor<32x16x3x3xf32>) outs(%init : tensor<1x32x6x6xf32>) -> tensor<1x32x6x6xf32>
  return %0 : tensor<1x32x6x6xf32>
}

// The quantized twins: the zero points, indexed by no loop, keep their empty maps; the
// payload (zero-point subtraction, multiply-accumulate) moves over as is.
// CHECK-LABEL: func.func @nchw_fchw_q
// CHECK:       linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d4, d2, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d1, d4, 0, 0)>, affine_map<(d0, d1, d2, d3, d4) -> ()>, affine_map<(d0, d1, d2, d3, d4) -> ()>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME:    ins(%arg0, %arg1, %arg2, %arg3 : tensor<2x16x8x8xi8>, tensor<32x16x1x1xi8>, i32, i32)
// CHECK:         arith.extsi
// CHECK-NEXT:    arith.subi
// CHECK-NEXT:    arith.extsi
// CHECK-NEXT:    arith.subi
// CHECK-NEXT:    arith.muli
// CHECK-NEXT:    arith.addi
// CHECK-NOT:   linalg.conv_2d
func.func @nchw_fchw_q(%x: tensor<2x16x8x8xi8>, %w: tensor<32x16x1x1xi8>, %izp: i32, %kzp: i32, %init: tensor<2x32x8x8xi32>) -> tensor<2x32x8x8xi32> {
  %0 = linalg.conv_2d_nchw_fchw_q {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %w, %izp, %kzp : tensor<2x16x8x8xi8>, tensor<32x16x1x1xi8>, i32, i32) outs(%init : tensor<2x32x8x8xi32>) -> tensor<2x32x8x8xi32>
  return %0 : tensor<2x32x8x8xi32>
}

// CHECK-LABEL: func.func @nhwc_hwcf_q
// CHECK:       linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (0, 0, d4, d3)>, affine_map<(d0, d1, d2, d3, d4) -> ()>, affine_map<(d0, d1, d2, d3, d4) -> ()>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>]
// CHECK-NOT:   linalg.conv_2d
func.func @nhwc_hwcf_q(%x: tensor<1x8x8x16xi8>, %w: tensor<1x1x16x32xi8>, %izp: i32, %kzp: i32, %init: tensor<1x8x8x32xi32>) -> tensor<1x8x8x32xi32> {
  %0 = linalg.conv_2d_nhwc_hwcf_q {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w, %izp, %kzp : tensor<1x8x8x16xi8>, tensor<1x1x16x32xi8>, i32, i32) outs(%init : tensor<1x8x8x32xi32>) -> tensor<1x8x8x32xi32>
  return %0 : tensor<1x8x8x32xi32>
}

// CHECK-LABEL: func.func @nhwc_fhwc_q
// CHECK:       linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d3, 0, 0, d4)>, affine_map<(d0, d1, d2, d3, d4) -> ()>, affine_map<(d0, d1, d2, d3, d4) -> ()>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>]
// CHECK-NOT:   linalg.conv_2d
func.func @nhwc_fhwc_q(%x: tensor<1x8x8x16xi8>, %w: tensor<32x1x1x16xi8>, %izp: i32, %kzp: i32, %init: tensor<1x8x8x32xi32>) -> tensor<1x8x8x32xi32> {
  %0 = linalg.conv_2d_nhwc_fhwc_q {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w, %izp, %kzp : tensor<1x8x8x16xi8>, tensor<32x1x1x16xi8>, i32, i32) outs(%init : tensor<1x8x8x32xi32>) -> tensor<1x8x8x32xi32>
  return %0 : tensor<1x8x8x32xi32>
}

// NCHW with a channels-last filter (convert-conv-filter-to-channels-last's form for few
// output pixels): left a convolution, which im2col computes as pixels x channels.
// CHECK-LABEL: func.func @nchw_channels_last_filter
// CHECK:       linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
func.func @nchw_channels_last_filter(%x: tensor<1x16x2x2xf32>, %w: tensor<16x1x1x64xf32>, %init: tensor<1x64x2x2xf32>) -> tensor<1x64x2x2xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x16x2x2xf32>, tensor<16x1x1x64xf32>) outs(%init : tensor<1x64x2x2xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x64x2x2xf32>
  return %0 : tensor<1x64x2x2xf32>
}

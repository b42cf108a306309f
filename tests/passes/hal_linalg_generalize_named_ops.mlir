// RUN: ireec opt %s --pass-pipeline=linalg-generalize-named-ops | filecheck %s

// Named ops become linalg.generic with the maps and iterators of their definition.
// CHECK-LABEL: func.func @matmul
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "reduction"]
// CHECK:           arith.mulf
// CHECK:           arith.addf
// CHECK-NOT:     linalg.matmul
func.func @matmul(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// CHECK-LABEL: func.func @transpose
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-NOT:     linalg.transpose
func.func @transpose(%a: tensor<4x8xf32>, %init: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %0 = linalg.transpose ins(%a : tensor<4x8xf32>) outs(%init : tensor<8x4xf32>) permutation = [1, 0]
  return %0 : tensor<8x4xf32>
}

// A quantized convolution (upstream OpDSL conv_2d_nchw_fchw_q): strides and dilations scale
// the window indices; each zero point, indexed by no loop, is subtracted from its
// sign-extended operand before the multiply-accumulate.
// CHECK-LABEL: func.func @conv_2d_nchw_fchw_q
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 * 2 + d5, d3 + d6 * 2)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> ()>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> ()>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>]
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
// CHECK-NEXT:    ^bb0(%[[I:.+]]: i8, %[[K:.+]]: i8, %[[IZP:.+]]: i32, %[[KZP:.+]]: i32, %[[ACC:.+]]: i32):
// CHECK-NEXT:      %[[IE:.+]] = arith.extsi %[[I]] : i8 to i32
// CHECK-NEXT:      %[[IS:.+]] = arith.subi %[[IE]], %[[IZP]] : i32
// CHECK-NEXT:      %[[KE:.+]] = arith.extsi %[[K]] : i8 to i32
// CHECK-NEXT:      %[[KS:.+]] = arith.subi %[[KE]], %[[KZP]] : i32
// CHECK-NEXT:      %[[M:.+]] = arith.muli %[[IS]], %[[KS]] : i32
// CHECK-NEXT:      %[[A:.+]] = arith.addi %[[ACC]], %[[M]] : i32
// CHECK-NEXT:      linalg.yield %[[A]] : i32
// CHECK-NOT:     linalg.conv_2d_nchw_fchw_q
func.func @conv_2d_nchw_fchw_q(%x: tensor<1x3x9x9xi8>, %w: tensor<4x3x3x2xi8>, %izp: i32, %kzp: i32, %init: tensor<1x4x4x7xi32>) -> tensor<1x4x4x7xi32> {
  %0 = linalg.conv_2d_nchw_fchw_q {dilations = dense<[1, 2]> : vector<2xi64>, strides = dense<[2, 1]> : vector<2xi64>} ins(%x, %w, %izp, %kzp : tensor<1x3x9x9xi8>, tensor<4x3x3x2xi8>, i32, i32) outs(%init : tensor<1x4x4x7xi32>) -> tensor<1x4x4x7xi32>
  return %0 : tensor<1x4x4x7xi32>
}

// A quantized depthwise convolution with a channel multiplier (depthwise_conv_2d_nhwc_hwcm_q).
// CHECK-LABEL: func.func @depthwise_conv_2d_nhwc_hwcm_q
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 * 2 + d5, d2 + d6 * 2, d3)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d5, d6, d3, d4)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> ()>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> ()>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3, d4)>]
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]
// CHECK-NOT:     linalg.depthwise_conv_2d_nhwc_hwcm_q
func.func @depthwise_conv_2d_nhwc_hwcm_q(%x: tensor<1x9x9x3xi8>, %w: tensor<3x2x3x2xi8>, %izp: i32, %kzp: i32, %init: tensor<1x4x7x3x2xi32>) -> tensor<1x4x7x3x2xi32> {
  %0 = linalg.depthwise_conv_2d_nhwc_hwcm_q {dilations = dense<[1, 2]> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>} ins(%x, %w, %izp, %kzp : tensor<1x9x9x3xi8>, tensor<3x2x3x2xi8>, i32, i32) outs(%init : tensor<1x4x7x3x2xi32>) -> tensor<1x4x7x3x2xi32>
  return %0 : tensor<1x4x7x3x2xi32>
}

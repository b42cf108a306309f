// RUN: ireec opt %s --pass-pipeline=fuse-qdq-contractions | filecheck %s

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch4 = affine_map<(d0, d1, d2, d3) -> (d0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row2 = affine_map<(d0, d1) -> (d0)>
#col2 = affine_map<(d0, d1) -> (d1)>
#id1 = affine_map<(d0) -> (d0)>

// A QDQ convolution as ONNX Runtime's quantizer exports it and torch-mlir lowers it: the
// activation dequantized from i8 (zero point -4), padded with 0.0; the i8 filter dequantized
// with a scale per output channel (zero point 0); the bias a dequantized i32 vector whose
// scale is sx * sw[f]. It becomes a convolution of the i8 tensors padded with the zero
// point, starting from the i32 bias, and one scaling by sx * sw[f]; the f32 ops go.
// CHECK-LABEL: func.func @conv_per_channel
// CHECK-DAG:   %[[W:.+]] = arith.constant dense<{{.+}}> : tensor<3x2x3x3xi8>
// CHECK-DAG:   %[[B:.+]] = arith.constant dense<[100, -200, 300]> : tensor<3xi32>
// CHECK-DAG:   %[[ZP8:.+]] = arith.constant -4 : i8
// CHECK:       %[[P:.+]] = tensor.pad %arg0 low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK:         tensor.yield %[[ZP8]] : i8
// CHECK:       } : tensor<1x2x6x6xi8> to tensor<1x2x8x8xi8>
// CHECK:       %[[ACC0:.+]] = linalg.broadcast ins(%[[B]] : tensor<3xi32>) outs(%{{.+}} : tensor<1x3x6x6xi32>) dimensions = [0, 2, 3]
// CHECK:       %[[ZP:.+]] = arith.constant -4 : i32
// CHECK:       %[[ACC:.+]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> ()>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>]
// CHECK-SAME:    ins(%[[P]], %[[W]], %[[ZP]] : tensor<1x2x8x8xi8>, tensor<3x2x3x3xi8>, i32) outs(%[[ACC0]] : tensor<1x3x6x6xi32>)
// CHECK:         %[[A:.+]] = arith.extsi %{{.+}} : i8 to i32
// CHECK:         %[[AZ:.+]] = arith.subi %[[A]], %{{.+}} : i32
// CHECK:         %[[F:.+]] = arith.extsi %{{.+}} : i8 to i32
// CHECK:         %[[M:.+]] = arith.muli %[[AZ]], %[[F]] : i32
// CHECK:         arith.addi %{{.+}}, %[[M]] : i32
// CHECK:       %[[S:.+]] = arith.constant dense<[1.5625e-02, 7.8125e-03, 3.90625e-03]> : tensor<3xf32>
// CHECK:       %[[Y:.+]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>]
// CHECK-SAME:    ins(%[[ACC]], %[[S]] : tensor<1x3x6x6xi32>, tensor<3xf32>)
// CHECK:         %[[C:.+]] = arith.sitofp %{{.+}} : i32 to f32
// CHECK:         arith.mulf %[[C]], %{{.+}} : f32
// CHECK:       return %[[Y]]
// CHECK-NOT:   linalg.conv_2d_nchw_fchw
func.func @conv_per_channel(%q: tensor<1x2x6x6xi8>) -> tensor<1x3x6x6xf32> {
  %zx = arith.constant -4 : i64
  %sx = arith.constant 0.03125 : f32
  %zero = arith.constant 0.000000e+00 : f32
  %qw = arith.constant dense<[[[[1, -2, 3], [4, 5, -6], [7, 8, 9]], [[-1, 2, -3], [4, -5, 6], [-7, 8, -9]]], [[[127, -128, 3], [4, 5, -6], [7, 8, 9]], [[1, 2, 3], [4, 5, 6], [7, 8, 9]]], [[[0, 0, 0], [0, 1, 0], [0, 0, 0]], [[0, 0, 0], [0, -1, 0], [0, 0, 0]]]]> : tensor<3x2x3x3xi8>
  %sw = arith.constant dense<[0.5, 0.25, 0.125]> : tensor<3xf32>
  %zw = arith.constant dense<0> : tensor<3xi8>
  %qb = arith.constant dense<[100, -200, 300]> : tensor<3xi32>
  %sb = arith.constant dense<[0.015625, 0.0078125, 0.00390625]> : tensor<3xf32>
  %zb = arith.constant dense<0> : tensor<3xi32>
  %e0 = tensor.empty() : tensor<1x2x6x6xf32>
  %x = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%q : tensor<1x2x6x6xi8>) outs(%e0 : tensor<1x2x6x6xf32>) {
  ^bb0(%in: i8, %out: f32):
    %0 = arith.extsi %in : i8 to i64
    %1 = arith.subi %0, %zx : i64
    %2 = arith.sitofp %1 : i64 to f32
    %3 = arith.mulf %2, %sx : f32
    linalg.yield %3 : f32
  } -> tensor<1x2x6x6xf32>
  %e1 = tensor.empty() : tensor<3x2x3x3xf32>
  %w = linalg.generic {indexing_maps = [#id4, #ch4, #ch4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%qw, %sw, %zw : tensor<3x2x3x3xi8>, tensor<3xf32>, tensor<3xi8>) outs(%e1 : tensor<3x2x3x3xf32>) {
  ^bb0(%in: i8, %s: f32, %z: i8, %out: f32):
    %0 = arith.extsi %z : i8 to i16
    %1 = arith.extsi %in : i8 to i16
    %2 = arith.subi %1, %0 : i16
    %3 = arith.sitofp %2 : i16 to f32
    %4 = arith.mulf %3, %s : f32
    linalg.yield %4 : f32
  } -> tensor<3x2x3x3xf32>
  %e2 = tensor.empty() : tensor<3xf32>
  %b = linalg.generic {indexing_maps = [#id1, #id1, #id1, #id1], iterator_types = ["parallel"]} ins(%qb, %sb, %zb : tensor<3xi32>, tensor<3xf32>, tensor<3xi32>) outs(%e2 : tensor<3xf32>) {
  ^bb0(%in: i32, %s: f32, %z: i32, %out: f32):
    %0 = arith.extsi %z : i32 to i64
    %1 = arith.extsi %in : i32 to i64
    %2 = arith.subi %1, %0 : i64
    %3 = arith.sitofp %2 : i64 to f32
    %4 = arith.mulf %3, %s : f32
    linalg.yield %4 : f32
  } -> tensor<3xf32>
  %padded = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x2x6x6xf32> to tensor<1x2x8x8xf32>
  %e3 = tensor.empty() : tensor<1x3x6x6xf32>
  %bb = linalg.broadcast ins(%b : tensor<3xf32>) outs(%e3 : tensor<1x3x6x6xf32>) dimensions = [0, 2, 3]
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%padded, %w : tensor<1x2x8x8xf32>, tensor<3x2x3x3xf32>) outs(%bb : tensor<1x3x6x6xf32>) -> tensor<1x3x6x6xf32>
  return %y : tensor<1x3x6x6xf32>
}

// A u8 activation (extui, zero point 128) against a transposed weight (K = 16) dequantized with a
// float zero point (3.0) and one scale: both zero points become i32 inputs of the integer
// matmul, the weight's transpose is taken on the i8 constant, and the f32 init (no
// dequantized bias) is added after the scaling by 0.5 * 0.25.
// CHECK-LABEL: func.func @matmul_uint8_transposed
// CHECK:       %[[T:.+]] = linalg.transpose ins(%{{.+}} : tensor<3x16xi8>) outs(%{{.+}} : tensor<16x3xi8>) permutation = [1, 0]
// CHECK:       %[[Z:.+]] = linalg.fill ins(%{{.+}} : i32) outs(%{{.+}} : tensor<2x3xi32>)
// CHECK:       %[[ZA:.+]] = arith.constant 128 : i32
// CHECK:       %[[ZB:.+]] = arith.constant 3 : i32
// CHECK:       %[[ACC:.+]] = linalg.generic
// CHECK-SAME:    ins(%arg0, %[[T]], %[[ZA]], %[[ZB]] : tensor<2x16xi8>, tensor<16x3xi8>, i32, i32) outs(%[[Z]] : tensor<2x3xi32>)
// CHECK:         arith.extui %{{.+}} : i8 to i32
// CHECK:         arith.extsi %{{.+}} : i8 to i32
// CHECK:       linalg.generic
// CHECK-SAME:    ins(%[[ACC]], %arg1 : tensor<2x3xi32>, tensor<2x3xf32>)
// CHECK:         %[[C:.+]] = arith.sitofp %{{.+}} : i32 to f32
// CHECK:         %[[S:.+]] = arith.constant 1.25e-01 : f32
// CHECK:         %[[M:.+]] = arith.mulf %[[C]], %[[S]] : f32
// CHECK:         arith.addf %{{.+}}, %[[M]] : f32
// CHECK-NOT:   linalg.matmul
func.func @matmul_uint8_transposed(%q: tensor<2x16xi8>, %init: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %e0 = tensor.empty() : tensor<2x16xf32>
  %x = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%q : tensor<2x16xi8>) outs(%e0 : tensor<2x16xf32>) {
  ^bb0(%in: i8, %out: f32):
    %zx = arith.constant 128 : i32
    %sx = arith.constant 0.5 : f32
    %0 = arith.extui %in : i8 to i32
    %1 = arith.subi %0, %zx : i32
    %2 = arith.sitofp %1 : i32 to f32
    %3 = arith.mulf %sx, %2 : f32
    linalg.yield %3 : f32
  } -> tensor<2x16xf32>
  %qw = arith.constant dense<[[-6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, -6, -5, -4], [-3, -2, -1, 0, 1, 2, 3, 4, 5, 6, -6, -5, -4, -3, -2, -1], [0, 1, 2, 3, 4, 5, 6, -6, -5, -4, -3, -2, -1, 0, 1, 2]]> : tensor<3x16xi8>
  %e1 = tensor.empty() : tensor<3x16xf32>
  %w = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%qw : tensor<3x16xi8>) outs(%e1 : tensor<3x16xf32>) {
  ^bb0(%in: i8, %out: f32):
    %s = arith.constant 0.25 : f32
    %z = arith.constant 3.0 : f32
    %0 = arith.sitofp %in : i8 to f32
    %1 = arith.subf %0, %z : f32
    %2 = arith.mulf %1, %s : f32
    linalg.yield %2 : f32
  } -> tensor<3x16xf32>
  %e2 = tensor.empty() : tensor<16x3xf32>
  %wt = linalg.transpose ins(%w : tensor<3x16xf32>) outs(%e2 : tensor<16x3xf32>) permutation = [1, 0]
  %y = linalg.matmul ins(%x, %wt : tensor<2x16xf32>, tensor<16x3xf32>) outs(%init : tensor<2x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// Weight zero points that differ per channel: left alone (the integer form takes one zero
// point per operand).
// CHECK-LABEL: func.func @weight_zero_points_per_channel
// CHECK:       linalg.matmul ins(%arg0, %{{.+}} : tensor<2x16xf32>, tensor<16x3xf32>)
func.func @weight_zero_points_per_channel(%x: tensor<2x16xf32>, %init: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %e0 = tensor.empty() : tensor<2x16xf32>
  %qw = arith.constant dense<[[-5, -4, -3], [-2, -1, 0], [1, 2, 3], [4, 5, -5], [-4, -3, -2], [-1, 0, 1], [2, 3, 4], [5, -5, -4], [-3, -2, -1], [0, 1, 2], [3, 4, 5], [-5, -4, -3], [-2, -1, 0], [1, 2, 3], [4, 5, -5], [-4, -3, -2]]> : tensor<16x3xi8>
  %sw = arith.constant dense<[0.5, 0.25, 0.125]> : tensor<3xf32>
  %zw = arith.constant dense<[0, 1, 2]> : tensor<3xi8>
  %e1 = tensor.empty() : tensor<16x3xf32>
  %w = linalg.generic {indexing_maps = [#id2, #col2, #col2, #id2], iterator_types = ["parallel", "parallel"]} ins(%qw, %sw, %zw : tensor<16x3xi8>, tensor<3xf32>, tensor<3xi8>) outs(%e1 : tensor<16x3xf32>) {
  ^bb0(%in: i8, %s: f32, %z: i8, %out: f32):
    %0 = arith.extsi %z : i8 to i16
    %1 = arith.extsi %in : i8 to i16
    %2 = arith.subi %1, %0 : i16
    %3 = arith.sitofp %2 : i16 to f32
    %4 = arith.mulf %3, %s : f32
    linalg.yield %4 : f32
  } -> tensor<16x3xf32>
  %y = linalg.matmul ins(%x, %w : tensor<2x16xf32>, tensor<16x3xf32>) outs(%init : tensor<2x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// A weight scale per row of the reduction (k): the sum cannot factor it out; left alone.
// CHECK-LABEL: func.func @scale_along_reduction
// CHECK:       linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<2x16xf32>, tensor<16x3xf32>)
func.func @scale_along_reduction(%q: tensor<2x16xi8>, %init: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %e0 = tensor.empty() : tensor<2x16xf32>
  %x = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%q : tensor<2x16xi8>) outs(%e0 : tensor<2x16xf32>) {
  ^bb0(%in: i8, %out: f32):
    %sx = arith.constant 0.5 : f32
    %0 = arith.sitofp %in : i8 to f32
    %1 = arith.mulf %0, %sx : f32
    linalg.yield %1 : f32
  } -> tensor<2x16xf32>
  %qw = arith.constant dense<[[-5, -4, -3], [-2, -1, 0], [1, 2, 3], [4, 5, -5], [-4, -3, -2], [-1, 0, 1], [2, 3, 4], [5, -5, -4], [-3, -2, -1], [0, 1, 2], [3, 4, 5], [-5, -4, -3], [-2, -1, 0], [1, 2, 3], [4, 5, -5], [-4, -3, -2]]> : tensor<16x3xi8>
  %sw = arith.constant dense<[0.5, 0.25, 0.125, 1.0, 0.5, 0.25, 0.125, 1.0, 0.5, 0.25, 0.125, 1.0, 0.5, 0.25, 0.125, 1.0]> : tensor<16xf32>
  %e1 = tensor.empty() : tensor<16x3xf32>
  %w = linalg.generic {indexing_maps = [#id2, #row2, #id2], iterator_types = ["parallel", "parallel"]} ins(%qw, %sw : tensor<16x3xi8>, tensor<16xf32>) outs(%e1 : tensor<16x3xf32>) {
  ^bb0(%in: i8, %s: f32, %out: f32):
    %0 = arith.sitofp %in : i8 to f32
    %1 = arith.mulf %0, %s : f32
    linalg.yield %1 : f32
  } -> tensor<16x3xf32>
  %y = linalg.matmul ins(%x, %w : tensor<2x16xf32>, tensor<16x3xf32>) outs(%init : tensor<2x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// A reduction of 4 steps (below MIN_REDUCTION = 16): its integer form would be a loop nest of
// 32-bit products, slower than the f32 one; left alone.
// CHECK-LABEL: func.func @short_reduction
// CHECK:       linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<2x4xf32>, tensor<4x3xf32>)
func.func @short_reduction(%q: tensor<2x4xi8>, %init: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %e0 = tensor.empty() : tensor<2x4xf32>
  %x = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%q : tensor<2x4xi8>) outs(%e0 : tensor<2x4xf32>) {
  ^bb0(%in: i8, %out: f32):
    %sx = arith.constant 0.5 : f32
    %0 = arith.sitofp %in : i8 to f32
    %1 = arith.mulf %0, %sx : f32
    linalg.yield %1 : f32
  } -> tensor<2x4xf32>
  %qw = arith.constant dense<[[1, 2, 3], [-1, -2, -3], [5, 6, 7], [8, 9, 10]]> : tensor<4x3xi8>
  %e1 = tensor.empty() : tensor<4x3xf32>
  %w = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%qw : tensor<4x3xi8>) outs(%e1 : tensor<4x3xf32>) {
  ^bb0(%in: i8, %out: f32):
    %s = arith.constant 0.25 : f32
    %0 = arith.sitofp %in : i8 to f32
    %1 = arith.mulf %0, %s : f32
    linalg.yield %1 : f32
  } -> tensor<4x3xf32>
  %y = linalg.matmul ins(%x, %w : tensor<2x4xf32>, tensor<4x3xf32>) outs(%init : tensor<2x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// TOSA's form: the dequantization split into elementwise generics (extsi, subtract a 1x1
// zero-point tensor, sitofp, multiply by a 1x1 scale), a per-channel weight scale read as
// 8x1x1x1 through a collapse to 1-d and an expand to FHWC, and the bias broadcast by a
// generic. The chains are fused into one dequantization each, the reshapes move to the i8
// weight (the channel dim found again after the expand), and the i32 bias is the start.
// CHECK-LABEL: func.func @tosa_chain
// CHECK-DAG:   %[[WQ:.+]] = arith.constant dense<{{.+}}> : tensor<8x2x3x3xi8>
// CHECK-DAG:   %[[BQ:.+]] = arith.constant dense<[10, -20, 30, -40, 50, -60, 70, -80]> : tensor<8xi32>
// CHECK:       %[[C:.+]] = tensor.collapse_shape %[[WQ]] {{\[\[}}0, 1, 2, 3]] : tensor<8x2x3x3xi8> into tensor<144xi8>
// CHECK:       %[[W:.+]] = tensor.expand_shape %[[C]] {{\[\[}}0, 1, 2, 3]] output_shape [8, 3, 3, 2] : tensor<144xi8> into tensor<8x3x3x2xi8>
// CHECK:       linalg.broadcast ins(%[[BQ]] : tensor<8xi32>) outs(%{{.+}} : tensor<1x6x6x8xi32>) dimensions = [0, 1, 2]
// CHECK:       linalg.generic
// CHECK-SAME:    ins(%{{.+}}, %[[W]], %{{.+}} : tensor<1x8x8x2xi8>, tensor<8x3x3x2xi8>, i32)
// CHECK-NOT:   linalg.conv_2d_nhwc_fhwc
func.func @tosa_chain(%q: tensor<1x8x8x2xi8>) -> tensor<1x6x6x8xf32> {
  %zx = arith.constant dense<-3> : tensor<1x1x1x1xi32>
  %sx = arith.constant dense<0.0625> : tensor<1x1x1x1xf32>
  %e32 = tensor.empty() : tensor<1x8x8x2xi32>
  %ef = tensor.empty() : tensor<1x8x8x2xf32>
  %0 = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%q : tensor<1x8x8x2xi8>) outs(%e32 : tensor<1x8x8x2xi32>) {
  ^bb0(%in: i8, %out: i32):
    %a = arith.extsi %in : i8 to i32
    linalg.yield %a : i32
  } -> tensor<1x8x8x2xi32>
  %1 = linalg.generic {indexing_maps = [#id4, affine_map<(d0, d1, d2, d3) -> (d0, 0, 0, 0)>, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%0, %zx : tensor<1x8x8x2xi32>, tensor<1x1x1x1xi32>) outs(%e32 : tensor<1x8x8x2xi32>) {
  ^bb0(%in: i32, %z: i32, %out: i32):
    %a = arith.subi %in, %z : i32
    linalg.yield %a : i32
  } -> tensor<1x8x8x2xi32>
  %2 = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%1 : tensor<1x8x8x2xi32>) outs(%ef : tensor<1x8x8x2xf32>) {
  ^bb0(%in: i32, %out: f32):
    %a = arith.sitofp %in : i32 to f32
    linalg.yield %a : f32
  } -> tensor<1x8x8x2xf32>
  %x = linalg.generic {indexing_maps = [#id4, affine_map<(d0, d1, d2, d3) -> (d0, 0, 0, 0)>, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%2, %sx : tensor<1x8x8x2xf32>, tensor<1x1x1x1xf32>) outs(%ef : tensor<1x8x8x2xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %a = arith.mulf %in, %s : f32
    linalg.yield %a : f32
  } -> tensor<1x8x8x2xf32>
  %wq = arith.constant dense<[[[[-9, -2, 5], [-7, 0, 7], [-5, 2, 9]], [[-3, 4, -8], [-1, 6, -6], [1, 8, -4]]], [[[3, -9, -2], [5, -7, 0], [7, -5, 2]], [[9, -3, 4], [-8, -1, 6], [-6, 1, 8]]], [[[-4, 3, -9], [-2, 5, -7], [0, 7, -5]], [[2, 9, -3], [4, -8, -1], [6, -6, 1]]], [[[8, -4, 3], [-9, -2, 5], [-7, 0, 7]], [[-5, 2, 9], [-3, 4, -8], [-1, 6, -6]]], [[[1, 8, -4], [3, -9, -2], [5, -7, 0]], [[7, -5, 2], [9, -3, 4], [-8, -1, 6]]], [[[-6, 1, 8], [-4, 3, -9], [-2, 5, -7]], [[0, 7, -5], [2, 9, -3], [4, -8, -1]]], [[[6, -6, 1], [8, -4, 3], [-9, -2, 5]], [[-7, 0, 7], [-5, 2, 9], [-3, 4, -8]]], [[[-1, 6, -6], [1, 8, -4], [3, -9, -2]], [[5, -7, 0], [7, -5, 2], [9, -3, 4]]]]> : tensor<8x2x3x3xi8>
  %sw = arith.constant dense<[[[[0.5]]], [[[0.25]]], [[[0.125]]], [[[0.5]]], [[[0.25]]], [[[0.125]]], [[[0.5]]], [[[0.25]]]]> : tensor<8x1x1x1xf32>
  %ew = tensor.empty() : tensor<8x2x3x3xf32>
  %w0 = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%wq : tensor<8x2x3x3xi8>) outs(%ew : tensor<8x2x3x3xf32>) {
  ^bb0(%in: i8, %out: f32):
    %a = arith.sitofp %in : i8 to f32
    linalg.yield %a : f32
  } -> tensor<8x2x3x3xf32>
  %w1 = linalg.generic {indexing_maps = [#id4, affine_map<(d0, d1, d2, d3) -> (d0, 0, 0, 0)>, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%w0, %sw : tensor<8x2x3x3xf32>, tensor<8x1x1x1xf32>) outs(%ew : tensor<8x2x3x3xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %a = arith.mulf %in, %s : f32
    linalg.yield %a : f32
  } -> tensor<8x2x3x3xf32>
  %wc = tensor.collapse_shape %w1 [[0, 1, 2, 3]] : tensor<8x2x3x3xf32> into tensor<144xf32>
  %w = tensor.expand_shape %wc [[0, 1, 2, 3]] output_shape [8, 3, 3, 2] : tensor<144xf32> into tensor<8x3x3x2xf32>
  %bq = arith.constant dense<[10, -20, 30, -40, 50, -60, 70, -80]> : tensor<8xi32>
  %sb = arith.constant dense<[0.03125, 0.015625, 0.0078125, 0.03125, 0.015625, 0.0078125, 0.03125, 0.015625]> : tensor<8xf32>
  %eb = tensor.empty() : tensor<8xf32>
  %b0 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%bq : tensor<8xi32>) outs(%eb : tensor<8xf32>) {
  ^bb0(%in: i32, %out: f32):
    %a = arith.sitofp %in : i32 to f32
    linalg.yield %a : f32
  } -> tensor<8xf32>
  %b = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]} ins(%b0, %sb : tensor<8xf32>, tensor<8xf32>) outs(%eb : tensor<8xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %a = arith.mulf %in, %s : f32
    linalg.yield %a : f32
  } -> tensor<8xf32>
  %eo = tensor.empty() : tensor<1x6x6x8xf32>
  %bb = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d3)>, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b : tensor<8xf32>) outs(%eo : tensor<1x6x6x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x6x6x8xf32>
  %y = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x8x8x2xf32>, tensor<8x3x3x2xf32>) outs(%bb : tensor<1x6x6x8xf32>) -> tensor<1x6x6x8xf32>
  return %y : tensor<1x6x6x8xf32>
}

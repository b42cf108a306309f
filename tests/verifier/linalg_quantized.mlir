// Quantized named linalg ops (upstream OpDSL, core_named_ops.py) and the checks every
// convolution gets: upstream's verifyStructuredOpInterface and the index-attribute checks
// OpDSL generates.

func.func @conv_2d_nchw_fchw_q(%i: tensor<1x3x10x9xi8>, %w: tensor<4x3x3x2xi8>, %izp: i32, %kzp: i32, %o: tensor<1x4x4x7xi32>) -> tensor<1x4x4x7xi32> {
  // An input larger than the window reaches (9 rows of 10 read) is valid.
  %0 = linalg.conv_2d_nchw_fchw_q {dilations = dense<[1, 2]> : vector<2xi64>, strides = dense<[2, 1]> : vector<2xi64>} ins(%i, %w, %izp, %kzp : tensor<1x3x10x9xi8>, tensor<4x3x3x2xi8>, i32, i32) outs(%o : tensor<1x4x4x7xi32>) -> tensor<1x4x4x7xi32>
  return %0 : tensor<1x4x4x7xi32>
}

// -----

func.func @input_too_small(%i: tensor<1x3x5x5xi8>, %w: tensor<4x3x3x3xi8>, %izp: i32, %kzp: i32, %o: tensor<1x4x3x3xi32>) -> tensor<1x4x3x3xi32> {
  // expected-error @+1 {{'linalg.conv_2d_nchw_fchw_q' op inferred input/output operand #0 has shape's dimension #2 to be greater than or equal to 7, but found 5}}
  %0 = linalg.conv_2d_nchw_fchw_q {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%i, %w, %izp, %kzp : tensor<1x3x5x5xi8>, tensor<4x3x3x3xi8>, i32, i32) outs(%o : tensor<1x4x3x3xi32>) -> tensor<1x4x3x3xi32>
  return %0 : tensor<1x4x3x3xi32>
}

// -----

func.func @dilated_input_too_small(%i: tensor<1x8x7x3xi8>, %w: tensor<5x2x3x3xi8>, %o: tensor<1x5x3x5xf32>) -> tensor<1x5x3x5xf32> {
  // expected-error @+1 {{'linalg.conv_2d_nhwc_fhwc' op inferred input/output operand #0 has shape's dimension #2 to be greater than or equal to 9, but found 7}}
  %0 = linalg.conv_2d_nhwc_fhwc {dilations = dense<[3, 2]> : tensor<2xi64>, strides = dense<[1, 2]> : tensor<2xi64>} ins(%i, %w : tensor<1x8x7x3xi8>, tensor<5x2x3x3xi8>) outs(%o : tensor<1x5x3x5xf32>) -> tensor<1x5x3x5xf32>
  return %0 : tensor<1x5x3x5xf32>
}

// -----

func.func @strides_rank(%i: tensor<1x3x5x5xi8>, %w: tensor<4x3x3x3xi8>, %zp: i32, %o: tensor<1x4x3x3xi32>) -> tensor<1x4x3x3xi32> {
  // expected-error @+1 {{incorrect shape for index attribute 'strides'}}
  %0 = linalg.conv_2d_nchw_fchw_q {strides = dense<1> : vector<3xi64>} ins(%i, %w, %zp, %zp : tensor<1x3x5x5xi8>, tensor<4x3x3x3xi8>, i32, i32) outs(%o : tensor<1x4x3x3xi32>) -> tensor<1x4x3x3xi32>
  return %0 : tensor<1x4x3x3xi32>
}

// -----

func.func @dilations_element_type(%i: tensor<1x5x5x3xi8>, %w: tensor<3x3x3xi8>, %zp: i32, %o: tensor<1x3x3x3xi32>) -> tensor<1x3x3x3xi32> {
  // expected-error @+1 {{incorrect element type for index attribute 'dilations'}}
  %0 = linalg.depthwise_conv_2d_nhwc_hwc_q {dilations = dense<1> : vector<2xi32>} ins(%i, %w, %zp, %zp : tensor<1x5x5x3xi8>, tensor<3x3x3xi8>, i32, i32) outs(%o : tensor<1x3x3x3xi32>) -> tensor<1x3x3x3xi32>
  return %0 : tensor<1x3x3x3xi32>
}

// -----

func.func @missing_zero_point(%i: tensor<1x3x5x5xi8>, %w: tensor<4x3x3x3xi8>, %zp: i32, %o: tensor<1x4x3x3xi32>) -> tensor<1x4x3x3xi32> {
  // expected-error @+1 {{'linalg.conv_2d_nchw_fchw_q' op expected the number of indexing_map (5) to be equal to the number of input/output operands (4)}}
  %0 = linalg.conv_2d_nchw_fchw_q ins(%i, %w, %zp : tensor<1x3x5x5xi8>, tensor<4x3x3x3xi8>, i32) outs(%o : tensor<1x4x3x3xi32>) -> tensor<1x4x3x3xi32>
  return %0 : tensor<1x4x3x3xi32>
}

// -----

func.func @quantized_matmul_inner(%a: tensor<4x3xi8>, %b: tensor<4x5xi8>, %zp: i32, %c: tensor<4x5xi32>) -> tensor<4x5xi32> {
  // expected-error @+1 {{'linalg.quantized_matmul' op inferred input/output operand #1 has shape's dimension #0 to be 3, but found 4}}
  %0 = linalg.quantized_matmul ins(%a, %b, %zp, %zp : tensor<4x3xi8>, tensor<4x5xi8>, i32, i32) outs(%c : tensor<4x5xi32>) -> tensor<4x5xi32>
  return %0 : tensor<4x5xi32>
}

// -----

func.func @grouped_filter_groups(%i: tensor<1x7x7x2x3xi8>, %w: tensor<3x4x3x3x3xi8>, %zp: i32, %o: tensor<1x5x5x2x4xi32>) -> tensor<1x5x5x2x4xi32> {
  // expected-error @+1 {{'linalg.conv_2d_nhwgc_gfhwc_q' op inferred input/output operand #1 has shape's dimension #0 to be 2, but found 3}}
  %0 = linalg.conv_2d_nhwgc_gfhwc_q ins(%i, %w, %zp, %zp : tensor<1x7x7x2x3xi8>, tensor<3x4x3x3x3xi8>, i32, i32) outs(%o : tensor<1x5x5x2x4xi32>) -> tensor<1x5x5x2x4xi32>
  return %0 : tensor<1x5x5x2x4xi32>
}

// -----

func.func @negative_index(%a: tensor<8xf32>, %b: tensor<3xf32>, %c: tensor<6xf32>) -> tensor<6xf32> {
  // expected-error @+1 {{'linalg.generic' op unexpected result less than 0 at expression #0 in (d0, d1) -> (d0 - d1 - 1)}}
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0 - d1 - 1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%a, %b : tensor<8xf32>, tensor<3xf32>) outs(%c : tensor<6xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<6xf32>
  return %0 : tensor<6xf32>
}

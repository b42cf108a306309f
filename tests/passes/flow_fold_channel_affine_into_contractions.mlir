// RUN: ireec opt %s --pass-pipeline=fold-channel-affine-into-contractions | filecheck %s

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>
#vec = affine_map<(d0, d1, d2, d3) -> (d1)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>

// torch-mlir's inference BatchNorm after a convolution (x - mean) * inv_std + beta, then
// ReLU: the filter is scaled by inv_std along f, and one addition of the shift
// -mean * inv_std + beta along the channel is left for the ReLU to fuse with (the
// convolution's epilogue).
// CHECK-LABEL: func.func @conv_bn
// CHECK:         %[[NEG:.+]] = linalg.generic {{.*}} ins(%{{[0-9]+}} : tensor<4xf32>)
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      arith.negf
// CHECK:         %[[INV:.+]] = linalg.generic {{.*}} ins(%{{[0-9]+}} : tensor<4x1x1xf32>)
// CHECK:         %[[S:.+]] = linalg.generic {{.*}} ins(%[[NEG]], %[[INV]] : tensor<4xf32>, tensor<4xf32>)
// CHECK:           arith.mulf
// CHECK:         %[[SHIFT:.+]] = linalg.generic {{.*}} ins(%[[S]], %{{.+}} : tensor<4xf32>, tensor<4xf32>)
// CHECK:           arith.addf
// CHECK:         %[[W:.+]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0)>, {{.+}}]{{.*}} ins(%{{.+}}, %[[INV]] : tensor<4x3x3x3xf32>, tensor<4xf32>)
// CHECK:           arith.mulf
// CHECK:         %[[CONV:.+]] = linalg.conv_2d_nchw_fchw {{.*}} ins(%arg0, %[[W]] : {{.*}} outs(%{{[0-9]+}} : tensor<1x4x8x8xf32>)
// CHECK:         %[[ADD:.+]] = linalg.generic {indexing_maps = [{{.+}}, affine_map<(d0, d1, d2, d3) -> (d1)>, {{.+}}]{{.*}} ins(%[[CONV]], %[[SHIFT]] : tensor<1x4x8x8xf32>, tensor<4xf32>)
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      arith.addf
// CHECK:         linalg.generic {{.*}} ins(%[[ADD]] : tensor<1x4x8x8xf32>)
// CHECK:           arith.maximumf
// CHECK-NOT:     arith.subf
func.func @conv_bn(%x: tensor<1x3x10x10xf32>) -> tensor<1x4x8x8xf32> {
  %w = arith.constant dense<0.5> : tensor<4x3x3x3xf32>
  %mean = arith.constant dense<[[[1.0]], [[2.0]], [[3.0]], [[4.0]]]> : tensor<4x1x1xf32>
  %inv = arith.constant dense<[[[0.5]], [[0.25]], [[2.0]], [[1.0]]]> : tensor<4x1x1xf32>
  %beta = arith.constant dense<[[[0.1]], [[0.2]], [[0.3]], [[0.4]]]> : tensor<4x1x1xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x8x8xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %conv = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %w : tensor<1x3x10x10xf32>, tensor<4x3x3x3xf32>) outs(%fill : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %0 = linalg.generic {indexing_maps = [#id4, #ch, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%conv, %mean : tensor<1x4x8x8xf32>, tensor<4x1x1xf32>) outs(%e : tensor<1x4x8x8xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %1 = arith.subf %in, %m : f32
    linalg.yield %1 : f32
  } -> tensor<1x4x8x8xf32>
  %2 = linalg.generic {indexing_maps = [#id4, #ch, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%0, %inv : tensor<1x4x8x8xf32>, tensor<4x1x1xf32>) outs(%e : tensor<1x4x8x8xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %3 = arith.mulf %in, %s : f32
    linalg.yield %3 : f32
  } -> tensor<1x4x8x8xf32>
  %4 = linalg.generic {indexing_maps = [#id4, #ch, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%2, %beta : tensor<1x4x8x8xf32>, tensor<4x1x1xf32>) outs(%e : tensor<1x4x8x8xf32>) {
  ^bb0(%in: f32, %b: f32, %out: f32):
    %5 = arith.addf %b, %in : f32
    linalg.yield %5 : f32
  } -> tensor<1x4x8x8xf32>
  %6 = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%4 : tensor<1x4x8x8xf32>) outs(%e : tensor<1x4x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c0 = arith.constant 0.0 : f32
    %7 = arith.maximumf %in, %c0 : f32
    linalg.yield %7 : f32
  } -> tensor<1x4x8x8xf32>
  return %6 : tensor<1x4x8x8xf32>
}

// A chain read by no elementwise op (here returned: it would be read by another
// contraction just as well) stays: the one addition left would be fused into that reader.
// CHECK-LABEL: func.func @no_elementwise_reader
// CHECK:         linalg.conv_2d_nchw_fchw {{.*}} ins(%arg0, %{{[0-9]+}} :
// CHECK:         arith.mulf
func.func @no_elementwise_reader(%x: tensor<1x3x10x10xf32>) -> tensor<1x4x8x8xf32> {
  %w = arith.constant dense<0.5> : tensor<4x3x3x3xf32>
  %s = arith.constant dense<[[[1.0]], [[2.0]], [[3.0]], [[4.0]]]> : tensor<4x1x1xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x8x8xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %conv = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %w : tensor<1x3x10x10xf32>, tensor<4x3x3x3xf32>) outs(%fill : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %0 = linalg.generic {indexing_maps = [#id4, #ch, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%conv, %s : tensor<1x4x8x8xf32>, tensor<4x1x1xf32>) outs(%e : tensor<1x4x8x8xf32>) {
  ^bb0(%in: f32, %k: f32, %out: f32):
    %1 = arith.mulf %in, %k : f32
    linalg.yield %1 : f32
  } -> tensor<1x4x8x8xf32>
  return %0 : tensor<1x4x8x8xf32>
}

// A scale that is not a constant stays, and so does the convolution's zero start.
// CHECK-LABEL: func.func @runtime_scale
// CHECK:         linalg.conv_2d_nchw_fchw {{.*}} outs(%{{.+}} : tensor<1x4x8x8xf32>)
// CHECK:         arith.mulf
func.func @runtime_scale(%x: tensor<1x3x10x10xf32>, %s: tensor<4x1x1xf32>) -> tensor<1x4x8x8xf32> {
  %w = arith.constant dense<0.5> : tensor<4x3x3x3xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x8x8xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %conv = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %w : tensor<1x3x10x10xf32>, tensor<4x3x3x3xf32>) outs(%fill : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %0 = linalg.generic {indexing_maps = [#id4, #ch, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%conv, %s : tensor<1x4x8x8xf32>, tensor<4x1x1xf32>) outs(%e : tensor<1x4x8x8xf32>) {
  ^bb0(%in: f32, %k: f32, %out: f32):
    %1 = arith.mulf %in, %k : f32
    linalg.yield %1 : f32
  } -> tensor<1x4x8x8xf32>
  return %0 : tensor<1x4x8x8xf32>
}

// A scale along the convolution's input channels (a reduction dim) cannot go into the
// filter: an NCHW convolution whose result is scaled along its pixel rows stays.
// CHECK-LABEL: func.func @scale_along_rows
// CHECK:         linalg.conv_2d_nchw_fchw
// CHECK:         arith.mulf
func.func @scale_along_rows(%x: tensor<1x3x10x10xf32>) -> tensor<1x4x8x8xf32> {
  %w = arith.constant dense<0.5> : tensor<4x3x3x3xf32>
  %s = arith.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<8xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x8x8xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %conv = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %w : tensor<1x3x10x10xf32>, tensor<4x3x3x3xf32>) outs(%fill : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %0 = linalg.generic {indexing_maps = [#id4, affine_map<(d0, d1, d2, d3) -> (d2)>, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%conv, %s : tensor<1x4x8x8xf32>, tensor<8xf32>) outs(%e : tensor<1x4x8x8xf32>) {
  ^bb0(%in: f32, %k: f32, %out: f32):
    %1 = arith.mulf %in, %k : f32
    linalg.yield %1 : f32
  } -> tensor<1x4x8x8xf32>
  return %0 : tensor<1x4x8x8xf32>
}

// RUN: ireec opt %s --pass-pipeline=iree-global-opt-convert-1x1-filter-conv2d-to-matmul,iree-dispatch-creation-form-dispatch-regions,iree-dispatch-creation-collapse-dimensions | filecheck %s

// NCHW 1x1 convolution with a fused relu: H and W merge in the root and in its consumer;
// the input and the init are reshaped on the host, the result expanded back after the region.
// CHECK-LABEL: func.func @nchw_relu
// CHECK:       %[[X:.+]] = "flow.tensor.reshape"(%arg0) : (tensor<2x16x8x8xf32>) -> (tensor<2x16x64xf32>)
// CHECK:       %[[I:.+]] = "flow.tensor.reshape"(%arg2) : (tensor<2x32x8x8xf32>) -> (tensor<2x32x64xf32>)
// CHECK:       %[[R:.+]] = "flow.dispatch.region"()
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d1, d3, 0, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME:      ins(%[[X]], %arg1 : tensor<2x16x64xf32>, tensor<32x16x1x1xf32>) outs(%[[I]] : tensor<2x32x64xf32>)
// CHECK:         tensor.empty() : tensor<2x32x64xf32>
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK:         arith.maximumf
// CHECK:       }) : () -> (tensor<2x32x64xf32>)
// CHECK:       "flow.tensor.reshape"(%[[R]]) : (tensor<2x32x64xf32>) -> (tensor<2x32x8x8xf32>)
func.func @nchw_relu(%x: tensor<2x16x8x8xf32>, %w: tensor<32x16x1x1xf32>, %init: tensor<2x32x8x8xf32>) -> tensor<2x32x8x8xf32> {
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %w : tensor<2x16x8x8xf32>, tensor<32x16x1x1xf32>) outs(%init : tensor<2x32x8x8xf32>) -> tensor<2x32x8x8xf32>
  %e = tensor.empty() : tensor<2x32x8x8xf32>
  %zero = arith.constant 0.0 : f32
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%0 : tensor<2x32x8x8xf32>) outs(%e : tensor<2x32x8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %a, %zero : f32
    linalg.yield %r : f32
  } -> tensor<2x32x8x8xf32>
  return %1 : tensor<2x32x8x8xf32>
}

// NHWC: batch, H and W merge into one GEMM row dim; the bias (indexed by f alone) and the
// zero fill of the init are untouched by the merge.
// CHECK-LABEL: func.func @nhwc_bias
// CHECK:       "flow.tensor.reshape"(%arg0) : (tensor<2x8x8x16xf32>) -> (tensor<128x16xf32>)
// CHECK:       "flow.dispatch.region"()
// CHECK:         linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<128x32xf32>) -> tensor<128x32xf32>
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (0, 0, d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK:       }) : () -> (tensor<128x32xf32>)
// CHECK:       "flow.tensor.reshape"(%{{.+}}) : (tensor<128x32xf32>) -> (tensor<2x8x8x32xf32>)
func.func @nhwc_bias(%x: tensor<2x8x8x16xf32>, %w: tensor<1x1x16x32xf32>, %bias: tensor<32xf32>) -> tensor<2x8x8x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8x8x32xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8x8x32xf32>) -> tensor<2x8x8x32xf32>
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<2x8x8x16xf32>, tensor<1x1x16x32xf32>) outs(%z : tensor<2x8x8x32xf32>) -> tensor<2x8x8x32xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%0, %bias : tensor<2x8x8x32xf32>, tensor<32xf32>) outs(%e : tensor<2x8x8x32xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<2x8x8x32xf32>
  return %1 : tensor<2x8x8x32xf32>
}

// An elementwise region (no contraction) is left as it is.
// CHECK-LABEL: func.func @elementwise_stays
// CHECK-NOT:   flow.tensor.reshape
// CHECK:       }) : () -> (tensor<4x8xf32>)
// CHECK-NOT:   flow.tensor.reshape
func.func @elementwise_stays(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %a : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// A fused consumer reading the result with H and W swapped allows no merge of the result's
// dims, so the root keeps its loops too (one reassociation per value, at the fixed point).
// CHECK-LABEL: func.func @transposed_consumer
// CHECK-NOT:   flow.tensor.reshape
// CHECK:       linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
// CHECK:       linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d2, d1, d3)>
// CHECK-NOT:   flow.tensor.reshape
// CHECK:       return
func.func @transposed_consumer(%x: tensor<2x8x8x16xf32>, %w: tensor<1x1x16x32xf32>) -> tensor<2x8x8x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8x8x32xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8x8x32xf32>) -> tensor<2x8x8x32xf32>
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<2x8x8x16xf32>, tensor<1x1x16x32xf32>) outs(%z : tensor<2x8x8x32xf32>) -> tensor<2x8x8x32xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d2, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%0 : tensor<2x8x8x32xf32>) outs(%e : tensor<2x8x8x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %a, %zero : f32
    linalg.yield %r : f32
  } -> tensor<2x8x8x32xf32>
  return %1 : tensor<2x8x8x32xf32>
}

// A global average pool (NCHW): the reduced H and W merge into one reduction loop of 256
// contiguous elements, N and C into one parallel loop; the input is reshaped on the host and
// the 1x24 result read back through a reshape of the 24-element one.
// CHECK-LABEL: func.func @global_pool
// CHECK:       "flow.tensor.reshape"(%{{.*}}) : (tensor<1x24x16x16xf32>) -> (tensor<24x256xf32>)
// CHECK:       linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
// CHECK:       "flow.tensor.reshape"(%{{.*}}) : (tensor<24xf32>) -> (tensor<1x24xf32>)
func.func @global_pool(%x: tensor<1x24x16x16xf32>) -> tensor<1x24xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x24xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x24xf32>) -> tensor<1x24xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%x : tensor<1x24x16x16xf32>) outs(%z : tensor<1x24xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<1x24xf32>
  return %s : tensor<1x24xf32>
}

// A reduction over H only (W kept) merges nothing across the kinds: N and C still merge,
// H stays the reduction and W a parallel loop.
// CHECK-LABEL: func.func @reduce_h_only
// CHECK:       linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]}
func.func @reduce_h_only(%x: tensor<2x3x5x7xf32>) -> tensor<2x3x7xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x3x7xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x3x7xf32>) -> tensor<2x3x7xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>], iterator_types = ["parallel", "parallel", "reduction", "parallel"]} ins(%x : tensor<2x3x5x7xf32>) outs(%z : tensor<2x3x7xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<2x3x7xf32>
  return %s : tensor<2x3x7xf32>
}

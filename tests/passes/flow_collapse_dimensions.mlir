// RUN: ireec opt %s --pass-pipeline=iree-dispatch-creation-collapse-dimensions | filecheck %s

// Input: the IR printed just before this pass (ireec compile --mlir-print-ir-after-all).
// NCHW 1x1 convolution with a fused relu: H and W merge in the root and in its consumer;
// the input and the init are reshaped on the host, the result expanded back after the region.
// CHECK-LABEL: func.func @nchw_relu
// CHECK:       %[[X:.+]] = "flow.tensor.reshape"(%{{[0-9]+}}) : (tensor<2x16x8x8xf32>) -> (tensor<2x16x64xf32>)
// CHECK:       %[[I:.+]] = "flow.tensor.reshape"(%{{[0-9]+}}) : (tensor<2x32x8x8xf32>) -> (tensor<2x32x64xf32>)
// CHECK:       %[[R:.+]] = "flow.dispatch.region"()
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d1, d3, 0, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME:      ins(%[[X]], %{{[0-9]+}} : tensor<2x16x64xf32>, tensor<32x16x1x1xf32>) outs(%[[I]] : tensor<2x32x64xf32>)
// CHECK:         tensor.empty() : tensor<2x32x64xf32>
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK:         arith.maximumf
// CHECK:       }) : () -> (tensor<2x32x64xf32>)
// CHECK:       "flow.tensor.reshape"(%[[R]]) : (tensor<2x32x64xf32>) -> (tensor<2x32x8x8xf32>)

// NHWC: batch, H and W merge into one GEMM row dim; the bias (indexed by f alone) and the
// zero fill of the init are untouched by the merge.
// CHECK-LABEL: func.func @nhwc_bias
// CHECK:       "flow.tensor.reshape"(%{{[0-9]+}}) : (tensor<2x8x8x16xf32>) -> (tensor<128x16xf32>)
// CHECK:       "flow.dispatch.region"()
// CHECK:         linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<128x32xf32>) -> tensor<128x32xf32>
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (0, 0, d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK:       }) : () -> (tensor<128x32xf32>)
// CHECK:       "flow.tensor.reshape"(%{{.+}}) : (tensor<128x32xf32>) -> (tensor<2x8x8x32xf32>)

// An elementwise region (no contraction) is left as it is.
// CHECK-LABEL: func.func @elementwise_stays
// CHECK-NOT:   flow.tensor.reshape
// CHECK:       }) : () -> (tensor<4x8xf32>)
// CHECK-NOT:   flow.tensor.reshape

// A fused consumer reading the result with H and W swapped allows no merge of the result's
// dims, so the root keeps its loops too (one reassociation per value, at the fixed point).
// CHECK-LABEL: func.func @transposed_consumer
// CHECK-NOT:   flow.tensor.reshape
// CHECK:       linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
// CHECK:       linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d2, d1, d3)>
// CHECK-NOT:   flow.tensor.reshape
// CHECK:       return

// A global average pool (NCHW): the reduced H and W merge into one reduction loop of 256
// contiguous elements, N and C into one parallel loop; the input is reshaped on the host and
// the 1x24 result read back through a reshape of the 24-element one.
// CHECK-LABEL: func.func @global_pool
// CHECK:       "flow.tensor.reshape"(%{{.*}}) : (tensor<1x24x16x16xf32>) -> (tensor<24x256xf32>)
// CHECK:       linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
// CHECK:       "flow.tensor.reshape"(%{{.*}}) : (tensor<24xf32>) -> (tensor<1x24xf32>)

// A reduction over H only (W kept) merges nothing across the kinds: N and C still merge,
// H stays the reduction and W a parallel loop.
// CHECK-LABEL: func.func @reduce_h_only
// CHECK:       linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]}

module {
  func.func @nchw_relu(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view, %arg2: !hal.buffer_view) -> !hal.buffer_view attributes {iree.abi.stub, iree.reflection = {iree.abi.declaration = "sync func @nchw_relu(%input0: tensor<2x16x8x8xf32>, %input1: tensor<32x16x1x1xf32>, %input2: tensor<2x32x8x8xf32>) -> (%output0: tensor<2x32x8x8xf32>)"}, ireec.abi.tensor_type = (tensor<2x16x8x8xf32>, tensor<32x16x1x1xf32>, tensor<2x32x8x8xf32>) -> tensor<2x32x8x8xf32>} {
    %0 = hal.tensor.import %arg0 "input0" : !hal.buffer_view -> tensor<2x16x8x8xf32>
    %1 = hal.tensor.import %arg1 "input1" : !hal.buffer_view -> tensor<32x16x1x1xf32>
    %2 = hal.tensor.import %arg2 "input2" : !hal.buffer_view -> tensor<2x32x8x8xf32>
    %3 = "flow.dispatch.region"() ({
      %4 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d4, d2, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d1, d4, 0, 0)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%0, %1 : tensor<2x16x8x8xf32>, tensor<32x16x1x1xf32>) outs(%2 : tensor<2x32x8x8xf32>) {
      ^bb0(%arg3: f32, %arg4: f32, %arg5: f32):
        %5 = arith.mulf %arg3, %arg4 : f32
        %6 = arith.addf %arg5, %5 : f32
        linalg.yield %6 : f32
      } -> tensor<2x32x8x8xf32>
      %7 = tensor.empty() : tensor<2x32x8x8xf32>
      %8 = arith.constant 0.0e+00 : f32
      %9 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%4 : tensor<2x32x8x8xf32>) outs(%7 : tensor<2x32x8x8xf32>) {
      ^bb0(%arg6: f32, %arg7: f32):
        %10 = arith.maximumf %arg6, %8 : f32
        linalg.yield %10 : f32
      } -> tensor<2x32x8x8xf32>
      "flow.return"(%9) : (tensor<2x32x8x8xf32>) -> ()
    }) : () -> (tensor<2x32x8x8xf32>)
    %11 = hal.tensor.export %3 "output0" : tensor<2x32x8x8xf32> -> !hal.buffer_view
    return %11 : !hal.buffer_view
  }
  func.func @nhwc_bias(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view, %arg2: !hal.buffer_view) -> !hal.buffer_view attributes {iree.abi.stub, iree.reflection = {iree.abi.declaration = "sync func @nhwc_bias(%input0: tensor<2x8x8x16xf32>, %input1: tensor<1x1x16x32xf32>, %input2: tensor<32xf32>) -> (%output0: tensor<2x8x8x32xf32>)"}, ireec.abi.tensor_type = (tensor<2x8x8x16xf32>, tensor<1x1x16x32xf32>, tensor<32xf32>) -> tensor<2x8x8x32xf32>} {
    %0 = hal.tensor.import %arg0 "input0" : !hal.buffer_view -> tensor<2x8x8x16xf32>
    %1 = hal.tensor.import %arg1 "input1" : !hal.buffer_view -> tensor<1x1x16x32xf32>
    %2 = hal.tensor.import %arg2 "input2" : !hal.buffer_view -> tensor<32xf32>
    %3 = "flow.dispatch.region"() ({
      %4 = arith.constant 0.0e+00 : f32
      %5 = tensor.empty() : tensor<2x8x8x32xf32>
      %6 = linalg.fill ins(%4 : f32) outs(%5 : tensor<2x8x8x32xf32>) -> tensor<2x8x8x32xf32>
      %7 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (0, 0, d4, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%0, %1 : tensor<2x8x8x16xf32>, tensor<1x1x16x32xf32>) outs(%6 : tensor<2x8x8x32xf32>) {
      ^bb0(%arg3: f32, %arg4: f32, %arg5: f32):
        %8 = arith.mulf %arg3, %arg4 : f32
        %9 = arith.addf %arg5, %8 : f32
        linalg.yield %9 : f32
      } -> tensor<2x8x8x32xf32>
      %10 = tensor.empty() : tensor<2x8x8x32xf32>
      %11 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%7, %2 : tensor<2x8x8x32xf32>, tensor<32xf32>) outs(%10 : tensor<2x8x8x32xf32>) {
      ^bb0(%arg6: f32, %arg7: f32, %arg8: f32):
        %12 = arith.addf %arg6, %arg7 : f32
        linalg.yield %12 : f32
      } -> tensor<2x8x8x32xf32>
      "flow.return"(%11) : (tensor<2x8x8x32xf32>) -> ()
    }) : () -> (tensor<2x8x8x32xf32>)
    %13 = hal.tensor.export %3 "output0" : tensor<2x8x8x32xf32> -> !hal.buffer_view
    return %13 : !hal.buffer_view
  }
  func.func @elementwise_stays(%arg0: !hal.buffer_view) -> !hal.buffer_view attributes {iree.abi.stub, iree.reflection = {iree.abi.declaration = "sync func @elementwise_stays(%input0: tensor<4x8xf32>) -> (%output0: tensor<4x8xf32>)"}, ireec.abi.tensor_type = (tensor<4x8xf32>) -> tensor<4x8xf32>} {
    %0 = hal.tensor.import %arg0 "input0" : !hal.buffer_view -> tensor<4x8xf32>
    %1 = "flow.dispatch.region"() ({
      %2 = tensor.empty() : tensor<4x8xf32>
      %3 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%0 : tensor<4x8xf32>) outs(%2 : tensor<4x8xf32>) {
      ^bb0(%arg1: f32, %arg2: f32):
        %4 = arith.addf %arg1, %arg1 : f32
        linalg.yield %4 : f32
      } -> tensor<4x8xf32>
      "flow.return"(%3) : (tensor<4x8xf32>) -> ()
    }) : () -> (tensor<4x8xf32>)
    %5 = hal.tensor.export %1 "output0" : tensor<4x8xf32> -> !hal.buffer_view
    return %5 : !hal.buffer_view
  }
  func.func @transposed_consumer(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view) -> !hal.buffer_view attributes {iree.abi.stub, iree.reflection = {iree.abi.declaration = "sync func @transposed_consumer(%input0: tensor<2x8x8x16xf32>, %input1: tensor<1x1x16x32xf32>) -> (%output0: tensor<2x8x8x32xf32>)"}, ireec.abi.tensor_type = (tensor<2x8x8x16xf32>, tensor<1x1x16x32xf32>) -> tensor<2x8x8x32xf32>} {
    %0 = hal.tensor.import %arg0 "input0" : !hal.buffer_view -> tensor<2x8x8x16xf32>
    %1 = hal.tensor.import %arg1 "input1" : !hal.buffer_view -> tensor<1x1x16x32xf32>
    %2 = "flow.dispatch.region"() ({
      %3 = arith.constant 0.0e+00 : f32
      %4 = tensor.empty() : tensor<2x8x8x32xf32>
      %5 = linalg.fill ins(%3 : f32) outs(%4 : tensor<2x8x8x32xf32>) -> tensor<2x8x8x32xf32>
      %6 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (0, 0, d4, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%0, %1 : tensor<2x8x8x16xf32>, tensor<1x1x16x32xf32>) outs(%5 : tensor<2x8x8x32xf32>) {
      ^bb0(%arg2: f32, %arg3: f32, %arg4: f32):
        %7 = arith.mulf %arg2, %arg3 : f32
        %8 = arith.addf %arg4, %7 : f32
        linalg.yield %8 : f32
      } -> tensor<2x8x8x32xf32>
      %9 = tensor.empty() : tensor<2x8x8x32xf32>
      %10 = arith.constant 0.0e+00 : f32
      %11 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d2, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%6 : tensor<2x8x8x32xf32>) outs(%9 : tensor<2x8x8x32xf32>) {
      ^bb0(%arg5: f32, %arg6: f32):
        %12 = arith.maximumf %arg5, %10 : f32
        linalg.yield %12 : f32
      } -> tensor<2x8x8x32xf32>
      "flow.return"(%11) : (tensor<2x8x8x32xf32>) -> ()
    }) : () -> (tensor<2x8x8x32xf32>)
    %13 = hal.tensor.export %2 "output0" : tensor<2x8x8x32xf32> -> !hal.buffer_view
    return %13 : !hal.buffer_view
  }
  func.func @global_pool(%arg0: !hal.buffer_view) -> !hal.buffer_view attributes {iree.abi.stub, iree.reflection = {iree.abi.declaration = "sync func @global_pool(%input0: tensor<1x24x16x16xf32>) -> (%output0: tensor<1x24xf32>)"}, ireec.abi.tensor_type = (tensor<1x24x16x16xf32>) -> tensor<1x24xf32>} {
    %0 = hal.tensor.import %arg0 "input0" : !hal.buffer_view -> tensor<1x24x16x16xf32>
    %1 = "flow.dispatch.region"() ({
      %2 = arith.constant 0.0e+00 : f32
      %3 = tensor.empty() : tensor<1x24xf32>
      %4 = linalg.fill ins(%2 : f32) outs(%3 : tensor<1x24xf32>) -> tensor<1x24xf32>
      %5 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%0 : tensor<1x24x16x16xf32>) outs(%4 : tensor<1x24xf32>) {
      ^bb0(%arg1: f32, %arg2: f32):
        %6 = arith.addf %arg1, %arg2 : f32
        linalg.yield %6 : f32
      } -> tensor<1x24xf32>
      "flow.return"(%5) : (tensor<1x24xf32>) -> ()
    }) : () -> (tensor<1x24xf32>)
    %7 = hal.tensor.export %1 "output0" : tensor<1x24xf32> -> !hal.buffer_view
    return %7 : !hal.buffer_view
  }
  func.func @reduce_h_only(%arg0: !hal.buffer_view) -> !hal.buffer_view attributes {iree.abi.stub, iree.reflection = {iree.abi.declaration = "sync func @reduce_h_only(%input0: tensor<2x3x5x7xf32>) -> (%output0: tensor<2x3x7xf32>)"}, ireec.abi.tensor_type = (tensor<2x3x5x7xf32>) -> tensor<2x3x7xf32>} {
    %0 = hal.tensor.import %arg0 "input0" : !hal.buffer_view -> tensor<2x3x5x7xf32>
    %1 = "flow.dispatch.region"() ({
      %2 = arith.constant 0.0e+00 : f32
      %3 = tensor.empty() : tensor<2x3x7xf32>
      %4 = linalg.fill ins(%2 : f32) outs(%3 : tensor<2x3x7xf32>) -> tensor<2x3x7xf32>
      %5 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>], iterator_types = ["parallel", "parallel", "reduction", "parallel"]} ins(%0 : tensor<2x3x5x7xf32>) outs(%4 : tensor<2x3x7xf32>) {
      ^bb0(%arg1: f32, %arg2: f32):
        %6 = arith.addf %arg1, %arg2 : f32
        linalg.yield %6 : f32
      } -> tensor<2x3x7xf32>
      "flow.return"(%5) : (tensor<2x3x7xf32>) -> ()
    }) : () -> (tensor<2x3x7xf32>)
    %7 = hal.tensor.export %1 "output0" : tensor<2x3x7xf32> -> !hal.buffer_view
    return %7 : !hal.buffer_view
  }
}

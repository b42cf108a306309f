// RUN: ireec opt %s --pass-pipeline=iree-global-opt-propagate-linalg-transpose | filecheck %s

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1)>

// A transpose back to NCHW sinks through an elementwise op (its per-channel operand's map
// renumbered: channels are loop 3 now) and a pad (amounts permuted), and cancels against the
// transpose into NHWC after them: nothing is transposed any more.
// CHECK-LABEL: func.func @sink_and_cancel
// CHECK-NOT:   linalg.transpose
// CHECK:       %[[G:.+]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>]{{.*}} ins(%arg0, %arg1 : tensor<1x4x4x8xf32>, tensor<8xf32>) outs(%{{.+}} : tensor<1x4x4x8xf32>)
// CHECK:       %[[P:.+]] = tensor.pad %[[G]] low[0, 1, 2, 0] high[0, 1, 2, 0]
// CHECK:       return %[[P]] : tensor<1x6x8x8xf32>
func.func @sink_and_cancel(%x: tensor<1x4x4x8xf32>, %b: tensor<8xf32>) -> tensor<1x6x8x8xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x4x4xf32>
  %t = linalg.transpose ins(%x : tensor<1x4x4x8xf32>) outs(%e : tensor<1x8x4x4xf32>) permutation = [0, 3, 1, 2]
  %g = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%t, %b : tensor<1x8x4x4xf32>, tensor<8xf32>) outs(%e : tensor<1x8x4x4xf32>) {
  ^bb0(%in: f32, %bias: f32, %out: f32):
    %s = arith.addf %in, %bias : f32
    linalg.yield %s : f32
  } -> tensor<1x8x4x4xf32>
  %p = tensor.pad %g low[0, 0, 1, 2] high[0, 0, 1, 2] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %cst : f32
  } : tensor<1x8x4x4xf32> to tensor<1x8x6x8xf32>
  %e2 = tensor.empty() : tensor<1x6x8x8xf32>
  %u = linalg.transpose ins(%p : tensor<1x8x6x8xf32>) outs(%e2 : tensor<1x6x8x8xf32>) permutation = [0, 2, 3, 1]
  return %u : tensor<1x6x8x8xf32>
}

// An elementwise op that also reads a full-size NCHW value not from a transpose keeps its
// layout (it would read that value strided); the transpose stays before it.
// CHECK-LABEL: func.func @mixed_layouts
// CHECK:       %[[T:.+]] = linalg.transpose ins(%arg0
// CHECK:       linalg.generic {{.*}} ins(%[[T]], %arg1 : tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>)
func.func @mixed_layouts(%x: tensor<1x4x4x8xf32>, %y: tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32> {
  %e = tensor.empty() : tensor<1x8x4x4xf32>
  %t = linalg.transpose ins(%x : tensor<1x4x4x8xf32>) outs(%e : tensor<1x8x4x4xf32>) permutation = [0, 3, 1, 2]
  %g = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%t, %y : tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) outs(%e : tensor<1x8x4x4xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %s = arith.addf %in, %in2 : f32
    linalg.yield %s : f32
  } -> tensor<1x8x4x4xf32>
  return %g : tensor<1x8x4x4xf32>
}

// Transposes of a fill and of a broadcast are those ops at the transposed shape; two
// transposes compose into one.
// CHECK-LABEL: func.func @fold_into_source
// CHECK:       linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<1x4x4x8xf32>)
// CHECK:       linalg.broadcast ins(%arg0 : tensor<8xf32>) outs(%{{.+}} : tensor<1x4x4x8xf32>) dimensions = [0, 1, 2]
// CHECK:       linalg.transpose ins(%arg1 : tensor<2x3x5x7xf32>) outs(%{{.+}} : tensor<2x7x3x5xf32>) permutation = [0, 3, 1, 2]
// CHECK-NOT:   linalg.transpose
func.func @fold_into_source(%b: tensor<8xf32>, %z: tensor<2x3x5x7xf32>) -> (tensor<1x4x4x8xf32>, tensor<1x4x4x8xf32>, tensor<2x7x3x5xf32>) {
  %cst = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<1x8x4x4xf32>
  %e2 = tensor.empty() : tensor<1x8x4x4xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %bc = linalg.broadcast ins(%b : tensor<8xf32>) outs(%e2 : tensor<1x8x4x4xf32>) dimensions = [0, 2, 3]
  %n1 = tensor.empty() : tensor<1x4x4x8xf32>
  %n2 = tensor.empty() : tensor<1x4x4x8xf32>
  %tf = linalg.transpose ins(%f : tensor<1x8x4x4xf32>) outs(%n1 : tensor<1x4x4x8xf32>) permutation = [0, 2, 3, 1]
  %tb = linalg.transpose ins(%bc : tensor<1x8x4x4xf32>) outs(%n2 : tensor<1x4x4x8xf32>) permutation = [0, 2, 3, 1]
  %m1 = tensor.empty() : tensor<2x5x7x3xf32>
  %t1 = linalg.transpose ins(%z : tensor<2x3x5x7xf32>) outs(%m1 : tensor<2x5x7x3xf32>) permutation = [0, 2, 3, 1]
  %m2 = tensor.empty() : tensor<2x7x3x5xf32>
  %t2 = linalg.transpose ins(%t1 : tensor<2x5x7x3xf32>) outs(%m2 : tensor<2x7x3x5xf32>) permutation = [0, 2, 3, 1]
  return %tf, %tb, %t2 : tensor<1x4x4x8xf32>, tensor<1x4x4x8xf32>, tensor<2x7x3x5xf32>
}

// A transpose of a pad of a value from elsewhere goes above the pad, so the pad meets the
// convolution it feeds.
// CHECK-LABEL: func.func @hoist_above_pad
// CHECK:       %[[T:.+]] = linalg.transpose ins(%arg0 : tensor<1x3x4x4xf32>) outs(%{{.+}} : tensor<1x4x4x3xf32>) permutation = [0, 2, 3, 1]
// CHECK:       tensor.pad %[[T]] low[0, 1, 1, 0] high[0, 2, 2, 0]
// CHECK-NOT:   linalg.transpose
func.func @hoist_above_pad(%x: tensor<1x3x4x4xf32>) -> tensor<1x7x7x3xf32> {
  %cst = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 2, 2] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %cst : f32
  } : tensor<1x3x4x4xf32> to tensor<1x3x7x7xf32>
  %e = tensor.empty() : tensor<1x7x7x3xf32>
  %t = linalg.transpose ins(%p : tensor<1x3x7x7xf32>) outs(%e : tensor<1x7x7x3xf32>) permutation = [0, 2, 3, 1]
  return %t : tensor<1x7x7x3xf32>
}

// RUN: ireec opt %s --pass-pipeline=iree-dispatch-creation-form-dispatch-regions | filecheck %s
// RUN: ireec opt %s --target=cuda --pass-pipeline=iree-dispatch-creation-form-dispatch-regions | filecheck %s --check-prefix=GPU

// A static pad with a constant padding value, read only through the window of a depthwise
// convolution (H and W padded), joins the convolution's dispatch with its bias + relu
// consumer (FusePadWithConsumer): one region, nothing computed outside it.
// CHECK-LABEL: func.func @pad_dwconv_nchw
// CHECK:         %[[R:[0-9]+]] = {{"?}}flow.dispatch.region
// CHECK:           tensor.pad
// CHECK:           linalg.depthwise_conv_2d_nchw_chw
// CHECK:           arith.maximumf
// CHECK:           flow.return
// CHECK-NOT:     flow.dispatch.region
// CHECK:         return %[[R]]
// On a GPU target the pad keeps its own dispatch.
// GPU-LABEL:   func.func @pad_dwconv_nchw
// GPU:           flow.dispatch.region
// GPU:             tensor.pad
// GPU:             flow.return
// GPU:           flow.dispatch.region
// GPU:             linalg.depthwise_conv_2d_nchw_chw
func.func @pad_dwconv_nchw(%x: tensor<1x8x16x16xf32>, %w: tensor<8x3x3xf32>, %b: tensor<8xf32>) -> tensor<1x8x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x8x16x16xf32> to tensor<1x8x18x18xf32>
  %e = tensor.empty() : tensor<1x8x8x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %c = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%p, %w : tensor<1x8x18x18xf32>, tensor<8x3x3xf32>) outs(%z : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %e2 = tensor.empty() : tensor<1x8x8x8xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c, %b : tensor<1x8x8x8xf32>, tensor<8xf32>) outs(%e2 : tensor<1x8x8x8xf32>) {
  ^bb0(%v: f32, %bb: f32, %o: f32):
    %s = arith.addf %v, %bb : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1x8x8x8xf32>
  return %y : tensor<1x8x8x8xf32>
}

// A pad read at plain indices (an elementwise consumer: its padded dims are not behind a
// window) keeps its own dispatch.
// CHECK-LABEL: func.func @pad_elementwise_consumer
// CHECK:         flow.dispatch.region
// CHECK:           tensor.pad
// CHECK:           flow.return
// CHECK:         flow.dispatch.region
// CHECK-NOT:       tensor.pad
// CHECK:           math.exp
func.func @pad_elementwise_consumer(%x: tensor<4x6xf32>) -> tensor<6x8xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[1, 1] high[1, 1] {
  ^bb0(%i0: index, %i1: index):
    tensor.yield %zero : f32
  } : tensor<4x6xf32> to tensor<6x8xf32>
  %e = tensor.empty() : tensor<6x8xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%p : tensor<6x8xf32>) outs(%e : tensor<6x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = math.exp %v : f32
    linalg.yield %r : f32
  } -> tensor<6x8xf32>
  return %y : tensor<6x8xf32>
}

// A pad whose padding value is computed in its body (here from the indices) keeps its own
// dispatch: it is not a constant border.
// CHECK-LABEL: func.func @pad_computed_value
// CHECK:         flow.dispatch.region
// CHECK:           tensor.pad
// CHECK:           flow.return
// CHECK:         flow.dispatch.region
// CHECK-NOT:       tensor.pad
// CHECK:           linalg.depthwise_conv_2d_nchw_chw
func.func @pad_computed_value(%x: tensor<1x2x6x6xf32>, %w: tensor<2x3x3xf32>) -> tensor<1x2x6x6xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    %i = arith.index_cast %i2 : index to i32
    %f = arith.sitofp %i : i32 to f32
    tensor.yield %f : f32
  } : tensor<1x2x6x6xf32> to tensor<1x2x8x8xf32>
  %e = tensor.empty() : tensor<1x2x6x6xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x6x6xf32>) -> tensor<1x2x6x6xf32>
  %c = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w : tensor<1x2x8x8xf32>, tensor<2x3x3xf32>) outs(%z : tensor<1x2x6x6xf32>) -> tensor<1x2x6x6xf32>
  return %c : tensor<1x2x6x6xf32>
}

// RUN: ireec opt %s --target=openmp --pass-pipeline=iree-abi-wrap-entry-points,iree-dispatch-creation-form-dispatch-regions,iree-flow-outline-dispatch-regions,iree-stream-schedule-allocation,iree-hal-materialize-interfaces,linalg-generalize-named-ops,iree-llvmcpu-select-lowering-strategy,iree-codegen-iree-comprehensive-bufferize | filecheck %s

// A static pad fused into its depthwise convolution's dispatch (flow_fuse_pad_with_consumer.mlir).
// In the kernel the pad is distributed along its unpadded channel dim with the convolution
// (1 = the tensor dim carrying the workgroup's tile) and writes one padded tile (4 channels,
// all 18x18 pixels) into a stack temporary, border slabs and interior through views indexed
// like it; the convolution reads the temporary.
// CHECK-LABEL:   hal.executable.export
// CHECK-SAME:      workgroup_count = array<i64: 2, 1, 1>
// CHECK:           ireec.distribution = array<i64: 1, 1, 8, 4>
// CHECK:           %[[T:[0-9]+]] = memref.alloca() {ireec.tile_dims = array<i64: 0, 1, -1, -1>} : memref<1x4x18x18xf32>
// CHECK:           memref.subview %[[T]]{{.*}}ireec.tile_dims = array<i64: 0, 1, -1, -1>
// CHECK:           linalg.generic {{.*}}ireec.distribute = array<i64: 0, 1>
// CHECK:           linalg.generic {{.*}}ins(%[[T]],
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

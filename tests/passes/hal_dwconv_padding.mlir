// RUN: ireec opt %s --target=openmp --pass-pipeline=iree-abi-wrap-entry-points,iree-dispatch-creation-form-dispatch-regions,iree-flow-outline-dispatch-regions,iree-stream-schedule-allocation,iree-hal-materialize-interfaces,linalg-generalize-named-ops,iree-llvmcpu-select-lowering-strategy,iree-codegen-iree-comprehensive-bufferize,ireec-fold-ukernel-accumulator-inits,iree-codegen-tile-and-distribute-to-workgroups,iree-codegen-cpu-lower-to-ukernels | filecheck %s

// A zero pad of a channels-last depthwise convolution's image, 48 channels of 34x34 pixels
// (222 KB padded: more than the stack budget), joins the convolution's dispatch
// (ireec/passes/hal/dwconv_padding.py) and is materialized nowhere: the rows are distributed as
// without the pad (4 workgroups of 4 output rows), no stack array is left, and the micro-kernel
// call reads the pad's source (the binding, not a temporary) with `padding` = [IH, IW, SY, SX,
// DY, DX, row stride, column stride] and, after C, OH, OW, the padding before the tile along
// rows and columns (1 less the tile's first padded index: computed per workgroup).
// CHECK-LABEL:   hal.executable.export
// CHECK-SAME:      workgroup_count = array<i64: 1, 1, 4>
// CHECK-NOT:       memref.alloca
// CHECK:           %[[SRC:[0-9]+]] = "hal.interface.binding.subspan"() {binding = 0 : index
// CHECK-NOT:       memref.alloca
// CHECK:           %[[PT:[0-9]+]] = arith.subi
// CHECK:           %[[PL:[0-9]+]] = arith.subi
// CHECK:           "iree_codegen.ukernel.generic"(%[[SRC]], {{.*}}, %[[PT]], %[[PL]])
// CHECK-SAME:        u_kernel_fn_name = "ireec_uk_dwconv"
// CHECK-SAME:        window = array<i64: 3, 3>
// CHECK-SAME:        padding = array<i64: 32, 32, 2, 2, 1, 1, 1536, 48>
// CHECK-NOT:       memref.alloca
func.func @pad_dwconv_nhwc(%x: tensor<1x32x32x48xf32>, %w: tensor<3x3x48xf32>) -> tensor<1x16x16x48xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x32x32x48xf32> to tensor<1x34x34x48xf32>
  %e = tensor.empty() : tensor<1x16x16x48xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x16x16x48xf32>) -> tensor<1x16x16x48xf32>
  %c = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%p, %w : tensor<1x34x34x48xf32>, tensor<3x3x48xf32>) outs(%z : tensor<1x16x16x48xf32>) -> tensor<1x16x16x48xf32>
  return %c : tensor<1x16x16x48xf32>
}

// RUN: ireec opt %s --pass-pipeline=iree-codegen-convert-conv-to-im2col | filecheck %s

// Input: an 8-channel NCHW convolution of unit stride (K = 8 x 3 x 3 = 72) as
// iree-codegen-cpu-lower-to-ukernels leaves it, marked ireec.im2col = [K, pixels]. Its output
// pixels run along the image's rows with unit stride, so no Col is built: inside the loop over
// the batch, one ireec_uk_conv call reads the image in place (ireec/passes/hal/direct_conv.py)
// with the window [8, 3, 3] at image strides [324, 18, 1], the filter's stride 72 along f, the
// image's row stride 18, the output's 256 and 16, and the elements readable from the image's
// origin (2592 less the origin's offset). Its zero fill stays and keeps its generic.
// CHECK-LABEL:   func.func @conv_dispatch_0_conv_2d_nchw_fchw_1x8x16x16_f32()
// CHECK:           linalg.generic {{.*}} ins(%3 : f32) outs(%2 : memref<1x8x16x16xf32>)
// CHECK-NOT:       memref.alloca
// CHECK:           scf.for %[[N:arg[0-9]+]] =
// CHECK:             %[[SPAN:[0-9]+]] = arith.constant 2592 : index
// CHECK:             %[[OFF:[0-9]+]] = arith.muli %[[N]], %[[SPAN]] : index
// CHECK:             arith.subi %[[SPAN]], %[[OFF]] : index
// CHECK:             "iree_codegen.ukernel.generic"(%1, %0, %2,
// CHECK-SAME:          u_kernel_fn_name = "ireec_uk_conv", window = array<i64: 8, 3, 3>, strides = array<i64: 324, 18, 1, 72, 18, 256, 16>, accumulate = true
// CHECK-NOT:       linalg.
// CHECK:           return
module {
  "hal.executable"() ({
    "hal.executable.variant"() ({
      "hal.executable.export"() {sym_name = "conv_dispatch_0_conv_2d_nchw_fchw_1x8x16x16_f32", ordinal = 0 : index, bindings = 3 : index, workgroup_count = array<i64: 1, 1, 1>, workgroup_size = array<i64: 1, 1, 1>} : () -> ()
      module {
        func.func @conv_dispatch_0_conv_2d_nchw_fchw_1x8x16x16_f32() attributes {ireec.distribution = array<i64: 8, 8, 16, 16, 16, 16>, translation_info = #iree_codegen.translation_info<pipeline = CPUDoubleTilingExpert>} {
          %0 = "hal.interface.binding.subspan"() {binding = 0 : index, descriptor_flags = "ReadOnly"} : () -> (memref<1x8x18x18xf32>)
          %1 = "hal.interface.binding.subspan"() {binding = 1 : index, descriptor_flags = "ReadOnly"} : () -> (memref<8x8x3x3xf32>)
          %2 = "hal.interface.binding.subspan"() {binding = 2 : index, descriptor_flags = "None"} : () -> (memref<1x8x16x16xf32>)
          %3 = arith.constant 0.0e+00 : f32
          %4 = arith.constant {ireec.workgroup_tile} 0 : index
          %5 = arith.constant {ireec.workgroup_tile} 8 : index
          %6 = arith.constant {ireec.workgroup_tile} 16 : index
          linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%3 : f32) outs(%2 : memref<1x8x16x16xf32>) attrs =  {ireec.distribute = array<i64: 1, 2, 3>} {
          ^bb0(%arg0: f32, %arg1: f32):
            linalg.yield %arg0 : f32
          }
          linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%0, %1 : memref<1x8x18x18xf32>, memref<8x8x3x3xf32>) outs(%2 : memref<1x8x16x16xf32>) attrs =  {ireec.distribute = array<i64: 1, 2, 3>, iree_codegen.ukernel = #iree_codegen.ukernel_descriptor<"ireec_uk_sgemm", memref>, ireec.ukernel_blocking = array<i64: 8, 256, 72>, ireec.im2col = array<i64: 72, 256>, lowering_config = #iree_codegen.lowering_config<tile_sizes = [[0, 8, 16, 16, 0, 0, 0], [0, 8, 0, 256, 72, 0, 0]]>} {
          ^bb0(%arg2: f32, %arg3: f32, %arg4: f32):
            %7 = arith.mulf %arg2, %arg3 : f32
            %8 = arith.addf %arg4, %7 : f32
            linalg.yield %8 : f32
          }
          return
        }
      }
    }) {sym_name = "embedded_c", target = "c"} : () -> ()
  }) {sym_name = "conv_dispatch_0", sym_visibility = "private"} : () -> ()
}

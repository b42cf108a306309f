// RUN: ireec opt %s --pass-pipeline=iree-codegen-convert-conv-to-im2col | filecheck %s

// Input: an 8-channel NCHW convolution of stride 2 (K = 8 x 3 x 3 = 72) on a 33x33 image
// (a binding: no fused pad), marked ireec.im2col = [K, pixels]. Its image is split into 2 x 2
// phases (ireec/passes/hal/direct_conv.py): a stack array [1, 8, 2, 2, 17, 17], zero first (33
// is odd: no pixel lands on phase row or column 16 of the odd phases), then per phase (a, b) a
// copy of image[.., 2y + a, 2x + b] for the tile's rows; one ireec_uk_conv call reads it with
// the window [8, 3, 3] at strides [1156, 17, 1] and phases [1, 2, 2] of [0, 578, 289]
// elements: tap kh is phase kh % 2, row kh / 2.
// CHECK-LABEL:   func.func @conv_dispatch_0_conv_2d_nchw_fchw_1x8x16x16_f32()
// CHECK:           %[[PH:[0-9]+]] = memref.alloca() : memref<1x8x2x2x17x17xf32>
// CHECK:                     memref.store %{{[0-9]+}}, %[[PH]][
// CHECK:           %[[ROWS:[0-9]+]] = arith.minsi
// CHECK:                   %[[V:[0-9]+]] = memref.load %0[
// CHECK-NEXT:              memref.store %[[V]], %[[PH]][
// CHECK-COUNT-3:           memref.store %{{[0-9]+}}, %[[PH]][
// CHECK:             "iree_codegen.ukernel.generic"(%1, %[[PH]], %2,
// CHECK-SAME:          u_kernel_fn_name = "ireec_uk_conv", window = array<i64: 8, 3, 3>, strides = array<i64: 1156, 17, 1, 72, 17, 256, 16>, accumulate = true, phases = array<i64: 1, 2, 2, 0, 578, 289>
// CHECK-NOT:       linalg.
// CHECK:           return
module {
  "hal.executable"() ({
    "hal.executable.variant"() ({
      "hal.executable.export"() {sym_name = "conv_dispatch_0_conv_2d_nchw_fchw_1x8x16x16_f32", ordinal = 0 : index, bindings = 3 : index, workgroup_count = array<i64: 1, 1, 1>, workgroup_size = array<i64: 1, 1, 1>} : () -> ()
      module {
        func.func @conv_dispatch_0_conv_2d_nchw_fchw_1x8x16x16_f32() attributes {ireec.distribution = array<i64: 8, 8, 16, 16, 16, 16>, translation_info = #iree_codegen.translation_info<pipeline = CPUDoubleTilingExpert>} {
          %0 = "hal.interface.binding.subspan"() {binding = 0 : index, descriptor_flags = "ReadOnly"} : () -> (memref<1x8x33x33xf32>)
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
          linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 * 2 + d5, d3 * 2 + d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%0, %1 : memref<1x8x33x33xf32>, memref<8x8x3x3xf32>) outs(%2 : memref<1x8x16x16xf32>) attrs =  {ireec.distribute = array<i64: 1, 2, 3>, iree_codegen.ukernel = #iree_codegen.ukernel_descriptor<"ireec_uk_sgemm", memref>, ireec.ukernel_blocking = array<i64: 8, 256, 72>, ireec.im2col = array<i64: 72, 256>, lowering_config = #iree_codegen.lowering_config<tile_sizes = [[0, 8, 16, 16, 0, 0, 0], [0, 8, 0, 256, 72, 0, 0]]>} {
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

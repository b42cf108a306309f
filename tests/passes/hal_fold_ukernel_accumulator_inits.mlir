// RUN: ireec opt %s --pass-pipeline=ireec-fold-ukernel-accumulator-inits | filecheck %s

// Input: two kernels as iree-codegen-iree-comprehensive-bufferize / ireec-promote-narrow-operands
// leave them. The linear layer's bias broadcast into the matmul's output becomes the
// micro-kernel call's start: the broadcast is marked ireec.ukernel_init, the matmul
// ireec.ukernel_bias_init. The depthwise convolution's zero fill goes and the convolution is
// marked ireec.ukernel_overwrite (its call will not read the output).
// CHECK-LABEL:   func.func @linear_dispatch_0_matmul_32x64x16_f32()
// CHECK:           linalg.generic {{.*}} ins(%0 : memref<64xf32>) outs(%3 : memref<32x64xf32>) attrs =  {ireec.distribute = array<i64: 0, 1>, ireec.ukernel_init}
// CHECK:           linalg.generic {{.*}} ins(%1, %2 : memref<32x16xf32>, memref<16x64xf32>) outs(%3 : memref<32x64xf32>)
// CHECK-SAME:        ireec.ukernel_bias_init
// CHECK-LABEL:   func.func @dwconv_dispatch_0_depthwise_conv_2d_nchw_chw_1x8x16x16_f32()
// CHECK:           %[[ZERO:[0-9]+]] = arith.constant 0.0e+00 : f32
// CHECK-NOT:       ins(%[[ZERO]] : f32)
// CHECK:           linalg.generic {{.*}} ins(%0, %1 : memref<1x8x18x18xf32>, memref<8x3x3xf32>) outs(%2 : memref<1x8x16x16xf32>)
// CHECK-SAME:        ireec.ukernel_overwrite
// CHECK-NOT:       linalg.generic
// CHECK:           return
module {
  "hal.executable"() ({
    "hal.executable.variant"() ({
      "hal.executable.export"() {sym_name = "linear_dispatch_0_matmul_32x64x16_f32", ordinal = 0 : index, bindings = 4 : index, workgroup_count = array<i64: 1, 1, 1>, workgroup_size = array<i64: 1, 1, 1>} : () -> ()
      module {
        func.func @linear_dispatch_0_matmul_32x64x16_f32() attributes {ireec.distribution = array<i64: 32, 32, 64, 64>, translation_info = #iree_codegen.translation_info<pipeline = CPUDoubleTilingExpert>} {
          %0 = "hal.interface.binding.subspan"() {binding = 0 : index, descriptor_flags = "ReadOnly"} : () -> (memref<64xf32>)
          %1 = "hal.interface.binding.subspan"() {binding = 1 : index, descriptor_flags = "ReadOnly"} : () -> (memref<32x16xf32>)
          %2 = "hal.interface.binding.subspan"() {binding = 2 : index, descriptor_flags = "ReadOnly"} : () -> (memref<16x64xf32>)
          %3 = "hal.interface.binding.subspan"() {binding = 3 : index, descriptor_flags = "None"} : () -> (memref<32x64xf32>)
          linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%0 : memref<64xf32>) outs(%3 : memref<32x64xf32>) attrs =  {ireec.distribute = array<i64: 0, 1>} {
          ^bb0(%arg0: f32, %arg1: f32):
            linalg.yield %arg0 : f32
          }
          linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%1, %2 : memref<32x16xf32>, memref<16x64xf32>) outs(%3 : memref<32x64xf32>) attrs =  {ireec.distribute = array<i64: 0, 1>, iree_codegen.ukernel = #iree_codegen.ukernel_descriptor<"ireec_uk_sgemm", memref>, ireec.ukernel_blocking = array<i64: 32, 64, 16>, lowering_config = #iree_codegen.lowering_config<tile_sizes = [[32, 64, 0], [32, 64, 16]]>} {
          ^bb0(%arg2: f32, %arg3: f32, %arg4: f32):
            %4 = arith.mulf %arg2, %arg3 : f32
            %5 = arith.addf %arg4, %4 : f32
            linalg.yield %5 : f32
          }
          return
        }
      }
    }) {sym_name = "embedded_c", target = "c"} : () -> ()
  }) {sym_name = "linear_dispatch_0", sym_visibility = "private"} : () -> ()
  "hal.executable"() ({
    "hal.executable.variant"() ({
      "hal.executable.export"() {sym_name = "dwconv_dispatch_0_depthwise_conv_2d_nchw_chw_1x8x16x16_f32", ordinal = 0 : index, bindings = 3 : index, workgroup_count = array<i64: 1, 1, 1>, workgroup_size = array<i64: 1, 1, 1>} : () -> ()
      module {
        func.func @dwconv_dispatch_0_depthwise_conv_2d_nchw_chw_1x8x16x16_f32() attributes {ireec.distribution = array<i64: 8, 8, 16, 16, 16, 16>, translation_info = #iree_codegen.translation_info<pipeline = CPUDoubleTilingExpert>} {
          %0 = "hal.interface.binding.subspan"() {binding = 0 : index, descriptor_flags = "ReadOnly"} : () -> (memref<1x8x18x18xf32>)
          %1 = "hal.interface.binding.subspan"() {binding = 1 : index, descriptor_flags = "ReadOnly"} : () -> (memref<8x3x3xf32>)
          %2 = "hal.interface.binding.subspan"() {binding = 2 : index, descriptor_flags = "None"} : () -> (memref<1x8x16x16xf32>)
          %3 = arith.constant 0.0e+00 : f32
          linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%3 : f32) outs(%2 : memref<1x8x16x16xf32>) attrs =  {ireec.distribute = array<i64: 1, 2, 3>} {
          ^bb0(%arg0: f32, %arg1: f32):
            linalg.yield %arg0 : f32
          }
          linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d3, d1 + d4, d2 + d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d3, d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d3, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%0, %1 : memref<1x8x18x18xf32>, memref<8x3x3xf32>) outs(%2 : memref<1x8x16x16xf32>) attrs =  {ireec.distribute = array<i64: 3, 1, 2>, iree_codegen.ukernel = #iree_codegen.ukernel_descriptor<"ireec_uk_dwconv", memref>, lowering_config = #iree_codegen.lowering_config<tile_sizes = [[0, 16, 16, 8, 0, 0]]>} {
          ^bb0(%arg2: f32, %arg3: f32, %arg4: f32):
            %4 = arith.mulf %arg2, %arg3 : f32
            %5 = arith.addf %arg4, %4 : f32
            linalg.yield %5 : f32
          }
          return
        }
      }
    }) {sym_name = "embedded_c", target = "c"} : () -> ()
  }) {sym_name = "dwconv_dispatch_0", sym_visibility = "private"} : () -> ()
}

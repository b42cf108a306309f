// RUN: ireec opt %s --pass-pipeline=iree-codegen-cpu-lower-to-ukernels | filecheck %s

// Input: kernels as iree-codegen-tile-and-distribute-to-workgroups leaves them. The linear
// layer's matmul (ireec.ukernel_blocking) becomes one ireec_uk_sgemm call on the workgroup's
// 32x64 tile: A, B, C, the work array, then the bias it starts from (bias_init: the marked
// broadcast is taken and erased, accumulate = false), the tile origins and M, N, K. The
// depthwise convolution marked ireec.ukernel_overwrite becomes one ireec_uk_dwconv call with
// accumulate = false. No linalg op is left.
// CHECK-LABEL:   func.func @linear_dispatch_0_matmul_32x64x16_f32()
// CHECK:           %[[WORK:[0-9]+]] = memref.alloca() {ireec.ukernel_work} : memref<2208xf32>
// CHECK:           "iree_codegen.ukernel.generic"(%1, %2, %3, %[[WORK]], %0,
// CHECK-SAME:        u_kernel_fn_name = "ireec_uk_sgemm", strides = array<i64: 16, 1, 64, 1, 64>, blocking = array<i64: 32, 64, 16>, accumulate = false, bias_strides = array<i64: 0, 1>, bias_init}
// CHECK-NOT:       linalg.
// CHECK:           return
// CHECK-LABEL:   func.func @dwconv_dispatch_0_depthwise_conv_2d_nchw_chw_1x8x16x16_f32()
// CHECK:           "iree_codegen.ukernel.generic"(%0, %1, %2,
// CHECK-SAME:        u_kernel_fn_name = "ireec_uk_dwconv", strides = array<i64: 324, 18, 1, 18, 1, 9, 3, 1, 256, 16, 1>, window = array<i64: 3, 3>, accumulate = false}
// CHECK-NOT:       linalg.
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
          %4 = arith.constant {ireec.workgroup_tile} 0 : index
          %5 = arith.constant {ireec.workgroup_tile} 32 : index
          %6 = arith.constant {ireec.workgroup_tile} 64 : index
          linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%0 : memref<64xf32>) outs(%3 : memref<32x64xf32>) attrs =  {ireec.distribute = array<i64: 0, 1>, ireec.ukernel_init} {
          ^bb0(%arg0: f32, %arg1: f32):
            linalg.yield %arg0 : f32
          }
          linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%1, %2 : memref<32x16xf32>, memref<16x64xf32>) outs(%3 : memref<32x64xf32>) attrs =  {ireec.distribute = array<i64: 0, 1>, iree_codegen.ukernel = #iree_codegen.ukernel_descriptor<"ireec_uk_sgemm", memref>, ireec.ukernel_blocking = array<i64: 32, 64, 16>, lowering_config = #iree_codegen.lowering_config<tile_sizes = [[32, 64, 0], [32, 64, 16]]>, ireec.ukernel_bias_init} {
          ^bb0(%arg2: f32, %arg3: f32, %arg4: f32):
            %7 = arith.mulf %arg2, %arg3 : f32
            %8 = arith.addf %arg4, %7 : f32
            linalg.yield %8 : f32
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
          %4 = arith.constant {ireec.workgroup_tile} 0 : index
          %5 = arith.constant {ireec.workgroup_tile} 8 : index
          %6 = arith.constant {ireec.workgroup_tile} 16 : index
          linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d3, d1 + d4, d2 + d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d3, d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d3, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%0, %1 : memref<1x8x18x18xf32>, memref<8x3x3xf32>) outs(%2 : memref<1x8x16x16xf32>) attrs =  {ireec.distribute = array<i64: 3, 1, 2>, iree_codegen.ukernel = #iree_codegen.ukernel_descriptor<"ireec_uk_dwconv", memref>, lowering_config = #iree_codegen.lowering_config<tile_sizes = [[0, 16, 16, 8, 0, 0]]>, ireec.ukernel_overwrite} {
          ^bb0(%arg0: f32, %arg1: f32, %arg2: f32):
            %7 = arith.mulf %arg0, %arg1 : f32
            %8 = arith.addf %arg2, %7 : f32
            linalg.yield %8 : f32
          }
          return
        }
      }
    }) {sym_name = "embedded_c", target = "c"} : () -> ()
  }) {sym_name = "dwconv_dispatch_0", sym_visibility = "private"} : () -> ()
}

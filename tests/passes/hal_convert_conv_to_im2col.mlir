// RUN: ireec opt %s --pass-pipeline=iree-codegen-convert-conv-to-im2col | filecheck %s

// Input: a 3-channel NCHW convolution of stride 2 (K = 3 x 3 x 3 = 27) as
// iree-codegen-cpu-lower-to-ukernels leaves it, marked ireec.im2col = [K, pixels] (of unit
// stride it would read its image in place: hal_direct_conv.mlir). Its workgroup tile spans
// whole 16-pixel rows, so a chunk is 16 rows (256 pixels): per chunk the patches are copied into Col[27][256] (the
// window dims outside, the chunk's pixels inside) and one ireec_uk_sgemm call computes
// C[f, p] += W[f, k] * Col[k, p] with N = rows * 16 and K = 27. Its zero fill stays (only
// per-tap sgemm calls and depthwise convolutions overwrite) and keeps its generic.
// CHECK-LABEL:   func.func @conv_dispatch_0_conv_2d_nchw_fchw_1x8x16x16_f32()
// CHECK:           linalg.generic {{.*}} ins(%3 : f32) outs(%2 : memref<1x8x16x16xf32>)
// CHECK:           %[[COL:[0-9]+]] = memref.alloca() : memref<27x256xf32>
// CHECK-NEXT:      %[[WORK:[0-9]+]] = memref.alloca() {ireec.ukernel_work} : memref<8240xf32>
// CHECK:             %[[ROWS:[0-9]+]] = arith.minsi
// CHECK:             %[[N:[0-9]+]] = arith.muli %[[ROWS]],
// CHECK:             %[[V:[0-9]+]] = memref.load %0[
// CHECK-NEXT:        memref.store %[[V]], %[[COL]][
// CHECK:           "iree_codegen.ukernel.generic"(%1, %[[COL]], %2, %[[WORK]],
// CHECK-SAME:        %[[N]], %{{[0-9]+}})
// CHECK-SAME:        ireec.im2col = array<i64: 27, 256>, u_kernel_fn_name = "ireec_uk_sgemm", strides = array<i64: 27, 1, 256, 1, 256>
// CHECK-NOT:       linalg.
// CHECK:           return
module {
  "hal.executable"() ({
    "hal.executable.variant"() ({
      "hal.executable.export"() {sym_name = "conv_dispatch_0_conv_2d_nchw_fchw_1x8x16x16_f32", ordinal = 0 : index, bindings = 3 : index, workgroup_count = array<i64: 1, 1, 1>, workgroup_size = array<i64: 1, 1, 1>} : () -> ()
      module {
        func.func @conv_dispatch_0_conv_2d_nchw_fchw_1x8x16x16_f32() attributes {ireec.distribution = array<i64: 8, 8, 16, 16, 16, 16>, translation_info = #iree_codegen.translation_info<pipeline = CPUDoubleTilingExpert>} {
          %0 = "hal.interface.binding.subspan"() {binding = 0 : index, descriptor_flags = "ReadOnly"} : () -> (memref<1x3x33x33xf32>)
          %1 = "hal.interface.binding.subspan"() {binding = 1 : index, descriptor_flags = "ReadOnly"} : () -> (memref<8x3x3x3xf32>)
          %2 = "hal.interface.binding.subspan"() {binding = 2 : index, descriptor_flags = "None"} : () -> (memref<1x8x16x16xf32>)
          %3 = arith.constant 0.0e+00 : f32
          %4 = arith.constant {ireec.workgroup_tile} 0 : index
          %5 = arith.constant {ireec.workgroup_tile} 8 : index
          %6 = arith.constant {ireec.workgroup_tile} 16 : index
          linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%3 : f32) outs(%2 : memref<1x8x16x16xf32>) attrs =  {ireec.distribute = array<i64: 1, 2, 3>} {
          ^bb0(%arg0: f32, %arg1: f32):
            linalg.yield %arg0 : f32
          }
          linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 * 2 + d5, d3 * 2 + d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%0, %1 : memref<1x3x33x33xf32>, memref<8x3x3x3xf32>) outs(%2 : memref<1x8x16x16xf32>) attrs =  {ireec.distribute = array<i64: 1, 2, 3>, iree_codegen.ukernel = #iree_codegen.ukernel_descriptor<"ireec_uk_sgemm", memref>, ireec.ukernel_blocking = array<i64: 8, 256, 27>, ireec.im2col = array<i64: 27, 256>, lowering_config = #iree_codegen.lowering_config<tile_sizes = [[0, 8, 16, 16, 0, 0, 0], [0, 8, 0, 256, 27, 0, 0]]>} {
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

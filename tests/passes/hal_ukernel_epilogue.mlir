// RUN: ireec opt %s --pass-pipeline=iree-codegen-cpu-lower-to-ukernels | filecheck %s

// Input: the kernel of a dense layer (matmul, bias add, NaN-propagating ReLU6) as
// iree-codegen-tile-and-distribute-to-workgroups leaves it; the matmul's zero fill is already
// gone (ireec.ukernel_overwrite). The bias add and the ReLU6 after the matmul become the
// micro-kernel's epilogue: the bias memref follows the work buffer, its origin follows C's,
// and the consumer is erased.
// CHECK:       func.func @dense_relu6_dispatch_0_matmul_32x64x16_f32()
// CHECK:         "iree_codegen.ukernel.generic"(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}},
// CHECK-SAME:      u_kernel_fn_name = "ireec_uk_sgemm"
// CHECK-SAME:      accumulate = false, bias_strides = array<i64: 0, 1>, clamp_lo = 0.0e+00 : f32, lo_keeps_nan, clamp_hi = 6.0e+00 : f32
// CHECK-SAME:      (memref<32x16xf32>, memref<16x64xf32>, memref<32x64xf32>, memref<{{[0-9]+}}xf32>, memref<64xf32>, index
// CHECK-NOT:     scf.for
// CHECK-NOT:     linalg.
module {
  "hal.executable"() ({
    "hal.executable.variant"() ({
      "hal.executable.export"() {sym_name = "dense_relu6_dispatch_0_matmul_32x64x16_f32", ordinal = 0 : index, bindings = 4 : index, workgroup_count = array<i64: 1, 1, 1>, workgroup_size = array<i64: 1, 1, 1>} : () -> ()
      module {
        func.func @dense_relu6_dispatch_0_matmul_32x64x16_f32() attributes {ireec.distribution = array<i64: 32, 32, 64, 64>, translation_info = #iree_codegen.translation_info<pipeline = CPUDoubleTilingExpert>} {
          %0 = "hal.interface.binding.subspan"() {binding = 0 : index, descriptor_flags = "ReadOnly"} : () -> (memref<32x16xf32>)
          %1 = "hal.interface.binding.subspan"() {binding = 1 : index, descriptor_flags = "ReadOnly"} : () -> (memref<16x64xf32>)
          %2 = "hal.interface.binding.subspan"() {binding = 2 : index, descriptor_flags = "ReadOnly"} : () -> (memref<64xf32>)
          %3 = "hal.interface.binding.subspan"() {binding = 3 : index, descriptor_flags = "None"} : () -> (memref<32x64xf32>)
          %4 = arith.constant 0.0e+00 : f32
          %5 = arith.constant {ireec.workgroup_tile} 0 : index
          %6 = arith.constant {ireec.workgroup_tile} 32 : index
          %7 = arith.constant {ireec.workgroup_tile} 64 : index
          linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%0, %1 : memref<32x16xf32>, memref<16x64xf32>) outs(%3 : memref<32x64xf32>) attrs =  {ireec.distribute = array<i64: 0, 1>, iree_codegen.ukernel = #iree_codegen.ukernel_descriptor<"ireec_uk_sgemm", memref>, ireec.ukernel_blocking = array<i64: 32, 64, 16>, lowering_config = #iree_codegen.lowering_config<tile_sizes = [[32, 64, 0], [32, 64, 16]]>, ireec.ukernel_overwrite} {
          ^bb0(%arg0: f32, %arg1: f32, %arg2: f32):
            %8 = arith.mulf %arg0, %arg1 : f32
            %9 = arith.addf %arg2, %8 : f32
            linalg.yield %9 : f32
          }
          %10 = arith.constant 0.0e+00 : f32
          %11 = arith.constant 6.0e+00 : f32
          linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%3, %2 : memref<32x64xf32>, memref<64xf32>) outs(%3 : memref<32x64xf32>) attrs =  {ireec.distribute = array<i64: 0, 1>} {
          ^bb0(%arg3: f32, %arg4: f32, %arg5: f32):
            %12 = arith.addf %arg3, %arg4 : f32
            %13 = arith.maximumf %12, %10 : f32
            %14 = arith.minimumf %13, %11 : f32
            linalg.yield %14 : f32
          }
          return
        }
      }
    }) {sym_name = "embedded_c", target = "c"} : () -> ()
  }) {sym_name = "dense_relu6_dispatch_0", sym_visibility = "private"} : () -> ()
}

// RUN: ireec opt %s --target=openmp --pass-pipeline=iree-llvmcpu-select-lowering-strategy,iree-codegen-iree-comprehensive-bufferize,ireec-fold-ukernel-accumulator-inits,iree-codegen-tile-and-distribute-to-workgroups,iree-codegen-cpu-lower-to-ukernels,iree-codegen-convert-conv-to-im2col | filecheck %s

// Input: a linalg.conv_2d_nhwc_fhwc_q (i8 x i8 -> i32, zero points -3 and 5, K = 3 x 3 x 20
// = 180) after generalization. The lowering strategy marks it for im2col with the int8
// micro-kernel (tiles of 4 output rows for the openmp threads, whole rows of 10 pixels and
// all 24 output channels; blocking 40 x 24 x 180) and cpu-lower-to-ukernels leaves it (one
// reduction dim is not its form). convert-conv-to-im2col packs each chunk of 4 rows x 10
// pixels into an int8 Col[40][180] (window in the filter's layout order kh, kw, c: the
// input's channels innermost) and calls ireec_uk_igemm with A = Col, B = the filter (b_k =
// 1, b_n = 180), the image's zero point for A and the filter's for B. The zero fill goes
// (fold-ukernel-accumulator-inits: each chunk's call writes its elements once, from zero).
// CHECK:       hal.executable.export
// CHECK-SAME:    workgroup_count = array<i64: 1, 1, 2>
// CHECK:       func.func @qconv_dispatch_0_conv_2d_nhwc_fhwc_q_1x8x10x24_i32()
// CHECK-DAG:     %[[IZ:[0-9]+]] = arith.constant -3 : i32
// CHECK-DAG:     %[[KZ:[0-9]+]] = arith.constant 5 : i32
// CHECK-NOT:     linalg.generic
// CHECK:         %[[COL:[0-9]+]] = memref.alloca() : memref<40x180xi8>
// CHECK-NEXT:    %[[WORK:[0-9]+]] = memref.alloca() {ireec.ukernel_work} : memref<10984xi32>
// CHECK:           %[[V:[0-9]+]] = memref.load %0[{{.*}}] : memref<1x10x12x20xi8>
// CHECK-NEXT:      memref.store %[[V]], %[[COL]][
// CHECK:         "iree_codegen.ukernel.generic"(%[[COL]], %1, %2, %[[WORK]], {{.*}}, %[[IZ]], %[[KZ]])
// CHECK-SAME:      lowering_config = #iree_codegen.lowering_config<tile_sizes = {{\[\[}}0, 4, 10, 24, 0, 0, 0], [0, 0, 40, 24, 180, 0, 0]]>
// CHECK-SAME:      iree_codegen.ukernel = #iree_codegen.ukernel_descriptor<"ireec_uk_igemm", memref>
// CHECK-SAME:      ireec.im2col = array<i64: 180, 40>, u_kernel_fn_name = "ireec_uk_igemm", strides = array<i64: 180, 1, 1, 180, 24>, blocking = array<i64: 40, 24, 180>, accumulate = false}
// CHECK-NOT:     linalg.generic
// CHECK:         return

module {
  "hal.executable"() ({
    "hal.executable.variant"() ({
      "hal.executable.export"() {sym_name = "qconv_dispatch_0_conv_2d_nhwc_fhwc_q_1x8x10x24_i32", ordinal = 0 : index, bindings = 3 : index} : () -> ()
      module {
        func.func @qconv_dispatch_0_conv_2d_nhwc_fhwc_q_1x8x10x24_i32() {
          %0 = "hal.interface.binding.subspan"() {binding = 0 : index, descriptor_flags = "ReadOnly"} : () -> (!flow.dispatch.tensor<readonly:tensor<1x10x12x20xi8>>)
          %1 = "hal.interface.binding.subspan"() {binding = 1 : index, descriptor_flags = "ReadOnly"} : () -> (!flow.dispatch.tensor<readonly:tensor<24x3x3x20xi8>>)
          %2 = "hal.interface.binding.subspan"() {binding = 2 : index, descriptor_flags = "None"} : () -> (!flow.dispatch.tensor<writeonly:tensor<1x8x10x24xi32>>)
          %3 = "flow.dispatch.tensor.load"(%0) {static_offsets = array<i64: 0, 0, 0, 0>, static_sizes = array<i64: 1, 10, 12, 20>, static_strides = array<i64: 1, 1, 1, 1>} : (!flow.dispatch.tensor<readonly:tensor<1x10x12x20xi8>>) -> (tensor<1x10x12x20xi8>)
          %4 = "flow.dispatch.tensor.load"(%1) {static_offsets = array<i64: 0, 0, 0, 0>, static_sizes = array<i64: 24, 3, 3, 20>, static_strides = array<i64: 1, 1, 1, 1>} : (!flow.dispatch.tensor<readonly:tensor<24x3x3x20xi8>>) -> (tensor<24x3x3x20xi8>)
          %5 = arith.constant -3 : i32
          %6 = arith.constant 5 : i32
          %7 = arith.constant 0 : i32
          %8 = tensor.empty() : tensor<1x8x10x24xi32>
          %9 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%7 : i32) outs(%8 : tensor<1x8x10x24xi32>) {
          ^bb0(%arg0: i32, %arg1: i32):
            linalg.yield %arg0 : i32
          } -> tensor<1x8x10x24xi32>
          %10 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 + d4, d2 + d5, d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d3, d4, d5, d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> ()>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> ()>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%3, %4, %5, %6 : tensor<1x10x12x20xi8>, tensor<24x3x3x20xi8>, i32, i32) outs(%9 : tensor<1x8x10x24xi32>) {
          ^bb0(%arg2: i8, %arg3: i8, %arg4: i32, %arg5: i32, %arg6: i32):
            %11 = arith.extsi %arg2 : i8 to i32
            %12 = arith.subi %11, %arg4 : i32
            %13 = arith.extsi %arg3 : i8 to i32
            %14 = arith.subi %13, %arg5 : i32
            %15 = arith.muli %12, %14 : i32
            %16 = arith.addi %arg6, %15 : i32
            linalg.yield %16 : i32
          } -> tensor<1x8x10x24xi32>
          "flow.dispatch.tensor.store"(%10, %2) {static_offsets = array<i64: 0, 0, 0, 0>, static_sizes = array<i64: 1, 8, 10, 24>, static_strides = array<i64: 1, 1, 1, 1>} : (tensor<1x8x10x24xi32>, !flow.dispatch.tensor<writeonly:tensor<1x8x10x24xi32>>) -> ()
          return
        }
      }
    }) {sym_name = "embedded_c_openmp", target = "openmp"} : () -> ()
  }) {sym_name = "qconv_dispatch_0", sym_visibility = "private"} : () -> ()
  func.func @qconv(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view) -> !hal.buffer_view attributes {iree.abi.stub, iree.reflection = {iree.abi.declaration = "sync func @qconv(%input0: tensor<1x10x12x20xi8>, %input1: tensor<24x3x3x20xi8>) -> (%output0: tensor<1x8x10x24xi32>)"}, ireec.abi.tensor_type = (tensor<1x10x12x20xi8>, tensor<24x3x3x20xi8>) -> tensor<1x8x10x24xi32>, stream.memory_plan = {arena_bytes = 0 : index, lower_bound_bytes = 0 : index, transient_sum_bytes = 0 : index}} {
    %0 = "stream.tensor.import"(%arg0) {index = 0 : index, size = 2400 : index} : (!hal.buffer_view) -> (!stream.resource<external>)
    %1 = "stream.tensor.import"(%arg1) {index = 1 : index, size = 4320 : index} : (!hal.buffer_view) -> (!stream.resource<external>)
    %2 = "stream.resource.result"() {index = 0 : index, size = 7680 : index} : () -> (!stream.resource<external>)
    "hal.command_buffer.dispatch"(%0, %1, %2) {entry_point = @qconv_dispatch_0::@embedded_c_openmp::@qconv_dispatch_0_conv_2d_nhwc_fhwc_q_1x8x10x24_i32, access = ["ro", "ro", "wo"], offsets = array<i64: 0, 0, 0>, sizes = array<i64: 2400, 4320, 7680>} : (!stream.resource<external>, !stream.resource<external>, !stream.resource<external>) -> ()
    %3 = "stream.tensor.export"(%2) {index = 0 : index} : (!stream.resource<external>) -> (!hal.buffer_view)
    return %3 : !hal.buffer_view
  }
}


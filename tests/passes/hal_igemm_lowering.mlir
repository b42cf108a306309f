// RUN: ireec opt %s --target=openmp --pass-pipeline=iree-llvmcpu-select-lowering-strategy,iree-codegen-iree-comprehensive-bufferize,ireec-fold-ukernel-accumulator-inits,iree-codegen-tile-and-distribute-to-workgroups,iree-codegen-cpu-lower-to-ukernels | filecheck %s

// Input: a linalg.quantized_matmul (i8 x i8 -> i32, zero points -3 and 7) after
// generalization, as iree-codegen-linalg-generalize-named-ops leaves it. The lowering strategy
// gives it the int8 micro-kernel's workgroup tiles (the 96 columns split in two for the
// openmp threads, the 40 rows kept whole) and blocking; the zero fill goes (accumulate =
// false); the call of ireec_uk_igemm on the workgroup's tile takes A, B, C, the work array
// (IREEC_UK_IGEMM_WORK_BYTES(40, 48, 72) = 21568 bytes as i32), the tile origins, M, N, K and
// the two zero points.
// CHECK:       hal.executable.export
// CHECK-SAME:    workgroup_count = array<i64: 2, 1, 1>
// CHECK:       func.func @qmm_dispatch_0_quantized_matmul_40x96_i32()
// CHECK-DAG:     %[[AZ:[0-9]+]] = arith.constant -3 : i32
// CHECK-DAG:     %[[BZ:[0-9]+]] = arith.constant 7 : i32
// CHECK:         %[[WORK:[0-9]+]] = memref.alloca() {ireec.ukernel_work} : memref<5392xi32>
// CHECK-NOT:     linalg.generic
// CHECK:         "iree_codegen.ukernel.generic"(%0, %1, %2, %[[WORK]], {{.*}}, %[[AZ]], %[[BZ]])
// CHECK-SAME:      lowering_config = #iree_codegen.lowering_config<tile_sizes = {{\[\[}}40, 48, 0], [40, 48, 72]]>
// CHECK-SAME:      iree_codegen.ukernel = #iree_codegen.ukernel_descriptor<"ireec_uk_igemm", memref>
// CHECK-SAME:      u_kernel_fn_name = "ireec_uk_igemm", strides = array<i64: 72, 1, 96, 1, 96>, blocking = array<i64: 40, 48, 72>, accumulate = false}
// CHECK-SAME:      -> ()
// CHECK-NEXT:    return

module {
  "hal.executable"() ({
    "hal.executable.variant"() ({
      "hal.executable.export"() {sym_name = "qmm_dispatch_0_quantized_matmul_40x96_i32", ordinal = 0 : index, bindings = 3 : index} : () -> ()
      module {
        func.func @qmm_dispatch_0_quantized_matmul_40x96_i32() {
          %0 = "hal.interface.binding.subspan"() {binding = 0 : index, descriptor_flags = "ReadOnly"} : () -> (!flow.dispatch.tensor<readonly:tensor<40x72xi8>>)
          %1 = "hal.interface.binding.subspan"() {binding = 1 : index, descriptor_flags = "ReadOnly"} : () -> (!flow.dispatch.tensor<readonly:tensor<72x96xi8>>)
          %2 = "hal.interface.binding.subspan"() {binding = 2 : index, descriptor_flags = "None"} : () -> (!flow.dispatch.tensor<writeonly:tensor<40x96xi32>>)
          %3 = "flow.dispatch.tensor.load"(%0) {static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 40, 72>, static_strides = array<i64: 1, 1>} : (!flow.dispatch.tensor<readonly:tensor<40x72xi8>>) -> (tensor<40x72xi8>)
          %4 = "flow.dispatch.tensor.load"(%1) {static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 72, 96>, static_strides = array<i64: 1, 1>} : (!flow.dispatch.tensor<readonly:tensor<72x96xi8>>) -> (tensor<72x96xi8>)
          %5 = arith.constant -3 : i32
          %6 = arith.constant 7 : i32
          %7 = arith.constant 0 : i32
          %8 = tensor.empty() : tensor<40x96xi32>
          %9 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%7 : i32) outs(%8 : tensor<40x96xi32>) {
          ^bb0(%arg0: i32, %arg1: i32):
            linalg.yield %arg0 : i32
          } -> tensor<40x96xi32>
          %10 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> ()>, affine_map<(d0, d1, d2) -> ()>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%3, %4, %5, %6 : tensor<40x72xi8>, tensor<72x96xi8>, i32, i32) outs(%9 : tensor<40x96xi32>) {
          ^bb0(%arg2: i8, %arg3: i8, %arg4: i32, %arg5: i32, %arg6: i32):
            %11 = arith.extsi %arg2 : i8 to i32
            %12 = arith.subi %11, %arg4 : i32
            %13 = arith.extsi %arg3 : i8 to i32
            %14 = arith.subi %13, %arg5 : i32
            %15 = arith.muli %12, %14 : i32
            %16 = arith.addi %arg6, %15 : i32
            linalg.yield %16 : i32
          } -> tensor<40x96xi32>
          "flow.dispatch.tensor.store"(%10, %2) {static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 40, 96>, static_strides = array<i64: 1, 1>} : (tensor<40x96xi32>, !flow.dispatch.tensor<writeonly:tensor<40x96xi32>>) -> ()
          return
        }
      }
    }) {sym_name = "embedded_c_openmp", target = "openmp"} : () -> ()
  }) {sym_name = "qmm_dispatch_0", sym_visibility = "private"} : () -> ()
  func.func @qmm(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view) -> !hal.buffer_view attributes {iree.abi.stub, iree.reflection = {iree.abi.declaration = "sync func @qmm(%input0: tensor<40x72xi8>, %input1: tensor<72x96xi8>) -> (%output0: tensor<40x96xi32>)"}, ireec.abi.tensor_type = (tensor<40x72xi8>, tensor<72x96xi8>) -> tensor<40x96xi32>, stream.memory_plan = {arena_bytes = 0 : index, lower_bound_bytes = 0 : index, transient_sum_bytes = 0 : index}} {
    %0 = "stream.tensor.import"(%arg0) {index = 0 : index, size = 2880 : index} : (!hal.buffer_view) -> (!stream.resource<external>)
    %1 = "stream.tensor.import"(%arg1) {index = 1 : index, size = 6912 : index} : (!hal.buffer_view) -> (!stream.resource<external>)
    %2 = "stream.resource.result"() {index = 0 : index, size = 15360 : index} : () -> (!stream.resource<external>)
    "hal.command_buffer.dispatch"(%0, %1, %2) {entry_point = @qmm_dispatch_0::@embedded_c_openmp::@qmm_dispatch_0_quantized_matmul_40x96_i32, access = ["ro", "ro", "wo"], offsets = array<i64: 0, 0, 0>, sizes = array<i64: 2880, 6912, 15360>} : (!stream.resource<external>, !stream.resource<external>, !stream.resource<external>) -> ()
    %3 = "stream.tensor.export"(%2) {index = 0 : index} : (!stream.resource<external>) -> (!hal.buffer_view)
    return %3 : !hal.buffer_view
  }
}


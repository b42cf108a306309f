// RUN: ireec opt %s --target=openmp --pass-pipeline=iree-llvmcpu-select-lowering-strategy | filecheck %s

// Input: the IR printed just before this pass (ireec compile --mlir-print-ir-after-all).
// Tile sizes per kernel, and workgroup count = ceil(extent / tile) per distributed dimension:
// 100000 elements in tiles of 4096 are 25 workgroups; the f32 256x200 matmul calls the sgemm
// micro-kernel: both dims are below twice its 256 tile, so for openmp threads each is split in two (128 rows,
// 104 columns: 2x2 workgroups), the reduction is not tiled (0); the second level is the
// micro-kernel's cache blocking MC, NC, KC (no larger than the tile).
// CHECK:       hal.executable.export
// CHECK-SAME:    sym_name = "ew_dispatch_0_elementwise_100000_f32"
// CHECK-SAME:    workgroup_count = array<i64: 25, 1, 1>
// CHECK:       func.func @ew_dispatch_0_elementwise_100000_f32()
// CHECK-SAME:    translation_info = #iree_codegen.translation_info<pipeline = CPUDoubleTilingExpert>
// CHECK:         linalg.generic
// CHECK-SAME:      lowering_config = #iree_codegen.lowering_config<tile_sizes = {{\[\[}}4096]]>
// CHECK:       hal.executable.export
// CHECK-SAME:    sym_name = "mm_dispatch_0_matmul_256x200x128_f32"
// CHECK-SAME:    workgroup_count = array<i64: 2, 2, 1>
// CHECK:       func.func @mm_dispatch_0_matmul_256x200x128_f32()
// CHECK:         linalg.generic{{.*}}iterator_types = ["parallel", "parallel", "reduction"]
// CHECK-SAME:      iree_codegen.ukernel = #iree_codegen.ukernel_descriptor<"ireec_uk_sgemm", memref>
// CHECK-SAME:      ireec.ukernel_blocking = array<i64: 64, 104, 128>
// CHECK-SAME:      lowering_config = #iree_codegen.lowering_config<tile_sizes = {{\[\[}}128, 104, 0], [64, 104, 128]]>
// 24 rows would split as 16 + 8 (a static schedule gives one thread both 16-row tiles) while
// the 256 columns split evenly: the rows stay whole, two workgroups of 24x128.
// CHECK:       hal.executable.export
// CHECK-SAME:    sym_name = "mm24_dispatch_0_matmul_24x256x64_f32"
// CHECK-SAME:    workgroup_count = array<i64: 2, 1, 1>
// CHECK:         lowering_config = #iree_codegen.lowering_config<tile_sizes = {{\[\[}}24, 128, 0]

module {
  "hal.executable"() ({
    "hal.executable.variant"() ({
      "hal.executable.export"() {sym_name = "ew_dispatch_0_elementwise_100000_f32", ordinal = 0 : index, bindings = 2 : index} : () -> ()
      module {
        func.func @ew_dispatch_0_elementwise_100000_f32() {
          %0 = "hal.interface.binding.subspan"() {binding = 0 : index, descriptor_flags = "ReadOnly"} : () -> (!flow.dispatch.tensor<readonly:tensor<100000xf32>>)
          %1 = "hal.interface.binding.subspan"() {binding = 1 : index, descriptor_flags = "None"} : () -> (!flow.dispatch.tensor<writeonly:tensor<100000xf32>>)
          %2 = "flow.dispatch.tensor.load"(%0) {static_offsets = array<i64: 0>, static_sizes = array<i64: 100000>, static_strides = array<i64: 1>} : (!flow.dispatch.tensor<readonly:tensor<100000xf32>>) -> (tensor<100000xf32>)
          %3 = tensor.empty() : tensor<100000xf32>
          %4 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%2 : tensor<100000xf32>) outs(%3 : tensor<100000xf32>) {
          ^bb0(%arg0: f32, %arg1: f32):
            %5 = math.exp %arg0 : f32
            linalg.yield %5 : f32
          } -> tensor<100000xf32>
          "flow.dispatch.tensor.store"(%4, %1) {static_offsets = array<i64: 0>, static_sizes = array<i64: 100000>, static_strides = array<i64: 1>} : (tensor<100000xf32>, !flow.dispatch.tensor<writeonly:tensor<100000xf32>>) -> ()
          return
        }
      }
    }) {sym_name = "embedded_c_openmp", target = "openmp"} : () -> ()
  }) {sym_name = "ew_dispatch_0", sym_visibility = "private"} : () -> ()
  func.func @ew(%arg0: !hal.buffer_view) -> !hal.buffer_view attributes {iree.abi.stub, iree.reflection = {iree.abi.declaration = "sync func @ew(%input0: tensor<100000xf32>) -> (%output0: tensor<100000xf32>)"}, ireec.abi.tensor_type = (tensor<100000xf32>) -> tensor<100000xf32>, stream.memory_plan = {arena_bytes = 0 : index, lower_bound_bytes = 0 : index, transient_sum_bytes = 0 : index}} {
    %0 = "stream.tensor.import"(%arg0) {index = 0 : index, size = 400000 : index} : (!hal.buffer_view) -> (!stream.resource<external>)
    %1 = "stream.resource.result"() {index = 0 : index, size = 400000 : index} : () -> (!stream.resource<external>)
    "hal.command_buffer.dispatch"(%0, %1) {entry_point = @ew_dispatch_0::@embedded_c_openmp::@ew_dispatch_0_elementwise_100000_f32, access = ["ro", "wo"], offsets = array<i64: 0, 0>, sizes = array<i64: 400000, 400000>} : (!stream.resource<external>, !stream.resource<external>) -> ()
    %2 = "stream.tensor.export"(%1) {index = 0 : index} : (!stream.resource<external>) -> (!hal.buffer_view)
    return %2 : !hal.buffer_view
  }
  "hal.executable"() ({
    "hal.executable.variant"() ({
      "hal.executable.export"() {sym_name = "mm_dispatch_0_matmul_256x200x128_f32", ordinal = 0 : index, bindings = 3 : index} : () -> ()
      module {
        func.func @mm_dispatch_0_matmul_256x200x128_f32() {
          %0 = "hal.interface.binding.subspan"() {binding = 0 : index, descriptor_flags = "ReadOnly"} : () -> (!flow.dispatch.tensor<readonly:tensor<256x128xf32>>)
          %1 = "hal.interface.binding.subspan"() {binding = 1 : index, descriptor_flags = "ReadOnly"} : () -> (!flow.dispatch.tensor<readonly:tensor<128x200xf32>>)
          %2 = "hal.interface.binding.subspan"() {binding = 2 : index, descriptor_flags = "None"} : () -> (!flow.dispatch.tensor<writeonly:tensor<256x200xf32>>)
          %3 = "flow.dispatch.tensor.load"(%0) {static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 256, 128>, static_strides = array<i64: 1, 1>} : (!flow.dispatch.tensor<readonly:tensor<256x128xf32>>) -> (tensor<256x128xf32>)
          %4 = "flow.dispatch.tensor.load"(%1) {static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 128, 200>, static_strides = array<i64: 1, 1>} : (!flow.dispatch.tensor<readonly:tensor<128x200xf32>>) -> (tensor<128x200xf32>)
          %5 = arith.constant 0.0e+00 : f32
          %6 = tensor.empty() : tensor<256x200xf32>
          %7 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%5 : f32) outs(%6 : tensor<256x200xf32>) {
          ^bb0(%arg0: f32, %arg1: f32):
            linalg.yield %arg0 : f32
          } -> tensor<256x200xf32>
          %8 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%3, %4 : tensor<256x128xf32>, tensor<128x200xf32>) outs(%7 : tensor<256x200xf32>) {
          ^bb0(%arg2: f32, %arg3: f32, %arg4: f32):
            %9 = arith.mulf %arg2, %arg3 : f32
            %10 = arith.addf %arg4, %9 : f32
            linalg.yield %10 : f32
          } -> tensor<256x200xf32>
          "flow.dispatch.tensor.store"(%8, %2) {static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 256, 200>, static_strides = array<i64: 1, 1>} : (tensor<256x200xf32>, !flow.dispatch.tensor<writeonly:tensor<256x200xf32>>) -> ()
          return
        }
      }
    }) {sym_name = "embedded_c_openmp", target = "openmp"} : () -> ()
  }) {sym_name = "mm_dispatch_0", sym_visibility = "private"} : () -> ()
  func.func @mm(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view) -> !hal.buffer_view attributes {iree.abi.stub, iree.reflection = {iree.abi.declaration = "sync func @mm(%input0: tensor<256x128xf32>, %input1: tensor<128x200xf32>) -> (%output0: tensor<256x200xf32>)"}, ireec.abi.tensor_type = (tensor<256x128xf32>, tensor<128x200xf32>) -> tensor<256x200xf32>, stream.memory_plan = {arena_bytes = 0 : index, lower_bound_bytes = 0 : index, transient_sum_bytes = 0 : index}} {
    %0 = "stream.tensor.import"(%arg0) {index = 0 : index, size = 131072 : index} : (!hal.buffer_view) -> (!stream.resource<external>)
    %1 = "stream.tensor.import"(%arg1) {index = 1 : index, size = 102400 : index} : (!hal.buffer_view) -> (!stream.resource<external>)
    %2 = "stream.resource.result"() {index = 0 : index, size = 204800 : index} : () -> (!stream.resource<external>)
    "hal.command_buffer.dispatch"(%0, %1, %2) {entry_point = @mm_dispatch_0::@embedded_c_openmp::@mm_dispatch_0_matmul_256x200x128_f32, access = ["ro", "ro", "wo"], offsets = array<i64: 0, 0, 0>, sizes = array<i64: 131072, 102400, 204800>} : (!stream.resource<external>, !stream.resource<external>, !stream.resource<external>) -> ()
    %3 = "stream.tensor.export"(%2) {index = 0 : index} : (!stream.resource<external>) -> (!hal.buffer_view)
    return %3 : !hal.buffer_view
  }
  "hal.executable"() ({
    "hal.executable.variant"() ({
      "hal.executable.export"() {sym_name = "mm24_dispatch_0_matmul_24x256x64_f32", ordinal = 0 : index, bindings = 3 : index} : () -> ()
      module {
        func.func @mm24_dispatch_0_matmul_24x256x64_f32() {
          %0 = "hal.interface.binding.subspan"() {binding = 0 : index, descriptor_flags = "ReadOnly"} : () -> (!flow.dispatch.tensor<readonly:tensor<24x64xf32>>)
          %1 = "hal.interface.binding.subspan"() {binding = 1 : index, descriptor_flags = "ReadOnly"} : () -> (!flow.dispatch.tensor<readonly:tensor<64x256xf32>>)
          %2 = "hal.interface.binding.subspan"() {binding = 2 : index, descriptor_flags = "None"} : () -> (!flow.dispatch.tensor<writeonly:tensor<24x256xf32>>)
          %3 = "flow.dispatch.tensor.load"(%0) {static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 24, 64>, static_strides = array<i64: 1, 1>} : (!flow.dispatch.tensor<readonly:tensor<24x64xf32>>) -> (tensor<24x64xf32>)
          %4 = "flow.dispatch.tensor.load"(%1) {static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 64, 256>, static_strides = array<i64: 1, 1>} : (!flow.dispatch.tensor<readonly:tensor<64x256xf32>>) -> (tensor<64x256xf32>)
          %5 = arith.constant 0.0e+00 : f32
          %6 = tensor.empty() : tensor<24x256xf32>
          %7 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%5 : f32) outs(%6 : tensor<24x256xf32>) {
          ^bb0(%arg0: f32, %arg1: f32):
            linalg.yield %arg0 : f32
          } -> tensor<24x256xf32>
          %8 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%3, %4 : tensor<24x64xf32>, tensor<64x256xf32>) outs(%7 : tensor<24x256xf32>) {
          ^bb0(%arg2: f32, %arg3: f32, %arg4: f32):
            %9 = arith.mulf %arg2, %arg3 : f32
            %10 = arith.addf %arg4, %9 : f32
            linalg.yield %10 : f32
          } -> tensor<24x256xf32>
          "flow.dispatch.tensor.store"(%8, %2) {static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 24, 256>, static_strides = array<i64: 1, 1>} : (tensor<24x256xf32>, !flow.dispatch.tensor<writeonly:tensor<24x256xf32>>) -> ()
          return
        }
      }
    }) {sym_name = "embedded_c_openmp", target = "openmp"} : () -> ()
  }) {sym_name = "mm24_dispatch_0", sym_visibility = "private"} : () -> ()
  func.func @mm24(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view) -> !hal.buffer_view attributes {iree.abi.stub, iree.reflection = {iree.abi.declaration = "sync func @mm24(%input0: tensor<24x64xf32>, %input1: tensor<64x256xf32>) -> (%output0: tensor<24x256xf32>)"}, ireec.abi.tensor_type = (tensor<24x64xf32>, tensor<64x256xf32>) -> tensor<24x256xf32>, stream.memory_plan = {arena_bytes = 0 : index, lower_bound_bytes = 0 : index, transient_sum_bytes = 0 : index}} {
    %0 = "stream.tensor.import"(%arg0) {index = 0 : index, size = 6144 : index} : (!hal.buffer_view) -> (!stream.resource<external>)
    %1 = "stream.tensor.import"(%arg1) {index = 1 : index, size = 65536 : index} : (!hal.buffer_view) -> (!stream.resource<external>)
    %2 = "stream.resource.result"() {index = 0 : index, size = 24576 : index} : () -> (!stream.resource<external>)
    "hal.command_buffer.dispatch"(%0, %1, %2) {entry_point = @mm24_dispatch_0::@embedded_c_openmp::@mm24_dispatch_0_matmul_24x256x64_f32, access = ["ro", "ro", "wo"], offsets = array<i64: 0, 0, 0>, sizes = array<i64: 6144, 65536, 24576>} : (!stream.resource<external>, !stream.resource<external>, !stream.resource<external>) -> ()
    %3 = "stream.tensor.export"(%2) {index = 0 : index} : (!stream.resource<external>) -> (!hal.buffer_view)
    return %3 : !hal.buffer_view
  }
}

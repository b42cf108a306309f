// RUN: ireec opt %s --pass-pipeline=iree-stream-schedule-allocation | filecheck %s

// Input: the IR printed just before this pass (ireec compile --mlir-print-ir-after-all).
// A chain of four matmuls: three 4x16xf32 intermediates (256 B each, 768 B in all) of which
// at most two are live at once (a dispatch's input and output), so the arena is 512 B, equal
// to the lower bound; the third intermediate reuses the first's bytes. Inputs are read where
// the caller keeps them and the result is written straight into the caller's buffer.
// The second and third matmuls are one executable (deduplicated before this pass).
// CHECK-LABEL: func.func @chain(
// CHECK-SAME:    stream.memory_plan = {
// CHECK-SAME:      arena_bytes = 512 : index
// CHECK-SAME:      lower_bound_bytes = 512 : index
// CHECK-SAME:      transient_sum_bytes = 768 : index
// CHECK:         %[[X:[0-9]+]] = {{.*}}stream.tensor.import{{.*}}index = 0 : index, size = 128 : index
// CHECK:         %[[RES:[0-9]+]] = {{.*}}stream.resource.result{{.*}}index = 0 : index, size = 64 : index
// CHECK:         %[[ARENA:[0-9]+]] = {{.*}}stream.resource.alloca{{.*}}size = 512 : index
// CHECK:         stream.cmd.dispatch @chain_dispatch_0::@chain_dispatch_0_matmul_4x16x8_f32
// CHECK-NEXT:      ro %[[X]][0 for 128]
// CHECK:           wo %[[ARENA]][0 for 256]
// CHECK:         stream.cmd.dispatch @chain_dispatch_1::@chain_dispatch_1_matmul_4x16x16_f32
// CHECK-NEXT:      ro %[[ARENA]][0 for 256]
// CHECK:           wo %[[ARENA]][256 for 256]
// CHECK:         stream.cmd.dispatch @chain_dispatch_1::@chain_dispatch_1_matmul_4x16x16_f32
// CHECK-NEXT:      ro %[[ARENA]][256 for 256]
// CHECK:           wo %[[ARENA]][0 for 256]
// CHECK:         stream.cmd.dispatch @chain_dispatch_3::@chain_dispatch_3_matmul_4x4x16_f32
// CHECK-NEXT:      ro %[[ARENA]][0 for 256]
// CHECK:           wo %[[RES]][0 for 64]
// CHECK:         stream.tensor.export{{.*}}(%[[RES]])

module {
  "flow.executable"() ({
    "flow.executable.export"() {sym_name = "chain_dispatch_0_matmul_4x16x8_f32", sym_visibility = "public", function_ref = @chain_dispatch_0_matmul_4x16x8_f32} : () -> ()
    module {
      func.func @chain_dispatch_0_matmul_4x16x8_f32(%arg0: !flow.dispatch.tensor<readonly:tensor<4x8xf32>>, %arg1: !flow.dispatch.tensor<readonly:tensor<8x16xf32>>, %arg2: !flow.dispatch.tensor<writeonly:tensor<4x16xf32>>) {
        %0 = "flow.dispatch.tensor.load"(%arg0) {static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 4, 8>, static_strides = array<i64: 1, 1>} : (!flow.dispatch.tensor<readonly:tensor<4x8xf32>>) -> (tensor<4x8xf32>)
        %1 = "flow.dispatch.tensor.load"(%arg1) {static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 8, 16>, static_strides = array<i64: 1, 1>} : (!flow.dispatch.tensor<readonly:tensor<8x16xf32>>) -> (tensor<8x16xf32>)
        %2 = arith.constant 0.0e+00 : f32
        %3 = tensor.empty() : tensor<4x16xf32>
        %4 = linalg.fill ins(%2 : f32) outs(%3 : tensor<4x16xf32>) -> tensor<4x16xf32>
        %5 = linalg.matmul ins(%0, %1 : tensor<4x8xf32>, tensor<8x16xf32>) outs(%4 : tensor<4x16xf32>) -> tensor<4x16xf32>
        "flow.dispatch.tensor.store"(%5, %arg2) {static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 4, 16>, static_strides = array<i64: 1, 1>} : (tensor<4x16xf32>, !flow.dispatch.tensor<writeonly:tensor<4x16xf32>>) -> ()
        return
      }
    }
  }) {sym_name = "chain_dispatch_0", sym_visibility = "private"} : () -> ()
  "flow.executable"() ({
    "flow.executable.export"() {sym_name = "chain_dispatch_1_matmul_4x16x16_f32", sym_visibility = "public", function_ref = @chain_dispatch_1_matmul_4x16x16_f32} : () -> ()
    module {
      func.func @chain_dispatch_1_matmul_4x16x16_f32(%arg0: !flow.dispatch.tensor<readonly:tensor<4x16xf32>>, %arg1: !flow.dispatch.tensor<readonly:tensor<16x16xf32>>, %arg2: !flow.dispatch.tensor<writeonly:tensor<4x16xf32>>) {
        %0 = "flow.dispatch.tensor.load"(%arg0) {static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 4, 16>, static_strides = array<i64: 1, 1>} : (!flow.dispatch.tensor<readonly:tensor<4x16xf32>>) -> (tensor<4x16xf32>)
        %1 = "flow.dispatch.tensor.load"(%arg1) {static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 16, 16>, static_strides = array<i64: 1, 1>} : (!flow.dispatch.tensor<readonly:tensor<16x16xf32>>) -> (tensor<16x16xf32>)
        %2 = arith.constant 0.0e+00 : f32
        %3 = tensor.empty() : tensor<4x16xf32>
        %4 = linalg.fill ins(%2 : f32) outs(%3 : tensor<4x16xf32>) -> tensor<4x16xf32>
        %5 = linalg.matmul ins(%0, %1 : tensor<4x16xf32>, tensor<16x16xf32>) outs(%4 : tensor<4x16xf32>) -> tensor<4x16xf32>
        "flow.dispatch.tensor.store"(%5, %arg2) {static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 4, 16>, static_strides = array<i64: 1, 1>} : (tensor<4x16xf32>, !flow.dispatch.tensor<writeonly:tensor<4x16xf32>>) -> ()
        return
      }
    }
  }) {sym_name = "chain_dispatch_1", sym_visibility = "private"} : () -> ()
  "flow.executable"() ({
    "flow.executable.export"() {sym_name = "chain_dispatch_3_matmul_4x4x16_f32", sym_visibility = "public", function_ref = @chain_dispatch_3_matmul_4x4x16_f32} : () -> ()
    module {
      func.func @chain_dispatch_3_matmul_4x4x16_f32(%arg0: !flow.dispatch.tensor<readonly:tensor<4x16xf32>>, %arg1: !flow.dispatch.tensor<readonly:tensor<16x4xf32>>, %arg2: !flow.dispatch.tensor<writeonly:tensor<4x4xf32>>) {
        %0 = "flow.dispatch.tensor.load"(%arg0) {static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 4, 16>, static_strides = array<i64: 1, 1>} : (!flow.dispatch.tensor<readonly:tensor<4x16xf32>>) -> (tensor<4x16xf32>)
        %1 = "flow.dispatch.tensor.load"(%arg1) {static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 16, 4>, static_strides = array<i64: 1, 1>} : (!flow.dispatch.tensor<readonly:tensor<16x4xf32>>) -> (tensor<16x4xf32>)
        %2 = arith.constant 0.0e+00 : f32
        %3 = tensor.empty() : tensor<4x4xf32>
        %4 = linalg.fill ins(%2 : f32) outs(%3 : tensor<4x4xf32>) -> tensor<4x4xf32>
        %5 = linalg.matmul ins(%0, %1 : tensor<4x16xf32>, tensor<16x4xf32>) outs(%4 : tensor<4x4xf32>) -> tensor<4x4xf32>
        "flow.dispatch.tensor.store"(%5, %arg2) {static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 4, 4>, static_strides = array<i64: 1, 1>} : (tensor<4x4xf32>, !flow.dispatch.tensor<writeonly:tensor<4x4xf32>>) -> ()
        return
      }
    }
  }) {sym_name = "chain_dispatch_3", sym_visibility = "private"} : () -> ()
  func.func @chain(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view, %arg2: !hal.buffer_view, %arg3: !hal.buffer_view) -> !hal.buffer_view attributes {iree.abi.stub, iree.reflection = {iree.abi.declaration = "sync func @chain(%input0: tensor<4x8xf32>, %input1: tensor<8x16xf32>, %input2: tensor<16x16xf32>, %input3: tensor<16x4xf32>) -> (%output0: tensor<4x4xf32>)"}, ireec.abi.tensor_type = (tensor<4x8xf32>, tensor<8x16xf32>, tensor<16x16xf32>, tensor<16x4xf32>) -> tensor<4x4xf32>} {
    %0 = hal.tensor.import %arg0 "input0" : !hal.buffer_view -> tensor<4x8xf32>
    %1 = hal.tensor.import %arg1 "input1" : !hal.buffer_view -> tensor<8x16xf32>
    %2 = hal.tensor.import %arg2 "input2" : !hal.buffer_view -> tensor<16x16xf32>
    %3 = hal.tensor.import %arg3 "input3" : !hal.buffer_view -> tensor<16x4xf32>
    %4 = flow.dispatch @chain_dispatch_0::@chain_dispatch_0_matmul_4x16x8_f32(%0, %1) : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
    %5 = flow.dispatch @chain_dispatch_1::@chain_dispatch_1_matmul_4x16x16_f32(%4, %2) : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
    %6 = flow.dispatch @chain_dispatch_1::@chain_dispatch_1_matmul_4x16x16_f32(%5, %2) : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
    %7 = flow.dispatch @chain_dispatch_3::@chain_dispatch_3_matmul_4x4x16_f32(%6, %3) : (tensor<4x16xf32>, tensor<16x4xf32>) -> tensor<4x4xf32>
    %8 = hal.tensor.export %7 "output0" : tensor<4x4xf32> -> !hal.buffer_view
    return %8 : !hal.buffer_view
  }
}

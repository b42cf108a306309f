// RUN: ireec opt %s --pass-pipeline=iree-hal-materialize-interfaces | filecheck %s

// Input: the IR printed just before this pass (ireec compile --mlir-print-ir-after-all).
// The flow.executable becomes a hal.executable with a variant for the target; the kernel's
// tensor arguments become interface bindings (read-only for inputs), numbered in argument
// order; the host dispatches through hal.command_buffer.dispatch with each binding's access,
// offset and byte size.
// CHECK:       hal.executable
// CHECK:         hal.executable.variant
// CHECK:           hal.executable.export
// CHECK-SAME:        sym_name = "mm_dispatch_0_matmul_64x48x32_f32"
// CHECK-SAME:        bindings = 3 : index
// CHECK:           func.func @mm_dispatch_0_matmul_64x48x32_f32()
// CHECK:             hal.interface.binding.subspan{{.*}}binding = 0 : index, descriptor_flags = "ReadOnly"{{.*}}!flow.dispatch.tensor<readonly:tensor<64x32xf32>>
// CHECK:             hal.interface.binding.subspan{{.*}}binding = 1 : index, descriptor_flags = "ReadOnly"{{.*}}!flow.dispatch.tensor<readonly:tensor<32x48xf32>>
// CHECK:             hal.interface.binding.subspan{{.*}}binding = 2 : index, descriptor_flags = "None"{{.*}}!flow.dispatch.tensor<writeonly:tensor<64x48xf32>>
// CHECK:             linalg.matmul
// CHECK:         sym_name = "embedded_c", target = "c"
// CHECK-NOT:   flow.executable
// CHECK-LABEL: func.func @mm(
// CHECK:         hal.command_buffer.dispatch
// CHECK-SAME:      entry_point = @mm_dispatch_0::@embedded_c::@mm_dispatch_0_matmul_64x48x32_f32
// CHECK-SAME:      access = ["ro", "ro", "wo"]
// CHECK-SAME:      sizes = array<i64: 8192, 6144, 12288>

module {
  "flow.executable"() ({
    "flow.executable.export"() {sym_name = "mm_dispatch_0_matmul_64x48x32_f32", sym_visibility = "public", function_ref = @mm_dispatch_0_matmul_64x48x32_f32} : () -> ()
    module {
      func.func @mm_dispatch_0_matmul_64x48x32_f32(%arg0: !flow.dispatch.tensor<readonly:tensor<64x32xf32>>, %arg1: !flow.dispatch.tensor<readonly:tensor<32x48xf32>>, %arg2: !flow.dispatch.tensor<writeonly:tensor<64x48xf32>>) {
        %0 = "flow.dispatch.tensor.load"(%arg0) {static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 64, 32>, static_strides = array<i64: 1, 1>} : (!flow.dispatch.tensor<readonly:tensor<64x32xf32>>) -> (tensor<64x32xf32>)
        %1 = "flow.dispatch.tensor.load"(%arg1) {static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 32, 48>, static_strides = array<i64: 1, 1>} : (!flow.dispatch.tensor<readonly:tensor<32x48xf32>>) -> (tensor<32x48xf32>)
        %2 = arith.constant 0.0e+00 : f32
        %3 = tensor.empty() : tensor<64x48xf32>
        %4 = linalg.fill ins(%2 : f32) outs(%3 : tensor<64x48xf32>) -> tensor<64x48xf32>
        %5 = linalg.matmul ins(%0, %1 : tensor<64x32xf32>, tensor<32x48xf32>) outs(%4 : tensor<64x48xf32>) -> tensor<64x48xf32>
        "flow.dispatch.tensor.store"(%5, %arg2) {static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 64, 48>, static_strides = array<i64: 1, 1>} : (tensor<64x48xf32>, !flow.dispatch.tensor<writeonly:tensor<64x48xf32>>) -> ()
        return
      }
    }
  }) {sym_name = "mm_dispatch_0", sym_visibility = "private"} : () -> ()
  func.func @mm(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view) -> !hal.buffer_view attributes {iree.abi.stub, iree.reflection = {iree.abi.declaration = "sync func @mm(%input0: tensor<64x32xf32>, %input1: tensor<32x48xf32>) -> (%output0: tensor<64x48xf32>)"}, ireec.abi.tensor_type = (tensor<64x32xf32>, tensor<32x48xf32>) -> tensor<64x48xf32>, stream.memory_plan = {arena_bytes = 0 : index, lower_bound_bytes = 0 : index, transient_sum_bytes = 0 : index}} {
    %0 = "stream.tensor.import"(%arg0) {index = 0 : index, size = 8192 : index} : (!hal.buffer_view) -> (!stream.resource<external>)
    %1 = "stream.tensor.import"(%arg1) {index = 1 : index, size = 6144 : index} : (!hal.buffer_view) -> (!stream.resource<external>)
    %2 = "stream.resource.result"() {index = 0 : index, size = 12288 : index} : () -> (!stream.resource<external>)
    stream.cmd.dispatch @mm_dispatch_0::@mm_dispatch_0_matmul_64x48x32_f32 {
      ro %0[0 for 8192] : !stream.resource<external>,
      ro %1[0 for 6144] : !stream.resource<external>,
      wo %2[0 for 12288] : !stream.resource<external>
    }
    %3 = "stream.tensor.export"(%2) {index = 0 : index} : (!stream.resource<external>) -> (!hal.buffer_view)
    return %3 : !hal.buffer_view
  }
}

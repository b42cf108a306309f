// RUN: ireec opt %s --pass-pipeline=iree-abi-wrap-entry-points,iree-dispatch-creation-form-dispatch-regions,iree-flow-outline-dispatch-regions,iree-stream-schedule-allocation,iree-hal-materialize-interfaces | filecheck %s

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
func.func @mm(%x: tensor<64x32xf32>, %w: tensor<32x48xf32>) -> tensor<64x48xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x48xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x48xf32>) -> tensor<64x48xf32>
  %m = linalg.matmul ins(%x, %w : tensor<64x32xf32>, tensor<32x48xf32>) outs(%f : tensor<64x48xf32>) -> tensor<64x48xf32>
  return %m : tensor<64x48xf32>
}

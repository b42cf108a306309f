// RUN: ireec opt %s --pass-pipeline=iree-abi-wrap-entry-points,iree-dispatch-creation-form-dispatch-regions,iree-flow-outline-dispatch-regions,iree-stream-schedule-allocation | filecheck %s

// A chain of four matmuls: three 4x16xf32 intermediates (256 B each, 768 B in all) of which
// at most two are live at once (a dispatch's input and output), so the arena is 512 B, equal
// to the lower bound; the third intermediate reuses the first's bytes. Inputs are read where
// the caller keeps them and the result is written straight into the caller's buffer.
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
// CHECK:         stream.cmd.dispatch @chain_dispatch_2::@chain_dispatch_2_matmul_4x16x16_f32
// CHECK-NEXT:      ro %[[ARENA]][256 for 256]
// CHECK:           wo %[[ARENA]][0 for 256]
// CHECK:         stream.cmd.dispatch @chain_dispatch_3::@chain_dispatch_3_matmul_4x4x16_f32
// CHECK-NEXT:      ro %[[ARENA]][0 for 256]
// CHECK:           wo %[[RES]][0 for 64]
// CHECK:         stream.tensor.export{{.*}}(%[[RES]])
func.func @chain(%x: tensor<4x8xf32>, %w1: tensor<8x16xf32>, %w2: tensor<16x16xf32>, %w3: tensor<16x4xf32>) -> tensor<4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<4x16xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4x16xf32>) -> tensor<4x16xf32>
  %m1 = linalg.matmul ins(%x, %w1 : tensor<4x8xf32>, tensor<8x16xf32>) outs(%f1 : tensor<4x16xf32>) -> tensor<4x16xf32>
  %m2 = linalg.matmul ins(%m1, %w2 : tensor<4x16xf32>, tensor<16x16xf32>) outs(%f1 : tensor<4x16xf32>) -> tensor<4x16xf32>
  %m3 = linalg.matmul ins(%m2, %w2 : tensor<4x16xf32>, tensor<16x16xf32>) outs(%f1 : tensor<4x16xf32>) -> tensor<4x16xf32>
  %e4 = tensor.empty() : tensor<4x4xf32>
  %f4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<4x4xf32>) -> tensor<4x4xf32>
  %m4 = linalg.matmul ins(%m3, %w3 : tensor<4x16xf32>, tensor<16x4xf32>) outs(%f4 : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %m4 : tensor<4x4xf32>
}

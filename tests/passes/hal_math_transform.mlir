// RUN: ireec opt %s --pass-pipeline=iree-codegen-math-transform | filecheck %s

// Input: the IR printed just before this pass (ireec compile --mlir-print-ir-after-all).
// f32 tanh becomes the clamp, the two Horner polynomials in x^2, their quotient and the
// select of x itself for tiny |x|; no math.tanh is left. f64 tanh keeps its libm call.
// CHECK:       func.func @t_dispatch_0_elementwise_64_f32()
// CHECK:         scf.for
// CHECK:           memref.load
// CHECK:           arith.cmpf olt
// CHECK:           arith.select
// CHECK:           arith.cmpf ogt
// CHECK:           arith.select
// CHECK:           arith.mulf
// CHECK:           arith.divf
// CHECK:           math.absf
// CHECK:           arith.cmpf olt
// CHECK:           arith.select
// CHECK-NEXT:      memref.store
// CHECK-NOT:     math.tanh
// CHECK:       func.func @d_dispatch_0_elementwise_64_f64()
// CHECK:           math.tanh
// f32 exp: floor(x log2 e + 0.5), the reduced argument's polynomial, 2^k from exponent
// bits in two halves, then +inf / 0 outside the range.
// CHECK:       func.func @x_dispatch_0_elementwise_64_f32()
// CHECK:           math.floor
// CHECK:           arith.fptosi
// CHECK:           arith.shrsi
// CHECK:           arith.shli
// CHECK:           arith.bitcast
// CHECK:           arith.shli
// CHECK:           arith.bitcast
// CHECK:           arith.select
// CHECK:           arith.select
// CHECK-NEXT:      memref.store
// CHECK-NOT:     math.exp

module {
  "hal.executable"() ({
    "hal.executable.variant"() ({
      "hal.executable.export"() {sym_name = "t_dispatch_0_elementwise_64_f32", ordinal = 0 : index, bindings = 2 : index, workgroup_count = array<i64: 1, 1, 1>, workgroup_size = array<i64: 1, 1, 1>} : () -> ()
      module {
        func.func @t_dispatch_0_elementwise_64_f32() attributes {ireec.distribution = array<i64: 64, 64>, translation_info = #iree_codegen.translation_info<pipeline = CPUDoubleTilingExpert>} {
          %0 = "hal.interface.binding.subspan"() {binding = 0 : index, descriptor_flags = "ReadOnly"} : () -> (memref<64xf32>)
          %1 = "hal.interface.binding.subspan"() {binding = 1 : index, descriptor_flags = "None"} : () -> (memref<64xf32>)
          %2 = arith.constant 0 : index
          %3 = arith.constant 64 : index
          %4 = arith.constant 0 : index
          %5 = arith.constant 1 : index
          scf.for %arg0 = %4 to %3 step %5 {
            %6 = arith.addi %2, %arg0 : index
            %7 = memref.load %0[%6] : memref<64xf32>
            %8 = math.tanh %7 : f32
            memref.store %8, %1[%6] : memref<64xf32>
          }
          return
        }
      }
    }) {sym_name = "embedded_c", target = "c"} : () -> ()
  }) {sym_name = "t_dispatch_0", sym_visibility = "private"} : () -> ()
  func.func @t(%arg0: !hal.buffer_view) -> !hal.buffer_view attributes {iree.abi.stub, iree.reflection = {iree.abi.declaration = "sync func @t(%input0: tensor<64xf32>) -> (%output0: tensor<64xf32>)"}, ireec.abi.tensor_type = (tensor<64xf32>) -> tensor<64xf32>, stream.memory_plan = {arena_bytes = 0 : index, lower_bound_bytes = 0 : index, transient_sum_bytes = 0 : index}} {
    %0 = "stream.tensor.import"(%arg0) {index = 0 : index, size = 256 : index} : (!hal.buffer_view) -> (!stream.resource<external>)
    %1 = "stream.resource.result"() {index = 0 : index, size = 256 : index} : () -> (!stream.resource<external>)
    "hal.command_buffer.dispatch"(%0, %1) {entry_point = @t_dispatch_0::@embedded_c::@t_dispatch_0_elementwise_64_f32, access = ["ro", "wo"], offsets = array<i64: 0, 0>, sizes = array<i64: 256, 256>} : (!stream.resource<external>, !stream.resource<external>) -> ()
    %2 = "stream.tensor.export"(%1) {index = 0 : index} : (!stream.resource<external>) -> (!hal.buffer_view)
    return %2 : !hal.buffer_view
  }
  "hal.executable"() ({
    "hal.executable.variant"() ({
      "hal.executable.export"() {sym_name = "d_dispatch_0_elementwise_64_f64", ordinal = 0 : index, bindings = 2 : index, workgroup_count = array<i64: 1, 1, 1>, workgroup_size = array<i64: 1, 1, 1>} : () -> ()
      module {
        func.func @d_dispatch_0_elementwise_64_f64() attributes {ireec.distribution = array<i64: 64, 64>, translation_info = #iree_codegen.translation_info<pipeline = CPUDoubleTilingExpert>} {
          %0 = "hal.interface.binding.subspan"() {binding = 0 : index, descriptor_flags = "ReadOnly"} : () -> (memref<64xf64>)
          %1 = "hal.interface.binding.subspan"() {binding = 1 : index, descriptor_flags = "None"} : () -> (memref<64xf64>)
          %2 = arith.constant 0 : index
          %3 = arith.constant 64 : index
          %4 = arith.constant 0 : index
          %5 = arith.constant 1 : index
          scf.for %arg0 = %4 to %3 step %5 {
            %6 = arith.addi %2, %arg0 : index
            %7 = memref.load %0[%6] : memref<64xf64>
            %8 = math.tanh %7 : f64
            memref.store %8, %1[%6] : memref<64xf64>
          }
          return
        }
      }
    }) {sym_name = "embedded_c", target = "c"} : () -> ()
  }) {sym_name = "d_dispatch_0", sym_visibility = "private"} : () -> ()
  func.func @d(%arg0: !hal.buffer_view) -> !hal.buffer_view attributes {iree.abi.stub, iree.reflection = {iree.abi.declaration = "sync func @d(%input0: tensor<64xf64>) -> (%output0: tensor<64xf64>)"}, ireec.abi.tensor_type = (tensor<64xf64>) -> tensor<64xf64>, stream.memory_plan = {arena_bytes = 0 : index, lower_bound_bytes = 0 : index, transient_sum_bytes = 0 : index}} {
    %0 = "stream.tensor.import"(%arg0) {index = 0 : index, size = 512 : index} : (!hal.buffer_view) -> (!stream.resource<external>)
    %1 = "stream.resource.result"() {index = 0 : index, size = 512 : index} : () -> (!stream.resource<external>)
    "hal.command_buffer.dispatch"(%0, %1) {entry_point = @d_dispatch_0::@embedded_c::@d_dispatch_0_elementwise_64_f64, access = ["ro", "wo"], offsets = array<i64: 0, 0>, sizes = array<i64: 512, 512>} : (!stream.resource<external>, !stream.resource<external>) -> ()
    %2 = "stream.tensor.export"(%1) {index = 0 : index} : (!stream.resource<external>) -> (!hal.buffer_view)
    return %2 : !hal.buffer_view
  }
  "hal.executable"() ({
    "hal.executable.variant"() ({
      "hal.executable.export"() {sym_name = "x_dispatch_0_elementwise_64_f32", ordinal = 0 : index, bindings = 2 : index, workgroup_count = array<i64: 1, 1, 1>, workgroup_size = array<i64: 1, 1, 1>} : () -> ()
      module {
        func.func @x_dispatch_0_elementwise_64_f32() attributes {ireec.distribution = array<i64: 64, 64>, translation_info = #iree_codegen.translation_info<pipeline = CPUDoubleTilingExpert>} {
          %0 = "hal.interface.binding.subspan"() {binding = 0 : index, descriptor_flags = "ReadOnly"} : () -> (memref<64xf32>)
          %1 = "hal.interface.binding.subspan"() {binding = 1 : index, descriptor_flags = "None"} : () -> (memref<64xf32>)
          %2 = arith.constant 0 : index
          %3 = arith.constant 64 : index
          %4 = arith.constant 0 : index
          %5 = arith.constant 1 : index
          scf.for %arg0 = %4 to %3 step %5 {
            %6 = arith.addi %2, %arg0 : index
            %7 = memref.load %0[%6] : memref<64xf32>
            %8 = math.exp %7 : f32
            memref.store %8, %1[%6] : memref<64xf32>
          }
          return
        }
      }
    }) {sym_name = "embedded_c", target = "c"} : () -> ()
  }) {sym_name = "x_dispatch_0", sym_visibility = "private"} : () -> ()
  func.func @x(%arg0: !hal.buffer_view) -> !hal.buffer_view attributes {iree.abi.stub, iree.reflection = {iree.abi.declaration = "sync func @x(%input0: tensor<64xf32>) -> (%output0: tensor<64xf32>)"}, ireec.abi.tensor_type = (tensor<64xf32>) -> tensor<64xf32>, stream.memory_plan = {arena_bytes = 0 : index, lower_bound_bytes = 0 : index, transient_sum_bytes = 0 : index}} {
    %0 = "stream.tensor.import"(%arg0) {index = 0 : index, size = 256 : index} : (!hal.buffer_view) -> (!stream.resource<external>)
    %1 = "stream.resource.result"() {index = 0 : index, size = 256 : index} : () -> (!stream.resource<external>)
    "hal.command_buffer.dispatch"(%0, %1) {entry_point = @x_dispatch_0::@embedded_c::@x_dispatch_0_elementwise_64_f32, access = ["ro", "wo"], offsets = array<i64: 0, 0>, sizes = array<i64: 256, 256>} : (!stream.resource<external>, !stream.resource<external>) -> ()
    %2 = "stream.tensor.export"(%1) {index = 0 : index} : (!stream.resource<external>) -> (!hal.buffer_view)
    return %2 : !hal.buffer_view
  }
}

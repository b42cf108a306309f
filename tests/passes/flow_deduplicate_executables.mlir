// RUN: ireec opt %s --pass-pipeline=iree-flow-deduplicate-executables | filecheck %s

// Dispatches 0 and 1 have the same kernel (exp), dispatch 2 another (log): one executable
// of each kind is left, and the calls of the duplicate go to the one kept.
// CHECK:       sym_name = "f_dispatch_0_elementwise_8_f32"
// CHECK:       math.exp
// CHECK:       sym_name = "f_dispatch_0"
// CHECK-NOT:   sym_name = "f_dispatch_1"
// CHECK:       sym_name = "f_dispatch_2_elementwise_8_f32"
// CHECK:       math.log
// CHECK:       sym_name = "f_dispatch_2"
// CHECK-LABEL: func.func @f(
// CHECK:         flow.dispatch @f_dispatch_0::@f_dispatch_0_elementwise_8_f32(%arg0)
// CHECK:         flow.dispatch @f_dispatch_0::@f_dispatch_0_elementwise_8_f32(%arg1)
// CHECK:         flow.dispatch @f_dispatch_2::@f_dispatch_2_elementwise_8_f32(%arg2)
// CHECK:         return
module {
  "flow.executable"() ({
    "flow.executable.export"() {sym_name = "f_dispatch_0_elementwise_8_f32", sym_visibility = "public", function_ref = @f_dispatch_0_elementwise_8_f32} : () -> ()
    module {
      func.func @f_dispatch_0_elementwise_8_f32(%in: !flow.dispatch.tensor<readonly:tensor<8xf32>>, %out: !flow.dispatch.tensor<writeonly:tensor<8xf32>>) {
        %0 = "flow.dispatch.tensor.load"(%in) {static_offsets = array<i64: 0>, static_sizes = array<i64: 8>, static_strides = array<i64: 1>} : (!flow.dispatch.tensor<readonly:tensor<8xf32>>) -> (tensor<8xf32>)
        %1 = tensor.empty() : tensor<8xf32>
        %2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%0 : tensor<8xf32>) outs(%1 : tensor<8xf32>) {
        ^bb0(%x: f32, %o: f32):
          %3 = math.exp %x : f32
          linalg.yield %3 : f32
        } -> tensor<8xf32>
        "flow.dispatch.tensor.store"(%2, %out) {static_offsets = array<i64: 0>, static_sizes = array<i64: 8>, static_strides = array<i64: 1>} : (tensor<8xf32>, !flow.dispatch.tensor<writeonly:tensor<8xf32>>) -> ()
        return
      }
    }
  }) {sym_name = "f_dispatch_0", sym_visibility = "private"} : () -> ()
  "flow.executable"() ({
    "flow.executable.export"() {sym_name = "f_dispatch_1_elementwise_8_f32", sym_visibility = "public", function_ref = @f_dispatch_1_elementwise_8_f32} : () -> ()
    module {
      func.func @f_dispatch_1_elementwise_8_f32(%in: !flow.dispatch.tensor<readonly:tensor<8xf32>>, %out: !flow.dispatch.tensor<writeonly:tensor<8xf32>>) {
        %0 = "flow.dispatch.tensor.load"(%in) {static_offsets = array<i64: 0>, static_sizes = array<i64: 8>, static_strides = array<i64: 1>} : (!flow.dispatch.tensor<readonly:tensor<8xf32>>) -> (tensor<8xf32>)
        %1 = tensor.empty() : tensor<8xf32>
        %2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%0 : tensor<8xf32>) outs(%1 : tensor<8xf32>) {
        ^bb0(%x: f32, %o: f32):
          %3 = math.exp %x : f32
          linalg.yield %3 : f32
        } -> tensor<8xf32>
        "flow.dispatch.tensor.store"(%2, %out) {static_offsets = array<i64: 0>, static_sizes = array<i64: 8>, static_strides = array<i64: 1>} : (tensor<8xf32>, !flow.dispatch.tensor<writeonly:tensor<8xf32>>) -> ()
        return
      }
    }
  }) {sym_name = "f_dispatch_1", sym_visibility = "private"} : () -> ()
  "flow.executable"() ({
    "flow.executable.export"() {sym_name = "f_dispatch_2_elementwise_8_f32", sym_visibility = "public", function_ref = @f_dispatch_2_elementwise_8_f32} : () -> ()
    module {
      func.func @f_dispatch_2_elementwise_8_f32(%in: !flow.dispatch.tensor<readonly:tensor<8xf32>>, %out: !flow.dispatch.tensor<writeonly:tensor<8xf32>>) {
        %0 = "flow.dispatch.tensor.load"(%in) {static_offsets = array<i64: 0>, static_sizes = array<i64: 8>, static_strides = array<i64: 1>} : (!flow.dispatch.tensor<readonly:tensor<8xf32>>) -> (tensor<8xf32>)
        %1 = tensor.empty() : tensor<8xf32>
        %2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%0 : tensor<8xf32>) outs(%1 : tensor<8xf32>) {
        ^bb0(%x: f32, %o: f32):
          %3 = math.log %x : f32
          linalg.yield %3 : f32
        } -> tensor<8xf32>
        "flow.dispatch.tensor.store"(%2, %out) {static_offsets = array<i64: 0>, static_sizes = array<i64: 8>, static_strides = array<i64: 1>} : (tensor<8xf32>, !flow.dispatch.tensor<writeonly:tensor<8xf32>>) -> ()
        return
      }
    }
  }) {sym_name = "f_dispatch_2", sym_visibility = "private"} : () -> ()
  func.func @f(%a: tensor<8xf32>, %b: tensor<8xf32>, %c: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
    %0 = flow.dispatch @f_dispatch_0::@f_dispatch_0_elementwise_8_f32(%a) : (tensor<8xf32>) -> tensor<8xf32>
    %1 = flow.dispatch @f_dispatch_1::@f_dispatch_1_elementwise_8_f32(%b) : (tensor<8xf32>) -> tensor<8xf32>
    %2 = flow.dispatch @f_dispatch_2::@f_dispatch_2_elementwise_8_f32(%c) : (tensor<8xf32>) -> tensor<8xf32>
    return %0, %1, %2 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
  }
}

// RUN: ireec opt %s --pass-pipeline=iree-flow-outline-dispatch-regions | filecheck %s

// A dispatch region becomes a flow.executable named like IREE's
// (<fn>_dispatch_<n>_<root kind>_<shape>_<type>) whose function loads the captured tensor
// through a readonly binding and stores the result through a writeonly one; the host calls it
// with flow.dispatch.
// CHECK:       flow.executable
// CHECK:         flow.executable.export
// CHECK-SAME:      sym_name = "main_dispatch_0_reduction_4x8_f32"
// CHECK:         func.func @main_dispatch_0_reduction_4x8_f32
// CHECK-SAME:      !flow.dispatch.tensor<readonly:tensor<4x8xf32>>
// CHECK-SAME:      !flow.dispatch.tensor<writeonly:tensor<4xf32>>
// CHECK:           flow.dispatch.tensor.load
// CHECK:           linalg.fill
// CHECK:           linalg.generic
// CHECK:           flow.dispatch.tensor.store
// CHECK:       sym_name = "main_dispatch_0"
// CHECK-LABEL: func.func @main(
// CHECK-NOT:     flow.dispatch.region
// CHECK:         %[[D:[0-9]+]] = flow.dispatch @main_dispatch_0::@main_dispatch_0_reduction_4x8_f32(%arg0)
// CHECK:         return %[[D]]
func.func @main(%a: tensor<4x8xf32>) -> tensor<4xf32> {
  %0 = "flow.dispatch.region"() ({
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<4xf32>
    %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%a : tensor<4x8xf32>) outs(%init : tensor<4xf32>) {
    ^bb0(%x: f32, %acc: f32):
      %s = arith.addf %x, %acc : f32
      linalg.yield %s : f32
    } -> tensor<4xf32>
    "flow.return"(%r) : (tensor<4xf32>) -> ()
  }) : () -> (tensor<4xf32>)
  return %0 : tensor<4xf32>
}

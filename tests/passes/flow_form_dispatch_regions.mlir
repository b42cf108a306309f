// RUN: ireec opt %s --pass-pipeline=iree-dispatch-creation-form-dispatch-regions | filecheck %s

// The matmul is the root; the fill of its init is cloned in, and its elementwise
// consumers join its region. Nothing computes outside the region.
// CHECK-LABEL: func.func @matmul_bias_exp
// CHECK:         %[[R:[0-9]+]] = {{"?}}flow.dispatch.region
// CHECK:           tensor.empty
// CHECK:           linalg.fill
// CHECK:           linalg.matmul
// CHECK:           arith.addf
// CHECK:           math.exp
// CHECK:           flow.return
// CHECK-NOT:     linalg.
// CHECK:         return %[[R]]
func.func @matmul_bias_exp(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %b: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x16xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x16xf32>) outs(%fill : tensor<4x16xf32>) -> tensor<4x16xf32>
  %e1 = tensor.empty() : tensor<4x16xf32>
  %add = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm, %b : tensor<4x16xf32>, tensor<4x16xf32>) outs(%e1 : tensor<4x16xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<4x16xf32>
  %e2 = tensor.empty() : tensor<4x16xf32>
  %exp = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%add : tensor<4x16xf32>) outs(%e2 : tensor<4x16xf32>) {
  ^bb0(%p: f32, %o: f32):
    %s = math.exp %p : f32
    linalg.yield %s : f32
  } -> tensor<4x16xf32>
  return %exp : tensor<4x16xf32>
}

// Two independent reductions are two roots: two regions, each with its own copy of the
// shared fill.
// CHECK-LABEL: func.func @two_reductions
// CHECK:         flow.dispatch.region
// CHECK:           linalg.fill
// CHECK:           linalg.generic
// CHECK-SAME:        iterator_types = ["parallel", "reduction"]
// CHECK:           flow.return
// CHECK:         flow.dispatch.region
// CHECK:           linalg.fill
// CHECK:           linalg.generic
// CHECK-SAME:        iterator_types = ["parallel", "reduction"]
// CHECK:           flow.return
// CHECK:         return
func.func @two_reductions(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%a : tensor<4x8xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%b : tensor<4x8xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.maximumf %x, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// A broadcast read only as a contraction's init joins the contraction's region (the
// kernel writes the bias into its destination); one read by two roots stays outside.
// CHECK-LABEL: func.func @bias_broadcast_init
// CHECK:         flow.dispatch.region
// CHECK:           linalg.broadcast
// CHECK-NEXT:      linalg.matmul
// CHECK:         %[[B:.*]] = {{"?}}flow.dispatch.region
// CHECK:           linalg.broadcast
// CHECK:         flow.dispatch.region
// CHECK-NOT:       linalg.broadcast
// CHECK:           linalg.matmul {{.*}} outs(%[[B]]
func.func @bias_broadcast_init(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %c: tensor<16xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>) {
  %e = tensor.empty() : tensor<4x16xf32>
  %b = linalg.broadcast ins(%c : tensor<16xf32>) outs(%e : tensor<4x16xf32>) dimensions = [0]
  %mm = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x16xf32>) outs(%b : tensor<4x16xf32>) -> tensor<4x16xf32>
  %b2 = linalg.broadcast ins(%c : tensor<16xf32>) outs(%e : tensor<4x16xf32>) dimensions = [0]
  %m1 = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x16xf32>) outs(%b2 : tensor<4x16xf32>) -> tensor<4x16xf32>
  %m2 = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x16xf32>) outs(%b2 : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %mm, %m1, %m2 : tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>
}

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

// A static slice read only as a linalg input is cloned into its consumer's region (IREE's
// isClonableIntoDispatchOp): the region captures the whole source and no copy dispatch of
// the slice is formed. A slice that is returned keeps a region of its own.
// CHECK-LABEL: func.func @slice_cloned_into_consumer
// CHECK-NOT:     tensor.extract_slice
// CHECK:         %[[R:[0-9]+]] = {{"?}}flow.dispatch.region
// CHECK-NEXT:      tensor.extract_slice %arg0[0, 64] [4, 64] [1, 1]
// CHECK:           math.exp
// CHECK:           flow.return
// CHECK:         %[[S:[0-9]+]] = {{"?}}flow.dispatch.region
// CHECK-NEXT:      tensor.extract_slice %arg0[0, 1] [4, 64] [1, 2]
// CHECK-NEXT:      flow.return
// CHECK-NOT:     tensor.extract_slice
// CHECK:         return %[[R]], %[[S]]
func.func @slice_cloned_into_consumer(%x: tensor<4x192xf32>) -> (tensor<4x64xf32>, tensor<4x64xf32>) {
  %s = tensor.extract_slice %x[0, 64] [4, 64] [1, 1] : tensor<4x192xf32> to tensor<4x64xf32>
  %e = tensor.empty() : tensor<4x64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%s : tensor<4x64xf32>) outs(%e : tensor<4x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = math.exp %a : f32
    linalg.yield %m : f32
  } -> tensor<4x64xf32>
  %t = tensor.extract_slice %x[0, 1] [4, 64] [1, 2] : tensor<4x192xf32> to tensor<4x64xf32>
  return %r, %t : tensor<4x64xf32>, tensor<4x64xf32>
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

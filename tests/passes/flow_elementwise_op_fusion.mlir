// RUN: ireec opt %s --pass-pipeline=iree-dispatch-creation-elementwise-op-fusion | filecheck %s

// An elementwise producer with one use is fused into its consumer: one linalg.generic
// computes add then exp.
// CHECK-LABEL: func.func @producer_into_consumer
// CHECK:       linalg.generic
// CHECK-SAME:    ins(%arg0, %arg1 : tensor<4x16xf32>, tensor<4x16xf32>)
// CHECK:         arith.addf
// CHECK-NEXT:    math.exp
// CHECK-NEXT:    linalg.yield
// CHECK-NOT:   linalg.generic
// CHECK:       return
func.func @producer_into_consumer(%a: tensor<4x16xf32>, %b: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %e0 = tensor.empty() : tensor<4x16xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a, %b : tensor<4x16xf32>, tensor<4x16xf32>) outs(%e0 : tensor<4x16xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<4x16xf32>
  %e1 = tensor.empty() : tensor<4x16xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%0 : tensor<4x16xf32>) outs(%e1 : tensor<4x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = math.exp %x : f32
    linalg.yield %s : f32
  } -> tensor<4x16xf32>
  return %1 : tensor<4x16xf32>
}

// A splat constant operand becomes a scalar constant inside the body.
// CHECK-LABEL: func.func @splat_becomes_scalar
// CHECK:       linalg.generic
// CHECK-SAME:    ins(%arg0 : tensor<8xf32>)
// CHECK:         arith.constant 2.0{{.*}} : f32
// CHECK:         arith.mulf
// CHECK:       return
func.func @splat_becomes_scalar(%a: tensor<8xf32>) -> tensor<8xf32> {
  %c = arith.constant dense<2.0> : tensor<8xf32>
  %e = tensor.empty() : tensor<8xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a, %c : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.mulf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// A producer read through a unit-dim collapse_shape: the consumer reads the producer
// directly (the reshape folded), the producer is fused into it, and both the reshape and
// the producer go (left alone the producer would become a dispatch that stores nothing).
// CHECK-LABEL: func.func @producer_through_unit_reshape
// CHECK-NOT:   tensor.collapse_shape
// CHECK:       linalg.generic
// CHECK:         arith.mulf
// CHECK-NEXT:    arith.addf
// CHECK-NEXT:    linalg.yield
// CHECK-NOT:   linalg.generic
// CHECK:       return
func.func @producer_through_unit_reshape(%a: tensor<1x16x1x1xf32>, %b: tensor<1x16xf32>) -> tensor<1x16xf32> {
  %c = arith.constant 3.906250e-03 : f32
  %e0 = tensor.empty() : tensor<1x16x1x1xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a : tensor<1x16x1x1xf32>) outs(%e0 : tensor<1x16x1x1xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.mulf %x, %c : f32
    linalg.yield %s : f32
  } -> tensor<1x16x1x1xf32>
  %1 = tensor.collapse_shape %0 [[0], [1, 2, 3]] : tensor<1x16x1x1xf32> into tensor<1x16xf32>
  %e1 = tensor.empty() : tensor<1x16xf32>
  %2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%1, %b : tensor<1x16xf32>, tensor<1x16xf32>) outs(%e1 : tensor<1x16xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<1x16xf32>
  return %2 : tensor<1x16xf32>
}

// A producer read twice by its consumer (TOSA's quantize reads x * scale in four places):
// after fusion the consumer reads the producer's input once, and the repeated payload ops
// (the product, its floor) are computed once.
// CHECK-LABEL: func.func @producer_read_twice
// CHECK:       linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%arg0 : tensor<8xf32>)
// CHECK:         %[[M:.+]] = arith.mulf %{{.+}}, %{{.+}} : f32
// CHECK-NEXT:    %[[F:.+]] = math.floor %[[M]] : f32
// CHECK-NEXT:    %[[D:.+]] = arith.subf %[[M]], %[[F]] : f32
// CHECK-NEXT:    linalg.yield %[[D]] : f32
func.func @producer_read_twice(%x: tensor<8xf32>) -> tensor<8xf32> {
  %c = arith.constant 3.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.mulf %in, %c : f32
    linalg.yield %0 : f32
  } -> tensor<8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%p, %p : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %0 = math.floor %a : f32
    %1 = math.floor %b : f32
    %2 = arith.subf %b, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}

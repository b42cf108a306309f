// RUN: ireec opt %s --pass-pipeline=iree-global-opt-erase-unused-linalg-operands | filecheck %s

// torch's max.dim: the max and its index (argmax) in one generic; only the max is used. The
// index result goes with its init (and the fill feeding it), its yield operand and the
// linalg.index / index_cast / cmpf / select that only it needs.
// CHECK-LABEL: func.func @argmax_index_unused
// CHECK-NOT:   i64
// CHECK:       %[[R:.+]] = linalg.generic
// CHECK-SAME:    ins(%arg0 : tensor<4x16xf32>) outs(%{{.+}} : tensor<4xf32>)
// CHECK-NEXT:  ^bb0(%[[IN:.+]]: f32, %[[OUT:.+]]: f32):
// CHECK-NEXT:    %[[M:.+]] = arith.maximumf %[[IN]], %[[OUT]] : f32
// CHECK-NEXT:    linalg.yield %[[M]] : f32
// CHECK-NEXT:  } -> tensor<4xf32>
// CHECK-NEXT:  return %[[R]] : tensor<4xf32>
func.func @argmax_index_unused(%x: tensor<4x16xf32>) -> tensor<4xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %c0 = arith.constant 0 : i64
  %e0 = tensor.empty() : tensor<4xf32>
  %m0 = linalg.fill ins(%ninf : f32) outs(%e0 : tensor<4xf32>) -> tensor<4xf32>
  %e1 = tensor.empty() : tensor<4xi64>
  %i0 = linalg.fill ins(%c0 : i64) outs(%e1 : tensor<4xi64>) -> tensor<4xi64>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x16xf32>) outs(%m0, %i0 : tensor<4xf32>, tensor<4xi64>) {
  ^bb0(%in: f32, %out: f32, %idx: i64):
    %k = linalg.index 1 : index
    %ki = arith.index_cast %k : index to i64
    %nm = arith.maximumf %in, %out : f32
    %gt = arith.cmpf ogt, %in, %out : f32
    %ni = arith.select %gt, %ki, %idx : i64
    linalg.yield %nm, %ni : f32, i64
  } -> (tensor<4xf32>, tensor<4xi64>)
  return %r#0 : tensor<4xf32>
}

// Only the index is used: the max stays, because the index's select reads the running max
// (the max's init block argument is in the slice of the kept yield).
// CHECK-LABEL: func.func @argmax_max_needed
// CHECK:       %[[R:.+]]:2 = linalg.generic
// CHECK-SAME:    outs(%{{.+}}, %{{.+}} : tensor<4xf32>, tensor<4xi64>)
// CHECK:         arith.maximumf
// CHECK:         arith.select
// CHECK:         linalg.yield %{{.+}}, %{{.+}} : f32, i64
// CHECK:       return %[[R]]#1 : tensor<4xi64>
func.func @argmax_max_needed(%x: tensor<4x16xf32>, %m0: tensor<4xf32>, %i0: tensor<4xi64>) -> tensor<4xi64> {
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x16xf32>) outs(%m0, %i0 : tensor<4xf32>, tensor<4xi64>) {
  ^bb0(%in: f32, %out: f32, %idx: i64):
    %k = linalg.index 1 : index
    %ki = arith.index_cast %k : index to i64
    %nm = arith.maximumf %in, %out : f32
    %gt = arith.cmpf ogt, %in, %out : f32
    %ni = arith.select %gt, %ki, %idx : i64
    linalg.yield %nm, %ni : f32, i64
  } -> (tensor<4xf32>, tensor<4xi64>)
  return %r#1 : tensor<4xi64>
}

// An input the payload never reads is dropped with its map; the loop sizes still come from
// the other operands.
// CHECK-LABEL: func.func @unused_input
// CHECK:       linalg.generic
// CHECK-SAME:    indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>]
// CHECK-SAME:    ins(%arg0 : tensor<8xf32>) outs(%arg2 : tensor<8xf32>)
// CHECK-NEXT:  ^bb0(%{{.+}}: f32, %{{.+}}: f32):
// CHECK-NEXT:    math.exp
func.func @unused_input(%a: tensor<8xf32>, %b: tensor<8xf32>, %o: tensor<8xf32>) -> tensor<8xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a, %b : tensor<8xf32>, tensor<8xf32>) outs(%o : tensor<8xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %e = math.exp %x : f32
    linalg.yield %e : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// An unread input that alone sizes a loop stays (the loop bound would be lost).
// CHECK-LABEL: func.func @unread_input_sizes_a_loop
// CHECK:       linalg.generic
// CHECK-SAME:    ins(%arg0 : tensor<4x16xf32>) outs(%arg1 : tensor<4xf32>)
func.func @unread_input_sizes_a_loop(%x: tensor<4x16xf32>, %o: tensor<4xf32>) -> tensor<4xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x16xf32>) outs(%o : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 1.0 : f32
    %s = arith.addf %out, %c : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

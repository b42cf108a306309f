// RUN: ireec opt %s --pass-pipeline=iree-consteval-jit-globals | filecheck %s

#id2 = affine_map<(d0, d1) -> (d0, d1)>

// A weight transpose becomes the transposed constant; the add keeps its argument.
// CHECK-LABEL: func.func @transpose
// CHECK-NOT:   linalg.transpose
// CHECK:       %[[W:.*]] = arith.constant dense<{{\[}}[1.0e+00, 4.0e+00], [2.0e+00, 5.0e+00], [3.0e+00, 6.0e+00]]> : tensor<3x2xf32>
// CHECK:       linalg.add ins(%arg0, %[[W]] :
func.func @transpose(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %w = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %e = tensor.empty() : tensor<3x2xf32>
  %t = linalg.transpose ins(%w : tensor<2x3xf32>) outs(%e : tensor<3x2xf32>) permutation = [1, 0]
  %r = linalg.add ins(%x, %t : tensor<3x2xf32>, tensor<3x2xf32>) outs(%e : tensor<3x2xf32>) -> tensor<3x2xf32>
  return %r : tensor<3x2xf32>
}

// i8 weights dequantised (extsi, sitofp, mulf by a captured scale) at compile time.
// CHECK-LABEL: func.func @dequant
// CHECK-NOT:   linalg.generic
// CHECK:       arith.constant dense<[-6.4e+01, -5.0e-01, 0.0e+00, 6.35e+01]> : tensor<4xf32>
// CHECK:       linalg.mul
func.func @dequant(%x: tensor<4xf32>) -> tensor<4xf32> {
  %q = arith.constant dense<[-128, -1, 0, 127]> : tensor<4xi8>
  %s = arith.constant 5.000000e-01 : f32
  %e = tensor.empty() : tensor<4xf32>
  %d = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%q : tensor<4xi8>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: i8, %o: f32):
    %w = arith.extsi %in : i8 to i32
    %f = arith.sitofp %w : i32 to f32
    %m = arith.mulf %f, %s : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  %r = linalg.mul ins(%x, %d : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// A splat in gives a splat out. A pure broadcast read by an elementwise op stays (fusion
// folds it, IREE's leaf policy); returned, it is materialized: a large splat as a fill.
// CHECK-LABEL: func.func @splats
// CHECK:       %[[B:.*]] = linalg.broadcast
// CHECK:       linalg.add ins(%arg0, %[[B]] :
// CHECK-NOT:   linalg.broadcast
// CHECK:       %[[S:.*]] = arith.constant 2.0e+00 : f32
// CHECK:       %[[F:.*]] = linalg.fill ins(%[[S]] : f32) outs({{.*}} : tensor<32x16xf32>)
// CHECK:       linalg.add ins(%arg1, %[[F]] :
// CHECK:       return {{.*}}, %[[F]]
func.func @splats(%x: tensor<4x8xf32>, %y: tensor<32x16xf32>) -> (tensor<4x8xf32>, tensor<32x16xf32>) {
  %c = arith.constant dense<1.5> : tensor<4xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  %b = linalg.broadcast ins(%c : tensor<4xf32>) outs(%e : tensor<4x8xf32>) dimensions = [1]
  %r = linalg.add ins(%x, %b : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %c2 = arith.constant dense<2.0> : tensor<32xf32>
  %e2 = tensor.empty() : tensor<32x16xf32>
  %b2 = linalg.broadcast ins(%c2 : tensor<32xf32>) outs(%e2 : tensor<32x16xf32>) dimensions = [1]
  %r2 = linalg.add ins(%y, %b2 : tensor<32x16xf32>, tensor<32x16xf32>) outs(%e2 : tensor<32x16xf32>) -> tensor<32x16xf32>
  return %r, %b2 : tensor<4x8xf32>, tensor<32x16xf32>
}

// A reduction with a fill init, summed in the loop order of the generated C.
// CHECK-LABEL: func.func @row_sum
// CHECK-NEXT:  arith.constant dense<[6.0e+00, 1.5e+01]> : tensor<2xf32>
// CHECK-NEXT:  return
func.func @row_sum() -> tensor<2xf32> {
  %w = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2xf32>) -> tensor<2xf32>
  %s = linalg.generic {indexing_maps = [#id2, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%w : tensor<2x3xf32>) outs(%f : tensor<2xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<2xf32>
  return %s : tensor<2xf32>
}

// A mask built from linalg.index alone (no inputs, an unread tensor.empty init).
// CHECK-LABEL: func.func @iota_mask
// CHECK-NEXT:  arith.constant dense<{{\[}}[true, false, false], [true, true, false], [true, true, true]]> : tensor<3x3xi1>
// CHECK-NEXT:  return
func.func @iota_mask() -> tensor<3x3xi1> {
  %e = tensor.empty() : tensor<3x3xi1>
  %m = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<3x3xi1>) {
  ^bb0(%o: i1):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c = arith.cmpi sge, %i, %j : index
    linalg.yield %c : i1
  } -> tensor<3x3xi1>
  return %m : tensor<3x3xi1>
}

// A reshape inside a constant tree folds with it; the tree's leaf (the add) is stored.
// CHECK-LABEL: func.func @reshape
// CHECK-NOT:   tensor.collapse_shape
// CHECK-NOT:   linalg.add
// CHECK:       %[[C:.*]] = arith.constant dense<[2.0e+00, 4.0e+00, 6.0e+00, 8.0e+00, 1.0e+01, 1.2e+01]> : tensor<6xf32>
// CHECK:       linalg.sub ins(%arg0, %[[C]] :
func.func @reshape(%x: tensor<6xf32>) -> tensor<6xf32> {
  %w = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %c = tensor.collapse_shape %w [[0, 1]] : tensor<2x3xf32> into tensor<6xf32>
  %e = tensor.empty() : tensor<6xf32>
  %d = linalg.add ins(%c, %c : tensor<6xf32>, tensor<6xf32>) outs(%e : tensor<6xf32>) -> tensor<6xf32>
  %r = linalg.sub ins(%x, %d : tensor<6xf32>, tensor<6xf32>) outs(%e : tensor<6xf32>) -> tensor<6xf32>
  return %r : tensor<6xf32>
}

// An op reading a function argument stays.
// CHECK-LABEL: func.func @not_constant
// CHECK:       linalg.transpose
func.func @not_constant(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %e = tensor.empty() : tensor<3x2xf32>
  %t = linalg.transpose ins(%x : tensor<2x3xf32>) outs(%e : tensor<3x2xf32>) permutation = [1, 0]
  return %t : tensor<3x2xf32>
}

// A dense_resource weight (torch-mlir's form) is read from the resource blob; the unused
// blob is dropped from the module.
// CHECK-LABEL: func.func @resource
// CHECK:       arith.constant dense<{{\[}}[1.0e+00, 3.0e+00], [2.0e+00, 4.0e+00]]> : tensor<2x2xf32>
// CHECK-NOT:   dialect_resources
func.func @resource(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %w = arith.constant dense_resource<w> : tensor<2x2xf32>
  %e = tensor.empty() : tensor<2x2xf32>
  %t = linalg.transpose ins(%w : tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) permutation = [1, 0]
  %r = linalg.add ins(%x, %t : tensor<2x2xf32>, tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}

{-#
  dialect_resources: {
    builtin: {
      w: "0x040000000000803F000000400000404000008040"
    }
  }
#-}

// A bias broadcast into a convolution's (or matmul's) accumulator stays a broadcast of the
// small constant: dispatch formation writes it into the root's destination tile. Read as
// the init of an elementwise op or by two ops, it is materialized.
// CHECK-LABEL: func.func @bias_init
// CHECK:       %[[C:.*]] = arith.constant dense<[1.0e+00, 2.0e+00]> : tensor<2xf32>
// CHECK:       %[[B:.*]] = linalg.broadcast ins(%[[C]] : tensor<2xf32>)
// CHECK:       linalg.matmul ins(%arg0, {{.*}}) outs(%[[B]] :
// CHECK:       %[[M:.*]] = arith.constant dense<{{\[}}[1.0e+00, 1.0e+00], [2.0e+00, 2.0e+00]{{.*}}> : tensor<4x2xf32>
// CHECK:       linalg.matmul ins(%arg0, {{.*}}) outs(%[[M]] :
// CHECK:       linalg.matmul ins(%arg1, {{.*}}) outs(%[[M]] :
func.func @bias_init(%x: tensor<4x3xf32>, %y: tensor<4x3xf32>) -> (tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>) {
  %w = arith.constant dense<0.5> : tensor<3x2xf32>
  %c = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %e = tensor.empty() : tensor<4x2xf32>
  %b = linalg.broadcast ins(%c : tensor<2xf32>) outs(%e : tensor<4x2xf32>) dimensions = [0]
  %r = linalg.matmul ins(%x, %w : tensor<4x3xf32>, tensor<3x2xf32>) outs(%b : tensor<4x2xf32>) -> tensor<4x2xf32>
  %c3 = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %b3 = linalg.broadcast ins(%c3 : tensor<4xf32>) outs(%e : tensor<4x2xf32>) dimensions = [1]
  %r1 = linalg.matmul ins(%x, %w : tensor<4x3xf32>, tensor<3x2xf32>) outs(%b3 : tensor<4x2xf32>) -> tensor<4x2xf32>
  %r2 = linalg.matmul ins(%y, %w : tensor<4x3xf32>, tensor<3x2xf32>) outs(%b3 : tensor<4x2xf32>) -> tensor<4x2xf32>
  return %r, %r1, %r2 : tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>
}

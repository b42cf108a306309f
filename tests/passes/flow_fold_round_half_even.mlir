// RUN: ireec opt %s --pass-pipeline=fold-round-half-even | filecheck %s

#id = affine_map<(d0) -> (d0)>

// TOSA's quantize of an ONNX export after elementwise fusion: x * (1 / scale) rounded half to
// even out of floor, ceil, compares and a select, plus the zero point, clamped, cast with
// saturation checks. The rounding becomes math.roundeven; the roundeven the cast adds to
// the already integral clamp goes, and so do the saturation checks the clamp makes false
// (the NaN check stays).
// CHECK-LABEL: func.func @tosa_quantize
// CHECK:         %[[X:.+]] = arith.mulf %{{.+}}, %{{.+}} : f32
// CHECK-NEXT:    %[[R:.+]] = math.roundeven %[[X]] : f32
// CHECK-NOT:     math.floor
// CHECK-NOT:     math.ceil
// CHECK:         %[[A:.+]] = arith.addf %[[R]], %{{.+}} : f32
// CHECK:         %[[LO:.+]] = arith.maximumf %[[A]], %{{.+}} : f32
// CHECK:         %[[HI:.+]] = arith.minimumf %[[LO]], %{{.+}} : f32
// CHECK-NEXT:    %[[I:.+]] = arith.fptosi %[[HI]] : f32 to i8
// CHECK-NEXT:    %[[NAN:.+]] = arith.cmpf uno, %[[HI]], %[[HI]] : f32
// CHECK-NEXT:    %[[Z:.+]] = arith.constant 0 : i8
// CHECK-NEXT:    %[[Q:.+]] = arith.select %[[NAN]], %[[Z]], %[[I]] : i8
// CHECK-NEXT:    linalg.yield %[[Q]] : i8
func.func @tosa_quantize(%x: tensor<16xf32>) -> tensor<16xi8> {
  %e = tensor.empty() : tensor<16xi8>
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : tensor<16xf32>) outs(%e : tensor<16xi8>) {
  ^bb0(%in: f32, %out: i8):
    %c100 = arith.constant 99.96864 : f32
    %1 = arith.mulf %in, %c100 : f32
    %2 = math.ceil %1 : f32
    %3 = math.floor %1 : f32
    %half = arith.constant 0.5 : f32
    %4 = arith.mulf %3, %half : f32
    %5 = math.floor %4 : f32
    %two = arith.constant 2.0 : f32
    %6 = arith.mulf %5, %two : f32
    %7 = arith.cmpf oeq, %3, %6 : f32
    %8 = arith.subf %1, %3 : f32
    %9 = arith.cmpf oeq, %8, %half : f32
    %10 = arith.andi %9, %7 : i1
    %11 = arith.cmpf ogt, %half, %8 : f32
    %12 = arith.ori %11, %10 : i1
    %13 = arith.select %12, %3, %2 : f32
    %zp = arith.constant -128.0 : f32
    %14 = arith.addf %13, %zp : f32
    %hi = arith.constant 127.0 : f32
    %15 = arith.maximumf %14, %zp : f32
    %16 = arith.minimumf %15, %hi : f32
    %17 = math.roundeven %16 : f32
    %18 = arith.fptosi %17 : f32 to i8
    %c128 = arith.constant 128.0 : f32
    %19 = arith.cmpf oge, %17, %c128 : f32
    %20 = arith.cmpf olt, %17, %zp : f32
    %21 = arith.cmpf uno, %16, %16 : f32
    %i127 = arith.constant 127 : i8
    %22 = arith.select %19, %i127, %18 : i8
    %i128 = arith.constant -128 : i8
    %23 = arith.select %20, %i128, %22 : i8
    %i0 = arith.constant 0 : i8
    %24 = arith.select %21, %i0, %23 : i8
    linalg.yield %24 : i8
  } -> tensor<16xi8>
  return %0 : tensor<16xi8>
}

// Rounding half up (the tie goes to ceil when d == 0.5 whatever the parity) is not
// round-half-to-even: left alone; a roundeven of an unclamped, unrounded value stays.
// CHECK-LABEL: func.func @half_up
// CHECK:         math.floor
// CHECK:         math.ceil
// CHECK:         arith.select
// CHECK:         math.roundeven %arg1
func.func @half_up(%x: tensor<16xf32>) -> tensor<16xf32> {
  %e = tensor.empty() : tensor<16xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %1 = math.floor %in : f32
    %2 = math.ceil %in : f32
    %half = arith.constant 0.5 : f32
    %3 = arith.subf %in, %1 : f32
    %4 = arith.cmpf ogt, %half, %3 : f32
    %5 = arith.select %4, %1, %2 : f32
    %6 = math.roundeven %in : f32
    %7 = arith.addf %5, %6 : f32
    linalg.yield %7 : f32
  } -> tensor<16xf32>
  return %0 : tensor<16xf32>
}

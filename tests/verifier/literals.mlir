// Literals read against a type that cannot hold them: dense elements, dense_resource blobs,
// array<> values, scalar attributes and switch cases whose element type is complex, a tuple,
// none, an opaque or quantized dialect type or a shaped type: a located error naming the type.

func.func @dense_tuple() -> tensor<2xtuple<i32>> {
  // expected-error @+1 {{dense elements of type tuple<i32> are not supported}}
  %0 = arith.constant dense<[1, 2]> : tensor<2xtuple<i32>>
  return %0 : tensor<2xtuple<i32>>
}

// -----

func.func @dense_complex_int() -> tensor<2xcomplex<f32>> {
  // expected-error @+1 {{expected a complex element (re, im) for type complex<f32>}}
  %0 = arith.constant dense<1> : tensor<2xcomplex<f32>>
  return %0 : tensor<2xcomplex<f32>>
}

// -----

func.func @dense_complex_of_int() -> tensor<2xcomplex<i32>> {
  // expected-error @+1 {{dense elements of type complex<i32> are not supported}}
  %0 = arith.constant dense<(1, 2)> : tensor<2xcomplex<i32>>
  return %0 : tensor<2xcomplex<i32>>
}

// -----

func.func @stablehlo_quant() -> tensor<2x!quant.uniform<i8:f32, 1.0>> {
  // expected-error @+1 {{dense elements of type !quant.uniform<i8:f32, 1.0> are not supported}}
  %0 = stablehlo.constant dense<5> : tensor<2x!quant.uniform<i8:f32, 1.0>>
  return %0 : tensor<2x!quant.uniform<i8:f32, 1.0>>
}

// -----

func.func @tosa_opaque() -> tensor<2x!foo.bar> {
  // expected-error @+1 {{dense elements of type !foo.bar are not supported}}
  %0 = "tosa.const"() {values = dense<[1, 2]> : tensor<2x!foo.bar>} : () -> tensor<2x!foo.bar>
  return %0 : tensor<2x!foo.bar>
}

// -----

func.func @dense_hex_complex_int() -> tensor<2xcomplex<i32>> {
  // expected-error @+1 {{dense elements of type complex<i32> are not supported}}
  %0 = arith.constant dense<"0x0102030405060708"> : tensor<2xcomplex<i32>>
  return %0 : tensor<2xcomplex<i32>>
}

// -----

func.func @dense_unshaped() {
  // expected-error @+1 {{dense elements need a static shaped type, got 'tuple<i32>'}}
  %0 = arith.constant dense<1> : tuple<i32>
  return
}

// -----

func.func @dense_of_tensors() {
  // expected-error @+1 {{dense elements of type tensor<2xi32> are not supported}}
  %0 = arith.constant dense<1> : tensor<2xtensor<2xi32>>
  return
}

// -----

// expected-error @+1 {{dense elements of type none are not supported}}
#a = dense<1> : tensor<2xnone>
func.func @attr_alias() -> tensor<2xnone> {
  %0 = arith.constant #a : tensor<2xnone>
  return %0 : tensor<2xnone>
}

// -----

func.func @dense_resource_tuple() -> tensor<2xtuple<i32>> {
  // expected-error @+1 {{dense elements of type tuple<i32> are not supported}}
  %0 = arith.constant dense_resource<r> : tensor<2xtuple<i32>>
  return %0 : tensor<2xtuple<i32>>
}

{-#
  dialect_resources: {
    builtin: {
      r: "0x040000000100000002000000"
    }
  }
#-}

// -----

func.func @array_complex() {
  // expected-error @+1 {{array<> elements must be integers or floats, not complex<f32>}}
  %0 = "test.op"() {v = array<complex<f32>: 1, 2>} : () -> ()
  return
}

// -----

func.func @array_none() {
  // expected-error @+1 {{array<> elements must be integers or floats, not none}}
  %0 = "test.op"() {v = array<none: 1>} : () -> ()
  return
}

// -----

func.func @scalar_complex() {
  // expected-error @+1 {{integer literal for non-integer type complex<f32>}}
  %0 = arith.constant 1 : complex<f32>
  return
}

// -----

func.func @switch_complex(%a: complex<f32>) {
  cf.switch %a : complex<f32>, [
    default: ^bb1,
    // expected-error @+1 {{integer literal in switch case of type complex<f32>}}
    1: ^bb1
  ]
^bb1:
  return
}

// -----

func.func @switch_i3(%a: i3) {
  cf.switch %a : i3, [
    default: ^bb1,
    // expected-error @+1 {{switch case values of type i3 are not supported}}
    1: ^bb1
  ]
^bb1:
  return
}

// -----

// expected-error @+1 {{the initial value of a memref.global needs a memref type, got 'tuple<i32>'}}
memref.global "private" constant @g : tuple<i32> = dense<1>

// -----

// expected-error @+1 {{dense elements of type complex<i32> are not supported}}
memref.global "private" constant @g : memref<2xcomplex<i32>> = dense_resource<r>

{-#
  dialect_resources: {
    builtin: {
      r: "0x040000000100000002000000"
    }
  }
#-}

// -----

// expected-error @+1 {{dense elements of type tuple<> are not supported}}
util.global private @g = dense<1> : tensor<2xtuple<>>

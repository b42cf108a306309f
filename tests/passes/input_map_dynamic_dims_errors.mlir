// RUN: ireec opt %s --split-input-file --verify-diagnostics --pass-pipeline=ireec-map-dynamic-dims | filecheck %s

// Inputs ireec-map-dynamic-dims refuses: ireec compiles one static slice of a program over its
// leading dynamic dimensions, so a dynamic dimension after a static one, one a reshape merges
// with another and one a concatenation runs along are located errors. Each case is one chunk;
// its error is expected on the line the annotation names (@+1: the next line, @-1: the
// previous, none: its own). The chunk that maps prints its IR.

// CHECK-LABEL: func.func @leading
// CHECK-SAME:    (%arg0: tensor<1x4xf32>) -> tensor<1x4xf32>
// CHECK-NOT:   func.func @trailing
// CHECK-NOT:   func.func @merged
// CHECK-NOT:   func.func @concat
// CHECK-NOT:   func.func @gram
func.func @leading(%a: tensor<?x4xf32>) -> tensor<?x4xf32> {
  return %a : tensor<?x4xf32>
}

// -----

// expected-error @+1 {{public function argument #0 (tensor<4x?xf32>): dynamic dimension 1 follows a static one}}
func.func @trailing(%a: tensor<4x?xf32>) -> tensor<4x?xf32> {
  return %a : tensor<4x?xf32>
}

// -----

func.func @merged(%a: tensor<?x4xf32>) -> tensor<?xf32> {
  %0 = stablehlo.reshape %a : (tensor<?x4xf32>) -> tensor<?xf32>
  // expected-error @-1 {{the reshape moves, merges or splits a dynamic dimension}}
  return %0 : tensor<?xf32>
}

// -----

func.func @concat(%a: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = stablehlo.concatenate %a, %a, dim = 0 : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32> // expected-error {{concatenation along dynamic dimension 0}}
  return %0 : tensor<?x4xf32>
}

// -----

// One dynamic row count in both dimensions of a Gram matrix: a slice is one position of
// it, so its slices would be the diagonal only.
func.func @gram(%x: tensor<?x4xf32>) -> tensor<?x?xf32> {
  // expected-error @+1 {{'stablehlo.dot_general': dimensions 0 and 1 of this result (tensor<?x?xf32>) follow the same dynamic dimension}}
  %s = stablehlo.dot_general %x, %x, contracting_dims = [1] x [1] : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x?xf32>
  return %s : tensor<?x?xf32>
}

// --verify-diagnostics: errors that no annotation expects, and annotations no error meets,
// are reported where they are: the unexpected error of the second chunk on line 23 (its
// annotation, line 22, expects another text), the annotation of the third chunk (line 29)
// expects an error on line 30 that canonicalize does not raise. The first chunk's error is
// expected and raised: not reported. Every chunk's problems are reported; nothing is printed.
// RUN: not ireec opt %s --split-input-file --verify-diagnostics --pass-pipeline=canonicalize 2>&1 | filecheck %s
// CHECK-NOT:   func.func
// CHECK:       opt_verify_diagnostics.mlir:23:{{[0-9]+}}: error: unexpected error: use of undeclared SSA value name '%y'
// CHECK:       opt_verify_diagnostics.mlir:22:{{[0-9]+}}: error: expected error "another text" was not produced
// CHECK:       opt_verify_diagnostics.mlir:29:{{[0-9]+}}: error: expected error "never raised" was not produced
// CHECK-NOT:   error:

func.func @fine() -> index {
  // expected-error @below {{undeclared SSA value name '%z'}}
  %0 = arith.addi %z, %z : index
  return %0 : index
}

// -----

func.func @unexpected(%x: index) -> index {
  // expected-error @+1 {{another text}}
  %0 = arith.addi %x, %y : index
  return %0 : index
}

// -----

// expected-error @+1 {{never raised}}
func.func @missing() -> index {
  %c1 = arith.constant 1 : index
  return %c1 : index
}

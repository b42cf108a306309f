// --split-input-file: each chunk between '// -----' lines is parsed and run separately, and
// the printed chunks are joined by '// -----' lines, as in mlir-opt.
// RUN: ireec opt %s --split-input-file --pass-pipeline=canonicalize | filecheck %s
// CHECK-LABEL: func.func @first
// CHECK-NEXT:    arith.constant 3 : index
// CHECK:       // -----
// CHECK-LABEL: func.func @second
// CHECK-NEXT:    arith.constant 7 : index
// CHECK-NOT:   // -----

// Without it the file is one module, and its '// -----' lines are comments.
// RUN: ireec opt %s --pass-pipeline=canonicalize | filecheck %s --check-prefix=WHOLE
// WHOLE:       func.func @first
// WHOLE-NOT:   // -----
// WHOLE:       func.func @second

func.func @first() -> index {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %0 = arith.addi %c1, %c2 : index
  return %0 : index
}

// -----

func.func @second(%x: index) -> index {
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %0 = arith.addi %c3, %c4 : index
  return %0 : index
}

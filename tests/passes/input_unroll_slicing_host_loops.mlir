// RUN: ireec opt %s --split-input-file --pass-pipeline=ireec-unroll-slicing-host-loops | filecheck %s

// A recurrence over the 3 rows of %x: each iteration slices row %i and writes it into the
// carried result: unrolled, the induction variable becomes the constants 0, 1, 2.
// CHECK-LABEL: func.func @rows
// CHECK-NOT:     scf.for
// CHECK:         tensor.empty
// CHECK-NEXT:    %[[I0:.+]] = arith.constant 0 : index
// CHECK:         tensor.extract_slice %{{.*}}[%[[I0]], 0] [1, 4] [1, 1]
// CHECK:         tensor.insert_slice %{{.*}}[%[[I0]], 0] [1, 4] [1, 1]
// CHECK:         %[[I1:.+]] = arith.constant 1 : index
// CHECK:         tensor.extract_slice %{{.*}}[%[[I1]], 0] [1, 4] [1, 1]
// CHECK:         %[[I2:.+]] = arith.constant 2 : index
// CHECK:         %[[LAST:.+]] = tensor.insert_slice %{{.*}}[%[[I2]], 0] [1, 4] [1, 1]
// CHECK-NOT:     scf.for
// CHECK:         return %[[LAST]]
func.func @rows(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %init = tensor.empty() : tensor<3x4xf32>
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %init) -> (tensor<3x4xf32>) {
    %row = tensor.extract_slice %x[%i, 0] [1, 4] [1, 1] : tensor<3x4xf32> to tensor<1x4xf32>
    %next = tensor.insert_slice %row into %acc[%i, 0] [1, 4] [1, 1] : tensor<1x4xf32> into tensor<3x4xf32>
    scf.yield %next : tensor<3x4xf32>
  }
  return %r : tensor<3x4xf32>
}

// -----

// No slice at a computed offset: the loop stays (convert-scf-to-cf makes it host branches).
// CHECK-LABEL: func.func @no_slicing
// CHECK:         scf.for
func.func @no_slicing(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %x) -> (tensor<4xf32>) {
    %e = tensor.empty() : tensor<4xf32>
    %s = linalg.add ins(%acc, %acc : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    scf.yield %s : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

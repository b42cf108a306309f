// RUN: ireec opt %s --pass-pipeline=iree-dispatch-creation-bubble-up-expand-shapes | filecheck %s

// The q/k/v split of an attention block: a slice of whole rows of 16 along the last dim,
// then split into 4 heads of 16. The whole source is expanded, then sliced.
// CHECK-LABEL: func.func @expand_of_slice
// CHECK:         %[[E:.+]] = tensor.expand_shape %arg0 {{\[\[}}0], [1], [2, 3]] output_shape [2, 16, 12, 16] : tensor<2x16x192xf32> into tensor<2x16x12x16xf32>
// CHECK-NEXT:    %[[S:.+]] = tensor.extract_slice %[[E]][0, 0, 4, 0] [2, 16, 4, 16] [1, 1, 1, 1] : tensor<2x16x12x16xf32> to tensor<2x16x4x16xf32>
// CHECK-NEXT:    return %[[S]]
func.func @expand_of_slice(%x: tensor<2x16x192xf32>) -> tensor<2x16x4x16xf32> {
  %s = tensor.extract_slice %x[0, 0, 64] [2, 16, 64] [1, 1, 1] : tensor<2x16x192xf32> to tensor<2x16x64xf32>
  %e = tensor.expand_shape %s [[0], [1], [2, 3]] output_shape [2, 16, 4, 16] : tensor<2x16x64xf32> into tensor<2x16x4x16xf32>
  return %e : tensor<2x16x4x16xf32>
}

// A dim kept whole by the reshape keeps its offset, size and stride.
// CHECK-LABEL: func.func @strided_unexpanded_dim
// CHECK:         %[[E:.+]] = tensor.expand_shape %arg0 {{\[\[}}0], [1, 2]] output_shape [9, 2, 4] : tensor<9x8xf32> into tensor<9x2x4xf32>
// CHECK-NEXT:    tensor.extract_slice %[[E]][1, 0, 0] [4, 2, 4] [2, 1, 1]
func.func @strided_unexpanded_dim(%x: tensor<9x8xf32>) -> tensor<4x2x4xf32> {
  %s = tensor.extract_slice %x[1, 0] [4, 8] [2, 1] : tensor<9x8xf32> to tensor<4x8xf32>
  %e = tensor.expand_shape %s [[0], [1, 2]] output_shape [4, 2, 4] : tensor<4x8xf32> into tensor<4x2x4xf32>
  return %e : tensor<4x2x4xf32>
}

// An offset that is not a whole number of inner rows (64 + 8 is not a multiple of 16): the
// expanded dims of the slice are not a box of the expanded source, nothing moves.
// CHECK-LABEL: func.func @misaligned_offset
// CHECK:         tensor.extract_slice %arg0
// CHECK-NEXT:    tensor.expand_shape
func.func @misaligned_offset(%x: tensor<2x192xf32>) -> tensor<2x4x16xf32> {
  %s = tensor.extract_slice %x[0, 72] [2, 64] [1, 1] : tensor<2x192xf32> to tensor<2x64xf32>
  %e = tensor.expand_shape %s [[0], [1, 2]] output_shape [2, 4, 16] : tensor<2x64xf32> into tensor<2x4x16xf32>
  return %e : tensor<2x4x16xf32>
}

// A strided slice of an expanded dim does not move either.
// CHECK-LABEL: func.func @strided_expanded_dim
// CHECK:         tensor.extract_slice %arg0
// CHECK-NEXT:    tensor.expand_shape
func.func @strided_expanded_dim(%x: tensor<128xf32>) -> tensor<4x16xf32> {
  %s = tensor.extract_slice %x[0] [64] [2] : tensor<128xf32> to tensor<64xf32>
  %e = tensor.expand_shape %s [[0, 1]] output_shape [4, 16] : tensor<64xf32> into tensor<4x16xf32>
  return %e : tensor<4x16xf32>
}

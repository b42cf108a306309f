// RUN: ireec opt %s --split-input-file --pass-pipeline=iree-codegen-decompose-pack-unpack-ops | filecheck %s

// pack 4x6 into 2x3 tiles of 2x2: a copy whose input map reads source (o0 * 2 + i0, o1 * 2 + i1).
// CHECK-LABEL: func.func @main(%arg0: tensor<4x6xf32>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0 * 2 + d2, d1 * 2 + d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>]
// CHECK-SAME:      ins(%arg0 : tensor<4x6xf32>)
// CHECK-NOT:   linalg.pack
module {
  func.func @main(%arg0: tensor<4x6xf32>) -> tensor<2x3x2x2xf32> {
    %0 = tensor.empty() : tensor<2x3x2x2xf32>
    %1 = linalg.pack %arg0 inner_dims_pos = [0, 1] inner_tiles = [2, 2] into %0 : tensor<4x6xf32> -> tensor<2x3x2x2xf32>
    return %1 : tensor<2x3x2x2xf32>
  }
}

// -----

// unpack: the copy reads the packed source at (d0 floordiv 2, d1 floordiv 2, d0 mod 2, d1 mod 2).
// CHECK-LABEL: func.func @main(%arg0: tensor<2x3x2x2xf32>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0 floordiv 2, d1 floordiv 2, d0 mod 2, d1 mod 2)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-NOT:   linalg.unpack
module {
  func.func @main(%arg0: tensor<2x3x2x2xf32>) -> tensor<4x6xf32> {
    %0 = tensor.empty() : tensor<4x6xf32>
    %1 = linalg.unpack %arg0 inner_dims_pos = [0, 1] inner_tiles = [2, 2] into %0 : tensor<2x3x2x2xf32> -> tensor<4x6xf32>
    return %1 : tensor<4x6xf32>
  }
}

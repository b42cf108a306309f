// Row sums of (a + b) for 100000x100 f32 matrices: an elementwise producer feeding a
// reduction over the inner dimension.
// numpy: (a + b).sum(axis=1)
!mat = tensor<100000x100xf32>
!rows = tensor<100000xf32>
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>

func.func @row_sum(%a: !mat, %b: !mat) -> !rows {
  %empty = tensor.empty() : !mat
  %sum = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : !mat, !mat) outs(%empty : !mat) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> !mat
  %zero = arith.constant 0.0 : f32
  %rows_empty = tensor.empty() : !rows
  %init = linalg.fill ins(%zero : f32) outs(%rows_empty : !rows) -> !rows
  %total = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%sum : !mat) outs(%init : !rows) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %acc, %x : f32
    linalg.yield %s : f32
  } -> !rows
  return %total : !rows
}

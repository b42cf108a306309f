// relu(a * b + c) over 1M (2^20) floats, written as three elementwise ops so that
// fusion decides how many passes over memory it takes.
// numpy: np.maximum(a * b + c, 0)
!vec = tensor<1048576xf32>
#id = affine_map<(i) -> (i)>

func.func @mul_add_relu(%a: !vec, %b: !vec, %c: !vec) -> !vec {
  %empty = tensor.empty() : !vec
  %ab = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%a, %b : !vec, !vec) outs(%empty : !vec) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %p = arith.mulf %x, %y : f32
    linalg.yield %p : f32
  } -> !vec
  %abc = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%ab, %c : !vec, !vec) outs(%empty : !vec) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> !vec
  %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%abc : !vec) outs(%empty : !vec) {
  ^bb0(%x: f32, %out: f32):
    %zero = arith.constant 0.0 : f32
    %r = arith.maximumf %x, %zero : f32
    linalg.yield %r : f32
  } -> !vec
  return %relu : !vec
}

// A two-layer perceptron on a batch of 64 images:
//   h = relu(x · w1 + b1)        64x784 · 784x256 -> 64x256
//   y = softmax(h · w2 + b2)     64x256 · 256x10  -> 64x10 (softmax over each row)
// numpy: h = np.maximum(x @ w1 + b1, 0); l = h @ w2 + b2
//        e = np.exp(l - l.max(1, keepdims=True)); y = e / e.sum(1, keepdims=True)
!x = tensor<64x784xf32>
!w1 = tensor<784x256xf32>
!b1 = tensor<256xf32>
!h = tensor<64x256xf32>
!w2 = tensor<256x10xf32>
!b2 = tensor<10xf32>
!y = tensor<64x10xf32>
!rows = tensor<64xf32>
#id = affine_map<(i, j) -> (i, j)>
#col = affine_map<(i, j) -> (j)>
#row = affine_map<(i, j) -> (i)>

func.func @mlp(%x: !x, %w1: !w1, %b1: !b1, %w2: !w2, %b2: !b2) -> !y {
  %zero = arith.constant 0.0 : f32
  %neg_inf = arith.constant 0xFF800000 : f32

  // Layer 1: relu(x · w1 + b1)
  %h_empty = tensor.empty() : !h
  %h_init = linalg.fill ins(%zero : f32) outs(%h_empty : !h) -> !h
  %xw1 = linalg.matmul ins(%x, %w1 : !x, !w1) outs(%h_init : !h) -> !h
  %h = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%xw1, %b1 : !h, !b1) outs(%h_empty : !h) {
  ^bb0(%v: f32, %bias: f32, %out: f32):
    %s = arith.addf %v, %bias : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> !h

  // Layer 2: logits = h · w2 + b2
  %y_empty = tensor.empty() : !y
  %y_init = linalg.fill ins(%zero : f32) outs(%y_empty : !y) -> !y
  %hw2 = linalg.matmul ins(%h, %w2 : !h, !w2) outs(%y_init : !y) -> !y
  %logits = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%hw2, %b2 : !y, !b2) outs(%y_empty : !y) {
  ^bb0(%v: f32, %bias: f32, %out: f32):
    %s = arith.addf %v, %bias : f32
    linalg.yield %s : f32
  } -> !y

  // Softmax over each row: exp(l - max) / sum(exp(l - max))
  %rows_empty = tensor.empty() : !rows
  %max_init = linalg.fill ins(%neg_inf : f32) outs(%rows_empty : !rows) -> !rows
  %max = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%logits : !y) outs(%max_init : !rows) {
  ^bb0(%v: f32, %acc: f32):
    %m = arith.maximumf %acc, %v : f32
    linalg.yield %m : f32
  } -> !rows
  %exp = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%logits, %max : !y, !rows) outs(%y_empty : !y) {
  ^bb0(%v: f32, %m: f32, %out: f32):
    %d = arith.subf %v, %m : f32
    %e = math.exp %d : f32
    linalg.yield %e : f32
  } -> !y
  %sum_init = linalg.fill ins(%zero : f32) outs(%rows_empty : !rows) -> !rows
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%exp : !y) outs(%sum_init : !rows) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %acc, %v : f32
    linalg.yield %s : f32
  } -> !rows
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%exp, %sum : !y, !rows) outs(%y_empty : !y) {
  ^bb0(%e: f32, %s: f32, %out: f32):
    %q = arith.divf %e, %s : f32
    linalg.yield %q : f32
  } -> !y
  return %y : !y
}

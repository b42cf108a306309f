// Kernel shapes of the cuda target's GPU lowering configs, at awkward sizes: matmuls with
// partial 128x128 tiles, unit dims, an accumulated (unfilled) output, transposed operands, a
// batch with a fused bias+relu epilogue; elementwise sizes that are not multiples of the tile;
// a narrow inner dim; a reduction over a unit dim. Run by tests/e2e/test_cuda.py through the
// CPU emulation of CUDA against numpy.
#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#nk = affine_map<(m, n, k) -> (n, k)>
#km = affine_map<(m, n, k) -> (k, m)>
#mn = affine_map<(m, n, k) -> (m, n)>
#id2 = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (j)>

func.func @matmul_partial(%a: tensor<130x257xf32>, %b: tensor<257x3xf32>) -> tensor<130x3xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<130x3xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<130x3xf32>) -> tensor<130x3xf32>
  %r = linalg.matmul ins(%a, %b : tensor<130x257xf32>, tensor<257x3xf32>) outs(%c : tensor<130x3xf32>) -> tensor<130x3xf32>
  return %r : tensor<130x3xf32>
}

func.func @matmul_unit(%a: tensor<1x1xf32>, %b: tensor<1x1xf32>) -> tensor<1x1xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x1xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<1x1xf32>) -> tensor<1x1xf32>
  %r = linalg.matmul ins(%a, %b : tensor<1x1xf32>, tensor<1x1xf32>) outs(%c : tensor<1x1xf32>) -> tensor<1x1xf32>
  return %r : tensor<1x1xf32>
}

func.func @matmul_accumulate(%a: tensor<33x17xf32>, %b: tensor<17x129xf32>, %c: tensor<33x129xf32>) -> tensor<33x129xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<33x17xf32>, tensor<17x129xf32>) outs(%c : tensor<33x129xf32>) -> tensor<33x129xf32>
  return %r : tensor<33x129xf32>
}

func.func @matmul_transposed(%a: tensor<19x140xf32>, %b: tensor<131x19xf32>) -> tensor<140x131xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<140x131xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<140x131xf32>) -> tensor<140x131xf32>
  %r = linalg.generic {indexing_maps = [#km, #nk, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<19x140xf32>, tensor<131x19xf32>) outs(%c : tensor<140x131xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<140x131xf32>
  return %r : tensor<140x131xf32>
}

func.func @batch_matmul_bias_relu(%a: tensor<3x33x40xf32>, %b: tensor<3x40x17xf32>, %bias: tensor<17xf32>) -> tensor<3x33x17xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x33x17xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<3x33x17xf32>) -> tensor<3x33x17xf32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<3x33x40xf32>, tensor<3x40x17xf32>) outs(%c : tensor<3x33x17xf32>) -> tensor<3x33x17xf32>
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (j)>, affine_map<(b, i, j) -> (b, i, j)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%r, %bias : tensor<3x33x17xf32>, tensor<17xf32>) outs(%e : tensor<3x33x17xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.addf %x, %y : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<3x33x17xf32>
  return %o : tensor<3x33x17xf32>
}

func.func @elementwise_odd(%a: tensor<20011xf32>, %b: tensor<20011xf32>) -> tensor<20011xf32> {
  %e = tensor.empty() : tensor<20011xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<20011xf32>, tensor<20011xf32>) outs(%e : tensor<20011xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %p = arith.mulf %x, %y : f32
    linalg.yield %p : f32
  } -> tensor<20011xf32>
  return %r : tensor<20011xf32>
}

func.func @elementwise_narrow(%a: tensor<301x5xf32>, %b: tensor<5xf32>) -> tensor<301x5xf32> {
  %e = tensor.empty() : tensor<301x5xf32>
  %r = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<301x5xf32>, tensor<5xf32>) outs(%e : tensor<301x5xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.subf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<301x5xf32>
  return %r : tensor<301x5xf32>
}

func.func @row_max(%a: tensor<77x1xf32>) -> tensor<77xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<77xf32>
  %init = linalg.fill ins(%ninf : f32) outs(%e : tensor<77xf32>) -> tensor<77xf32>
  %r = linalg.generic {indexing_maps = [#id2, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<77x1xf32>) outs(%init : tensor<77xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %m = arith.maximumf %acc, %x : f32
    linalg.yield %m : f32
  } -> tensor<77xf32>
  return %r : tensor<77xf32>
}

func.func @row_sum_long(%a: tensor<37x333xf32>, %b: tensor<37x333xf32>) -> tensor<37xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<37x333xf32>
  %s = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<37x333xf32>, tensor<37x333xf32>) outs(%e : tensor<37x333xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %t = arith.addf %x, %y : f32
    linalg.yield %t : f32
  } -> tensor<37x333xf32>
  %re = tensor.empty() : tensor<37xf32>
  %init = linalg.fill ins(%zero : f32) outs(%re : tensor<37xf32>) -> tensor<37xf32>
  %r = linalg.generic {indexing_maps = [#id2, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%s : tensor<37x333xf32>) outs(%init : tensor<37xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %t = arith.addf %acc, %x : f32
    linalg.yield %t : f32
  } -> tensor<37xf32>
  return %r : tensor<37xf32>
}

func.func @row_max_i32(%a: tensor<9x40xi32>) -> tensor<9xi32> {
  %min = arith.constant -2147483648 : i32
  %e = tensor.empty() : tensor<9xi32>
  %init = linalg.fill ins(%min : i32) outs(%e : tensor<9xi32>) -> tensor<9xi32>
  %r = linalg.generic {indexing_maps = [#id2, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<9x40xi32>) outs(%init : tensor<9xi32>) {
  ^bb0(%x: i32, %acc: i32):
    %m = arith.maxsi %acc, %x : i32
    linalg.yield %m : i32
  } -> tensor<9xi32>
  return %r : tensor<9xi32>
}

func.func @softmax_rows(%a: tensor<37x257xf32>) -> tensor<37x257xf32> {
  %e = tensor.empty() : tensor<37x257xf32>
  %r = linalg.softmax dimension(1) ins(%a : tensor<37x257xf32>) outs(%e : tensor<37x257xf32>) -> tensor<37x257xf32>
  return %r : tensor<37x257xf32>
}

func.func @total_sum(%x: tensor<7x111xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %s = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>],
                       iterator_types = ["reduction", "reduction"]} ins(%x : tensor<7x111xf32>) outs(%init : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %acc, %a : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  return %s : tensor<f32>
}

func.func @total_min_i32(%x: tensor<300xi32>) -> tensor<i32> {
  %big = arith.constant 2147483647 : i32
  %e = tensor.empty() : tensor<i32>
  %init = linalg.fill ins(%big : i32) outs(%e : tensor<i32>) -> tensor<i32>
  %s = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>],
                       iterator_types = ["reduction"]} ins(%x : tensor<300xi32>) outs(%init : tensor<i32>) {
  ^bb0(%a: i32, %acc: i32):
    %r = arith.minsi %acc, %a : i32
    linalg.yield %r : i32
  } -> tensor<i32>
  return %s : tensor<i32>
}

func.func @matmul_f16(%a: tensor<70x45xf16>, %b: tensor<45x130xf16>) -> tensor<70x130xf16> {
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<70x130xf16>
  %c = linalg.fill ins(%zero : f16) outs(%e : tensor<70x130xf16>) -> tensor<70x130xf16>
  %r = linalg.matmul ins(%a, %b : tensor<70x45xf16>, tensor<45x130xf16>) outs(%c : tensor<70x130xf16>) -> tensor<70x130xf16>
  return %r : tensor<70x130xf16>
}

func.func @matmul_broadcast_rhs(%a: tensor<2x5x7xf32>, %b: tensor<7x9xf32>) -> tensor<2x5x9xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x5x9xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<2x5x9xf32>) -> tensor<2x5x9xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (k, n)>, affine_map<(b, m, n, k) -> (b, m, n)>],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<2x5x7xf32>, tensor<7x9xf32>) outs(%c : tensor<2x5x9xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<2x5x9xf32>
  return %r : tensor<2x5x9xf32>
}

func.func @softmax_long_rows(%a: tensor<3x2001xf32>) -> tensor<3x2001xf32> {
  %e = tensor.empty() : tensor<3x2001xf32>
  %r = linalg.softmax dimension(1) ins(%a : tensor<3x2001xf32>) outs(%e : tensor<3x2001xf32>) -> tensor<3x2001xf32>
  return %r : tensor<3x2001xf32>
}

// RUN: ireec opt %s --pass-pipeline=iree-check-to-results | filecheck %s

// The checked value leaves the test function as a result (ireec check compares it with the
// expected constant on the host); the check op goes.
// CHECK-LABEL: func.func @test_add() -> tensor<2xf32>
// CHECK:         %[[V:.+]] = stablehlo.add
// CHECK-NOT:     check.expect
// CHECK:         return %[[V]] : tensor<2xf32>
module {
  func.func @test_add() {
    %0 = arith.constant dense<[1.0e+00, 2.0e+00]> : tensor<2xf32>
    %1 = stablehlo.add %0, %0 : tensor<2xf32>
    check.expect_almost_eq_const(%1, dense<[2.0e+00, 4.0e+00]> : tensor<2xf32>) : tensor<2xf32>
    return
  }
}

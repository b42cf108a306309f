// RUN: ireec opt %s --pass-pipeline=iree-convert-tensor-bitcasts | filecheck %s

// A bitcast of 4 bytes to 8 f4 elements becomes a generic that extracts byte i / 2 and takes
// its nibble (i mod 2) * 4, low nibble first.
// CHECK-LABEL: func.func @main(%arg0: tensor<4xi8>)
// CHECK:         linalg.generic {{.*}} outs(%{{.+}} : tensor<8xf4E2M1FN>)
// CHECK:           %[[I:.+]] = linalg.index 0 : index
// CHECK:           %[[BYTE:.+]] = arith.divui %[[I]]
// CHECK:           %[[V:.+]] = tensor.extract %arg0[%[[BYTE]]] : tensor<4xi8>
// CHECK:           arith.remui %[[I]]
// CHECK:           %[[SH:.+]] = arith.shrui %[[V]]
// CHECK:           %[[T:.+]] = arith.trunci %[[SH]] : i8 to i4
// CHECK:           arith.bitcast %[[T]] : i4 to f4E2M1FN
// CHECK-NOT:   flow.tensor.bitcast
module {
  func.func @main(%arg0: tensor<4xi8>) -> tensor<8xf4E2M1FN> {
    %0 = flow.tensor.bitcast %arg0 : tensor<4xi8> -> tensor<8xf4E2M1FN>
    return %0 : tensor<8xf4E2M1FN>
  }
}

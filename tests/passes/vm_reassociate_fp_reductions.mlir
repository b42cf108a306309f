// RUN: ireec opt %s --pass-pipeline=iree-llvmcpu-reassociate-fp-reductions | filecheck %s

// A row sum into acc[i]: the element is loaded once before the loop into a variable, the
// loop adds into it (emitc.assign) and carries it as a fourth operand with
// simd_reduction = "+", and the variable is stored back after the loop.
// CHECK:       "emitc.for"
// CHECK:         %[[INIT:.*]] = "emitc.load"(%{{.*}}, %[[I:.*]]) {strides = array<i64: 1>
// CHECK-NEXT:    %[[ACC:.*]] = "emitc.variable"(%[[INIT]])
// CHECK-NEXT:    "emitc.for"(%{{.*}}, %{{.*}}, %{{.*}}, %[[ACC]])
// CHECK:           %[[SUM:.*]] = "emitc.expression"(%{{.*}}, %[[ACC]]) {c = "{0} + {1}", source_op = "arith.addf"}
// CHECK-NEXT:      "emitc.assign"(%[[ACC]], %[[SUM]])
// CHECK-NEXT:    }) {simd_reduction = "+"}
// CHECK-NEXT:    "emitc.store"(%[[ACC]], %{{.*}}, %[[I]])
// CHECK:       sym_name = "row_sum"
// Not rewritten: the partial sum is also stored elsewhere (a prefix sum); an integer sum
// (exact, vectorized as it is); another array stored at a loop-invariant address; a loop of
// fewer than 16 iterations (a filter's taps).
// CHECK-NOT:   simd_reduction
// CHECK:       sym_name = "prefix_sum"
// CHECK-NOT:   simd_reduction
// CHECK:       sym_name = "int_sum"
// CHECK-NOT:   simd_reduction
// CHECK:       sym_name = "invariant_store"
// CHECK-NOT:   simd_reduction
// CHECK:       sym_name = "short_sum"
"emitc.func"() ({
^bb0(%a: memref<4x16xf32>, %acc: memref<4xf32>):
  %c0 = "emitc.constant"() {value = 0 : index} : () -> (index)
  %c1 = "emitc.constant"() {value = 1 : index} : () -> (index)
  %c4 = "emitc.constant"() {value = 4 : index} : () -> (index)
  %n = "emitc.constant"() {value = 16 : index} : () -> (index)
  "emitc.for"(%c0, %c4, %c1) ({
  ^bb0(%i: index):
    "emitc.for"(%c0, %n, %c1) ({
    ^bb0(%k: index):
      %x = "emitc.load"(%a, %i, %k) {strides = array<i64: 16, 1>, offset = 0 : index, element_type = f32} : (memref<4x16xf32>, index, index) -> (f32)
      %s = "emitc.load"(%acc, %i) {strides = array<i64: 1>, offset = 0 : index, element_type = f32} : (memref<4xf32>, index) -> (f32)
      %t = "emitc.expression"(%x, %s) {c = "{0} + {1}", source_op = "arith.addf"} : (f32, f32) -> (f32)
      "emitc.store"(%t, %acc, %i) {strides = array<i64: 1>, offset = 0 : index, element_type = f32} : (f32, memref<4xf32>, index) -> ()
    }) : (index, index, index) -> ()
  }) : (index, index, index) -> ()
}) {sym_name = "row_sum", kind = "kernel"} : () -> ()

"emitc.func"() ({
^bb0(%a: memref<16xf32>, %acc: memref<1xf32>, %p: memref<16xf32>):
  %c0 = "emitc.constant"() {value = 0 : index} : () -> (index)
  %c1 = "emitc.constant"() {value = 1 : index} : () -> (index)
  %n = "emitc.constant"() {value = 16 : index} : () -> (index)
  "emitc.for"(%c0, %n, %c1) ({
  ^bb0(%k: index):
    %x = "emitc.load"(%a, %k) {strides = array<i64: 1>, offset = 0 : index, element_type = f32} : (memref<16xf32>, index) -> (f32)
    %s = "emitc.load"(%acc, %c0) {strides = array<i64: 1>, offset = 0 : index, element_type = f32} : (memref<1xf32>, index) -> (f32)
    %t = "emitc.expression"(%x, %s) {c = "{0} + {1}", source_op = "arith.addf"} : (f32, f32) -> (f32)
    "emitc.store"(%t, %acc, %c0) {strides = array<i64: 1>, offset = 0 : index, element_type = f32} : (f32, memref<1xf32>, index) -> ()
    "emitc.store"(%t, %p, %k) {strides = array<i64: 1>, offset = 0 : index, element_type = f32} : (f32, memref<16xf32>, index) -> ()
  }) : (index, index, index) -> ()
}) {sym_name = "prefix_sum", kind = "kernel"} : () -> ()

"emitc.func"() ({
^bb0(%a: memref<16xi32>, %acc: memref<1xi32>):
  %c0 = "emitc.constant"() {value = 0 : index} : () -> (index)
  %c1 = "emitc.constant"() {value = 1 : index} : () -> (index)
  %n = "emitc.constant"() {value = 16 : index} : () -> (index)
  "emitc.for"(%c0, %n, %c1) ({
  ^bb0(%k: index):
    %x = "emitc.load"(%a, %k) {strides = array<i64: 1>, offset = 0 : index, element_type = i32} : (memref<16xi32>, index) -> (i32)
    %s = "emitc.load"(%acc, %c0) {strides = array<i64: 1>, offset = 0 : index, element_type = i32} : (memref<1xi32>, index) -> (i32)
    %t = "emitc.expression"(%x, %s) {c = "{0} + {1}", source_op = "arith.addi"} : (i32, i32) -> (i32)
    "emitc.store"(%t, %acc, %c0) {strides = array<i64: 1>, offset = 0 : index, element_type = i32} : (i32, memref<1xi32>, index) -> ()
  }) : (index, index, index) -> ()
}) {sym_name = "int_sum", kind = "kernel"} : () -> ()

"emitc.func"() ({
^bb0(%a: memref<16xf32>, %acc: memref<1xf32>, %last: memref<1xf32>):
  %c0 = "emitc.constant"() {value = 0 : index} : () -> (index)
  %c1 = "emitc.constant"() {value = 1 : index} : () -> (index)
  %n = "emitc.constant"() {value = 16 : index} : () -> (index)
  "emitc.for"(%c0, %n, %c1) ({
  ^bb0(%k: index):
    %x = "emitc.load"(%a, %k) {strides = array<i64: 1>, offset = 0 : index, element_type = f32} : (memref<16xf32>, index) -> (f32)
    %s = "emitc.load"(%acc, %c0) {strides = array<i64: 1>, offset = 0 : index, element_type = f32} : (memref<1xf32>, index) -> (f32)
    %t = "emitc.expression"(%x, %s) {c = "{0} + {1}", source_op = "arith.addf"} : (f32, f32) -> (f32)
    "emitc.store"(%t, %acc, %c0) {strides = array<i64: 1>, offset = 0 : index, element_type = f32} : (f32, memref<1xf32>, index) -> ()
    "emitc.store"(%x, %last, %c0) {strides = array<i64: 1>, offset = 0 : index, element_type = f32} : (f32, memref<1xf32>, index) -> ()
  }) : (index, index, index) -> ()
}) {sym_name = "invariant_store", kind = "kernel"} : () -> ()

"emitc.func"() ({
^bb0(%a: memref<5xf32>, %acc: memref<1xf32>):
  %c0 = "emitc.constant"() {value = 0 : index} : () -> (index)
  %c1 = "emitc.constant"() {value = 1 : index} : () -> (index)
  %n = "emitc.constant"() {value = 5 : index} : () -> (index)
  "emitc.for"(%c0, %n, %c1) ({
  ^bb0(%k: index):
    %x = "emitc.load"(%a, %k) {strides = array<i64: 1>, offset = 0 : index, element_type = f32} : (memref<5xf32>, index) -> (f32)
    %s = "emitc.load"(%acc, %c0) {strides = array<i64: 1>, offset = 0 : index, element_type = f32} : (memref<1xf32>, index) -> (f32)
    %t = "emitc.expression"(%x, %s) {c = "{0} + {1}", source_op = "arith.addf"} : (f32, f32) -> (f32)
    "emitc.store"(%t, %acc, %c0) {strides = array<i64: 1>, offset = 0 : index, element_type = f32} : (f32, memref<1xf32>, index) -> ()
  }) : (index, index, index) -> ()
}) {sym_name = "short_sum", kind = "kernel"} : () -> ()

// RUN: ireec opt %s --pass-pipeline=loop-invariant-code-motion | filecheck %s

// In a loop that runs (constant 0 < 8): the expression over the function's arguments and
// the load from the buffer the loop only reads move before the loop, out of both loops;
// the load of the stored buffer and the expression over the induction variable stay.
// CHECK:       ^bb0(%[[A:.*]]: memref<8xf32>, %[[B:.*]]: memref<8xf32>, %[[N:.*]]: index, %[[K:.*]]: index):
// CHECK:       %[[E:.*]] = "emitc.expression"(%[[N]], %[[K]]) {c = "{0} * {1}"}
// CHECK-NEXT:  %[[L:.*]] = "emitc.load"(%[[B]], %[[K]])
// CHECK-NEXT:  "emitc.for"
// CHECK-NEXT:  ^bb0(%[[I:.*]]: index):
// CHECK-NEXT:  "emitc.for"
// CHECK-NEXT:  ^bb0(%[[J:.*]]: index):
// CHECK-NEXT:  "emitc.expression"(%[[J]], %[[E]])
// CHECK-NEXT:  "emitc.load"(%[[A]], %[[J]])
// CHECK:       sym_name = "hoist"
"emitc.func"() ({
^bb0(%a: memref<8xf32>, %b: memref<8xf32>, %n: index, %k: index):
  %c0 = "emitc.constant"() {value = 0 : index} : () -> (index)
  %c1 = "emitc.constant"() {value = 1 : index} : () -> (index)
  %c8 = "emitc.constant"() {value = 8 : index} : () -> (index)
  "emitc.for"(%c0, %c8, %c1) ({
  ^bb0(%i: index):
    "emitc.for"(%c0, %c8, %c1) ({
    ^bb0(%j: index):
      %e = "emitc.expression"(%n, %k) {c = "{0} * {1}"} : (index, index) -> (index)
      %s = "emitc.expression"(%j, %e) {c = "{0} + {1}"} : (index, index) -> (index)
      %l = "emitc.load"(%b, %k) {strides = array<i64: 1>, offset = 0 : index, element_type = f32} : (memref<8xf32>, index) -> (f32)
      %x = "emitc.load"(%a, %j) {strides = array<i64: 1>, offset = 0 : index, element_type = f32} : (memref<8xf32>, index) -> (f32)
      %y = "emitc.expression"(%x, %l) {c = "{0} + {1}"} : (f32, f32) -> (f32)
      "emitc.store"(%y, %a, %j) {strides = array<i64: 1>, offset = 0 : index, element_type = f32} : (f32, memref<8xf32>, index) -> ()
    }) : (index, index, index) -> ()
  }) : (index, index, index) -> ()
}) {sym_name = "hoist", kind = "kernel"} : () -> ()

// A loop with a bound not known to be positive keeps its loads and its division (which
// might trap were the loop never to run: it is marked ``divides``); the multiplication moves.
// CHECK:       ^bb0(%[[A2:.*]]: memref<8xf32>, %[[N2:.*]]: index, %[[K2:.*]]: index):
// CHECK:       "emitc.expression"(%[[N2]], %[[K2]]) {c = "{0} * {1}"}
// CHECK-NEXT:  "emitc.for"
// CHECK-NEXT:  ^bb0
// CHECK-NEXT:  "emitc.expression"(%[[N2]], %[[K2]]) {c = "{0} / {1}", source_op = "arith.divsi", divides}
// CHECK-NEXT:  "emitc.load"(%[[A2]], %[[K2]])
// CHECK:       sym_name = "maybe_empty"
"emitc.func"() ({
^bb0(%a: memref<8xf32>, %n: index, %k: index):
  %c0 = "emitc.constant"() {value = 0 : index} : () -> (index)
  %c1 = "emitc.constant"() {value = 1 : index} : () -> (index)
  "emitc.for"(%c0, %n, %c1) ({
  ^bb0(%i: index):
    %d = "emitc.expression"(%n, %k) {c = "{0} / {1}", source_op = "arith.divsi", divides} : (index, index) -> (index)
    %l = "emitc.load"(%a, %k) {strides = array<i64: 1>, offset = 0 : index, element_type = f32} : (memref<8xf32>, index) -> (f32)
    %m = "emitc.expression"(%n, %k) {c = "{0} * {1}"} : (index, index) -> (index)
    "emitc.store"(%l, %a, %i) {strides = array<i64: 1>, offset = 0 : index, element_type = f32} : (f32, memref<8xf32>, index) -> ()
  }) : (index, index, index) -> ()
}) {sym_name = "maybe_empty", kind = "kernel"} : () -> ()

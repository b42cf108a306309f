// RUN: ireec opt %s --pass-pipeline=iree-codegen-remove-single-iteration-loop | filecheck %s

// A loop over a unit dimension (0 to 1 step 1) becomes its body, the induction variable a
// constant; a loop of one iteration by its step (0 to 3 step 4) too; loops of more
// iterations and loops with a non-constant bound stay.
// CHECK:       ^bb0(%[[A:.*]]: memref<1x8xf32>, %[[N:.*]]: index):
// CHECK:       "emitc.constant"() {value = 8 : index}
// CHECK-NEXT:  %[[IV:.*]] = "emitc.constant"() {value = 0 : index}
// CHECK-NEXT:  "emitc.load"(%[[A]], %[[IV]], %[[IV]])
// CHECK:       %[[IV2:.*]] = "emitc.constant"() {value = 0 : index}
// CHECK-NEXT:  "emitc.store"({{.*}}, %[[A]], %[[IV2]], %[[IV2]])
// CHECK:       "emitc.for"(%{{.*}}, %[[N]], %{{.*}})
// CHECK:       "emitc.for"(%{{.*}}, %{{.*}}, %{{.*}})
// CHECK-NOT:   "emitc.for"
// CHECK:       sym_name = "single_trip"
"emitc.func"() ({
^bb0(%a: memref<1x8xf32>, %n: index):
  %c0 = "emitc.constant"() {value = 0 : index} : () -> (index)
  %c1 = "emitc.constant"() {value = 1 : index} : () -> (index)
  %c3 = "emitc.constant"() {value = 3 : index} : () -> (index)
  %c4 = "emitc.constant"() {value = 4 : index} : () -> (index)
  %c8 = "emitc.constant"() {value = 8 : index} : () -> (index)
  "emitc.for"(%c0, %c1, %c1) ({
  ^bb0(%i: index):
    %x = "emitc.load"(%a, %i, %i) {strides = array<i64: 8, 1>, offset = 0 : index, element_type = f32} : (memref<1x8xf32>, index, index) -> (f32)
    "emitc.for"(%c0, %c3, %c4) ({
    ^bb0(%j: index):
      "emitc.store"(%x, %a, %j, %j) {strides = array<i64: 8, 1>, offset = 0 : index, element_type = f32} : (f32, memref<1x8xf32>, index, index) -> ()
    }) : (index, index, index) -> ()
  }) : (index, index, index) -> ()
  "emitc.for"(%c0, %n, %c1) ({
  ^bb0(%i: index):
    "emitc.verbatim"() {value = "f();"} : () -> ()
  }) : (index, index, index) -> ()
  "emitc.for"(%c0, %c8, %c4) ({
  ^bb0(%i: index):
    "emitc.verbatim"() {value = "g();"} : () -> ()
  }) : (index, index, index) -> ()
}) {sym_name = "single_trip", kind = "kernel"} : () -> ()

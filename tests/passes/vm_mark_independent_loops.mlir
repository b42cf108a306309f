// RUN: ireec opt %s --pass-pipeline=iree-codegen-mark-independent-loops | filecheck %s

// Elementwise: every access to the stored buffer is at the induction variable: ivdep.
// A running sum (the store reads the element the previous iteration wrote) and a store
// at a loop-invariant address are not independent; an outer loop is never marked.
// CHECK:       "emitc.for"
// CHECK-NEXT:  ^bb0
// CHECK:       }) {ivdep} : (index, index, index) -> ()
// CHECK:       sym_name = "elementwise"
// CHECK-NOT:   ivdep
// CHECK:       sym_name = "prefix_sum"
// CHECK-NOT:   ivdep
// CHECK:       sym_name = "same_address"
// CHECK:       }) {ivdep} : (index, index, index) -> ()
// CHECK:       sym_name = "shifted"
"emitc.func"() ({
^bb0(%a: memref<8xf32>, %b: memref<8xf32>):
  %c0 = "emitc.constant"() {value = 0 : index} : () -> (index)
  %c1 = "emitc.constant"() {value = 1 : index} : () -> (index)
  %c8 = "emitc.constant"() {value = 8 : index} : () -> (index)
  "emitc.for"(%c0, %c8, %c1) ({
  ^bb0(%i: index):
    %x = "emitc.load"(%a, %i) {strides = array<i64: 1>, offset = 0 : index, element_type = f32} : (memref<8xf32>, index) -> (f32)
    %y = "emitc.load"(%b, %i) {strides = array<i64: 1>, offset = 0 : index, element_type = f32} : (memref<8xf32>, index) -> (f32)
    %s = "emitc.expression"(%x, %y) {c = "{0} + {1}"} : (f32, f32) -> (f32)
    "emitc.store"(%s, %b, %i) {strides = array<i64: 1>, offset = 0 : index, element_type = f32} : (f32, memref<8xf32>, index) -> ()
  }) : (index, index, index) -> ()
}) {sym_name = "elementwise", kind = "kernel"} : () -> ()

"emitc.func"() ({
^bb0(%a: memref<8xf32>):
  %c0 = "emitc.constant"() {value = 0 : index} : () -> (index)
  %c1 = "emitc.constant"() {value = 1 : index} : () -> (index)
  %c8 = "emitc.constant"() {value = 8 : index} : () -> (index)
  "emitc.for"(%c1, %c8, %c1) ({
  ^bb0(%i: index):
    %p = "emitc.expression"(%i, %c1) {c = "{0} - {1}", source_op = "arith.subi"} : (index, index) -> (index)
    %x = "emitc.load"(%a, %p) {strides = array<i64: 1>, offset = 0 : index, element_type = f32} : (memref<8xf32>, index) -> (f32)
    %y = "emitc.load"(%a, %i) {strides = array<i64: 1>, offset = 0 : index, element_type = f32} : (memref<8xf32>, index) -> (f32)
    %s = "emitc.expression"(%x, %y) {c = "{0} + {1}"} : (f32, f32) -> (f32)
    "emitc.store"(%s, %a, %i) {strides = array<i64: 1>, offset = 0 : index, element_type = f32} : (f32, memref<8xf32>, index) -> ()
  }) : (index, index, index) -> ()
}) {sym_name = "prefix_sum", kind = "kernel"} : () -> ()

"emitc.func"() ({
^bb0(%a: memref<8xf32>, %b: memref<1xf32>):
  %c0 = "emitc.constant"() {value = 0 : index} : () -> (index)
  %c1 = "emitc.constant"() {value = 1 : index} : () -> (index)
  %c8 = "emitc.constant"() {value = 8 : index} : () -> (index)
  "emitc.for"(%c0, %c8, %c1) ({
  ^bb0(%i: index):
    "emitc.for"(%c0, %c8, %c1) ({
    ^bb0(%j: index):
      %x = "emitc.load"(%a, %j) {strides = array<i64: 1>, offset = 0 : index, element_type = f32} : (memref<8xf32>, index) -> (f32)
      "emitc.store"(%x, %b, %c0) {strides = array<i64: 1>, offset = 0 : index, element_type = f32} : (f32, memref<1xf32>, index) -> ()
    }) : (index, index, index) -> ()
  }) : (index, index, index) -> ()
}) {sym_name = "same_address", kind = "kernel"} : () -> ()

// A subscript that is the induction variable plus a loop-invariant value (an index
// arith.addi, its source_op) moves with the induction variable: ivdep.
"emitc.func"() ({
^bb0(%a: memref<16xf32>, %k: index):
  %c0 = "emitc.constant"() {value = 0 : index} : () -> (index)
  %c1 = "emitc.constant"() {value = 1 : index} : () -> (index)
  %c8 = "emitc.constant"() {value = 8 : index} : () -> (index)
  "emitc.for"(%c0, %c8, %c1) ({
  ^bb0(%i: index):
    %j = "emitc.expression"(%i, %k) {c = "{0} + {1}", source_op = "arith.addi"} : (index, index) -> (index)
    %x = "emitc.load"(%a, %j) {strides = array<i64: 1>, offset = 0 : index, element_type = f32} : (memref<16xf32>, index) -> (f32)
    %y = "emitc.expression"(%x, %x) {c = "{0} * {1}", source_op = "arith.mulf"} : (f32, f32) -> (f32)
    "emitc.store"(%y, %a, %j) {strides = array<i64: 1>, offset = 0 : index, element_type = f32} : (f32, memref<16xf32>, index) -> ()
  }) : (index, index, index) -> ()
}) {sym_name = "shifted", kind = "kernel"} : () -> ()

// RUN: ireec opt %s --pass-pipeline=remove-dead-values | filecheck %s

// Unused constants, expressions, loads and reads go (transitively: the expression over the
// unused load too); a scalar only ever assigned and a local array only ever stored into go
// with their assignments and stores; the stored result and the calls stay. Host functions
// are cleaned too.
// CHECK:       ^bb0(%[[A:.*]]: memref<4xf32>):
// CHECK-NEXT:  %[[C0:.*]] = "emitc.constant"() {value = 0 : index}
// CHECK-NEXT:  %[[X:.*]] = "emitc.load"(%[[A]], %[[C0]])
// CHECK-NEXT:  %[[S:.*]] = "emitc.variable"(%[[X]])
// CHECK-NEXT:  "emitc.assign"(%[[S]], %[[X]])
// CHECK-NEXT:  %[[R:.*]] = "emitc.read"(%[[S]])
// CHECK-NEXT:  "emitc.store"(%[[R]], %[[A]], %[[C0]])
// CHECK-NEXT:  }) {sym_name = "kernel"
// CHECK:       "emitc.call_opaque"
// CHECK-NEXT:  "emitc.verbatim"
// CHECK-NEXT:  }) {sym_name = "host"
"emitc.func"() ({
^bb0(%a: memref<4xf32>):
  %c0 = "emitc.constant"() {value = 0 : index} : () -> (index)
  %c1 = "emitc.constant"() {value = 1 : index} : () -> (index)
  %x = "emitc.load"(%a, %c0) {strides = array<i64: 1>, offset = 0 : index, element_type = f32} : (memref<4xf32>, index) -> (f32)
  %u = "emitc.load"(%a, %c1) {strides = array<i64: 1>, offset = 0 : index, element_type = f32} : (memref<4xf32>, index) -> (f32)
  %e = "emitc.expression"(%u, %u) {c = "{0} + {1}"} : (f32, f32) -> (f32)
  %s = "emitc.variable"(%x) : (f32) -> (f32)
  "emitc.assign"(%s, %x) : (f32, f32) -> ()
  %r = "emitc.read"(%s) : (f32) -> (f32)
  %dead = "emitc.variable"(%x) : (f32) -> (f32)
  "emitc.assign"(%dead, %r) : (f32, f32) -> ()
  %t = "emitc.variable"() {array_size = 4 : index, element = "float"} : () -> (memref<4xf32>)
  "emitc.store"(%r, %t, %c1) {strides = array<i64: 1>, offset = 0 : index, element_type = f32} : (f32, memref<4xf32>, index) -> ()
  "emitc.store"(%r, %a, %c0) {strides = array<i64: 1>, offset = 0 : index, element_type = f32} : (f32, memref<4xf32>, index) -> ()
}) {sym_name = "kernel", kind = "kernel"} : () -> ()

"emitc.func"() ({
  %c0 = "emitc.constant"() {value = 0 : index} : () -> (index)
  "emitc.call_opaque"() {callee = "f", args = ["0"]} : () -> ()
  "emitc.verbatim"() {value = "return IREEC_STATUS_OK;"} : () -> ()
}) {sym_name = "host", kind = "host"} : () -> ()

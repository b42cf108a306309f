// Verifier diagnostics of the emitc dialect (ireec/dialects/emitc.py), one case per
// `// -----` chunk: the vm-phase ops the C printer and the loop analyses read.

"emitc.func"() ({
^bb0(%a: memref<4xf32>):
  %c0 = "emitc.constant"() {value = 0 : index} : () -> (index)
  %x = "emitc.load"(%a, %c0) {strides = array<i64: 1>, offset = 0 : index, element_type = f32} : (memref<4xf32>, index) -> (f32)
  // expected-error @+1 {{'emitc.expression' op requires attribute 'c'}}
  %y = "emitc.expression"(%x, %x) {source_op = "arith.addf"} : (f32, f32) -> (f32)
}) {sym_name = "no_template", kind = "kernel", params = ["float *a"], result = "void", param_names = ["a"]} : () -> ()

// -----

"emitc.func"() ({
^bb0(%a: memref<4xf32>):
  %c0 = "emitc.constant"() {value = 0 : index} : () -> (index)
  %x = "emitc.load"(%a, %c0) {strides = array<i64: 1>, offset = 0 : index, element_type = f32} : (memref<4xf32>, index) -> (f32)
  // expected-error @+1 {{'emitc.expression' op attribute 'c' refers to {2}, but the op has 2 operand(s)}}
  %y = "emitc.expression"(%x, %x) {c = "{0} + {2}", source_op = "arith.addf"} : (f32, f32) -> (f32)
}) {sym_name = "template_out_of_range", kind = "kernel", params = ["float *a"], result = "void", param_names = ["a"]} : () -> ()

// -----

"emitc.func"() ({
^bb0(%a: memref<4x4xf32>):
  %c0 = "emitc.constant"() {value = 0 : index} : () -> (index)
  // expected-error @+1 {{'emitc.load' op expects one index per stride (2), but found 1}}
  %x = "emitc.load"(%a, %c0) {strides = array<i64: 4, 1>, offset = 0 : index, element_type = f32} : (memref<4x4xf32>, index) -> (f32)
}) {sym_name = "missing_index", kind = "kernel", params = ["float *a"], result = "void", param_names = ["a"]} : () -> ()

// -----

"emitc.func"() ({
^bb0(%a: memref<4xf32>):
  %c0 = "emitc.constant"() {value = 0 : index} : () -> (index)
  %x = "emitc.load"(%a, %c0) {strides = array<i64: 1>, offset = 0 : index, element_type = f32} : (memref<4xf32>, index) -> (f32)
  // expected-error @+1 {{'emitc.assign' op operand #0 must be a scalar 'emitc.variable'}}
  "emitc.assign"(%x, %x) : (f32, f32) -> ()
}) {sym_name = "assign_to_value", kind = "kernel", params = ["float *a"], result = "void", param_names = ["a"]} : () -> ()

// -----

"emitc.func"() ({
^bb0(%a: memref<4xi1>):
  %c0 = "emitc.constant"() {value = 0 : index} : () -> (index)
  %b = "emitc.load"(%a, %c0) {strides = array<i64: 1>, offset = 0 : index, element_type = i1} : (memref<4xi1>, index) -> (i1)
  // expected-error @+1 {{'emitc.break_unless' op expects to be nested in an 'emitc.loop'}}
  "emitc.break_unless"(%b) : (i1) -> ()
}) {sym_name = "break_outside_loop", kind = "kernel", params = ["bool *a"], result = "void", param_names = ["a"]} : () -> ()

// -----

// expected-error @+1 {{'emitc.func' op attribute 'kind' must be 'kernel' or 'host', but is 'device'}}
"emitc.func"() ({
  "emitc.verbatim"() {value = "(void)0;"} : () -> ()
}) {sym_name = "bad_kind", kind = "device", params = [], result = "void"} : () -> ()

// -----

// A well-formed kernel: no error.
"emitc.func"() ({
^bb0(%a: memref<8xf32>, %b: memref<8xf32>):
  %c0 = "emitc.constant"() {value = 0 : index} : () -> (index)
  %c1 = "emitc.constant"() {value = 1 : index} : () -> (index)
  %c8 = "emitc.constant"() {value = 8 : index} : () -> (index)
  %s = "emitc.variable"(%c0) : (index) -> (index)
  "emitc.for"(%c0, %c8, %c1) ({
  ^bb0(%i: index):
    %x = "emitc.load"(%a, %i) {strides = array<i64: 1>, offset = 0 : index, element_type = f32} : (memref<8xf32>, index) -> (f32)
    %y = "emitc.expression"(%x, %x) {c = "{0} + {1}", source_op = "arith.addf"} : (f32, f32) -> (f32)
    "emitc.store"(%y, %b, %i) {strides = array<i64: 1>, offset = 0 : index, element_type = f32} : (f32, memref<8xf32>, index) -> ()
    %r = "emitc.read"(%s) : (index) -> (index)
    "emitc.assign"(%s, %i) : (index, index) -> ()
  }) {ivdep} : (index, index, index) -> ()
}) {sym_name = "ok", kind = "kernel", params = ["const float *a", "float *b"], result = "void", param_names = ["a", "b"]} : () -> ()

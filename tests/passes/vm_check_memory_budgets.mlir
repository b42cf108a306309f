// RUN: ireec opt %s --pass-pipeline=ireec-check-memory-budgets | filecheck %s

// Each emitc.func gets its stack bound in bytes: a kernel its launch and workgroup frames
// (2 x 384) plus its local arrays (16 floats: 64, and 64 of alignment; a static const table is read-only data
// and does not count), a host function its own frame (384) plus its deepest dispatch
// (k0: 896, not k1: 768).
// CHECK:       sym_name = "k0_workgroup"
// CHECK-SAME:  ireec.stack_bytes = 896 : index
// CHECK:       sym_name = "k1_workgroup"
// CHECK-SAME:  ireec.stack_bytes = 768 : index
// CHECK:       sym_name = "host"
// CHECK-SAME:  ireec.stack_bytes = 1280 : index

"emitc.func"() ({
  %t = "emitc.variable"() {array_size = 16 : index, element = "float"} : () -> (memref<16xf32>)
  %c = "emitc.variable"() {array_size = 1024 : index, element = "float", init_values = ["0.0f"]} : () -> (memref<1024xf32>)
}) {sym_name = "k0_workgroup", kind = "kernel", launch = "k0", workgroup_count = array<i64: 4, 1, 1>} : () -> ()

"emitc.func"() ({
  "emitc.verbatim"() {value = "(void)workgroup_id_x;"} : () -> ()
}) {sym_name = "k1_workgroup", kind = "kernel", launch = "k1", workgroup_count = array<i64: 1, 1, 1>} : () -> ()

"emitc.func"() ({
  "emitc.verbatim"() {value = "(void)input0;", param_use = "input0"} : () -> ()
  "emitc.call_opaque"() {callee = "vm_check_memory_budgets_k0", args = ["(float *)((uint8_t *)workspace + 0)"], accesses = [#emitc.access<workspace, 0, 64, wo>]} : () -> ()
  "emitc.call_opaque"() {callee = "vm_check_memory_budgets_k1", args = ["(float *)((uint8_t *)workspace + 0)"], accesses = [#emitc.access<workspace, 0, 64, ro>]} : () -> ()
  "emitc.return"() {value = "IREEC_STATUS_OK"} : () -> ()
}) {sym_name = "host", kind = "host", mlir_name = "main", stream.memory_plan = {arena_bytes = 64 : index, lower_bound_bytes = 64 : index, transient_sum_bytes = 64 : index}} : () -> ()

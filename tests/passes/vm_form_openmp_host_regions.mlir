// RUN: ireec opt %s --pass-pipeline=ireec-form-openmp-host-regions --target=openmp | filecheck %s
// RUN: ireec opt %s --pass-pipeline=ireec-form-openmp-host-regions --target=c | filecheck %s --check-prefix=SERIAL

// A straight-line host function with two dispatches of several workgroups runs its calls in
// one parallel region: each launch calls its work-shared variant, the single-workgroup
// dispatch runs on the primary thread through its own variant, the copy on the primary
// thread through omp masked; a barrier goes before a call reading what an earlier call
// since the last barrier wrote (k1 reads k0's workspace bytes), none between calls
// touching disjoint bytes (k2 after k1) or a primary-thread call after one (the copy after
// k2, which write different bytes of result0 anyway).
// CHECK:       sym_name = "k2_workgroup"
// CHECK:       "emitc.verbatim"() {value = "(void)input0;", param_use = "input0"}
// CHECK-NEXT:  "emitc.verbatim"() {value = "(void)result0;", param_use = "result0"}
// CHECK-NEXT:  "emitc.verbatim"() {value = "(void)workspace;", param_use = "workspace"}
// CHECK-NEXT:  "emitc.verbatim"() {value = "#ifdef _OPENMP"}
// CHECK-NEXT:  "emitc.verbatim"() {value = "#pragma omp parallel"}
// CHECK-NEXT:  "emitc.verbatim"() {value = "#endif"}
// CHECK-NEXT:  "emitc.verbatim"() {value = "{"}
// CHECK-NEXT:  "emitc.call_opaque"() {callee = "vm_form_openmp_host_regions_k0_workshare"
// CHECK-NEXT:  "emitc.verbatim"() {value = "#ifdef _OPENMP"}
// CHECK-NEXT:  "emitc.verbatim"() {value = "#pragma omp barrier"}
// CHECK-NEXT:  "emitc.verbatim"() {value = "#endif"}
// CHECK-NEXT:  "emitc.call_opaque"() {callee = "vm_form_openmp_host_regions_k1_workshare"
// CHECK-NEXT:  "emitc.call_opaque"() {callee = "vm_form_openmp_host_regions_k2_workshare"
// CHECK-NEXT:  "emitc.verbatim"() {value = "#if defined(_OPENMP) && _OPENMP >= 202011"}
// CHECK-NEXT:  "emitc.verbatim"() {value = "#pragma omp masked"}
// CHECK-NEXT:  "emitc.verbatim"() {value = "#elif defined(_OPENMP)"}
// CHECK-NEXT:  "emitc.verbatim"() {value = "#pragma omp master"}
// CHECK-NEXT:  "emitc.verbatim"() {value = "#endif"}
// CHECK-NEXT:  "emitc.call_opaque"() {callee = "memcpy"
// CHECK-NEXT:  "emitc.verbatim"() {value = "}"}
// CHECK-NEXT:  "emitc.return"() {value = "IREEC_STATUS_OK"}

// A host function with one dispatch of several workgroups saves no fork/join: unchanged.
// CHECK:       sym_name = "host"
// CHECK:       "emitc.verbatim"() {value = "(void)input0;", param_use = "input0"}
// CHECK-NEXT:  "emitc.call_opaque"() {callee = "vm_form_openmp_host_regions_k0", args
// CHECK-NEXT:  "emitc.return"

// On the serial target no launch has a work-shared variant: nothing changes.
// SERIAL-NOT:  omp
// SERIAL-NOT:  _workshare

"emitc.func"() ({
  "emitc.verbatim"() {value = "(void)workgroup_id_x;"} : () -> ()
}) {sym_name = "k0_workgroup", kind = "kernel", launch = "k0", workgroup_count = array<i64: 4, 1, 1>} : () -> ()

"emitc.func"() ({
  "emitc.verbatim"() {value = "(void)workgroup_id_x;"} : () -> ()
}) {sym_name = "k1_workgroup", kind = "kernel", launch = "k1", workgroup_count = array<i64: 2, 2, 1>} : () -> ()

"emitc.func"() ({
  "emitc.verbatim"() {value = "(void)workgroup_id_x;"} : () -> ()
}) {sym_name = "k2_workgroup", kind = "kernel", launch = "k2", workgroup_count = array<i64: 1, 1, 1>} : () -> ()

"emitc.func"() ({
  "emitc.verbatim"() {value = "(void)input0;", param_use = "input0"} : () -> ()
  "emitc.verbatim"() {value = "(void)result0;", param_use = "result0"} : () -> ()
  "emitc.verbatim"() {value = "(void)workspace;", param_use = "workspace"} : () -> ()
  "emitc.call_opaque"() {callee = "vm_form_openmp_host_regions_k0", args = ["(const float *)((const uint8_t *)input0 + 0)", "(float *)((uint8_t *)workspace + 0)"], accesses = [#emitc.access<input0, 0, 64, ro>, #emitc.access<workspace, 0, 64, wo>]} : () -> ()
  "emitc.call_opaque"() {callee = "vm_form_openmp_host_regions_k1", args = ["(const float *)((uint8_t *)workspace + 0)", "(float *)((uint8_t *)result0 + 0)"], accesses = [#emitc.access<workspace, 0, 64, ro>, #emitc.access<result0, 0, 64, wo>]} : () -> ()
  "emitc.call_opaque"() {callee = "vm_form_openmp_host_regions_k2", args = ["(const float *)((const uint8_t *)input0 + 0)", "(float *)((uint8_t *)result0 + 64)"], accesses = [#emitc.access<input0, 0, 64, ro>, #emitc.access<result0, 64, 64, wo>]} : () -> ()
  "emitc.call_opaque"() {callee = "memcpy", args = ["(uint8_t *)result0 + 128", "(const uint8_t *)input0 + 0", "64"], accesses = [#emitc.access<input0, 0, 64, ro>, #emitc.access<result0, 128, 64, wo>]} : () -> ()
  "emitc.return"() {value = "IREEC_STATUS_OK"} : () -> ()
}) {sym_name = "host", kind = "host", mlir_name = "main"} : () -> ()

"emitc.func"() ({
  "emitc.verbatim"() {value = "(void)input0;", param_use = "input0"} : () -> ()
  "emitc.call_opaque"() {callee = "vm_form_openmp_host_regions_k0", args = ["(const float *)((const uint8_t *)input0 + 0)", "(float *)((uint8_t *)workspace + 0)"], accesses = [#emitc.access<input0, 0, 64, ro>, #emitc.access<workspace, 0, 64, wo>]} : () -> ()
  "emitc.return"() {value = "IREEC_STATUS_OK"} : () -> ()
}) {sym_name = "one", kind = "host", mlir_name = "one"} : () -> ()

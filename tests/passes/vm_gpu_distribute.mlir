// RUN: ireec opt %s --pass-pipeline=iree-codegen-gpu-distribute --target=cuda | filecheck %s --check-prefix=CUDA
// RUN: ireec opt %s --pass-pipeline=iree-codegen-gpu-distribute --target=c | filecheck %s --check-prefix=C

// With --target=cuda the independent loop runs block-stride (the block size, a constant) over the block's threads (8 iterations:
// one warp); a kernel whose loop is not independent stays on one thread. The C target
// leaves both alone and gives kernels with a loop the clone specifier.
// CUDA:       %[[FIRST:.*]] = "emitc.expression"(%{{.*}}, %{{.*}}) {c = "{0} + (int)threadIdx.x * {1}"}
// CUDA-NEXT:  %[[STRIDE:.*]] = "emitc.expression"(%{{.*}}) {c = "32 * {0}"}
// CUDA-NEXT:  "emitc.for"(%[[FIRST]], %{{.*}}, %[[STRIDE]])
// CUDA:       sym_name = "elementwise", kind = "kernel", specifiers = ["static", "__device__"], workgroup_size = 32}
// CUDA-NOT:   threadIdx
// CUDA:       sym_name = "same_address", kind = "kernel", specifiers = ["static", "__device__"]}
// A loop folding everything into one element, its combiner an arith.addf (recognised by the
// expression's source_op), runs over the whole block: a partial per thread, warp shuffles,
// then the two warps' partials through shared memory. The same loop whose combiner has no
// source_op (C text only) stays on one thread: the pass does not read C.
// CUDA:       "emitc.expression"(%{{.*}}) {c = "__shfl_down_sync(0xffffffffu, {0}, 16)"}
// CUDA:       "emitc.variable"() {array_size = 2 : index, element = "__shared__ float"}
// CUDA:       "emitc.verbatim"() {value = "__syncthreads();"}
// CUDA:       sym_name = "sum", kind = "kernel", specifiers = ["static", "__device__"], workgroup_size = 64}
// CUDA-NOT:   threadIdx
// CUDA:       sym_name = "opaque_combiner", kind = "kernel", specifiers = ["static", "__device__"]}
// C-NOT:      threadIdx
// C:          sym_name = "elementwise", kind = "kernel", specifiers = ["static", "IREEC_KERNEL_CLONES"]}
// C:          sym_name = "same_address", kind = "kernel", specifiers = ["static", "IREEC_KERNEL_CLONES"]}
// C:          sym_name = "no_loop", kind = "kernel", specifiers = ["static"]}
// C:          sym_name = "sum", kind = "kernel", specifiers = ["static", "IREEC_KERNEL_CLONES"]}
// C:          sym_name = "opaque_combiner", kind = "kernel", specifiers = ["static", "IREEC_KERNEL_CLONES"]}
"emitc.func"() ({
^bb0(%a: memref<8xf32>, %b: memref<8xf32>):
  %c0 = "emitc.constant"() {value = 0 : index} : () -> (index)
  %c1 = "emitc.constant"() {value = 1 : index} : () -> (index)
  %c8 = "emitc.constant"() {value = 8 : index} : () -> (index)
  "emitc.for"(%c0, %c8, %c1) ({
  ^bb0(%i: index):
    %x = "emitc.load"(%a, %i) {strides = array<i64: 1>, offset = 0 : index, element_type = f32} : (memref<8xf32>, index) -> (f32)
    "emitc.store"(%x, %b, %i) {strides = array<i64: 1>, offset = 0 : index, element_type = f32} : (f32, memref<8xf32>, index) -> ()
  }) {ivdep} : (index, index, index) -> ()
}) {sym_name = "elementwise", kind = "kernel"} : () -> ()

"emitc.func"() ({
^bb0(%a: memref<8xf32>, %b: memref<1xf32>):
  %c0 = "emitc.constant"() {value = 0 : index} : () -> (index)
  %c1 = "emitc.constant"() {value = 1 : index} : () -> (index)
  %c8 = "emitc.constant"() {value = 8 : index} : () -> (index)
  "emitc.for"(%c0, %c8, %c1) ({
  ^bb0(%j: index):
    %x = "emitc.load"(%a, %j) {strides = array<i64: 1>, offset = 0 : index, element_type = f32} : (memref<8xf32>, index) -> (f32)
    "emitc.store"(%x, %b, %c0) {strides = array<i64: 1>, offset = 0 : index, element_type = f32} : (f32, memref<1xf32>, index) -> ()
  }) : (index, index, index) -> ()
}) {sym_name = "same_address", kind = "kernel"} : () -> ()

"emitc.func"() ({
^bb0(%a: memref<1xf32>):
  %c0 = "emitc.constant"() {value = 0 : index} : () -> (index)
  %x = "emitc.load"(%a, %c0) {strides = array<i64: 1>, offset = 0 : index, element_type = f32} : (memref<1xf32>, index) -> (f32)
  "emitc.store"(%x, %a, %c0) {strides = array<i64: 1>, offset = 0 : index, element_type = f32} : (f32, memref<1xf32>, index) -> ()
}) {sym_name = "no_loop", kind = "kernel"} : () -> ()

"emitc.func"() ({
^bb0(%a: memref<64xf32>, %b: memref<1xf32>):
  %c0 = "emitc.constant"() {value = 0 : index} : () -> (index)
  %c1 = "emitc.constant"() {value = 1 : index} : () -> (index)
  %c64 = "emitc.constant"() {value = 64 : index} : () -> (index)
  "emitc.for"(%c0, %c64, %c1) ({
  ^bb0(%j: index):
    %x = "emitc.load"(%a, %j) {strides = array<i64: 1>, offset = 0 : index, element_type = f32} : (memref<64xf32>, index) -> (f32)
    %acc = "emitc.load"(%b, %c0) {strides = array<i64: 1>, offset = 0 : index, element_type = f32} : (memref<1xf32>, index) -> (f32)
    %s = "emitc.expression"(%acc, %x) {c = "{0} + {1}", source_op = "arith.addf"} : (f32, f32) -> (f32)
    "emitc.store"(%s, %b, %c0) {strides = array<i64: 1>, offset = 0 : index, element_type = f32} : (f32, memref<1xf32>, index) -> ()
  }) : (index, index, index) -> ()
}) {sym_name = "sum", kind = "kernel"} : () -> ()

"emitc.func"() ({
^bb0(%a: memref<64xf32>, %b: memref<1xf32>):
  %c0 = "emitc.constant"() {value = 0 : index} : () -> (index)
  %c1 = "emitc.constant"() {value = 1 : index} : () -> (index)
  %c64 = "emitc.constant"() {value = 64 : index} : () -> (index)
  "emitc.for"(%c0, %c64, %c1) ({
  ^bb0(%j: index):
    %x = "emitc.load"(%a, %j) {strides = array<i64: 1>, offset = 0 : index, element_type = f32} : (memref<64xf32>, index) -> (f32)
    %acc = "emitc.load"(%b, %c0) {strides = array<i64: 1>, offset = 0 : index, element_type = f32} : (memref<1xf32>, index) -> (f32)
    %s = "emitc.expression"(%acc, %x) {c = "{0} + {1}"} : (f32, f32) -> (f32)
    "emitc.store"(%s, %b, %c0) {strides = array<i64: 1>, offset = 0 : index, element_type = f32} : (f32, memref<1xf32>, index) -> ()
  }) : (index, index, index) -> ()
}) {sym_name = "opaque_combiner", kind = "kernel"} : () -> ()

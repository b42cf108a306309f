// The operand form of the direct convolution micro-kernel call (ireec/dialects/iree_codegen.py,
// ireec/passes/hal/direct_conv.py) is checked where the op is read: its window and strides,
// its phase counts (a zero would divide by zero in the kernel) and its index operands (an
// origin per dim of each buffer, then F, OH, OW and x_end).
// RUN: ireec opt %s --split-input-file --verify-diagnostics --pass-pipeline=canonicalize 2>&1 | filecheck %s --allow-empty
// CHECK-NOT: error:

func.func @no_strides(%w: memref<8x8x3x3xf32>, %x: memref<1x8x18x18xf32>, %o: memref<1x8x16x16xf32>, %i: index) {
  // expected-error @+1 {{needs 'strides' with 7 values}}
  "iree_codegen.ukernel.generic"(%w, %x, %o, %i, %i, %i, %i, %i, %i, %i, %i, %i, %i, %i, %i, %i, %i, %i, %i) {u_kernel_fn_name = "ireec_uk_conv", window = array<i64: 8, 3, 3>, accumulate = true} : (memref<8x8x3x3xf32>, memref<1x8x18x18xf32>, memref<1x8x16x16xf32>, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index) -> ()
  return
}

// -----

func.func @zero_phase(%w: memref<8x8x3x3xf32>, %x: memref<1x8x18x18xf32>, %o: memref<1x8x16x16xf32>, %i: index) {
  // expected-error @+1 {{'phases' needs phase counts of at least 1}}
  "iree_codegen.ukernel.generic"(%w, %x, %o, %i, %i, %i, %i, %i, %i, %i, %i, %i, %i, %i, %i, %i, %i, %i, %i) {u_kernel_fn_name = "ireec_uk_conv", window = array<i64: 8, 3, 3>, strides = array<i64: 324, 18, 1, 72, 18, 256, 16>, accumulate = true, phases = array<i64: 1, 0, 2, 0, 578, 289>} : (memref<8x8x3x3xf32>, memref<1x8x18x18xf32>, memref<1x8x16x16xf32>, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index) -> ()
  return
}

// -----

func.func @short_phases(%w: memref<8x8x3x3xf32>, %x: memref<1x8x18x18xf32>, %o: memref<1x8x16x16xf32>, %i: index) {
  // expected-error @+1 {{needs 'phases' with 6 values}}
  "iree_codegen.ukernel.generic"(%w, %x, %o, %i, %i, %i, %i, %i, %i, %i, %i, %i, %i, %i, %i, %i, %i, %i, %i) {u_kernel_fn_name = "ireec_uk_conv", window = array<i64: 8, 3, 3>, strides = array<i64: 324, 18, 1, 72, 18, 256, 16>, accumulate = true, phases = array<i64: 1, 2, 2>} : (memref<8x8x3x3xf32>, memref<1x8x18x18xf32>, memref<1x8x16x16xf32>, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index) -> ()
  return
}

// -----

func.func @no_x_end(%w: memref<8x8x3x3xf32>, %x: memref<1x8x18x18xf32>, %o: memref<1x8x16x16xf32>, %i: index) {
  // expected-error @+1 {{expects 16 index operands after its buffers (tile origins, F, OH, OW, x_end), got 15}}
  "iree_codegen.ukernel.generic"(%w, %x, %o, %i, %i, %i, %i, %i, %i, %i, %i, %i, %i, %i, %i, %i, %i, %i) {u_kernel_fn_name = "ireec_uk_conv", window = array<i64: 8, 3, 3>, strides = array<i64: 324, 18, 1, 72, 18, 256, 16>, accumulate = true} : (memref<8x8x3x3xf32>, memref<1x8x18x18xf32>, memref<1x8x16x16xf32>, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index) -> ()
  return
}

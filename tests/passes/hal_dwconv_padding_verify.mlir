// The operand form of the padded depthwise micro-kernel call (ireec/dialects/iree_codegen.py,
// ireec/passes/hal/cpu_lower_to_ukernels.py) is checked where the op is read: with `padding`
// (8 values) the call takes two more index operands after C, OH, OW.
// RUN: ireec opt %s --split-input-file --verify-diagnostics --pass-pipeline=canonicalize 2>&1 | filecheck %s --allow-empty
// CHECK-NOT: error:

func.func @padding_without_its_operands(%x: memref<1x32x32x48xf32>, %w: memref<3x3x48xf32>, %o: memref<1x16x16x48xf32>, %i: index) {
  // expected-error @+1 {{expects 16 index operands after its buffers (tile origins, C, OH, OW, PT, PL), got 14}}
  "iree_codegen.ukernel.generic"(%x, %w, %o, %i, %i, %i, %i, %i, %i, %i, %i, %i, %i, %i, %i, %i, %i) {u_kernel_fn_name = "ireec_uk_dwconv", strides = array<i64: 1, 3072, 96, 1536, 48, 1, 144, 48, 1, 768, 48>, window = array<i64: 3, 3>, accumulate = false, padding = array<i64: 32, 32, 2, 2, 1, 1, 1536, 48>} : (memref<1x32x32x48xf32>, memref<3x3x48xf32>, memref<1x16x16x48xf32>, index, index, index, index, index, index, index, index, index, index, index, index, index, index) -> ()
  return
}

// -----

func.func @short_padding(%x: memref<1x32x32x48xf32>, %w: memref<3x3x48xf32>, %o: memref<1x16x16x48xf32>, %i: index) {
  // expected-error @+1 {{needs 'padding' with 8 values}}
  "iree_codegen.ukernel.generic"(%x, %w, %o, %i, %i, %i, %i, %i, %i, %i, %i, %i, %i, %i, %i, %i, %i, %i, %i) {u_kernel_fn_name = "ireec_uk_dwconv", strides = array<i64: 1, 3072, 96, 1536, 48, 1, 144, 48, 1, 768, 48>, window = array<i64: 3, 3>, accumulate = false, padding = array<i64: 32, 32, 2, 2, 1, 1, 1536>} : (memref<1x32x32x48xf32>, memref<3x3x48xf32>, memref<1x16x16x48xf32>, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index) -> ()
  return
}

// An unknown pass name is refused before the input is read, with the known names listed.
// RUN: not ireec opt %s --pass-pipeline=canonicalize,no-such-pass 2>&1 | filecheck %s --check-prefix=UNKNOWN
// UNKNOWN: error: unknown pass 'no-such-pass'; known passes: inline,
// UNKNOWN-SAME: canonicalize,
// UNKNOWN-SAME: iree-stream-schedule-allocation,

// MLIR's nested pipeline syntax is accepted: passes nest under op anchors.
// RUN: ireec opt %s --pass-pipeline="builtin.module(func.func(canonicalize))" | filecheck %s --check-prefix=NESTED
// NESTED-LABEL: func.func @f
// NESTED-NEXT:    %[[C:[0-9]+]] = arith.constant 3 : index
// NESTED-NEXT:    return %[[C]] : index

// Pass options are refused: no ireec pass takes any.
// RUN: not ireec opt %s --pass-pipeline="canonicalize{max-iterations=1}" 2>&1 | filecheck %s --check-prefix=OPTIONS
// OPTIONS: error: pass options ('{...}') are not supported

func.func @f() -> index {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %0 = arith.addi %c1, %c2 : index
  return %0 : index
}

// Verifier diagnostics of the func dialect, one case per `// -----` chunk (MLIR's
// -split-input-file -verify-diagnostics convention).

func.func @f(%a: tensor<4xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'func.return' op type of return operand 0 ('tensor<4xf32>') doesn't match function result type ('tensor<2xf32>') in function @f}}
  return %a : tensor<4xf32>
}

// -----

func.func @g(%a: tensor<4xf32>) -> tensor<4xi32> {
  // expected-error @+1 {{'func.return' op type of return operand 0 ('tensor<4xf32>') doesn't match function result type ('tensor<4xi32>')}}
  return %a : tensor<4xf32>
}

// -----

func.func @h(%a: f32) -> (f32, f32) {
  // expected-error @+1 {{'func.return' op has 1 operands, but enclosing function (@h) returns 2}}
  return %a : f32
}

// -----

func.func private @callee(f32) -> f32
func.func @caller(%a: i32) -> f32 {
  // expected-error @+1 {{'func.call' op operand type mismatch: expected operand type 'f32', but provided 'i32' for operand number 0}}
  %0 = call @callee(%a) : (i32) -> f32
  return %0 : f32
}

// -----

// expected-error @+1 {{'func.func' op entry block must have 1 arguments to match function signature}}
"func.func"() ({
^bb0(%a: f32, %b: f32):
  "func.return"(%a) : (f32) -> ()
}) {sym_name = "generic", function_type = (f32) -> f32} : () -> ()

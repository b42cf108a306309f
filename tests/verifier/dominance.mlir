// Dominance: a use needs its definition earlier in the block, in a dominating block or in an
// enclosing region; isolated regions see nothing from outside.

func.func @use_before_def(%a: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{operand #0 does not dominate this use}}
  %0 = arith.addi %1, %a : tensor<4xi32>
  %1 = arith.addi %a, %a : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @not_dominating_block(%c: i1, %a: i32) -> i32 {
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %x = arith.addi %a, %a : i32
  cf.br ^bb3
^bb2:
  cf.br ^bb3
^bb3:
  // expected-error @+1 {{'func.return' op operand #0 does not dominate this use}}
  return %x : i32
}

// -----

func.func @unregistered_op_regions_are_graph_regions(%a: i32) -> i32 {
  "test.graph"() ({
    %0 = "test.use"(%1) : (i32) -> i32
    %1 = "test.def"() : () -> i32
  }) : () -> ()
  return %a : i32
}

// -----

func.func @nested_region_sees_outer_values(%a: tensor<4xf32>, %n: index) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %a) -> (tensor<4xf32>) {
    %s = arith.addf %acc, %a : tensor<4xf32>
    scf.yield %s : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @loop_result_used_inside(%a: i32, %n: index) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %a) -> (i32) {
    // expected-error @+1 {{operand #1 does not dominate this use}}
    %s = arith.addi %acc, %r : i32
    scf.yield %s : i32
  }
  return %r : i32
}

// -----

func.func @later_functions_are_visible() -> f32 {
  %0 = call @later() : () -> f32
  return %0 : f32
}
func.func private @later() -> f32

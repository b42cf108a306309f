// scf and cf: region terminators, yielded types, successor operands.

func.func @for_yield(%a: f32, %n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %a) -> (f32) {
    %x = arith.index_cast %i : index to i32
    // expected-error @+1 {{'scf.yield' op type of yielded value #0 ('i32') doesn't match the result type ('f32') of the parent 'scf.for'}}
    scf.yield %x : i32
  }
  return %r : f32
}

// -----

func.func @if_condition(%c: i32, %a: f32) -> f32 {
  // expected-error @+1 {{'scf.if' op operand #0 must be 1-bit signless integer, but got 'i32'}}
  %r = "scf.if"(%c) ({
    scf.yield %a : f32
  }, {
    scf.yield %a : f32
  }) : (i32) -> f32
  return %r : f32
}

// -----

func.func @if_needs_else(%c: i1, %a: f32) -> f32 {
  // expected-error @+1 {{'scf.if' op must have an else block if defining values}}
  %r = "scf.if"(%c) ({
    scf.yield %a : f32
  }, {
  }) : (i1) -> f32
  return %r : f32
}

// -----

func.func @br_operands(%a: f32) -> f32 {
  // expected-error @+1 {{'cf.br' op branch has 0 operands for successor #0, but target block has 1}}
  cf.br ^bb1
^bb1(%x: f32):
  return %x : f32
}

// -----

func.func @cond_br_types(%c: i1, %a: f32, %i: i32) -> f32 {
  // expected-error @+1 {{'cf.cond_br' op type mismatch for bb argument #0 of successor #1: 'i32' vs 'f32'}}
  cf.cond_br %c, ^bb1(%a : f32), ^bb1(%i : i32)
^bb1(%x: f32):
  return %x : f32
}

// -----

func.func @terminator_not_last(%a: f32) -> f32 {
  // expected-error @+1 {{'func.return' op must be the last operation in the parent block}}
  return %a : f32
  return %a : f32
}

"""Analyses over emitc kernel code: what a value is, where a load or store reads or writes,
whether the iterations of a loop are independent, which expressions combine a reduction.

The loop passes of the vm phase (``iree-codegen-mark-independent-loops``,
``iree-llvmcpu-reassociate-fp-reductions``, ``iree-codegen-gpu-distribute``...) share them.
They read the ops' structure and the attributes the kernel lowering records for them
(``strides``/``offset`` of ``emitc.load``/``emitc.store``, ``source_op`` of
``emitc.expression``), never the C text of an expression.

Mirrors the dependence test of MLIR's ``affine-parallelize`` (``AffineParallelize.cpp``:
``isLoopParallel``) on ``emitc.for`` loops. The tests are conservative: no calls or verbatim
C, no assignment to outer scalars, and for each array a loop stores to, every access uses the
same address, which moves with the induction variable.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Set, Tuple

from ..ir import types as T
from ..ir.core import Operation, Value

#: ``source_op`` of the ``emitc.expression`` combiners a reduction may apply in any order
#: (commutative and associative up to floating-point rounding): +, *, &, |, ^ (float, and
#: integer through unsigned), IEEE and NaN-propagating max/min, signed integer max/min.
REORDERABLE_COMBINERS = frozenset({
    "arith.addf", "arith.mulf", "arith.addi", "arith.muli", "arith.andi", "arith.ori", "arith.xori",
    "arith.maximumf", "arith.minimumf", "arith.maxnumf", "arith.minnumf", "arith.maxsi", "arith.minsi",
})


def defined_inside(op: Operation) -> Set[Value]:
    """Every value defined in ``op``'s regions (block arguments and op results, nested
    regions included)."""
    out: Set[Value] = set()
    for r in op.regions:
        for blk in r.blocks:
            out.update(blk.args)
            for o in blk.ops:
                out.update(o.results)
                out |= defined_inside(o)
    return out


def constant_value(v: Value) -> Optional[int]:
    """The value of ``v`` when an ``emitc.constant`` defines it, else None."""
    o = v.owner
    if isinstance(o, Operation) and o.name == "emitc.constant":
        return o.attributes["value"].value
    return None


def int_constant(v: Value) -> Optional[int]:
    """The value of an integer ``emitc.constant`` (None for anything else, floats included)."""
    o = v.owner
    if getattr(o, "name", None) != "emitc.constant":
        return None
    val = getattr(o.attributes.get("value"), "value", None)
    return val if isinstance(val, int) else None


def trip_count(loop: Operation) -> Optional[int]:
    """Iterations of an ``emitc.for`` with constant bounds and a positive step, else None."""
    lb, ub, step = (int_constant(v) for v in loop.operands[:3])
    if None in (lb, ub, step) or step <= 0:
        return None
    return max(0, -(-(ub - lb) // step))


def runs_at_least_once(loop: Operation) -> bool:
    """Whether an ``emitc.for`` has constant bounds with ``lb < ub``."""
    lb, ub = (constant_value(x) for x in loop.operands[:2])
    return lb is not None and ub is not None and lb < ub


def source_op(o: Operation) -> Optional[str]:
    """The arith/math op an ``emitc.expression`` computes (its ``source_op``), or None."""
    src = o.attributes.get("source_op")
    return src.value if src is not None else None


def access_indices(o: Operation) -> List[Value]:
    """The subscript operands of an ``emitc.load`` (after the array) or ``emitc.store``
    (after the value and the array)."""
    return list(o.operands[1:] if o.name == "emitc.load" else o.operands[2:])


def accessed_array(o: Operation) -> Optional[Value]:
    """The array an ``emitc.load``/``emitc.store`` accesses; None for other ops."""
    if o.name == "emitc.load":
        return o.operands[0]
    if o.name == "emitc.store":
        return o.operands[1]
    return None


def access_address(o: Operation) -> Tuple[tuple, int, tuple]:
    """(strides, offset, index operands) of an ``emitc.load``/``emitc.store``: two accesses
    with equal addresses touch the same element in every iteration."""
    return (tuple(o.attributes["strides"].value), o.attributes["offset"].value, tuple(access_indices(o)))


def shift_of(i: Value, iv: Value, inside: Set[Value]) -> bool:
    """True when ``i`` is the induction variable ``iv`` plus or minus loop-invariant values
    (values not in ``inside``), so a subscript ``i`` is injective in ``iv``: index
    ``arith.addi`` / ``arith.subi`` expressions (their ``source_op``) over it."""
    if i is iv:
        return True
    o = i.owner
    if not (isinstance(o, Operation) and o.name == "emitc.expression" and len(o.operands) == 2
            and isinstance(o.results[0].type, T.IndexType)):
        return False
    src = source_op(o)
    a, b = o.operands
    if src == "arith.addi":
        return (shift_of(a, iv, inside) and b not in inside) or (shift_of(b, iv, inside) and a not in inside)
    if src == "arith.subi":
        return shift_of(a, iv, inside) and b not in inside
    return False


def stores_independent_except(loop: Operation, skip: Optional[Value]) -> bool:
    """True when, ignoring array ``skip``, the innermost ``loop`` has no loop-carried
    dependence: no nested control flow, calls, verbatim C or variables, and each other array
    it stores to is accessed at one address that moves with the induction variable through
    exactly one subscript, the others loop-invariant."""
    body = loop.body
    iv = body.args[0]
    inside = defined_inside(loop)
    accesses: Dict[Value, List[Operation]] = {}
    for o in body.ops:
        if o.regions or o.name in ("emitc.assign", "emitc.call_opaque", "emitc.verbatim", "emitc.variable"):
            return False
        base = accessed_array(o)
        if base is not None and base is not skip:
            accesses.setdefault(base, []).append(o)
    return all(_accesses_independent(ops, iv, inside) for ops in accesses.values())


def innermost_loop_independent(loop: Operation) -> bool:
    """True when the innermost ``loop`` stores something and no iteration depends on
    another (:func:`stores_independent_except` over every array)."""
    stored = any(o.name == "emitc.store" for o in loop.body.ops)
    return stored and stores_independent_except(loop, None)


def _accesses_independent(ops: List[Operation], iv: Value, inside: Set[Value]) -> bool:
    """Whether the loads and stores ``ops`` of one array in an innermost loop (induction
    variable ``iv``) carry no dependence: no store, or all at one address that moves with
    ``iv`` through exactly one subscript, the others loop-invariant."""
    if not any(o.name == "emitc.store" for o in ops):
        return True
    a0 = access_address(ops[0])
    if any(access_address(o) != a0 for o in ops):
        return False
    strides, _, idx = a0
    shifted = [shift_of(i, iv, inside) for i in idx]
    moves = [s != 0 for s in strides]
    if sum(1 for sh, m in zip(shifted, moves) if sh and m) != 1:
        return False
    return not any(not sh and i in inside for i, sh in zip(idx, shifted))


def iterations_independent(loop: Operation) -> bool:
    """True when the iterations of ``loop`` (an ``emitc.for``, nested loops allowed) touch
    disjoint memory, so they may run in any order or at once: no calls or verbatim C, no
    assignment to a variable defined outside the loop, and for each array defined outside
    the loop that the loop stores to, every access inside the loop uses the same subscripts,
    one of which (with a non-zero stride) is the induction variable plus or minus
    loop-invariant values; accesses stay in bounds (memref semantics), so distinct iterations
    touch distinct elements. Arrays the loop only reads are unconstrained."""
    iv = loop.body.args[0]
    inside = defined_inside(loop)
    accesses: Dict[Value, List[Operation]] = {}
    for o in loop.walk():
        if o is loop:
            continue
        if o.name in ("emitc.call_opaque", "emitc.verbatim"):
            return False
        if o.name == "emitc.assign" and o.operands[0] not in inside:
            return False
        base = accessed_array(o)
        if base is not None:
            accesses.setdefault(base, []).append(o)
    for base, ops in accesses.items():
        if base in inside or not any(o.name == "emitc.store" for o in ops):
            continue
        a0 = access_address(ops[0])
        if any(access_address(o) != a0 for o in ops):
            return False
        strides, _, idx = a0
        if not any(st != 0 and shift_of(i, iv, inside) for i, st in zip(idx, strides)):
            return False
    return True


def walks_contiguously(loop: Operation, exclude: Optional[Operation] = None) -> bool:
    """Whether some load or store of ``loop``'s body (other than ``exclude``) has a
    unit-stride subscript that is its induction variable plus invariant values."""
    iv = loop.body.args[0]
    inside = defined_inside(loop) - {iv}
    for o in loop.body.ops:
        if o.name not in ("emitc.load", "emitc.store") or o is exclude:
            continue
        idx = access_indices(o)
        if any(st == 1 and shift_of(i, iv, inside) for st, i in zip(o.attributes["strides"].value, idx)):
            return True
    return False


#: Ops a fold loop's body may hold (:func:`fold_into_element`).
_FOLD_BODY_OPS = ("emitc.constant", "emitc.expression", "emitc.load", "emitc.store")


def fold_into_element(loop: Operation):
    """When ``loop`` folds values into one element — its body holds pure ops and exactly one
    load and one store of that element (``out[i] = combine(out[i], z)``, the address
    invariant in the loop, ``combine`` an ``emitc.expression`` of the loop's body whose
    ``source_op`` is in :data:`REORDERABLE_COMBINERS`, the element read once) — return
    ``(load, store, combine, z)``; else None. The element type is not checked."""
    body = list(loop.body.ops)
    if any(o.regions or o.name not in _FOLD_BODY_OPS for o in body):
        return None
    stores = [o for o in body if o.name == "emitc.store"]
    if len(stores) != 1:
        return None
    st = stores[0]
    loads = [o for o in body if o.name == "emitc.load" and o.operands[0] is st.operands[1]]
    if len(loads) != 1 or access_address(loads[0]) != access_address(st):
        return None
    ld = loads[0]
    inside = defined_inside(loop)
    if any(v in inside for v in access_indices(st) + access_indices(ld)):
        return None
    x = ld.results[0]
    comb = st.operands[0].owner
    if (getattr(comb, "name", None) != "emitc.expression" or comb.parent is not loop.body
            or len(comb.operands) != 2 or list(comb.operands).count(x) != 1 or len(x.uses) != 1
            or source_op(comb) not in REORDERABLE_COMBINERS):
        return None
    z = comb.operands[1] if comb.operands[0] is x else comb.operands[0]
    return ld, st, comb, z

"""Erase the results, inits and inputs of ``linalg.generic`` ops that nothing needs.

Mirrors MLIR's ``EraseUnusedOperandsAndResults`` patterns
(mlir/lib/Dialect/Linalg/Transforms/EraseUnusedOperandsAndResults.cpp:
``populateEraseUnusedOperandsAndResultsPatterns``, the dead-result and unused-cycle rules), which
IREE applies before dispatch formation in ``iree-global-opt-erase-unused-linalg-operands``:

* a result without uses is dropped with its ``outs`` operand, its indexing map, its
  ``linalg.yield`` operand and the payload ops only it needs. The payload ops the kept results
  need are the backward slice of the kept yield operands; a dropped init's block argument may
  be read only outside that slice (by the ops feeding its own yield, as the running index of an
  argmax next to its max). An init whose block argument the slice reads stays, and so does its
  result (the cycle is live). At least one result stays (the first) when none is used.
* an input whose block argument the payload never reads is dropped with its map.

Either is done only while every loop keeps a static size from some remaining operand (the
loop-bound check of upstream's ``canOpOperandsBeDropped``). ``outs`` or inputs left unused on
the host (a ``linalg.fill`` of a ``tensor.empty`` that fed only the dropped init) are erased.

Example (torch's ``max.dim`` lowering, whose index result is unused)::

    %r:2 = linalg.generic ... ins(%x) outs(%max0, %idx0) {
    ^bb0(%in: f32, %m: f32, %i: i64):
      %k = linalg.index 1 : index
      %ki = arith.index_cast %k : index to i64
      %nm = arith.maximumf %in, %m : f32
      %gt = arith.cmpf ogt, %in, %m : f32
      %ni = arith.select %gt, %ki, %i : i64
      linalg.yield %nm, %ni : f32, i64
    }
    // becomes
    %r = linalg.generic ... ins(%x) outs(%max0) {
    ^bb0(%in: f32, %m: f32):
      %nm = arith.maximumf %in, %m : f32
      linalg.yield %nm : f32
    }
"""
from __future__ import annotations

from typing import List, Set

from ...dialects import linalg as L
from ...ir import types as T
from ...ir.core import Block, Operation, Value
from ..pass_base import Pass, PassContext, functions, register_pass
from .elementwise_op_fusion import _all_loops_sized, blocks_of

#: Host ops without side effects that may be erased once the rewrite leaves them unused.
_PURE_HOST_OPS = ("tensor.empty", "linalg.fill", "arith.constant")


def _slice_of(values: List[Value], body: Block) -> Set[Operation]:
    """The payload ops of ``body`` (top level) that ``values`` depend on, transitively;
    operands read inside the nested regions of an op count as that op's operands."""
    tops = {id(op): op for op in body.ops}
    seen: Set[Operation] = set()
    work = list(values)
    while work:
        v = work.pop()
        op = v.owner
        if not isinstance(op, Operation) or id(op) not in tops or op in seen:
            continue
        seen.add(op)
        for inner in op.walk():
            work.extend(inner.operands)
    return seen


def _reads(ops: Set[Operation]) -> Set[Value]:
    """Every value the ops in ``ops`` (with their nested regions) read."""
    out: Set[Value] = set()
    for op in ops:
        for inner in op.walk():
            out.update(inner.operands)
    return out


def _kept_outputs(op: Operation) -> List[int]:
    """Indices of the inits of generic ``op`` to keep: those whose result has uses, the
    first one if none has, and, to a fixed point, those whose block argument the payload
    slice of the kept yields reads."""
    n_in, n_out = len(L.inputs(op)), len(L.outputs(op))
    body = op.regions[0].blocks[0]
    yld = body.terminator
    kept = {j for j in range(n_out) if op.results[j].uses} or {0}
    while True:
        reads = _reads(_slice_of([yld.operands[j] for j in sorted(kept)], body))
        reads.update(yld.operands[j] for j in kept)
        more = {j for j in range(n_out) if j not in kept and body.args[n_in + j] in reads}
        if not more:
            return sorted(kept)
        kept |= more


def _erase_if_dead(v: Value) -> None:
    """Erase the pure host op defining ``v`` (and, recursively, its operands' definers) once
    none of its results is used."""
    op = v.owner
    if not (isinstance(op, Operation) and op.name in _PURE_HOST_OPS and op.parent is not None):
        return
    if any(r.uses for r in op.results):
        return
    operands = list(op.operands)
    op.erase()
    for o in operands:
        _erase_if_dead(o)


def erase_unused_operands_and_results(op: Operation) -> bool:
    """Rewrite generic ``op`` (tensor semantics) without its unused results and inputs; see
    the module docstring. Returns whether anything changed."""
    ins, outs = L.inputs(op), L.outputs(op)
    n_in, n_out = len(ins), len(outs)
    if len(op.results) != n_out or n_out == 0:
        return False
    body = op.regions[0].blocks[0]
    yld = body.terminator
    if yld is None or yld.name != "linalg.yield" or len(yld.operands) != n_out:
        return False
    maps = L.indexing_maps(op)
    keep_out = _kept_outputs(op)
    if len(keep_out) < n_out and not _all_loops_sized(
            ins + [outs[j] for j in keep_out], maps[:n_in] + [maps[n_in + j] for j in keep_out]):
        keep_out = list(range(n_out))
    live = _slice_of([yld.operands[j] for j in keep_out], body)
    dead_ops = [o for o in body.ops if o is not yld and o not in live]
    if len(keep_out) < n_out:
        yld.set_operands([yld.operands[j] for j in keep_out])
    for o in reversed(dead_ops):
        o.erase()
    keep_in = []
    for i in range(n_in):
        if body.args[i].uses:
            keep_in.append(i)
            continue
        rest = keep_in + list(range(i + 1, n_in))
        if not _all_loops_sized([ins[k] for k in rest] + [outs[j] for j in keep_out],
                                [maps[k] for k in rest] + [maps[n_in + j] for j in keep_out]):
            keep_in.append(i)
    if len(keep_in) == n_in and len(keep_out) == n_out:
        return bool(dead_ops)
    dropped = [ins[i] for i in range(n_in) if i not in keep_in] + \
              [outs[j] for j in range(n_out) if j not in keep_out]
    kept_args = [body.args[i] for i in keep_in] + [body.args[n_in + j] for j in keep_out]
    for a in reversed(list(body.args)):
        if a not in kept_args:
            body.erase_arg(a.index)
    region = op.regions.pop(0)
    attrs = {k: v for k, v in op.attributes.items()
             if k not in ("indexing_maps", "iterator_types", "operandSegmentSizes")}
    new = L.build_generic([ins[i] for i in keep_in], [outs[j] for j in keep_out],
                          [maps[i] for i in keep_in] + [maps[n_in + j] for j in keep_out],
                          L.iterator_types(op), region,
                          result_types=[op.results[j].type for j in keep_out],
                          attrs=attrs, loc=op.loc)
    op.parent.insert_before(op, new)
    for k, j in enumerate(keep_out):
        new.results[k].name_hint = op.results[j].name_hint
        op.results[j].replace_all_uses_with(new.results[k])
    op.erase()
    for v in dropped:
        _erase_if_dead(v)
    return True


def _on_tensors(op: Operation) -> bool:
    return all(isinstance(v.type, T.TensorType) for v in L.outputs(op))


@register_pass
class EraseUnusedLinalgOperandsPass(Pass):
    """IREE's ``iree-global-opt-erase-unused-linalg-operands`` (MLIR's
    ``EraseUnusedOperandsAndResults`` patterns): see the module docstring."""

    name = "iree-global-opt-erase-unused-linalg-operands"

    def run(self, module: Operation, ctx: PassContext) -> None:
        for f in functions(module):
            for blk in blocks_of(f):
                for op in list(blk.ops):
                    if op.parent is blk and op.name == "linalg.generic" and _on_tensors(op):
                        erase_unused_operands_and_results(op)

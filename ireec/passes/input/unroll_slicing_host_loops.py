"""Host ``scf.for`` loops with constant bounds whose bodies slice tensors at offsets computed
from the induction variable are unrolled, so every slice gets constant offsets.

Mirrors MLIR's full unrolling of ``scf.for`` (``mlir::loopUnrollFull`` in
mlir/Dialect/SCF/Utils/Utils.cpp): the body is cloned once per iteration in order, the
induction variable replaced by the iteration's constant and the ``iter_args`` by the values the
previous copy yields; the loop's results are the last copy's yields. IREE keeps such a loop on
the host and moves the slices with dynamic offsets into stream copies (``flow.tensor.slice`` /
``flow.tensor.update``); ireec's dispatches and host copies take static offsets, so a loop of
a recurrent network as ONNX exporters emit it (torch-mlir's onnx ``GRU``/``LSTM``: one
``tensor.extract_slice`` of step ``t`` of the sequence and one ``tensor.insert_slice`` of the
output per iteration) becomes the unrolled form other exporters write directly.

Unrolled: ``scf.for`` ops outside structured-op payloads whose lower bound, upper bound and
step are ``arith.constant`` values, with at most :data:`MAX_TRIP_COUNT` iterations and at most
:data:`MAX_UNROLLED_OPS` ops once unrolled, whose body (nested regions included) has a
``tensor.extract_slice``/``tensor.insert_slice`` with a dynamic offset, size or stride, or a
``tensor.extract``/``tensor.insert`` of a ranked tensor at a computed index. Other loops stay
loops (``convert-scf-to-cf`` makes them host branches). Canonicalization then folds the index
arithmetic of each copy into constants.
"""
from __future__ import annotations

from typing import Dict, List, Optional

from ...ir import types as T
from ...ir.attributes import IntegerAttr
from ...ir.core import Builder, Operation, Value
from ..pass_base import Pass, PassContext, functions, register_pass

#: Most iterations of a loop unrolled (a sequence length of recurrent networks).
MAX_TRIP_COUNT = 256
#: Most ops the unrolled copies of one loop may add (code size and compile time bound).
MAX_UNROLLED_OPS = 50_000

#: Ops whose offset (index) operands, when computed from the loop, call for unrolling:
#: {op name: number of leading operands that are tensors, the rest being indices}.
_SLICING = {"tensor.extract_slice": 1, "tensor.insert_slice": 2, "tensor.extract": 1, "tensor.insert": 2}


def _constant_index(v: Value) -> Optional[int]:
    op = v.owner
    if isinstance(op, Operation) and op.name == "arith.constant":
        a = op.attributes.get("value")
        if isinstance(a, IntegerAttr):
            return int(a.value)
    return None


def _trip_count(loop: Operation) -> Optional[int]:
    lb, ub, step = (_constant_index(v) for v in loop.operands[:3])
    if lb is None or ub is None or not step or step < 0:
        return None
    return max(0, -(-(ub - lb) // step))


def _slices_at_computed_offsets(loop: Operation) -> bool:
    for op in loop.walk():
        n = _SLICING.get(op.name)
        if n is not None and len(op.operands) > n:
            if op.name in ("tensor.extract", "tensor.insert") and not isinstance(
                    op.operands[n - 1].type, T.RankedTensorType):
                continue
            return True
    return False


def _inside_payload(op: Operation) -> bool:
    p = op.parent_op
    while p is not None and p.name not in ("func.func", "builtin.module"):
        if p.name.startswith("linalg.") or p.name.startswith("stablehlo.") or p.name.startswith("tosa."):
            return True
        p = p.parent_op
    return False


def unroll(loop: Operation, trip: int) -> None:
    """Replace ``scf.for`` ``loop`` (``trip`` iterations, constant bounds) by ``trip`` copies
    of its body."""
    lb, step = _constant_index(loop.operands[0]), _constant_index(loop.operands[2])
    body = loop.regions[0].blocks[0]
    carried: List[Value] = list(loop.operands[3:])
    b = Builder.before(loop)
    for i in range(trip):
        iv = b.create("arith.constant", [], [T.index], {"value": IntegerAttr(lb + i * step, T.index)}).result
        mapping: Dict[Value, Value] = {body.args[0]: iv}
        mapping.update(zip(body.args[1:], carried))
        for op in body.ops:
            if op.name == "scf.yield":
                carried = [mapping.get(v, v) for v in op.operands]
                break
            b.insert(op.clone(mapping))
    loop.replace_with(carried)


@register_pass
class UnrollSlicingHostLoopsPass(Pass):
    """Unroll host ``scf.for`` loops that slice tensors at computed offsets (module docstring)."""

    name = "ireec-unroll-slicing-host-loops"

    def run(self, module: Operation, ctx: PassContext) -> None:
        for f in functions(module):
            # Innermost first: an outer loop sees its inner loops already unrolled.
            for loop in reversed([op for op in f.walk() if op.name == "scf.for"]):
                if loop.parent is None or _inside_payload(loop):
                    continue
                trip = _trip_count(loop)
                if trip is None or trip > MAX_TRIP_COUNT or not _slices_at_computed_offsets(loop):
                    continue
                if trip * sum(1 for _ in loop.walk()) > MAX_UNROLLED_OPS:
                    continue
                unroll(loop, trip)

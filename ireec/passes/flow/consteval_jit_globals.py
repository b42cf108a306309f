"""Evaluate constant-only subgraphs at compile time.

Mirrors IREE's ``iree-consteval-jit-globals`` (with the ``iree-util-hoist-into-globals``
analysis that feeds it, GlobalOptimization): every tensor op whose operands are all constants
(weight transposes, reshapes, broadcasts, dtype conversions and dequantisation, elementwise
``linalg.generic`` on constants, matmuls of constants, slices) is computed now and replaced by
an ``arith.constant``, so no dispatch that reads only constants runs on every call and no
arena space holds a recomputed copy of a weight. IREE JIT-compiles the constant expressions
and runs them; ireec evaluates them with numpy
(:mod:`ireec.passes.common.constant_evaluator`, which models the generated C's numerics).

What counts as constant: ``arith.constant`` tensors (``dense``, ``dense_resource``, splats),
scalar ``arith.constant``s, and ``linalg.fill`` / ``tensor.splat`` of a constant scalar. An
init (``outs``) that the payload never reads may be a ``tensor.empty``. Ops are visited in
program order, so a chain of constant ops folds step by step.

Policy (IREE's ``HoistIntoGlobals`` with the GlobalOptimization hoistable-op interfaces):
every op of a constant tree is evaluated, and only its *leaves* (evaluated ops read by an op
that stays, or returned) become ``arith.constant``s; the ops read only by replaced ops simply
disappear. Fills, splats and empties are never folded on their own (dispatch formation clones
them for free), and reshapes and pure broadcasts are not materialized as leaves
(:func:`is_metadata_leaf`) where every reader is an elementwise op that fusion folds them
into, or where a broadcast's one reader takes it as the init of a reduction or contraction
(dispatch formation pulls it into that dispatch: a bias is written into the accumulator tile,
not stored at the output's size); read as a matmul operand, by several ops or returned they
are materialized, since ireec's dispatch formation does not fuse producers there. A result that is a splat stays a splat attribute (one element
stored), and one of more than ``MAX_POOLED_SPLAT_ELEMENTS`` elements becomes a
``linalg.fill`` like the input phase's large splats. A non-splat result of more than
:data:`MAX_RESULT_BYTES`, a leaf growing the constant data by more than
:data:`MAX_SIZE_INCREASE_BYTES` (IREE's ``--iree-opt-const-expr-max-size-increase-threshold``
default), and any op the evaluator does not model are left to run.
"""
from __future__ import annotations

from typing import Dict, List, Optional

import numpy as np

from ...dialects import linalg as L
from ...ir import types as T
from ...ir.attributes import DenseArrayAttr, DenseResourceAttr, FloatAttr, IntegerAttr
from ...ir.core import Builder, Operation, Value
from ..common import constant_evaluator as CE
from ..input.convert_splat_constants_to_fills import MAX_POOLED_SPLAT_ELEMENTS
from .form_dispatch_regions import is_broadcast_producer
from ..pass_base import Pass, PassContext, defined_functions, register_pass

#: Largest non-splat result (bytes) evaluated into a constant: 1 GiB (a weight transpose of
#: a 100 M-parameter model is 330 MB; the constant pool may hold 2 GiB).
MAX_RESULT_BYTES = 1 << 30
#: Most bytes a folded op may add to the constant data (result minus the non-splat constant
#: operands it replaces): IREE's const-expr max size increase threshold (1 MiB).
MAX_SIZE_INCREASE_BYTES = 1 << 20
#: Constant sources never folded themselves (fills, splats and empties are cheap and cloned
#: into dispatches); erased when folding leaves them unused.
_LEAVES = {"linalg.fill", "tensor.splat", "tensor.empty", "arith.constant"}


def _nbytes(a: np.ndarray) -> int:
    return 0 if CE.is_splat(a) else a.size * a.dtype.itemsize


class _Folder:
    """Constant values of one function and the folding of its ops."""

    def __init__(self, resources: Dict[str, bytes]):
        self.resources = resources
        self.known: Dict[Value, Optional[np.ndarray]] = {}
        self.pending: List[tuple] = []  # (op, operand values) evaluated, in program order
        self.folded = 0

    def const_of(self, v: Value) -> Optional[np.ndarray]:
        """The value of ``v`` when it is a constant (evaluation dtype), else None."""
        if v in self.known:
            return self.known[v]
        a = None
        op = v.owner
        if isinstance(op, Operation):
            try:
                a = self._leaf_value(op, v)
            except CE.Unsupported:
                a = None
        self.known[v] = a
        return a

    def _leaf_value(self, op: Operation, v: Value) -> Optional[np.ndarray]:
        t = v.type
        if op.name == "arith.constant":
            return CE.attr_array(op.attributes.get("value"), t, self.resources)
        if op.name in ("linalg.fill", "tensor.splat") and isinstance(t, T.TensorType) and t.has_static_shape:
            s = self.const_of(op.operands[0])
            if s is None or s.ndim != 0:
                return None
            return np.broadcast_to(s.astype(CE.eval_dtype(t.element_type)), t.shape)
        return None

    def scalar(self, v: Value) -> np.ndarray:
        """A value captured by a payload: a constant scalar, or a constant tensor (which the
        evaluator lets only ``tensor.extract`` read), else Unsupported."""
        a = self.const_of(v)
        if a is None or (a.ndim != 0 and not isinstance(v.type, T.TensorType)):
            raise CE.Unsupported("payload captures a non-constant value")
        return a

    def operands_of(self, op: Operation) -> Optional[List[Optional[np.ndarray]]]:
        """Constant operand values of ``op`` (None for an unread ``tensor.empty`` init), or None
        when some operand is not constant."""
        structured = L.is_linalg_structured(op)
        n_in = len(L.inputs(op)) if structured else len(op.operands)
        vals: List[Optional[np.ndarray]] = []
        for i, v in enumerate(op.operands):
            a = self.const_of(v)
            if a is None:
                own = v.owner
                empty = isinstance(own, Operation) and own.name == "tensor.empty"
                read = structured and i >= n_in and empty and bool(L.payload(op).args[i].uses)
                if empty and v.type.has_static_shape and (read or (op.name == "tensor.insert_slice" and i == 1)):
                    # A concatenation's first insert into an empty, or a payload reading its
                    # empty init: the elements are undefined, zero is as good a value as any.
                    a = np.zeros(v.type.shape, CE.eval_dtype(v.type.element_type))
                elif not (structured and i >= n_in and empty) or read:
                    return None
            vals.append(a)
        return vals

    def try_evaluate(self, op: Operation) -> bool:
        """Evaluate ``op`` when all its operands are constants; its results become known
        constants and it joins :attr:`pending`. Returns whether it did."""
        if op.name in _LEAVES or not (L.is_linalg_structured(op) or op.name in CE.TENSOR_OPS):
            return False
        if not op.results or any(not isinstance(r.type, T.TensorType) for r in op.results):
            return False
        vals = self.operands_of(op)
        if vals is None:
            return False
        try:
            results = CE.evaluate(op, vals, self.scalar)
        except CE.Unsupported:
            return False
        if any(_nbytes(r) > MAX_RESULT_BYTES for r in results):
            return False
        for r, arr in zip(op.results, results):
            self.known[r] = arr if arr.size == 0 or not CE.is_splat(arr) else np.broadcast_to(
                arr.reshape(-1)[:1].reshape(()), arr.shape)
        self.pending.append((op, vals))
        return True

    def apply(self) -> None:
        """Replace the evaluated ops: those read by an op that stays become constants (the
        leaves of the constant trees, IREE's hoisting roots) unless they only move data
        (:func:`is_metadata_leaf`) or grow the constant data too much; those read only by
        replaced ops disappear with them."""
        gone = set()  # ids of evaluated ops that are replaced or subsumed
        leaves = []
        for op, vals in reversed(self.pending):
            outside = any(id(u) not in gone for r in op.results for u in r.users)
            if not outside:
                gone.add(id(op))
                continue
            if is_metadata_leaf(op) and all(_fuses_into(u, r) for r in op.results for u, _ in r.uses):
                continue
            grown = (sum(_nbytes(self.known[r]) for r in op.results)
                     - sum(_nbytes(a) for a in vals if a is not None))
            if grown > MAX_SIZE_INCREASE_BYTES:
                continue
            gone.add(id(op))
            leaves.append(op)
        for op in reversed(leaves):
            b = Builder.before(op)
            new_values = [self._materialize(b, self.known[r], r.type) for r in op.results]
            for old, new in zip(op.results, new_values):
                old.replace_all_uses_with(new)
                self.known[new] = self.known[old]
        for op, _ in reversed(self.pending):
            if id(op) in gone and op.parent is not None and not any(r.uses for r in op.results):
                operands = list(op.operands)
                op.erase()
                _erase_dead_leaves(operands)
                self.folded += 1
        self.pending = []

    @staticmethod
    def _materialize(b: Builder, arr: np.ndarray, t: T.TensorType) -> Value:
        attr = CE.to_attr(arr, t)
        if attr.is_splat and t.num_elements > MAX_POOLED_SPLAT_ELEMENTS:
            et = t.element_type
            v = attr.splat_value()
            sattr = (FloatAttr(float(CE.attr_array(attr, t, {}).reshape(-1)[0]), et)
                     if isinstance(et, T.FloatType) else IntegerAttr(int(v), et))
            scalar = b.create("arith.constant", [], [et], {"value": sattr}).result
            empty = b.create("tensor.empty", [], [t]).result
            return b.create("linalg.fill", [scalar, empty], [t], {
                "operandSegmentSizes": DenseArrayAttr(T.i32, (1, 1))},
                regions=[L.build_named_region("fill", [et], [et], {})]).result
        return b.create("arith.constant", [], [t], {"value": attr}).result


def is_metadata_leaf(op: Operation) -> bool:
    """Ops never materialized as the leaf of a constant tree, as IREE's hoistable-op policy
    (GlobalOptimization/Interfaces/HoistableOpInterface.cpp) decides: reshapes and empties
    only re-describe data, and an op that only broadcasts (all loops parallel, the payload a
    bare ``linalg.yield``, an input map dropping dims or reading a unit dim at 0) is cheaper
    fused into its consumer than stored expanded. Inside a larger tree they still fold."""
    if op.name in ("tensor.expand_shape", "tensor.collapse_shape", "tensor.cast", "tensor.reshape",
                   "tensor.empty"):
        return True
    return L.is_pure_broadcast(op)


def _fuses_into(user: Operation, v: Value) -> bool:
    """Whether ``user`` reads ``v`` only as an input of an all-parallel structured op, which
    elementwise fusion folds it into, or ``v`` is a broadcast whose one use is the init of a
    reduction or contraction, which dispatch formation pulls into that root's dispatch
    (:func:`..flow.form_dispatch_regions.is_broadcast_producer`); another init, a contraction
    operand or a return keeps it a tensor."""
    if not L.is_linalg_structured(user):
        return False
    its = L.iterator_types(user)
    if v in L.outputs(user):
        return (L.REDUCTION in its and v not in L.inputs(user) and len(v.uses) == 1
                and isinstance(v.owner, Operation) and is_broadcast_producer(v.owner))
    if any(it != L.PARALLEL for it in its):
        return False
    return v in L.inputs(user)


def _erase_dead_leaves(values: List[Value]) -> None:
    work = list(values)
    while work:
        v = work.pop()
        op = v.owner
        if not isinstance(op, Operation) or op.parent is None or op.name not in _LEAVES:
            continue
        if any(r.uses for r in op.results):
            continue
        ins = list(op.operands)
        op.erase()
        work.extend(ins)


def _fold_block_ops(folder: _Folder, op: Operation) -> None:
    """Visit the ops nested in ``op`` in program order, skipping structured-op payloads."""
    for region in op.regions:
        for blk in region.blocks:
            for inner in list(blk.ops):
                if inner.parent is None:
                    continue
                if not folder.try_evaluate(inner) and inner.regions and not L.is_linalg_structured(inner) \
                        and inner.name != "tensor.pad":
                    _fold_block_ops(folder, inner)


def _drop_unused_resources(module: Operation) -> None:
    res = getattr(module, "resources", None)
    if not res:
        return
    used = set()
    for op in module.walk():
        for a in op.attributes.values():
            if isinstance(a, DenseResourceAttr):
                used.add(a.name)
    module.resources = {k: v for k, v in res.items() if k in used or k.startswith("__ireec")}


@register_pass
class ConstEvalJitGlobalsPass(Pass):
    """IREE's ``iree-consteval-jit-globals``: ops whose operands are all constants become
    constants computed at compile time (see the module docstring for the policy). Records
    ``consteval_folded_ops`` (how many ops were evaluated) in the report."""

    name = "iree-consteval-jit-globals"

    def run(self, module: Operation, ctx: PassContext) -> None:
        resources = getattr(module, "resources", {}) or {}
        folder = _Folder(resources)
        for f in defined_functions(module):
            _fold_block_ops(folder, f)
            folder.apply()
        if folder.folded:
            _drop_unused_resources(module)
        if ctx is not None:
            ctx.report["consteval_folded_ops"] = ctx.report.get("consteval_folded_ops", 0) + folder.folded

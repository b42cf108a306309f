"""Static shapes for StableHLO ops whose operands are static values behind a dynamic type.

Mirrors StableHLO's ``stablehlo-refine-shapes`` (written from the StableHLO spec's shape
rules, https://openxla.org/stablehlo/spec, not from its sources): programs such as IREE's
``flow.tensor.dynamic_constant`` tests build a value whose *type* is dynamic
(``tensor<?x?xf32>``) from a static one; after ``iree-util-drop-compiler-hints`` that is an
``arith.constant`` followed by a ``tensor.cast`` to the dynamic type. This pass walks the
StableHLO ops in order and

* folds a ``tensor.cast`` whose source is more static than its result into the StableHLO
  op using it (only when that op's result types can be recomputed, see below);
* recomputes the op's result types from the (now static) operand types with the spec's
  shape rules, joined with the declared types (a dimension static in either is static in
  the result; two different static sizes are a CompileError at the op);
* gives every result whose type changed a ``tensor.cast`` back to its old type for its
  users, so ops this pass does not refine (``scf``, ``func.return``, ``check``...) still see
  the type they were written against; StableHLO users fold that cast in turn, and
  ``canonicalize`` folds the remaining ones later;
* replaces ``get_dimension_size`` of a static dimension with a ``stablehlo.constant``.

Ops refined: the elementwise ops (unary, binary, ``compare``, ``select``, ``clamp``,
``convert``, same-width ``bitcast_convert``...), ``dot``, ``dot_general``, ``reduce``,
``broadcast_in_dim``, ``broadcast``, ``reshape``, ``transpose``, ``reverse``,
``concatenate``, ``slice``, ``pad``, ``dynamic_slice``, ``dynamic_update_slice``, ``sort``,
``optimization_barrier``, ``scatter`` (a dynamic number of updates made static). Ops nested in the scalar bodies of reduce-like ops are left alone
(their values are rank-0). Dynamic function arguments stay dynamic: nothing here makes
them static, and the StableHLO conversion reports them.
"""
from __future__ import annotations

from typing import Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from ...dialects import stablehlo as shlo
from ...ir import types as T
from ...ir.attributes import DenseElementsAttr
from ...ir.core import Builder, Operation, Value
from ...ir.diagnostics import CompileError
from ..pass_base import Pass, PassContext, is_attached, register_pass
from .convert_stablehlo_to_linalg import _in_body

Shape = Tuple[Optional[int], ...]

# ---------------------------------------------------------------------- type helpers


def _ranked(t) -> bool:
    return isinstance(t, T.TensorType) and t.shape is not None


def _is_refinement(src: T.Type, dst: T.Type) -> bool:
    """Whether ranked tensor type ``src`` is ``dst`` with some dynamic dims made static
    (same element type and rank, every static dim of ``dst`` equal in ``src``), and
    strictly more static."""
    if not (_ranked(src) and _ranked(dst)) or src.element_type != dst.element_type:
        return False
    if len(src.shape) != len(dst.shape):
        return False
    for a, b in zip(src.shape, dst.shape):
        if b is not None and a != b:
            return False
    return sum(d is None for d in src.shape) < sum(d is None for d in dst.shape)


def join_shapes(a: Shape, b: Shape, op: Operation) -> Shape:
    """Per-dimension join of two shapes of one rank: a dim static in either is static;
    two different static sizes raise CompileError at ``op``."""
    if len(a) != len(b):
        raise CompileError(f"'{op.name}': inferred rank {len(a)} differs from declared rank "
                           f"{len(b)}", op.loc)
    out = []
    for x, y in zip(a, b):
        if x is not None and y is not None and x != y:
            raise CompileError(f"'{op.name}': inferred shape {_fmt(a)} is incompatible with "
                               f"the declared shape {_fmt(b)}", op.loc)
        out.append(x if x is not None else y)
    return tuple(out)


def _fmt(shape: Shape) -> str:
    return "x".join("?" if d is None else str(d) for d in shape) or "scalar"


def _look_through_cast(v: Value) -> Value:
    """The source of ``tensor.cast`` ``v`` when it is a more static type of the same
    tensor, else ``v``."""
    o = v.owner
    if isinstance(o, Operation) and o.name == "tensor.cast" and _is_refinement(o.operands[0].type, v.type):
        return o.operands[0]
    return v


# ------------------------------------------------------------------ shape inference
# Each rule gets the op and its operand shapes (None for an unranked/non-tensor operand)
# and returns the inferred result shapes (dims may be None), or None when it cannot say.

Rule = Callable[[Operation, List[Optional[Shape]]], Optional[List[Shape]]]

_ELEMENTWISE = frozenset(
    f"stablehlo.{n}" for n in shlo.UNARY_ELEMENTWISE + shlo.BINARY_ELEMENTWISE + (
        "compare", "select", "clamp", "is_finite", "reduce_precision", "complex"))


def _elementwise(op: Operation, shapes):
    """All operands of the result's rank share its shape (rank-0 ``select`` predicates and
    ``clamp`` bounds broadcast and say nothing)."""
    rt = op.results[0].type
    if not _ranked(rt) or any(s is None for s in shapes):
        return None
    rank = len(rt.shape)
    out: Shape = tuple([None] * rank)
    for s in shapes:
        if len(s) == rank:
            out = join_shapes(out, s, op)
        elif len(s) != 0:
            return None
    return [out]


def _bitcast_convert(op: Operation, shapes):
    src, dst = op.operands[0].type, op.results[0].type
    if shapes[0] is None or not _ranked(dst):
        return None
    if T.bit_width(src.element_type) != T.bit_width(dst.element_type):
        return None  # the rank changes; left to the conversion
    return [shapes[0]]


def _same_as_first(op: Operation, shapes):
    return None if shapes[0] is None else [shapes[0]]


def _scattered_inputs(op: Operation, shapes):
    """``scatter``: each result has the shape of the input it updates (the leading operands;
    the indices and updates may be refined too, the results do not depend on them)."""
    return list(shapes[:len(op.results)])


def _each_operand(op: Operation, shapes):
    return None if any(s is None for s in shapes) else list(shapes)


def _dot(op: Operation, shapes):
    """``dot``: (m,k)x(k,n)→(m,n), (m,k)x(k)→(m), (k)x(k,n)→(n), (k)x(k)→()."""
    lhs, rhs = shapes
    if lhs is None or rhs is None or len(lhs) not in (1, 2) or len(rhs) not in (1, 2):
        return None
    return [tuple(lhs[:-1]) + tuple(rhs[1:])]


def _dot_general(op: Operation, shapes):
    """Batch dims (lhs order), then lhs free dims, then rhs free dims (spec §dot_general)."""
    lhs, rhs = shapes
    if lhs is None or rhs is None:
        return None
    d = shlo.dot_dimension_numbers(op)
    lb, rb = d["lhs_batching_dimensions"], d["rhs_batching_dimensions"]
    lc, rc = d["lhs_contracting_dimensions"], d["rhs_contracting_dimensions"]
    batch = [lhs[i] if lhs[i] is not None else rhs[j] for i, j in zip(lb, rb)]
    lfree = [lhs[i] for i in range(len(lhs)) if i not in lb and i not in lc]
    rfree = [rhs[i] for i in range(len(rhs)) if i not in rb and i not in rc]
    return [tuple(batch + lfree + rfree)]


def _reduce(op: Operation, shapes):
    """N inputs and N inits: result i is input i without the reduced ``dimensions``."""
    n = len(shapes) // 2
    dims = set(shlo.i64_list(op.attributes.get("dimensions")))
    out = []
    for s in shapes[:n]:
        if s is None:
            return None
        out.append(tuple(d for i, d in enumerate(s) if i not in dims))
    return out


def _broadcast_in_dim(op: Operation, shapes):
    """Result dim ``dims[j]`` is operand dim j unless that is 1 (then it may be anything);
    the other result dims come from the declared type."""
    rt = op.results[0].type
    if shapes[0] is None or not _ranked(rt):
        return None
    out: List[Optional[int]] = list(rt.shape)
    for j, d in enumerate(shlo.i64_list(op.attributes.get("broadcast_dimensions"))):
        if shapes[0][j] is not None and shapes[0][j] != 1:
            out[d] = shapes[0][j]
    return [tuple(out)]


def _broadcast(op: Operation, shapes):
    if shapes[0] is None:
        return None
    return [tuple(shlo.i64_list(op.attributes.get("broadcast_sizes"))) + tuple(shapes[0])]


def _reshape(op: Operation, shapes):
    """The declared shape, with its one dynamic dim (if one) solved from the element
    count of a static operand."""
    rt = op.results[0].type
    if shapes[0] is None or not _ranked(rt):
        return None
    out = list(rt.shape)
    unknown = [i for i, d in enumerate(out) if d is None]
    if len(unknown) == 1 and all(d is not None for d in shapes[0]):
        known = int(np.prod([d for d in out if d is not None], dtype=np.int64))
        total = int(np.prod(shapes[0], dtype=np.int64))
        if known > 0 and total % known == 0:
            out[unknown[0]] = total // known
    return [tuple(out)]


def _transpose(op: Operation, shapes):
    if shapes[0] is None:
        return None
    perm = shlo.i64_list(op.attributes.get("permutation"))
    return [tuple(shapes[0][p] for p in perm)]


def _concatenate(op: Operation, shapes):
    """Sizes along ``dimension`` add up; the other dims are shared."""
    if any(s is None for s in shapes) or not shapes:
        return None
    dim = int(op.attributes["dimension"].value)
    rank = len(shapes[0])
    out: List[Optional[int]] = [None] * rank
    for i in range(rank):
        if i == dim:
            sizes = [s[i] for s in shapes]
            out[i] = None if any(x is None for x in sizes) else sum(sizes)
        else:
            for s in shapes:
                out[i] = out[i] if out[i] is not None else s[i]
    return [tuple(out)]


def _slice(op: Operation, shapes):
    """ceil((limit - start) / stride) per dim (spec §slice), whatever the operand."""
    a = op.attributes
    starts = shlo.i64_list(a.get("start_indices"))
    limits = shlo.i64_list(a.get("limit_indices"))
    strides = shlo.i64_list(a.get("strides")) if "strides" in a else [1] * len(starts)
    return [tuple(max(0, -(-(hi - lo) // st)) for lo, hi, st in zip(starts, limits, strides))]


def _pad(op: Operation, shapes):
    """low + high + size + (size - 1) * interior for static operand dims (spec §pad)."""
    if shapes[0] is None:
        return None
    a = op.attributes
    low = shlo.i64_list(a.get("edge_padding_low"))
    high = shlo.i64_list(a.get("edge_padding_high"))
    inner = shlo.i64_list(a.get("interior_padding"))
    out = []
    for d, lo, hi, it in zip(shapes[0], low, high, inner):
        out.append(None if d is None else lo + hi + d + max(0, d - 1) * it)
    return [tuple(out)]


def _dynamic_slice(op: Operation, shapes):
    return [tuple(shlo.i64_list(op.attributes.get("slice_sizes")))]


RULES: Dict[str, Rule] = {name: _elementwise for name in _ELEMENTWISE}
RULES.update({
    "stablehlo.bitcast_convert": _bitcast_convert,
    "stablehlo.dot": _dot,
    "stablehlo.dot_general": _dot_general,
    "stablehlo.reduce": _reduce,
    "stablehlo.broadcast_in_dim": _broadcast_in_dim,
    "stablehlo.broadcast": _broadcast,
    "stablehlo.reshape": _reshape,
    "stablehlo.transpose": _transpose,
    "stablehlo.reverse": _same_as_first,
    "stablehlo.concatenate": _concatenate,
    "stablehlo.slice": _slice,
    "stablehlo.pad": _pad,
    "stablehlo.dynamic_slice": _dynamic_slice,
    "stablehlo.dynamic_update_slice": _same_as_first,
    "stablehlo.sort": _each_operand,
    "stablehlo.scatter": _scattered_inputs,
    "stablehlo.optimization_barrier": _each_operand,
})


def infer_result_shapes(op: Operation, operand_types: Sequence[T.Type]) -> Optional[List[Shape]]:
    """The result shapes of StableHLO ``op`` given ``operand_types`` (its operands' types,
    possibly more static than the current ones), joined with its declared result types;
    None when the op has no rule or a result is not a ranked tensor. CompileError when the
    inferred and declared shapes conflict."""
    rule = RULES.get(op.name)
    if rule is None or not all(_ranked(t) for t in op.result_types):
        return None
    shapes = [tuple(t.shape) if _ranked(t) else None for t in operand_types]
    inferred = rule(op, shapes)
    if inferred is None or len(inferred) != len(op.results):
        return None
    return [join_shapes(s, tuple(t.shape), op) for s, t in zip(inferred, op.result_types)]


# ------------------------------------------------------------------------- the pass


def _refine_op(op: Operation, created: List[Operation]) -> None:
    """Fold refining casts into ``op`` and make its result types as static as its operands
    imply; results that changed type get a ``tensor.cast`` back for their users."""
    if op.name == "stablehlo.get_dimension_size":
        src = _look_through_cast(op.operands[0])
        dim = int(op.attributes["dimension"].value)
        rt = op.results[0].type
        if _ranked(src.type) and 0 <= dim < len(src.type.shape) and src.type.shape[dim] is not None \
                and _ranked(rt) and rt.has_static_shape:
            value = DenseElementsAttr(np.full(rt.shape, src.type.shape[dim]), rt)
            c = Builder.before(op).create("stablehlo.constant", [], [rt], {"value": value})
            op.replace_with([c.result])
        return
    operands = [_look_through_cast(v) for v in op.operands]
    folded = any(a is not b for a, b in zip(operands, op.operands))
    if not folded and all(_ranked(t) and t.has_static_shape for t in op.result_types):
        return  # already static: nothing to refine (and nothing to re-check)
    shapes = infer_result_shapes(op, [v.type for v in operands])
    if shapes is None:
        return
    new_types = [T.TensorType(s, t.element_type, t.encoding) for s, t in zip(shapes, op.result_types)]
    changed = [n != t for n, t in zip(new_types, op.result_types)]
    if not any(changed) and not folded:
        return
    for i, v in enumerate(operands):
        if v is not op.operands[i]:
            op.set_operand(i, v)
    for r, new_t, ch in zip(op.results, new_types, changed):
        if not ch:
            continue
        old_t = r.type
        r.type = new_t
        if r.uses:
            cast = Builder.after(op).create("tensor.cast", [r], [old_t])
            r.replace_uses_if(cast.result, lambda user, c=cast: user is not c)
            created.append(cast)


@register_pass
class StableHloRefineShapesPass(Pass):
    """StableHLO's ``stablehlo-refine-shapes``: static result types for StableHLO ops whose
    operands are static values seen through ``tensor.cast`` (see the module docstring)."""

    name = "stablehlo-refine-shapes"

    def run(self, module: Operation, ctx: PassContext) -> None:
        created: List[Operation] = []
        for op in list(module.walk()):
            if not op.name.startswith("stablehlo.") or not is_attached(op, module) or _in_body(op):
                continue
            _refine_op(op, created)
        # Casts whose users all folded them are dead; drop them (and the folded sources').
        for cast in reversed(created):
            if not cast.results[0].uses:
                cast.erase()

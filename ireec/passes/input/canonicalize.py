"""Folds and shape refinement on tensors.

Mirrors MLIR's ``canonicalize`` (the folders and canonicalization patterns of the tensor,
arith and linalg dialects) as IREE runs it at the end of input conversion, plus the
static-shape inference MLIR does through ``tensor.cast`` folding:

* integer/index ``arith`` ops whose operands are constants fold to ``arith.constant``;
* ``tensor.dim`` of a static dim folds to a constant, of a dynamic dim of ``tensor.empty``
  (or ``flow.tensor.tie_shape``) to the SSA size, of a destination-style result to the dim of
  its init;
* constant SSA sizes/offsets of ``tensor.empty``, ``splat``, ``generate``, ``extract_slice``,
  ``insert_slice``, ``pad``, ``expand_shape`` and ``linalg.pack`` tiles move into the static
  attributes (MLIR's ``foldDynamicIndexList``);
* result types are refined to the most static type the operands imply (join of the declared
  type and the inferred one); a ``tensor.cast`` whose source and result then agree is folded
  away, as are ``flow.tensor.tie_shape`` and ``flow.tensor.dynamic_constant`` (which becomes an
  ``arith.constant``);
* side-effect-free ops left without uses are erased.

ireec's backend needs static shapes, so this is what lets programs that build dynamic
tensors from constants compile. Values used by ops this pass does not know (``scf``, ``cf``
...) keep their old type through a ``tensor.cast`` back to it, so the IR stays valid; the
result types of functions are refined to what their ``func.return`` returns.
"""
from __future__ import annotations

from typing import List, Optional, Sequence

from ...dialects.linalg import is_linalg_structured, outputs
from ...dialects.tensor import K_DYNAMIC, i64_array, reassociation, segment_sizes, split_segments
from ...ir import types as T
from ...ir.attributes import DenseElementsAttr, IntegerAttr, TypeAttr, wrap_int
from ...ir.core import Operation, Value
from ..pass_base import Pass, PassContext, apply_to_functions, register_pass

# Ops whose users may see a refined (more static) operand type without further change:
# their own result types are recomputed by this pass, or do not depend on operand shapes.
_FLEXIBLE_PREFIXES = ("tensor.", "linalg.", "check.", "flow.tensor.", "util.optimization_barrier",
                      "func.return", "hal.tensor.")
_DPS_OPS = {"linalg.pack", "linalg.unpack", "tensor.pack", "tensor.unpack"}
_DEAD_IF_UNUSED = {"arith.constant", "tensor.dim", "tensor.empty", "tensor.cast", "tensor.splat",
                   "flow.tensor.tie_shape", "tensor.extract", "tensor.from_elements"}
_INT_FOLDS = {
    "arith.addi": lambda a, b: a + b, "arith.subi": lambda a, b: a - b,
    "arith.muli": lambda a, b: a * b,
    "arith.divsi": lambda a, b: _tdiv(a, b), "arith.remsi": lambda a, b: a - b * _tdiv(a, b),
    "arith.floordivsi": lambda a, b: a // b, "arith.ceildivsi": lambda a, b: -((-a) // b),
    "arith.maxsi": max, "arith.minsi": min,
    "arith.andi": lambda a, b: a & b, "arith.ori": lambda a, b: a | b,
    "arith.xori": lambda a, b: a ^ b,
}
_UINT_FOLDS = {
    "arith.divui": lambda a, b: a // b, "arith.remui": lambda a, b: a % b,
    "arith.ceildivui": lambda a, b: -((-a) // b), "arith.maxui": max, "arith.minui": min,
}


def _tdiv(a: int, b: int) -> int:
    """C-style division rounding toward zero."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _width(t: T.Type) -> int:
    return 64 if isinstance(t, T.IndexType) else t.width


def _wrap(v: int, t: T.Type) -> int:
    """``v`` as the signed two's-complement value of ``t``'s width (i1: 0/1)."""
    w = _width(t)
    v &= (1 << w) - 1
    if w > 1 and v >= 1 << (w - 1):
        v -= 1 << w
    return v


def const_int(v: Value) -> Optional[int]:
    """The integer a scalar ``arith.constant`` defines (None otherwise)."""
    op = v.owner
    if isinstance(op, Operation) and op.name == "arith.constant":
        a = op.attributes.get("value")
        if isinstance(a, IntegerAttr) and isinstance(a.type, (T.IntegerType, T.IndexType)):
            return int(a.value)
    return None


def join_types(old: T.Type, new: T.Type) -> Optional[T.Type]:
    """The most static type compatible with both ``old`` and ``new`` (ranked tensors of the
    same rank and element type), ``old`` when ``new`` adds nothing, None on a conflict
    (two different static sizes)."""
    if not (isinstance(old, T.TensorType) and isinstance(new, T.TensorType)):
        return old
    if old.shape is None:
        return new if new.shape is not None and new.element_type == old.element_type else old
    if new.shape is None or len(new.shape) != len(old.shape) or new.element_type != old.element_type:
        return old
    dims = []
    for a, b in zip(old.shape, new.shape):
        if a is not None and b is not None and a != b:
            return None
        dims.append(a if a is not None else b)
    return T.TensorType(tuple(dims), old.element_type, old.encoding)


def _with_shape(t: T.TensorType, shape: Sequence[Optional[int]]) -> T.TensorType:
    return T.TensorType(tuple(shape), t.element_type, t.encoding)


def _static(v: int) -> Optional[int]:
    return None if v == K_DYNAMIC else v


class _Canonicalizer:
    def __init__(self, func: Operation):
        self.func = func
        self.changed = False

    # ------------------------------------------------------------- helpers
    def replace(self, op: Operation, values: Sequence[Value]) -> None:
        for r, v in zip(op.results, values):
            self.replace_value(r, v)
        op.erase()
        self.changed = True

    def replace_value(self, old: Value, new: Value) -> None:
        """Uses of ``old`` become ``new``; users that do not accept a different type get a
        ``tensor.cast`` of ``new`` back to ``old``'s type."""
        if new.type == old.type:
            old.replace_all_uses_with(new)
            return
        cast = None
        for user, i in list(old.uses):
            if user.name.startswith(_FLEXIBLE_PREFIXES):
                user.set_operand(i, new)
            else:
                if cast is None:
                    cast = Operation("tensor.cast", [new], [old.type], loc=user.loc)
                    owner = new.owner
                    if isinstance(owner, Operation):
                        owner.parent.insert_after(owner, cast)
                    else:
                        owner.insert(0, cast)
                user.set_operand(i, cast.results[0])

    def refine(self, v: Value, inferred: T.Type) -> None:
        """Make ``v``'s type the join of its type and ``inferred`` (if that is more static)."""
        new = join_types(v.type, inferred)
        if new is None or new == v.type:
            return
        if any(not u.name.startswith(_FLEXIBLE_PREFIXES) for u, _ in v.uses):
            # Users that keep the old type read it through a cast.
            old_t = v.type
            stuck = [(u, i) for u, i in v.uses if not u.name.startswith(_FLEXIBLE_PREFIXES)]
            v.type = new
            cast = Operation("tensor.cast", [v], [old_t], loc=v.owner.loc if isinstance(v.owner, Operation) else None)
            owner = v.owner
            if isinstance(owner, Operation):
                owner.parent.insert_after(owner, cast)
            else:
                owner.insert(0, cast)
            for u, i in stuck:
                u.set_operand(i, cast.results[0])
        else:
            v.type = new
        self.changed = True

    def constant(self, anchor: Operation, value: int, t: T.Type = T.index) -> Value:
        c = Operation("arith.constant", [], [t], {"value": IntegerAttr(value, t)}, loc=anchor.loc)
        anchor.parent.insert_before(anchor, c)
        return c.results[0]

    def fold_list(self, op: Operation, attr: str, values: Sequence[Value]) -> List[Value]:
        """Move constant entries of a DynamicIndexList into ``attr``; returns the SSA values
        that remain dynamic."""
        static = list(op.attributes[attr].value)
        it = iter(values)
        keep = []
        for k, s in enumerate(static):
            if s == K_DYNAMIC:
                v = next(it)
                c = const_int(v)
                if c is None:
                    keep.append(v)
                else:
                    static[k] = c
        if len(keep) != len(values):
            op.attributes[attr] = i64_array(static)
            self.changed = True
        return keep

    def fold_segmented(self, op: Operation, lists: Sequence[tuple]) -> None:
        """``lists``: (segment index, static attribute name) of each DynamicIndexList."""
        groups = split_segments(op)
        for seg, attr in lists:
            groups[seg] = self.fold_list(op, attr, groups[seg])
        new = [v for g in groups for v in g]
        if len(new) != len(op.operands):
            op.set_operands(new)
            op.attributes["operandSegmentSizes"] = segment_sizes(*(len(g) for g in groups))

    def fold_shape_operands(self, op: Operation, first: int) -> None:
        """Ops whose dynamic result dims are SSA operands ``first..`` in order (tensor.empty,
        splat, generate): constant sizes become static dims."""
        t = op.results[0].type
        if not isinstance(t, T.TensorType) or t.shape is None:
            return
        dyn = op.operands[first:]
        if len(dyn) != sum(d is None for d in t.shape):
            return
        it = iter(dyn)
        shape, keep = [], []
        for d in t.shape:
            if d is None:
                v = next(it)
                c = const_int(v)
                if c is None:
                    keep.append(v)
                shape.append(c)
            else:
                shape.append(d)
        if len(keep) == len(dyn):
            return
        op.set_operands(list(op.operands[:first]) + keep)
        old = op.results[0]
        saved = old.type
        old.type = _with_shape(t, shape)
        # Users that do not accept the refined type keep reading the old one.
        stuck = [(u, i) for u, i in old.uses if not u.name.startswith(_FLEXIBLE_PREFIXES)]
        if stuck:
            cast = Operation("tensor.cast", [old], [saved], loc=op.loc)
            op.parent.insert_after(op, cast)
            for u, i in stuck:
                u.set_operand(i, cast.results[0])
        self.changed = True

    # --------------------------------------------------------------- rules
    def visit(self, op: Operation) -> None:
        n = op.name
        if n in _INT_FOLDS or n in _UINT_FOLDS or n in ("arith.index_cast", "arith.index_castui",
                                                          "arith.extsi", "arith.extui", "arith.trunci"):
            self.fold_int(op)
        elif n == "arith.cmpi":
            self.fold_cmpi(op)
        elif n == "arith.select":
            self.fold_select(op)
        elif n == "tensor.dim":
            self.fold_dim(op)
        elif n in ("tensor.empty", "tensor.generate"):
            self.fold_shape_operands(op, 0)
        elif n == "tensor.splat":
            self.fold_shape_operands(op, 1)
        elif n == "tensor.cast":
            self.refine(op.results[0], op.operands[0].type)
            if op.results[0].type == op.operands[0].type:
                self.replace(op, [op.operands[0]])
            else:
                src = op.operands[0].owner
                if isinstance(src, Operation) and src.name == "tensor.cast":
                    op.set_operand(0, src.operands[0])  # cast(cast(x)) -> cast(x)
                    self.changed = True
        elif n == "flow.tensor.dynamic_constant":
            a = op.attributes["value"]
            c = Operation("arith.constant", [], [a.type], {"value": a}, loc=op.loc)
            op.parent.insert_before(op, c)
            self.replace(op, [c.results[0]])
        elif n == "flow.tensor.tie_shape":
            self.fold_shape_operands(op, 1)
            src = op.operands[0]
            t = join_types(op.results[0].type, src.type)
            if t is not None and t == src.type:
                self.replace(op, [src])
        elif n == "util.optimization_barrier":
            for v, r in zip(op.operands, op.results):
                self.refine(r, v.type)
        elif is_linalg_structured(op) or n in ("linalg.softmax",):
            for v, r in zip(outputs(op) if n != "linalg.softmax" else op.operands[1:], op.results):
                self.refine(r, v.type)
        elif n in _DPS_OPS:
            if "operandSegmentSizes" in op.attributes:
                self.fold_segmented(op, [(3, "static_inner_tiles")])
            if op.results:
                self.refine(op.results[0], op.operands[1].type)
        elif n == "tensor.insert":
            self.refine(op.results[0], op.operands[1].type)
        elif n == "tensor.extract_slice":
            self.fold_segmented(op, [(1, "static_offsets"), (2, "static_sizes"), (3, "static_strides")])
            self.refine_extract_slice(op)
        elif n == "tensor.insert_slice":
            self.fold_segmented(op, [(2, "static_offsets"), (3, "static_sizes"), (4, "static_strides")])
            self.refine(op.results[0], op.operands[1].type)
        elif n == "tensor.pad":
            self.fold_segmented(op, [(1, "static_low"), (2, "static_high")])
            self.refine_pad(op)
        elif n == "tensor.expand_shape":
            self.refine_expand(op)
        elif n == "tensor.collapse_shape":
            self.refine_collapse(op)
        elif n == "tensor.concat":
            self.refine_concat(op)
        elif n == "tensor.bitcast":
            src = op.operands[0].type
            if isinstance(src, T.TensorType) and src.shape is not None:
                self.refine(op.results[0], _with_shape(op.results[0].type, src.shape))
        elif n == "tensor.reshape":
            shp = op.operands[1].owner
            if isinstance(shp, Operation) and shp.name == "arith.constant":
                a = shp.attributes["value"]
                if isinstance(a, DenseElementsAttr):
                    dims = a.int_list()
                    self.refine(op.results[0], _with_shape(op.results[0].type, dims))

    def fold_int(self, op: Operation) -> None:
        vals = [const_int(v) for v in op.operands]
        if not op.results or any(v is None for v in vals):
            return
        rt = op.results[0].type
        if not isinstance(rt, (T.IntegerType, T.IndexType)) or _width(rt) > 64:
            return
        n = op.name
        st = op.operands[0].type
        if n in _INT_FOLDS or n in _UINT_FOLDS:
            if n in _UINT_FOLDS:
                m = (1 << _width(st)) - 1
                a, b = vals[0] & m, vals[1] & m
            else:  # the signed values the bits stand for (a constant may be written 255 : i8)
                a, b = _wrap(vals[0], st), _wrap(vals[1], st)
            if n in ("arith.divsi", "arith.remsi", "arith.floordivsi", "arith.ceildivsi",
                     "arith.divui", "arith.remui", "arith.ceildivui") and b == 0:
                return
            r = (_INT_FOLDS.get(n) or _UINT_FOLDS[n])(a, b)
        elif n in ("arith.extui", "arith.index_castui"):
            r = vals[0] & ((1 << _width(st)) - 1)
        elif n == "arith.extsi" and _width(st) == 1:  # true sign-extends to all ones
            r = -(vals[0] & 1)
        else:  # index_cast, extsi, trunci: sign-preserving, then wrapped to the result width
            r = _wrap(vals[0], st) if isinstance(st, (T.IntegerType, T.IndexType)) and _width(st) > 1 else vals[0]
        c = self.constant(op, wrap_int(r, rt), rt)
        self.replace(op, [c])

    def fold_cmpi(self, op: Operation) -> None:
        """``arith.cmpi`` of two integer/index constants (predicates in arith's enum order:
        eq ne slt sle sgt sge ult ule ugt uge)."""
        a, b = const_int(op.operands[0]), const_int(op.operands[1])
        t = op.operands[0].type
        if a is None or b is None or not isinstance(t, (T.IntegerType, T.IndexType)) or _width(t) > 64:
            return
        m = (1 << _width(t)) - 1
        ua, ub = a & m, b & m
        if _width(t) > 1:  # signed predicates compare the two's-complement values
            a, b = _wrap(a, t), _wrap(b, t)
        pred = op.attributes["predicate"].value
        r = [a == b, a != b, a < b, a <= b, a > b, a >= b, ua < ub, ua <= ub, ua > ub, ua >= ub][pred]
        self.replace(op, [self.constant(op, int(r), T.i1)])

    def fold_select(self, op: Operation) -> None:
        """``arith.select`` on a constant scalar condition picks its operand."""
        cond = op.operands[0]
        if isinstance(cond.type, T.ShapedType):
            return
        c = const_int(cond)
        if c is None:
            return
        self.replace(op, [op.operands[1] if c & 1 else op.operands[2]])

    def fold_dim(self, op: Operation) -> None:
        src, idx = op.operands
        k = const_int(idx)
        t = src.type
        if k is None or not isinstance(t, T.TensorType) or t.shape is None or not 0 <= k < len(t.shape):
            return
        if t.shape[k] is not None:
            self.replace(op, [self.constant(op, t.shape[k])])
            return
        d = src.owner
        if not isinstance(d, Operation):
            return
        if d.name in ("tensor.empty", "flow.tensor.tie_shape", "tensor.splat", "tensor.generate"):
            first = {"tensor.empty": 0, "tensor.generate": 0}.get(d.name, 1)
            pos = sum(1 for x in t.shape[:k] if x is None)
            dyn = d.operands[first:]
            if pos < len(dyn) and len(dyn) == sum(x is None for x in t.shape):
                self.replace(op, [dyn[pos]])
        elif d.name in ("tensor.cast", "util.optimization_barrier") or (
                is_linalg_structured(d) or d.name in _DPS_OPS or d.name in ("tensor.insert", "tensor.insert_slice")):
            if d.name in ("tensor.cast", "util.optimization_barrier"):
                base = d.operands[src.index] if d.name != "tensor.cast" else d.operands[0]
            elif d.name == "tensor.insert" or d.name in _DPS_OPS or d.name == "tensor.insert_slice":
                base = d.operands[1]
            else:
                base = outputs(d)[src.index]
            op.set_operand(0, base)
            self.changed = True

    def refine_extract_slice(self, op: Operation) -> None:
        sizes = [_static(s) for s in op.attributes["static_sizes"].value]
        rt = op.results[0].type
        if rt.shape is None:
            return
        r = len(rt.shape)
        if r == len(sizes):
            kept = sizes
        else:
            kept, j = [], 0
            for i, s in enumerate(sizes):
                remaining_sizes, remaining_res = len(sizes) - i, r - j
                if j < r and not (s == 1 and remaining_sizes > remaining_res and rt.shape[j] != 1) \
                        and (s is None or rt.shape[j] is None or s == rt.shape[j]):
                    kept.append(s)
                    j += 1
            if len(kept) != r:
                return
        self.refine(op.results[0], _with_shape(rt, kept))

    def refine_pad(self, op: Operation) -> None:
        src = op.operands[0].type
        if not isinstance(src, T.TensorType) or src.shape is None:
            return
        low = op.attributes["static_low"].value
        high = op.attributes["static_high"].value
        dims = [None if d is None or lo == K_DYNAMIC or hi == K_DYNAMIC else d + lo + hi
                for d, lo, hi in zip(src.shape, low, high)]
        self.refine(op.results[0], _with_shape(op.results[0].type, dims))

    def refine_expand(self, op: Operation) -> None:
        keep = self.fold_list(op, "static_output_shape", op.operands[1:])
        if len(keep) != len(op.operands) - 1:
            op.set_operands([op.operands[0]] + keep)
        static = [_static(s) for s in op.attributes["static_output_shape"].value]
        src = op.operands[0].type
        if isinstance(src, T.TensorType) and src.shape is not None:
            # One dynamic size per group follows from a static source dim.
            for g, d in zip(reassociation(op), src.shape):
                unknown = [i for i in g if static[i] is None]
                if d is not None and len(unknown) == 1:
                    rest = 1
                    for i in g:
                        if i != unknown[0]:
                            rest *= static[i]
                    if rest and d % rest == 0:
                        static[unknown[0]] = d // rest
        self.refine(op.results[0], _with_shape(op.results[0].type, static))
        # Entries now known from the type leave the SSA list.
        t = op.results[0].type
        old = list(op.attributes["static_output_shape"].value)
        if any(s == K_DYNAMIC and d is not None for s, d in zip(old, t.shape)):
            vals, it = [], iter(op.operands[1:])
            new = []
            for s, d in zip(old, t.shape):
                if s == K_DYNAMIC:
                    v = next(it)
                    if d is None:
                        vals.append(v)
                        new.append(s)
                    else:
                        new.append(d)
                else:
                    new.append(s)
            op.attributes["static_output_shape"] = i64_array(new)
            op.set_operands([op.operands[0]] + vals)
            self.changed = True

    def refine_collapse(self, op: Operation) -> None:
        src = op.operands[0].type
        if not isinstance(src, T.TensorType) or src.shape is None:
            return
        dims = []
        for g in reassociation(op):
            p = 1
            for i in g:
                if src.shape[i] is None:
                    p = None
                    break
                p *= src.shape[i]
            dims.append(p)
        self.refine(op.results[0], _with_shape(op.results[0].type, dims))

    def refine_concat(self, op: Operation) -> None:
        rt = op.results[0].type
        axis = op.attributes["dim"].value
        shapes = [v.type.shape for v in op.operands]
        if rt.shape is None or any(s is None for s in shapes):
            return
        dims = []
        for k in range(len(rt.shape)):
            col = [s[k] for s in shapes]
            if k == axis:
                dims.append(None if any(c is None for c in col) else sum(col))
            else:
                known = [c for c in col if c is not None]
                dims.append(known[0] if known else None)
        self.refine(op.results[0], _with_shape(rt, dims))


def _erase_dead(func: Operation) -> bool:
    changed = False
    for op in reversed(list(func.walk())):
        if op is func or op.parent is None:
            continue
        if op.results and all(not r.uses for r in op.results) and (
                op.name in _DEAD_IF_UNUSED or (op.name.startswith("arith.") and not op.regions)):
            op.erase()
            changed = True
    return changed


def _refine_signature(func: Operation) -> None:
    """Function results take the (joined) types of what every ``func.return`` returns."""
    ft = func.attributes.get("function_type")
    if ft is None:
        return
    rets = [op for op in func.walk() if op.name == "func.return" and op.parent_op is func]
    if not rets:
        return
    results = list(ft.value.results)
    for k, t in enumerate(results):
        new = t
        for r in rets:
            if k < len(r.operands):
                j = join_types(new, r.operands[k].type)
                new = j if j is not None else new
        results[k] = new
    if results != list(ft.value.results):
        func.attributes["function_type"] = TypeAttr(T.FunctionType(ft.value.inputs, tuple(results)))


def canonicalize_function(func: Operation) -> None:
    """Run the folds and refinements of this module on ``func`` to a fixed point."""
    for _ in range(100):
        c = _Canonicalizer(func)
        for op in list(func.walk()):
            if op is func or op.parent is None:
                continue
            c.visit(op)
        if not (_erase_dead(func) or c.changed):
            break
    _refine_signature(func)


@register_pass
class CanonicalizePass(Pass):
    """MLIR's ``canonicalize`` restricted to the tensor/arith folds and static-shape
    refinement described in the module docstring."""

    name = "canonicalize"

    def run(self, module: Operation, ctx: PassContext) -> None:
        apply_to_functions(module, canonicalize_function)


__all__ = ["CanonicalizePass", "canonicalize_function", "join_types", "const_int"]

"""StableHLO ops expanded into other StableHLO ops, which the next sweep of the conversion
lowers (the way IREE's StableHLO preprocessing and XLA's expander passes do it):

* ``cholesky`` (XLA's ``CholeskyExpander``, left-looking): a ``while`` over the columns
  ``j``; ``v = a[:, j] - L · L[j, :]``, column ``j`` of ``L`` is ``v / sqrt(v[j])`` on and
  below the diagonal. ``lower = false`` factors the transpose (the upper triangle of ``a``)
  and transposes back. The other triangle is zero; a matrix that is not positive definite
  gives NaNs (as XLA does).
* ``triangular_solve`` (XLA's ``TriangularSolveExpander``, by substitution): transposed
  ``a`` flips ``lower``; right-side systems ``x a = b`` are solved as ``aᵀ xᵀ = bᵀ``; then
  a ``while`` over the rows of ``x`` (forward for lower, backward for upper):
  ``x[i] = (b[i] - a[i, others] · x) / a[i, i]`` (no division with ``unit_diagonal``).
  Entries of ``a`` outside its triangle are never read.

  Inside those loops rows and columns are read as masked sums and written as selects
  (elementwise ops and reductions only, no gather of a tensor computed in the loop).
* ``batch_norm_training`` / ``batch_norm_grad``: the spec's formulas (reductions over every
  dimension but ``feature_index``, biased variance), as IREE's ``UnfuseBatchNorm`` does.
* ``einsum`` / ``unary_einsum`` (deprecated, as IREE's ``EinsumToDotGeneral``): labels only
  one operand has and the output lacks are summed first; then one ``dot_general`` (batch:
  labels of both operands and the output; contracting: of both operands only) and a
  ``transpose`` into the output's label order. Repeated labels within an operand
  (diagonals) are a CompileError.
* ``replica_id`` / ``partition_id``: 0 (a single-device program has one replica and one
  partition).
* collectives on a single device (``mhlo.num_replicas`` and ``mhlo.num_partitions`` absent
  or 1, so every process group holds one process): ``all_reduce``, ``all_gather``,
  ``reduce_scatter``, ``all_to_all``, ``collective_broadcast``, ``collective_reduce`` and
  ``cross-replica-sum``
  return their operands (a reduction or concatenation over one participant);
  ``collective_permute`` returns the operand when a pair sends process 0 to itself and zeros
  otherwise (the spec's result for a process no pair targets). A module exported for more
  replicas or partitions is a CompileError at the op.
* ``create_token`` / ``after_all``: tokens only order side effects between ops that take
  them; when no other op consumes them (the tokens feed only other token ops, or nothing)
  they order nothing and are erased. A token reaching any other op is a CompileError.
* ``tuple`` / ``get_tuple_element`` inside a function: each ``get_tuple_element`` of a
  ``tuple`` is the tuple's operand; tuples reaching other users are a CompileError.

Complex element types are not supported by these expansions (CompileError at the op).
"""
from __future__ import annotations

from typing import Callable, List, Optional, Sequence

from ....dialects import stablehlo as shlo
from ....ir import types as T
from ....ir.attributes import DenseArrayAttr, DenseElementsAttr, IntegerAttr
from ....ir.core import Block, Builder, Operation, Region, Value
from ....ir.diagnostics import CompileError

I64S = T.TensorType((), T.i64)


class _H:
    """Builds StableHLO ops at ``b`` (result types given or taken from the first operand)."""

    def __init__(self, b: Builder, loc):
        self.b, self.loc = b, loc

    def op(self, name: str, args: Sequence[Value], rt: T.Type = None, attrs=None, regions=()) -> Value:
        return self.b.create(f"stablehlo.{name}", list(args), [rt or args[0].type], attrs or {},
                             regions=list(regions)).result

    def const(self, value, t: T.TensorType) -> Value:
        return self.op("constant", [], t, {"value": DenseElementsAttr.splat(value, t)})

    def scalar(self, value: int) -> Value:
        return self.const(value, I64S)

    def bcast(self, v: Value, shape, dims) -> Value:
        t = T.TensorType(tuple(shape), v.type.element_type)
        return self.op("broadcast_in_dim", [v], t,
                       {"broadcast_dimensions": DenseArrayAttr(T.i64, tuple(dims))})

    def reshape(self, v: Value, shape) -> Value:
        return self.op("reshape", [v], T.TensorType(tuple(shape), v.type.element_type))

    def transpose_last2(self, v: Value) -> Value:
        r = v.type.rank
        perm = tuple(range(r - 2)) + (r - 1, r - 2)
        shape = tuple(v.type.shape[p] for p in perm)
        return self.op("transpose", [v], T.TensorType(shape, v.type.element_type),
                       {"permutation": DenseArrayAttr(T.i64, perm)})

    def dot(self, lhs: Value, rhs: Value, batch: int, lc: int, rc: int) -> Value:
        """``dot_general`` with the leading ``batch`` dims batched, contracting ``lc``/``rc``."""
        bd = tuple(range(batch))
        ls = [d for i, d in enumerate(lhs.type.shape) if i >= batch and i != lc]
        rs = [d for i, d in enumerate(rhs.type.shape) if i >= batch and i != rc]
        shape = tuple(lhs.type.shape[:batch]) + tuple(ls) + tuple(rs)
        return self.op("dot_general", [lhs, rhs], T.TensorType(shape, lhs.type.element_type),
                       {"dot_dimension_numbers": shlo.dot_attr(bd, bd, (lc,), (rc,))})

    def iota_is(self, shape, dim: int, idx: Value, direction: str = "EQ") -> Value:
        """i1 tensor of ``shape``: ``iota(dim) <direction> idx`` (``idx`` a rank-0 i64)."""
        it = T.TensorType(tuple(shape), T.i64)
        io = self.op("iota", [], it, {"iota_dimension": IntegerAttr(dim, T.i64)})
        return self.compare(io, self.bcast(idx, shape, ()), direction)

    def pick(self, v: Value, dim: int, idx: Value) -> Value:
        """``v`` indexed at ``idx`` along ``dim`` (that dimension dropped), as a masked sum:
        elementwise ops and a reduction only, no gather of a computed tensor."""
        keep = self.iota_is(v.type.shape, dim, idx)
        return self.reduce_sum(self.op("select", [keep, v, self.const(0.0, v.type)], v.type), [dim])

    def place(self, v: Value, dim: int, idx: Value, new: Value) -> Value:
        """``v`` with its slice at ``idx`` along ``dim`` replaced by ``new`` (``v``'s shape
        without ``dim``), as a select."""
        shape = v.type.shape
        at = self.iota_is(shape, dim, idx)
        dims = [d for d in range(len(shape)) if d != dim]
        return self.op("select", [at, self.bcast(new, shape, dims), v], v.type)

    def compare(self, a: Value, c: Value, direction: str) -> Value:
        return self.op("compare", [a, c], T.TensorType(tuple(a.type.shape), T.i1),
                       {"comparison_direction": shlo.enum_attr("comparison_direction", direction)})

    def reduce_sum(self, v: Value, dims: Sequence[int]) -> Value:
        et = v.type.element_type
        st = T.TensorType((), et)
        blk = Block([st, st])
        bb = Builder.at_end(blk)
        s = bb.create("stablehlo.add", [blk.args[0], blk.args[1]], [st]).result
        bb.create("stablehlo.return", [s], [])
        shape = tuple(d for i, d in enumerate(v.type.shape) if i not in dims)
        return self.b.create("stablehlo.reduce", [v, self.const(0.0, st)], [T.TensorType(shape, et)],
                             {"dimensions": DenseArrayAttr(T.i64, tuple(dims))},
                             regions=[Region([blk])]).result

    def fori(self, n: int, init: List[Value], body: Callable[["_H", Value, List[Value]], List[Value]]) -> List[Value]:
        """``stablehlo.while`` for ``i`` in ``0 .. n-1`` carrying ``init``; ``body(h, i, vals)``
        returns the next values."""
        types = [I64S] + [v.type for v in init]
        cond = Block(types)
        cb = _H(Builder.at_end(cond), self.loc)
        p = cb.compare(cond.args[0], cb.scalar(n), "LT")
        cb.b.create("stablehlo.return", [p], [])
        blk = Block(types)
        hb = _H(Builder.at_end(blk), self.loc)
        nxt = body(hb, blk.args[0], list(blk.args[1:]))
        i1 = hb.op("add", [blk.args[0], hb.scalar(1)])
        hb.b.create("stablehlo.return", [i1, *nxt], [])
        w = self.b.create("stablehlo.while", [self.scalar(0), *init], types, {},
                          regions=[Region([cond]), Region([blk])])
        return list(w.results[1:])


def _attr(op: Operation, name: str):
    """The value of attribute ``name``; CompileError at the op when it is missing."""
    a = op.attributes.get(name)
    if a is None or not hasattr(a, "value"):
        raise CompileError(f"'{op.name}' requires attribute '{name}'", op.loc)
    return a.value


def _float_tensor(op: Operation, v: Value, what: str, min_rank: int) -> T.TensorType:
    t = v.type
    if (not isinstance(t, T.TensorType) or not t.has_static_shape or t.rank < min_rank
            or not isinstance(t.element_type, T.FloatType)):
        raise CompileError(f"'{op.name}' needs a static float tensor of rank >= {min_rank} as {what}, "
                           f"got {t}", op.loc)
    return t


def lower_cholesky(op: Operation, b: Builder) -> List[Value]:
    """``cholesky`` (see the module docstring)."""
    a = op.operands[0]
    t = _float_tensor(op, a, "operand", 2)
    lower = bool(op.attributes["lower"].value) if "lower" in op.attributes else False
    h = _H(b, op.loc)
    n = t.shape[-1]
    batch = t.rank - 2
    bshape = tuple(t.shape[:batch])
    if not lower:
        a = h.transpose_last2(a)

    def column(hb: _H, j: Value, vals: List[Value]) -> List[Value]:
        (lmat,) = vals
        row = hb.pick(lmat, batch, j)  # L[j, :]
        lr = hb.dot(lmat, row, batch, batch + 1, batch)  # sum_k L[i, k] L[j, k]
        v = hb.op("subtract", [hb.pick(a, batch + 1, j), lr])  # a[:, j] - ...
        vj = hb.pick(v, batch, j)
        col = hb.op("divide", [v, hb.bcast(hb.op("sqrt", [vj]), bshape + (n,), range(batch))])
        keep = hb.iota_is(bshape + (n,), batch, j, "GE")
        col = hb.op("select", [keep, col, hb.const(0.0, col.type)], col.type)
        return [hb.place(lmat, batch + 1, j, col)]

    (res,) = h.fori(n, [h.const(0.0, t)], column)
    return [h.transpose_last2(res) if not lower else res]


def lower_triangular_solve(op: Operation, b: Builder) -> List[Value]:
    """``triangular_solve`` (see the module docstring)."""
    a, rhs = op.operands
    ta = _float_tensor(op, a, "a", 2)
    _float_tensor(op, rhs, "b", 2)
    attr = op.attributes
    left = bool(_attr(op, "left_side"))
    lower = bool(_attr(op, "lower"))
    unit = bool(_attr(op, "unit_diagonal"))
    trans = shlo.enum_value(attr.get("transpose_a")) or "NO_TRANSPOSE"
    h = _H(b, op.loc)
    if trans != "NO_TRANSPOSE":
        a, lower = h.transpose_last2(a), not lower
    if not left:  # x a = b  <=>  a^T x^T = b^T
        a, lower, rhs = h.transpose_last2(a), not lower, h.transpose_last2(rhs)
    m = ta.shape[-1]
    batch = ta.rank - 2
    bshape = tuple(ta.shape[:batch])
    k = rhs.type.shape[-1]

    def row(hb: _H, s: Value, vals: List[Value]) -> List[Value]:
        (x,) = vals
        i = s if lower else hb.op("subtract", [hb.scalar(m - 1), s])
        arow = hb.pick(a, batch, i)  # a[i, :]
        solved = hb.iota_is(bshape + (m,), batch, i, "LT" if lower else "GT")
        arow_s = hb.op("select", [solved, arow, hb.const(0.0, arow.type)], arow.type)
        acc = hb.dot(arow_s, x, batch, batch, batch)  # (B..., k)
        xi = hb.op("subtract", [hb.pick(rhs, batch, i), acc])
        if not unit:
            aii = hb.pick(arow, batch, i)
            xi = hb.op("divide", [xi, hb.bcast(aii, bshape + (k,), range(batch))])
        return [hb.place(x, batch, i, xi)]

    (x,) = h.fori(m, [h.const(0.0, rhs.type)], row)
    return [x if left else h.transpose_last2(x)]


def _feature_stats(h: _H, x: Value, fi: int):
    """(dims reduced, element count per feature, broadcast of a 1-D feature vector)."""
    t = x.type
    dims = [d for d in range(t.rank) if d != fi]
    count = 1
    for d in dims:
        count *= t.shape[d]

    def per_feature(v: Value) -> Value:
        return h.bcast(v, t.shape, (fi,))

    return dims, float(count), per_feature


def lower_batch_norm_training(op: Operation, b: Builder) -> List[Value]:
    """``batch_norm_training``: (normalized output, batch mean, biased batch variance)."""
    x, scale, offset = op.operands
    _float_tensor(op, x, "operand", 1)
    fi = int(_attr(op, "feature_index"))
    eps = float(_attr(op, "epsilon"))
    h = _H(b, op.loc)
    dims, count, pf = _feature_stats(h, x, fi)
    ft = scale.type
    n = h.const(count, ft)
    mean = h.op("divide", [h.reduce_sum(x, dims), n])
    centered = h.op("subtract", [x, pf(mean)])
    var = h.op("divide", [h.reduce_sum(h.op("multiply", [centered, centered]), dims), n])
    std = h.op("sqrt", [h.op("add", [var, h.const(eps, ft)])])
    out = h.op("add", [h.op("divide", [h.op("multiply", [centered, pf(scale)]), pf(std)]), pf(offset)])
    return [out, mean, var]


def lower_batch_norm_grad(op: Operation, b: Builder) -> List[Value]:
    """``batch_norm_grad`` by the spec's formulas: (grad_operand, grad_scale, grad_offset)."""
    x, scale, mean, var, gy = op.operands
    t = _float_tensor(op, x, "operand", 1)
    fi = int(_attr(op, "feature_index"))
    eps = float(_attr(op, "epsilon"))
    h = _H(b, op.loc)
    dims, count, pf = _feature_stats(h, x, fi)
    ft = scale.type
    var_eps = h.op("add", [var, h.const(eps, ft)])
    std = h.op("sqrt", [var_eps])
    centered = h.op("subtract", [x, pf(mean)])
    normalized = h.op("divide", [centered, pf(std)])
    grad_offset = h.reduce_sum(gy, dims)
    grad_scale = h.reduce_sum(h.op("multiply", [gy, normalized]), dims)
    i1 = h.op("multiply", [gy, h.const(count, t)])
    i3 = h.reduce_sum(h.op("multiply", [gy, centered]), dims)
    i5 = h.op("divide", [h.op("multiply", [pf(i3), centered]), pf(var_eps)])
    i6 = h.op("subtract", [h.op("subtract", [i1, pf(grad_offset)]), i5])
    coef = h.op("divide", [h.op("divide", [scale, std]), h.const(count, ft)])
    return [h.op("multiply", [pf(coef), i6]), grad_scale, grad_offset]


def lower_single_device_id(op: Operation, b: Builder) -> List[Value]:
    """``replica_id`` / ``partition_id``: 0 on a single device."""
    rt = op.results[0].type
    return [_H(b, op.loc).const(0, rt)]


def _single_device(op: Operation) -> None:
    m = op.ancestor("builtin.module")
    while m is not None:
        for key in ("mhlo.num_replicas", "mhlo.num_partitions"):
            a = m.attributes.get(key)
            if a is not None and int(getattr(a, "value", 1)) != 1:
                raise CompileError(f"'{op.name}' in a module exported for {key} = {a.value}: ireec compiles "
                                   "for a single device (one replica, one partition)", op.loc)
        m = m.ancestor("builtin.module")


def lower_collective_identity(op: Operation, b: Builder) -> List[Value]:
    """Collectives over process groups of one process: each result is its operand."""
    _single_device(op)
    if len(op.operands) != len(op.results) or any(v.type != r.type for v, r in zip(op.operands, op.results)):
        raise CompileError(f"'{op.name}' whose results differ from its operands cannot run on a single "
                           "device (a group of one process returns its operand)", op.loc)
    return list(op.operands)


def lower_collective_permute(op: Operation, b: Builder) -> List[Value]:
    """``collective_permute`` on one process: the operand if a pair is (0, 0), else zeros."""
    _single_device(op)
    pairs = op.attributes.get("source_target_pairs")
    flat = pairs.int_list() if isinstance(pairs, DenseElementsAttr) else []
    x = op.operands[0]
    if any(flat[i] == 0 and flat[i + 1] == 0 for i in range(0, len(flat) - 1, 2)):
        return [x]
    return [_H(b, op.loc).const(0, x.type)]


_TOKEN_OPS = ("stablehlo.create_token", "stablehlo.after_all")


def lower_token(op: Operation, b: Builder) -> None:
    """``create_token`` / ``after_all`` whose tokens reach only token ops: all erased."""
    group, todo = [], [op]
    while todo:
        t = todo.pop()
        if t in group:
            continue
        group.append(t)
        for u in (u for r in t.results for u in r.users):
            if u.name not in _TOKEN_OPS:
                raise CompileError(f"a token used by '{u.name}' is not supported (tokens order side "
                                   "effects, which a single-device program has none of)", u.loc)
            todo.append(u)
    for t in reversed(group):  # users were appended after their producers
        t.erase()
    return None


def lower_tuple(op: Operation, b: Builder) -> Optional[List[Value]]:
    """``tuple`` consumed only by ``get_tuple_element``: each of those becomes the operand
    it selects, and the tuple goes away."""
    users = [u for r in op.results for u in r.users]
    for u in users:
        if u.name != "stablehlo.get_tuple_element":
            raise CompileError(f"a tuple used by '{u.name}' is not supported (only by "
                               "'stablehlo.get_tuple_element' in the same function)", op.loc)
    for u in users:
        u.replace_with([op.operands[int(_attr(u, "index"))]])
    op.erase()
    return None


def lower_get_tuple_element(op: Operation, b: Builder) -> List[Value]:
    """``get_tuple_element`` of a ``tuple`` built in the same function."""
    src = op.operands[0].owner
    if not (isinstance(src, Operation) and src.name == "stablehlo.tuple"):
        raise CompileError("'stablehlo.get_tuple_element' of a tuple not built by 'stablehlo.tuple' "
                           "in the same function is not supported", op.loc)
    return [src.operands[int(_attr(op, "index"))]]


def _einsum_labels(op: Operation) -> tuple:
    cfg = str(_attr(op, "einsum_config")).replace(" ", "")
    ins, _, out = cfg.partition("->")
    parts = ins.split(",")
    if len(parts) != len(op.operands) or not _ or any(len(set(x)) != len(x) for x in parts + [out]):
        raise CompileError(f"'{op.name}': einsum_config \"{cfg}\" is not supported (one label per "
                           "dimension, no repeated labels within an operand, an explicit output)", op.loc)
    for x, v in zip(parts, op.operands):
        if len(x) != v.type.rank:
            raise CompileError(f"'{op.name}': \"{x}\" does not label the {v.type.rank} dims of {v.type}", op.loc)
    return parts, out


def _sum_out(h: _H, v: Value, labels: str, keep) -> tuple:
    """``v`` summed over the labels not in ``keep`` (returns the value and its labels)."""
    drop = [i for i, c in enumerate(labels) if c not in keep]
    if not drop:
        return v, labels
    return h.reduce_sum(v, drop), "".join(c for c in labels if c in keep)


def _to_order(h: _H, v: Value, labels: str, out: str) -> Value:
    if labels == out:
        return v
    perm = tuple(labels.index(c) for c in out)
    shape = tuple(v.type.shape[p] for p in perm)
    return h.op("transpose", [v], T.TensorType(shape, v.type.element_type),
                {"permutation": DenseArrayAttr(T.i64, perm)})


def lower_einsum(op: Operation, b: Builder) -> List[Value]:
    """``einsum`` / ``unary_einsum`` (see the module docstring)."""
    (parts, out) = _einsum_labels(op)
    h = _H(b, op.loc)
    rt = op.results[0].type
    if len(parts) == 1:
        v, lab = _sum_out(h, op.operands[0], parts[0], out)
        return [_to_order(h, v, lab, out)]
    (la, lb), (x, y) = parts, op.operands
    x, la = _sum_out(h, x, la, set(out) | set(lb))
    y, lb = _sum_out(h, y, lb, set(out) | set(la))
    batch = [c for c in out if c in la and c in lb]
    contract = [c for c in la if c in lb and c not in out]
    lfree = [c for c in la if c not in batch and c not in contract]
    rfree = [c for c in lb if c not in batch and c not in contract]
    shape = tuple([x.type.shape[la.index(c)] for c in batch + lfree] + [y.type.shape[lb.index(c)] for c in rfree])
    d = h.op("dot_general", [x, y], T.TensorType(shape, rt.element_type), {
        "dot_dimension_numbers": shlo.dot_attr([la.index(c) for c in batch], [lb.index(c) for c in batch],
                                               [la.index(c) for c in contract], [lb.index(c) for c in contract])})
    return [_to_order(h, d, "".join(batch + lfree + rfree), out)]


PATTERNS = {
    **{f"stablehlo.{n}": lower_collective_identity for n in (
        "all_reduce", "all_gather", "reduce_scatter", "all_to_all", "collective_broadcast",
        "collective_reduce", "cross-replica-sum")},
    "stablehlo.collective_permute": lower_collective_permute,
    "stablehlo.create_token": lower_token,
    "stablehlo.after_all": lower_token,
    "stablehlo.einsum": lower_einsum,
    "stablehlo.unary_einsum": lower_einsum,
    "stablehlo.cholesky": lower_cholesky,
    "stablehlo.triangular_solve": lower_triangular_solve,
    "stablehlo.batch_norm_training": lower_batch_norm_training,
    "stablehlo.batch_norm_grad": lower_batch_norm_grad,
    "stablehlo.replica_id": lower_single_device_id,
    "stablehlo.partition_id": lower_single_device_id,
    "stablehlo.tuple": lower_tuple,
    "stablehlo.get_tuple_element": lower_get_tuple_element,
}

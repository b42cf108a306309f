"""StableHLO → scf patterns: while, if, case; and the side-effect-only custom calls.

Mirrors IREE's ``iree-stablehlo-to-linalg`` control-flow patterns
(StableHLOToLinalg's ``WhileOpToSCF``/``IfOpToSCF``/``CaseOpToSCF`` family): the op's
regions move into ``scf.while`` / ``scf.if`` on tensors; a predicate ``tensor<i1>`` (or a
``case`` index ``tensor<i32>``) is read with ``tensor.extract %p[]``; ``stablehlo.return``
becomes ``scf.condition`` / ``scf.yield``. The ops inside the moved regions stay the same
objects, so the conversion driver converts them afterwards (it walks in pre-order).

``stablehlo.case`` becomes a chain of ``scf.if`` on ``index == k``: per the spec an index
outside [0, N) selects the last branch, which the chain's final ``else`` gives for free.

``stablehlo.custom_call @shape_assertion`` (JAX's shape checks) has no results and
asserts facts about dynamic shapes; with the static shapes ireec compiles it always holds,
so it is dropped. ``stablehlo.custom_call @ProductOfElementaryHouseholderReflectors`` (the
form JAX/XLA give LAPACK's ``orgqr``/``ungqr``, see :func:`lower_householder_product`)
becomes one pair of ``linalg.generic`` per reflector. Other custom calls are reported as
unsupported.
"""
from __future__ import annotations

from typing import List, Optional

from ....dialects.arith import CMPI_PREDICATES
from ....ir import types as T
from ....ir.affine import AffineConst
from ....ir.attributes import FloatAttr, IntegerAttr
from ....ir.core import Block, Builder, Operation, Region, Value
from ....ir.diagnostics import CompileError
from .common import dims_map, empty, fill, generic, ranked

_RETURNS = ("stablehlo.return", "mhlo.return")


def _take_region(op: Operation, i: int) -> Region:
    """A new Region holding the blocks of ``op.regions[i]`` (moved, not copied)."""
    new = Region()
    for blk in list(op.regions[i].blocks):
        new.add_block(blk)
    op.regions[i].blocks = []
    return new


def _terminator(region: Region, op: Operation) -> Operation:
    if len(region.blocks) != 1:
        raise CompileError(f"'{op.name}' regions with several blocks are not supported", op.loc)
    term = region.blocks[0].terminator
    if term is None or term.name not in _RETURNS:
        raise CompileError(f"'{op.name}': region does not end in stablehlo.return", op.loc)
    return term


def _extract_scalar(b: Builder, v: Value) -> Value:
    """``tensor.extract %v[]`` of a rank-0 tensor (scalars pass through)."""
    if isinstance(v.type, T.TensorType):
        if v.type.shape != ():
            raise CompileError(f"expected a rank-0 tensor, got {v.type}", b.loc)
        return b.create("tensor.extract", [v], [v.type.element_type]).results[0]
    return v


def _return_to_yield(region: Region, op: Operation) -> None:
    term = _terminator(region, op)
    Builder.before(term).create("scf.yield", list(term.operands))
    term.erase()


def lower_while(op: Operation, b: Builder) -> List[Value]:
    """``stablehlo.while`` → ``scf.while`` (cond region: ``scf.condition(%p) %args``;
    body region: ``scf.yield``)."""
    cond = _take_region(op, 0)
    body = _take_region(op, 1)
    term = _terminator(cond, op)
    if len(term.operands) != 1:
        raise CompileError("'stablehlo.while': the condition must return one tensor<i1>", op.loc)
    tb = Builder.before(term)
    p = _extract_scalar(tb, term.operands[0])
    tb.create("scf.condition", [p] + list(cond.blocks[0].args))
    term.erase()
    _return_to_yield(body, op)
    w = b.create("scf.while", list(op.operands), list(op.result_types), regions=[cond, body])
    return list(w.results)


def _scf_if(b: Builder, cond: Value, result_types, then: Region, other: Region) -> Operation:
    return b.create("scf.if", [cond], list(result_types), regions=[then, other])


def lower_if(op: Operation, b: Builder) -> List[Value]:
    """``stablehlo.if`` → ``scf.if %p -> (results)``."""
    p = _extract_scalar(b, op.operands[0])
    then = _take_region(op, 0)
    other = _take_region(op, 1)
    _return_to_yield(then, op)
    _return_to_yield(other, op)
    return list(_scf_if(b, p, op.result_types, then, other).results)


def lower_case(op: Operation, b: Builder) -> Optional[List[Value]]:
    """``stablehlo.case`` → nested ``scf.if`` on ``index == k`` (k < N-1); the innermost
    else runs the last branch, which also covers out-of-range indices (spec §case)."""
    n = len(op.regions)
    if n == 0:
        raise CompileError("'stablehlo.case' needs at least one branch", op.loc)
    branches = [_take_region(op, i) for i in range(n)]
    for r in branches:
        _terminator(r, op)
    if n == 1:  # the only branch always runs: splice it in place
        blk = branches[0].blocks[0]
        term = blk.terminator
        vals = list(term.operands)
        for inner in list(blk.ops):
            if inner is term:
                break
            inner.detach()
            b.insert(inner)
        term.erase()
        return vals
    idx = _extract_scalar(b, op.operands[0])
    for r in branches:
        _return_to_yield(r, op)
    types = list(op.result_types)

    def chain(k: int, at: Builder) -> Operation:
        c = at.create("arith.constant", [], [idx.type], {"value": IntegerAttr(k, idx.type)}).results[0]
        eq = at.create("arith.cmpi", [idx, c], [T.i1], {"predicate": IntegerAttr(0, T.i64)}).results[0]
        if k == n - 2:
            other = branches[n - 1]
        else:
            blk = Block()
            other = Region([blk])
            inner_b = Builder.at_end(blk, at.loc)
            inner = chain(k + 1, inner_b)
            inner_b.create("scf.yield", list(inner.results))
        return _scf_if(at, eq, types, branches[k], other)

    return list(chain(0, b).results)


def _cmpi(sb, pred: str, a: Value, c: Value) -> Value:
    return sb.op("arith.cmpi", [a, c], T.i1,
                 {"predicate": IntegerAttr(CMPI_PREDICATES.index(pred), T.i64)})


def _reflector_elem(sb, row: Value, i: int, a_elem: Value) -> Value:
    """Element ``row`` of Householder vector v_i: 0 above row i, 1 at row i, ``a[row, i]``
    below (LAPACK's implicit unit diagonal)."""
    t = a_elem.type
    ci = sb.op("arith.constant", [], T.index, {"value": IntegerAttr(i, T.index)})
    zero = sb.constant(FloatAttr(0.0, t))
    one = sb.constant(FloatAttr(1.0, t))
    below = sb.select(_cmpi(sb, "ugt", row, ci), a_elem, zero)
    return sb.select(_cmpi(sb, "eq", row, ci), one, below)


def lower_householder_product(op: Operation, b: Builder) -> List[Value]:
    """``custom_call @ProductOfElementaryHouseholderReflectors(%a, %taus)``: LAPACK's
    ``orgqr`` (the Q of a QR factorisation from ``geqrf``'s output), as JAX's
    ``householder_product`` defines it.

    ``a``: ``[..., m, n]`` float with m ≥ n; ``taus``: ``[..., k]`` with k ≤ n; the leading
    dims are batch dims. Result ``[..., m, n]``: the first n columns of
    Q = H_0 H_1 ... H_{k-1} with H_i = I - tau_i v_i v_i^T, where v_i is column i of ``a``
    below the diagonal with an implicit 1 at row i and zeros above. Q starts as the m×n
    identity and the reflectors are applied from the last (k static, so the loop is
    unrolled at compile time): per reflector one generic computes w = v_i^T Q (a reduction
    over rows) and one computes Q - tau_i v_i w^T. Complex element types (which use the
    conjugate transpose) and other shapes raise CompileError."""
    if len(op.operands) != 2 or len(op.results) != 1:
        raise CompileError("'stablehlo.custom_call' @ProductOfElementaryHouseholderReflectors "
                           "takes (a, taus) and gives one result", op.loc)
    a, taus = op.operands
    at, tt, rt = ranked(a, op), ranked(taus, op), ranked(op.results[0], op)
    et = at.element_type
    if not isinstance(et, T.FloatType):
        raise CompileError(f"ProductOfElementaryHouseholderReflectors on element type {et} is "
                           "not supported", op.loc)
    if at.rank < 2 or tt.rank != at.rank - 1 or tt.shape[:-1] != at.shape[:-2] \
            or tt.element_type != et or rt != at:
        raise CompileError("ProductOfElementaryHouseholderReflectors expects a: [..., m, n], "
                           f"taus: [..., k] and result type a's; got {at}, {tt} -> {rt}", op.loc)
    batch = list(at.shape[:-2])
    m, n = at.shape[-2:]
    k = tt.shape[-1]
    if m < n or k > n:
        raise CompileError(f"ProductOfElementaryHouseholderReflectors needs m >= n >= k; got "
                           f"m={m}, n={n}, k={k}", op.loc)
    nb = len(batch)
    bd = list(range(nb))
    r_dim, c_dim = nb, nb + 1  # loop dims of the m×n generics: (batch..., r, c)

    def index(sb, d):
        return sb.op("linalg.index", [], T.index, {"dim": IntegerAttr(d, T.i64)})

    def eye(sb, args):
        same = _cmpi(sb, "eq", index(sb, r_dim), index(sb, c_dim))
        return [sb.select(same, sb.constant(FloatAttr(1.0, et)), sb.constant(FloatAttr(0.0, et)))]

    rank = nb + 2
    par = ["parallel"] * rank
    ident = dims_map(rank, bd + [r_dim, c_dim])
    q = generic(b, [], [empty(b, batch + [m, n], et)], [ident], par, eye).result
    zero = b.create("arith.constant", [], [et], {"value": FloatAttr(0.0, et)}).result
    for i in reversed(range(k)):
        col = AffineConst(i)
        # w[b, c] = sum_r v_i[b, r] * Q[b, r, c]; loop dims (batch..., c, r), r reduced.
        wr, wc = nb + 1, nb
        w_init = fill(b, zero, batch + [n])

        def w_body(sb, args, i=i, wr=wr):
            v = _reflector_elem(sb, index(sb, wr), i, args[0])
            return [sb.op("arith.addf", [args[2], sb.op("arith.mulf", [v, args[1]], et)], et)]

        w = generic(b, [a, q], [w_init],
                    [dims_map(rank, bd + [wr, col]), dims_map(rank, bd + [wr, wc]),
                     dims_map(rank, bd + [wc])],
                    ["parallel"] * (nb + 1) + ["reduction"], w_body).result

        # Q'[b, r, c] = Q[b, r, c] - tau_i[b] * v_i[b, r] * w[b, c].
        def q_body(sb, args, i=i):
            a_e, tau, w_e, q_e = args[:4]
            v = _reflector_elem(sb, index(sb, r_dim), i, a_e)
            upd = sb.op("arith.mulf", [sb.op("arith.mulf", [tau, v], et), w_e], et)
            return [sb.op("arith.subf", [q_e, upd], et)]

        q = generic(b, [a, taus, w, q], [empty(b, batch + [m, n], et)],
                    [dims_map(rank, bd + [r_dim, col]), dims_map(rank, bd + [col]),
                     dims_map(rank, bd + [c_dim]), ident, ident], par, q_body).result
    return [q]


def lower_custom_call(op: Operation, b: Builder) -> Optional[List[Value]]:
    """``@shape_assertion`` is dropped (always true for static shapes);
    ``@ProductOfElementaryHouseholderReflectors`` is :func:`lower_householder_product`;
    anything else is reported with its target name."""
    target = op.attributes.get("call_target_name")
    name = target.value if target is not None else "?"
    if name == "shape_assertion" and not op.results:
        op.erase()
        return None
    if name == "ProductOfElementaryHouseholderReflectors":
        return lower_householder_product(op, b)
    raise CompileError(f"'stablehlo.custom_call' @{name} is not supported", op.loc)


PATTERNS = {
    "stablehlo.while": lower_while,
    "stablehlo.if": lower_if,
    "stablehlo.case": lower_case,
    "stablehlo.custom_call": lower_custom_call,
}

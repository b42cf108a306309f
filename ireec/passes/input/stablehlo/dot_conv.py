"""StableHLO → linalg patterns: dot, dot_general, convolution.

Mirrors IREE's StableHLOToLinalgDotProd.cpp and StableHLOToLinalgConvolution.cpp.
``dot_general`` in canonical layout becomes ``linalg.matmul`` / ``linalg.batch_matmul``
(float operands of the result type); any other layout or element type becomes one
``linalg.generic`` over (batch, lhs free, rhs free | contracting) dims, which needs no
transposes. The accumulator starts from a zero ``linalg.fill``; operands are converted to
the result element type before multiply-add (spec: ``dot_general`` / ``convolution``).

``convolution``: lhs dilation and padding become a (zero) pad of the input (interior pad =
dilation - 1, negative padding crops); window strides and rhs dilation go into the input
indexing map (``o * stride + k * dilation``); window reversal reverses the kernel first;
``feature_group_count`` G splits the input feature dim into (G, C/G) and the kernel output
feature dim into (G, O/G) with expand_shape, so every map stays a projected permutation or a
strided sum; a split whose inner part has size 1 (a depthwise convolution: one input feature
per group, channel multiplier 1) is not made, the feature dim is indexed by the group dim. Dimension numbers in any layout are read off the maps directly.
"""
from __future__ import annotations

from typing import List

from ....dialects import linalg as L
from ....dialects import stablehlo as shlo
from ....ir import types as T
from ....ir.affine import AffineConst, AffineDim, AffineExpr, AffineMap
from ....ir.attributes import DenseArrayAttr, FloatAttr, IntegerAttr
from ....ir.core import Builder, Operation, Value
from ....ir.diagnostics import CompileError
from .common import (convert_scalar, elem, empty, fill, generic, is_bool, is_float, pad_scalar,
                     ranked, reshape)


def _zero_fill(b: Builder, shape, et) -> Value:
    z = b.create("arith.constant", [], [et], {"value": _zero_attr(et)}).result
    return fill(b, z, shape)


def _zero_attr(et):
    return FloatAttr(0.0, et) if is_float(et) else IntegerAttr(0, et)


def _mac(sb, a, w, acc):
    """acc + convert(a) * convert(w) in the accumulator's type (and/or for booleans)."""
    t = acc.type
    x = convert_scalar(sb, a, t)
    y = convert_scalar(sb, w, t)
    if is_float(t):
        return sb.op("arith.addf", [acc, sb.op("arith.mulf", [x, y], t)], t)
    if is_bool(t):
        return sb.op("arith.ori", [acc, sb.op("arith.andi", [x, y], t)], t)
    return sb.op("arith.addi", [acc, sb.op("arith.muli", [x, y], t)], t)


def _named(b: Builder, name: str, lhs: Value, rhs: Value, init: Value) -> Value:
    region = L.build_named_region(name, [lhs.type, rhs.type], [init.type], {})
    return b.create(f"linalg.{name}", [lhs, rhs, init], [init.type],
                    {"operandSegmentSizes": DenseArrayAttr(T.i32, (2, 1))},
                    regions=[region]).result


def dot_general(b: Builder, op: Operation, lhs: Value, rhs: Value, lb: List[int], rb: List[int],
                lc: List[int], rc: List[int]) -> Value:
    """The dot_general of ``lhs``/``rhs`` with these batching/contracting dims; result dims
    are (batch..., lhs free..., rhs free...) as the spec orders them."""
    lt, rt_ = ranked(lhs, op), ranked(rhs, op)
    out_t = ranked(op.results[0], op)
    lf = [d for d in range(lt.rank) if d not in lb and d not in lc]
    rf = [d for d in range(rt_.rank) if d not in rb and d not in rc]
    nb, nlf, nrf, nc = len(lb), len(lf), len(rf), len(lc)
    et = out_t.element_type
    init = _zero_fill(b, out_t.shape, et)
    floats = is_float(et) and elem(lhs) == et and elem(rhs) == et
    if floats and nb == 0 and lt.rank == 2 and rt_.rank == 2 and lc == [1] and rc == [0]:
        return _named(b, "matmul", lhs, rhs, init)
    if floats and nb == 1 and lt.rank == 3 and rt_.rank == 3 and lb == [0] and rb == [0] \
            and lc == [2] and rc == [1]:
        return _named(b, "batch_matmul", lhs, rhs, init)
    n = nb + nlf + nrf + nc

    def operand_map(rank, batch, free, contract, free_base):
        exprs = [None] * rank
        for i, d in enumerate(batch):
            exprs[d] = AffineDim(i)
        for i, d in enumerate(free):
            exprs[d] = AffineDim(free_base + i)
        for i, d in enumerate(contract):
            exprs[d] = AffineDim(nb + nlf + nrf + i)
        return AffineMap(n, 0, tuple(exprs))
    maps = [operand_map(lt.rank, lb, lf, lc, nb), operand_map(rt_.rank, rb, rf, rc, nb + nlf),
            AffineMap.from_dims(n, range(nb + nlf + nrf))]
    iters = ["parallel"] * (nb + nlf + nrf) + ["reduction"] * nc
    return generic(b, [lhs, rhs], [init], maps, iters, lambda sb, a: [_mac(sb, *a)]).result


def lower_dot(op: Operation, b: Builder):
    """``dot``: vector·vector, matrix·vector, matrix·matrix."""
    lhs, rhs = op.operands
    lt, rt_ = ranked(lhs, op), ranked(rhs, op)
    rc = [0]
    lc = [lt.rank - 1]
    if rt_.rank not in (1, 2) or lt.rank not in (1, 2):
        raise CompileError("stablehlo.dot needs rank-1 or rank-2 operands", op.loc)
    return [dot_general(b, op, lhs, rhs, [], [], lc, rc)]


def lower_dot_general(op: Operation, b: Builder):
    d = shlo.dot_dimension_numbers(op)
    lhs, rhs = op.operands
    return [dot_general(b, op, lhs, rhs, d["lhs_batching_dimensions"],
                        d["rhs_batching_dimensions"], d["lhs_contracting_dimensions"],
                        d["rhs_contracting_dimensions"])]


def _reverse(b: Builder, v: Value, dims: List[int]) -> Value:
    t = v.type
    rank = t.rank
    exprs = tuple(AffineDim(d) * -1 + (t.shape[d] - 1) if d in dims else AffineDim(d)
                  for d in range(rank))
    out = empty(b, t.shape, t.element_type)
    return generic(b, [v], [out], [AffineMap(rank, 0, exprs), AffineMap.identity(rank)],
                   ["parallel"] * rank, lambda sb, a: [a[0]]).result


def _pad_input(b: Builder, x: Value, dn, win) -> Value:
    """Step 1 of a convolution: lhs dilation and padding as one zero pad of input ``x``
    (interior = dilation - 1; negative padding crops); ``x`` itself when neither is set."""
    rank = x.type.rank
    low = [0] * rank
    high = [0] * rank
    interior = [0] * rank
    for i, d in enumerate(dn["input_spatial_dimensions"]):
        lo, hi = win["padding"][i] if i < len(win["padding"]) else (0, 0)
        low[d], high[d] = lo, hi
        interior[d] = win["lhs_dilation"][i] - 1
    if any(low) or any(high) or any(interior):
        zero = b.create("arith.constant", [], [elem(x)], {"value": _zero_attr(elem(x))}).result
        x = pad_scalar(b, x, low, high, interior, zero)
    return x


def _conv_loop_dims(grouped: bool, unit_c: bool, unit_fo: bool, ns: int):
    """The iteration dims of a convolution by name: b, [g], [fo], o_0..o_{ns-1} (parallel) |
    [c], k_0..k_{ns-1} (reduction); returns ({name: AffineDim}, number of dims, number of
    parallel dims). ``c`` / ``fo`` are left out for one input / output feature per group."""
    names = ["b"] + (["g"] if grouped else []) + ([] if unit_fo else ["fo"]) \
        + [f"o{i}" for i in range(ns)] + ([] if unit_c else ["c"]) + [f"k{i}" for i in range(ns)]
    dim = {nme: AffineDim(i) for i, nme in enumerate(names)}
    nd = len(names)
    return dim, nd, nd - (0 if unit_c else 1) - ns


def _split(shape, pos: int, groups: int) -> List[int]:
    """``shape`` with dim ``pos`` split into (groups, size // groups)."""
    s = list(shape)
    return s[:pos] + [groups, s[pos] // groups] + s[pos + 1:]


def _feature_exprs(dim, grouped: bool, inner: str) -> List[AffineExpr]:
    """Exprs of a feature dim: (g, inner) when grouped, g alone when inner is dropped."""
    if not grouped:
        return [dim[inner]]
    return [dim["g"]] if inner not in dim else [dim["g"], dim[inner]]


def _input_exprs(dn, win, rank: int, dim, grouped: bool) -> List[AffineExpr]:
    """Input map results: batch, the (split) feature dim, ``o * stride + k * dilation``."""
    exprs: List[AffineExpr] = []
    for d in range(rank):
        if d == dn["input_batch_dimension"]:
            exprs.append(dim["b"])
        elif d == dn["input_feature_dimension"]:
            exprs += _feature_exprs(dim, grouped, "c")
        else:
            i = dn["input_spatial_dimensions"].index(d)
            e = dim[f"o{i}"] * win["window_strides"][i] if win["window_strides"][i] != 1 \
                else dim[f"o{i}"]
            k = dim[f"k{i}"] * win["rhs_dilation"][i] if win["rhs_dilation"][i] != 1 else dim[f"k{i}"]
            exprs.append(e + k)
    return exprs


def _kernel_exprs(dn, rank: int, dim, grouped: bool, unit_c: bool) -> List[AffineExpr]:
    """Kernel map results: c (0 when dropped), the (split) output feature dim, k_i."""
    exprs: List[AffineExpr] = []
    for d in range(rank):
        if d == dn["kernel_input_feature_dimension"]:
            exprs.append(AffineConst(0) if unit_c else dim["c"])
        elif d == dn["kernel_output_feature_dimension"]:
            exprs += _feature_exprs(dim, grouped, "fo")
        else:
            exprs.append(dim[f"k{dn['kernel_spatial_dimensions'].index(d)}"])
    return exprs


def _output_exprs(dn, rank: int, dim, grouped: bool) -> List[AffineExpr]:
    """Output map results: batch, the (split) feature dim, o_i."""
    exprs: List[AffineExpr] = []
    for d in range(rank):
        if d == dn["output_batch_dimension"]:
            exprs.append(dim["b"])
        elif d == dn["output_feature_dimension"]:
            exprs += _feature_exprs(dim, grouped, "fo")
        else:
            exprs.append(dim[f"o{dn['output_spatial_dimensions'].index(d)}"])
    return exprs


def lower_convolution(op: Operation, b: Builder):
    """General N-D convolution (see the module docstring): one ``linalg.generic`` over
    (batch, [group], [out feature], out spatial | [in feature], window) into a zero fill of
    the result type; CompileError for ``batch_group_count`` > 1 or a
    ``feature_group_count`` that does not divide the feature dims."""
    x, w = op.operands
    xt, wt, ot = ranked(x, op), ranked(w, op), ranked(op.results[0], op)
    dn = shlo.conv_dimension_numbers(op)
    win = shlo.conv_window(op)
    if win["batch_group_count"] != 1:
        raise CompileError("convolution with batch_group_count > 1 is not supported", op.loc)
    G = win["feature_group_count"]
    ns = len(dn["input_spatial_dimensions"])
    et = ot.element_type
    # 1. lhs dilation + padding as a zero pad of the input.
    x = _pad_input(b, x, dn, win)
    xt = x.type
    # 2. window reversal reverses the kernel's spatial dims.
    rev = [dn["kernel_spatial_dimensions"][i] for i, r in enumerate(win["window_reversal"]) if r]
    if rev:
        w = _reverse(b, w, rev)
    # 3. iteration dims: b, [g], fo, o_0..o_{n-1} | c, k_0..k_{n-1}; with one input feature
    # per group (a depthwise convolution) c is dropped (the kernel's input feature dim, of
    # size 1, is read at 0), and with one output feature per group fo is dropped: no reshape
    # then splits that operand, so elementwise consumers fuse with the convolution directly.
    grouped = G > 1
    fin, kof = dn["input_feature_dimension"], dn["kernel_output_feature_dimension"]
    if grouped and (xt.shape[fin] % G or wt.shape[kof] % G):
        raise CompileError("feature_group_count does not divide the feature dims", op.loc)
    unit_c = grouped and xt.shape[fin] == G
    unit_fo = grouped and wt.shape[kof] == G
    dim, nd, n_par = _conv_loop_dims(grouped, unit_c, unit_fo, ns)
    # Input feature dim split into (g, c), kernel and output feature dims into (g, fo).
    if grouped and not unit_c:
        x = reshape(b, x, _split(xt.shape, fin, G))
    if grouped and not unit_fo:
        w = reshape(b, w, _split(wt.shape, kof, G))
    fout = dn["output_feature_dimension"]
    out_shape = _split(ot.shape, fout, G) if grouped and not unit_fo else list(ot.shape)
    init = _zero_fill(b, out_shape, et)
    maps = [AffineMap(nd, 0, tuple(_input_exprs(dn, win, xt.rank, dim, grouped))),
            AffineMap(nd, 0, tuple(_kernel_exprs(dn, wt.rank, dim, grouped, unit_c))),
            AffineMap(nd, 0, tuple(_output_exprs(dn, ot.rank, dim, grouped)))]
    iters = ["parallel"] * n_par + ["reduction"] * (nd - n_par)
    r = generic(b, [x, w], [init], maps, iters, lambda sb, a: [_mac(sb, *a)]).result
    if grouped and not unit_fo:
        r = reshape(b, r, ot.shape)
    return [r]


PATTERNS = {
    "stablehlo.dot": lower_dot,
    "stablehlo.dot_general": lower_dot_general,
    "stablehlo.convolution": lower_convolution,
}

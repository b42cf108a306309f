"""TOSA reductions → reduction ``linalg.generic`` + ``tensor.expand_shape``.

Mirrors MLIR's ``tosa-to-linalg`` reduce patterns (``reduceMatchAndRewriteHelper``): the
init is filled with the reduction's identity, a generic reduces ``axis`` into a tensor of
rank-1, and ``tensor.expand_shape`` restores the kept size-1 dim. Identities: sum 0,
product 1, max -inf (smallest integer), min +inf (largest integer), all true, any false.
Float max/min propagate NaN (``arith.maximumf``) unless ``nan_mode = IGNORE``.
``argmax`` keeps the first index of the largest value (the first NaN under PROPAGATE).
"""
from __future__ import annotations

from typing import Dict

from ....dialects import linalg as L
from ....dialects.arith import CMPF_PREDICATES, CMPI_PREDICATES
from ....ir import types as T
from ....ir.affine import AffineMap
from ....ir.attributes import IntegerAttr
from ....ir.core import Builder, Operation
from .utils import (I1, I64, enum_attr, expand, fail, filled, highest, int_attr,
                    is_bool, is_float, is_unsigned, linalg_index, lowest, static)

PATTERNS: Dict = {}


def _reduce(kind: str):
    def lower(op: Operation, b: Builder):
        src = op.operands[0]
        st = static(op, src)
        rt = static(op, op.results[0])
        et = st.element_type
        axis = int_attr(op, "axis", 0)
        if axis < 0:
            axis += st.rank
        if not 0 <= axis < st.rank:
            raise fail(op, f"axis {axis} is out of range for {st}")
        ignore = enum_attr(op, "nan_mode", "PROPAGATE") == "IGNORE"
        if kind in ("all", "any") and not is_bool(et):
            raise fail(op, f"needs i1 operands, got {et}")
        init_value = {"sum": 0, "product": 1, "max": lowest(et), "min": highest(et),
                      "all": 1, "any": 0}[kind]
        keep = [i for i in range(st.rank) if i != axis]
        red_t = T.TensorType(tuple(st.shape[i] for i in keep), et)
        init = filled(b, red_t, init_value)

        def body(sb, args):
            x, acc = args
            if kind in ("sum", "product"):
                name = {("sum", True): "arith.addf", ("sum", False): "arith.addi",
                        ("product", True): "arith.mulf", ("product", False): "arith.muli"}[
                    (kind, is_float(et))]
            elif kind in ("max", "min"):
                if is_float(et):
                    name = f"arith.{kind}{'numf' if ignore else 'imumf'}"
                else:
                    name = f"arith.{kind}{'ui' if is_unsigned(et) else 'si'}"
            else:
                name = "arith.andi" if kind == "all" else "arith.ori"
            return [sb.op(name, [x, acc], et)]

        iters = ["reduction" if i == axis else "parallel" for i in range(st.rank)]
        g = L.build_generic([src], [init],
                            [AffineMap.identity(st.rank), AffineMap.from_dims(st.rank, keep)],
                            iters, body, builder=b)
        return [expand_kept(b, g.results[0], axis, rt)]
    return lower


def expand_kept(b: Builder, v, axis: int, rt: T.TensorType):
    """Re-insert the reduced size-1 dim ``axis`` into ``v`` (rank ``rt.rank - 1``)."""
    r = rt.rank - 1
    if r == 0:
        return expand(b, v, [], rt)
    groups = [[i if i < axis else i + 1] for i in range(r)]
    # The unit dim joins its neighbour: the previous group, or the first one when axis is 0.
    if axis > 0:
        groups[axis - 1].append(axis)
    else:
        groups[0] = [0, 1]
    return expand(b, v, groups, rt)


for _k, _n in (("sum", "reduce_sum"), ("product", "reduce_product"), ("product", "reduce_prod"),
               ("max", "reduce_max"), ("min", "reduce_min"), ("all", "reduce_all"),
               ("any", "reduce_any")):
    PATTERNS[f"tosa.{_n}"] = _reduce(_k)


def _argmax(op: Operation, b: Builder):
    src = op.operands[0]
    st = static(op, src)
    rt = static(op, op.results[0])
    et = st.element_type
    it = rt.element_type
    axis = int_attr(op, "axis", 0)
    if axis < 0:
        axis += st.rank
    ignore = enum_attr(op, "nan_mode", "PROPAGATE") == "IGNORE"
    keep = [i for i in range(st.rank) if i != axis]
    if tuple(st.shape[i] for i in keep) != rt.shape:
        raise fail(op, f"result {rt} is not {st} without axis {axis}")
    vt = T.TensorType(rt.shape, et)
    init_v = filled(b, vt, lowest(et))
    init_i = filled(b, rt, 0)

    def body(sb, args):
        x, best, best_i = args
        i = sb.op("arith.index_cast", [linalg_index(sb, axis)], it)
        if is_float(et):
            gt = sb.op("arith.cmpf", [x, best], I1,
                       {"predicate": IntegerAttr(CMPF_PREDICATES.index("ogt"), I64)})
            x_nan = sb.op("arith.cmpf", [x, x], I1,
                          {"predicate": IntegerAttr(CMPF_PREDICATES.index("uno"), I64)})
            b_nan = sb.op("arith.cmpf", [best, best], I1,
                          {"predicate": IntegerAttr(CMPF_PREDICATES.index("uno"), I64)})
            if ignore:  # a NaN never wins; a NaN best (impossible from -inf) is replaced
                take = sb.op("arith.ori", [gt, sb.op("arith.andi", [b_nan, sb.op(
                    "arith.xori", [x_nan, sb.constant(IntegerAttr(1, I1))], I1)], I1)], I1)
            else:  # the first NaN wins and stays
                not_bnan = sb.op("arith.xori", [b_nan, sb.constant(IntegerAttr(1, I1))], I1)
                take = sb.op("arith.andi", [sb.op("arith.ori", [gt, x_nan], I1), not_bnan], I1)
        else:
            take = sb.op("arith.cmpi", [x, best], I1,
                         {"predicate": IntegerAttr(CMPI_PREDICATES.index(
                             "ugt" if is_unsigned(et) else "sgt"), I64)})
        return [sb.op("arith.select", [take, x, best], et),
                sb.op("arith.select", [take, i, best_i], it)]

    iters = ["reduction" if i == axis else "parallel" for i in range(st.rank)]
    out_map = AffineMap.from_dims(st.rank, keep)
    g = L.build_generic([src], [init_v, init_i], [AffineMap.identity(st.rank), out_map, out_map],
                        iters, body, builder=b)
    return [g.results[1]]


PATTERNS["tosa.argmax"] = _argmax

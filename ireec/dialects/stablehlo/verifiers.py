"""stablehlo verifiers (StableHLO spec constraints: https://openxla.org/stablehlo/spec).

Elementwise, compare / select / clamp, dot and dot_general, shape ops (broadcast_in_dim,
reshape, transpose, concatenate, slice, pad, iota, dynamic_slice...), reduce and
reduce_window. Each takes an :class:`Operation` and raises the located error of
:func:`ireec.ir.verifier.op_error` on the first violated constraint (named ``(Cn)`` as in
the spec where it has one). Gather and scatter live in :mod:`.verify_gather_scatter`.
"""
from __future__ import annotations

from typing import List

from ...ir import types as T
from ...ir import verifier as V
from .attributes import (conv_dimension_numbers, dot_dimension_numbers, enum_value,
                         gather_dimension_numbers, i64_list, scatter_dimension_numbers)


def _tensor_shape(op, v, what: str):
    t = v.type
    if not isinstance(t, T.TensorType):
        raise V.op_error(op, f"{what} must be a tensor, but got {V.type_str(t)}")
    return t.shape


def _int_list_attr(op, name: str, required: bool = True) -> List[int]:
    a = op.attributes.get(name)
    if a is None:
        if required:
            raise V.op_error(op, f"requires attribute '{name}'")
        return []
    try:
        return i64_list(a)
    except (TypeError, ValueError, AttributeError):
        raise V.op_error(op, f"attribute '{name}' failed to satisfy constraint: i64 dense "
                             "array attribute") from None


# Elementwise ops whose result element type differs from the operand's by definition.
_ELEMENT_TYPE_CHANGING = ("convert", "real", "imag", "abs", "uniform_quantize",
                          "uniform_dequantize", "bitcast_convert", "is_finite")


def _verify_elementwise(op):
    """Operands and result of one (compatible) shape; one element type unless the op
    converts it (convert, real/imag/abs of complex, quantize)."""
    V.num_results(1)(op)
    V.same_operands_and_result_shape(op)
    short = op.name.split(".", 1)[1]
    if short not in _ELEMENT_TYPE_CHANGING:
        V.same_operands_and_result_element_type(op)


def _verify_compare(op):
    """Two operands of one type; an i1 result of their shape; a direction."""
    V.num_operands(2)(op)
    V.num_results(1)(op)
    if op.attributes.get("comparison_direction") is None:
        raise V.op_error(op, "requires attribute 'comparison_direction'")
    if enum_value(op.attributes["comparison_direction"]) not in ("EQ", "NE", "GE", "GT", "LE", "LT"):
        raise V.op_error(op, "attribute 'comparison_direction' failed to satisfy constraint: "
                             "one of EQ, NE, GE, GT, LE, LT")
    V.same_operands_element_type(op)
    V.same_operands_and_result_shape(op)
    e = T.element_type(op.results[0].type)
    if not (isinstance(e, T.IntegerType) and e.width == 1):
        raise V.op_error(op, f"result #0 must be tensor of bool values, but got "
                             f"{V.type_str(op.results[0].type)}")


def _verify_select(op):
    """``pred`` i1, rank 0 or shaped like the values; both values and the result alike."""
    V.num_operands(3)(op)
    V.num_results(1)(op)
    pred, a, b = op.operands
    pe = T.element_type(pred.type)
    if not (isinstance(pe, T.IntegerType) and pe.width == 1):
        raise V.op_error(op, f"operand #0 must be tensor of bool values, but got "
                             f"{V.type_str(pred.type)}")
    r = op.results[0].type
    if not (V.compatible_types(a.type, b.type) and V.compatible_types(a.type, r)):
        raise V.op_error(op, "requires compatible types for all operands and results")
    ps = V.shape_of(pred.type)
    if ps is not None and len(ps) != 0 and not V.compatible_shapes(ps, V.shape_of(a.type)):
        raise V.op_error(op, "requires the same shape for all operands")


def _verify_clamp(op):
    """min/max rank 0 or shaped like the operand; one element type."""
    V.num_operands(3)(op)
    V.num_results(1)(op)
    V.same_operands_and_result_element_type(op)
    lo, x, hi = op.operands
    for name, v in (("min", lo), ("max", hi)):
        sh = V.shape_of(v.type)
        if sh and not V.compatible_shapes(sh, V.shape_of(x.type)):
            raise V.op_error(op, f"{name} shape {list(sh)} is not scalar and is not compatible "
                                 f"to operand shape {list(V.shape_of(x.type))}")
    if not V.compatible_types(x.type, op.results[0].type):
        raise V.op_error(op, "requires the same type for operand and result")


def _verify_dot_general(op):
    """Batching and contracting dims: in range, distinct, of equal sizes on both sides;
    the result has batch + lhs free + rhs free dims."""
    V.num_operands(2)(op)
    V.num_results(1)(op)
    try:
        d = dot_dimension_numbers(op)
    except (KeyError, ValueError, TypeError):
        raise V.op_error(op, "requires attribute 'dot_dimension_numbers'") from None
    lhs = _tensor_shape(op, op.operands[0], "lhs")
    rhs = _tensor_shape(op, op.operands[1], "rhs")
    if lhs is None or rhs is None:
        return
    lb, rb = d["lhs_batching_dimensions"], d["rhs_batching_dimensions"]
    lc, rc = d["lhs_contracting_dimensions"], d["rhs_contracting_dimensions"]
    if len(lb) != len(rb):
        raise V.op_error(op, "lhs and rhs should have the same number of batching dimensions")
    if len(lc) != len(rc):
        raise V.op_error(op, "lhs and rhs should have the same number of contracting dimensions")
    for side, shape, dims in (("lhs", lhs, lb + lc), ("rhs", rhs, rb + rc)):
        if len(set(dims)) != len(dims):
            raise V.op_error(op, f"has duplicated dimension from {side}_batching_dimensions and "
                                 f"{side}_contracting_dimensions: {dims}")
        for x in dims:
            if not 0 <= x < len(shape):
                raise V.op_error(op, f"{side}_batching_dimensions and {side}_contracting_dimensions"
                                     f" value must be in the range [0, {len(shape)}), got {x}")
    for kind, ld, rd in (("batching", lb, rb), ("contracting", lc, rc)):
        for a, b in zip(ld, rd):
            if not V.compatible_dims(lhs[a], rhs[b]):
                raise V.op_error(op, f"{kind} dimension sizes must match for lhs/rhs (lhs "
                                     f"dimension {a} has size {lhs[a]}, rhs dimension {b} has size "
                                     f"{rhs[b]})")
    res = V.shape_of(op.results[0].type)
    expect = ([lhs[a] for a in lb] + [x for i, x in enumerate(lhs) if i not in lb + lc]
              + [x for i, x in enumerate(rhs) if i not in rb + rc])
    if res is not None and not V.compatible_shapes(tuple(expect), res):
        raise V.op_error(op, f"inferred shape '{_dims_str(expect)}' is incompatible with return "
                             f"type of operation {V.type_str(op.results[0].type)}")


def _dims_str(dims) -> str:
    return "[" + ", ".join("?" if x is None else str(x) for x in dims) + "]"


def _verify_dot(op):
    """Rank 1 or 2 operands whose contracting dims agree."""
    V.num_operands(2)(op)
    V.num_results(1)(op)
    lhs = _tensor_shape(op, op.operands[0], "lhs")
    rhs = _tensor_shape(op, op.operands[1], "rhs")
    if lhs is None or rhs is None:
        return
    if len(lhs) not in (1, 2) or len(rhs) not in (1, 2):
        raise V.op_error(op, "expected operands of rank 1 or 2")
    if not V.compatible_dims(lhs[-1], rhs[0]):
        raise V.op_error(op, f"contracting dimension sizes must match for lhs/rhs (lhs dimension "
                             f"{len(lhs) - 1} has size {lhs[-1]}, rhs dimension 0 has size "
                             f"{rhs[0]})")


def _verify_broadcast_in_dim(op):
    """One dimension per operand dim, distinct and in range; each operand dim is 1 or the
    result's size there."""
    V.num_results(1)(op)
    dims = _int_list_attr(op, "broadcast_dimensions")
    src = _tensor_shape(op, op.operands[0], "operand")
    res = _tensor_shape(op, op.results[0], "result")
    V.same_operands_and_result_element_type(op)
    if src is None or res is None:
        return
    if len(dims) != len(src):
        raise V.op_error(op, f"broadcast_dimensions size ({len(dims)}) does not match operand "
                             f"rank ({len(src)})")
    if len(set(dims)) != len(dims):
        raise V.op_error(op, f"broadcast_dimensions should not have duplicates: {dims}")
    for i, d in enumerate(dims):
        if not 0 <= d < len(res):
            raise V.op_error(op, f"broadcast_dimensions contains invalid value {d} for result "
                                 f"with rank {len(res)}")
        if src[i] is not None and res[d] is not None and src[i] != 1 and src[i] != res[d]:
            raise V.op_error(op, f"size of operand dimension {i} ({src[i]}) is not equal to 1 or "
                                 f"size of result dimension {d} ({res[d]})")


def _verify_reshape(op):
    """Same element type and (static) element count."""
    V.num_operands(1)(op)
    V.num_results(1)(op)
    V.same_operands_and_result_element_type(op)
    a, r = op.operands[0].type, op.results[0].type
    if isinstance(a, T.TensorType) and isinstance(r, T.TensorType) and a.has_static_shape \
            and r.has_static_shape and a.num_elements != r.num_elements:
        raise V.op_error(op, f"number of output elements ({r.num_elements}) doesn't match "
                             f"expected number of elements ({a.num_elements})")


def _verify_transpose(op):
    """``permutation`` is a permutation of the operand dims; result dims follow it."""
    V.num_operands(1)(op)
    V.num_results(1)(op)
    V.same_operands_and_result_element_type(op)
    perm = _int_list_attr(op, "permutation")
    src = _tensor_shape(op, op.operands[0], "operand")
    if src is None:
        return
    if sorted(perm) != list(range(len(src))):
        raise V.op_error(op, f"permutation {perm} is not a permutation of the {len(src)} "
                             "operand dimensions")
    res = V.shape_of(op.results[0].type)
    if res is not None and not V.compatible_shapes(tuple(src[p] for p in perm), res):
        raise V.op_error(op, f"inferred shape '{_dims_str([src[p] for p in perm])}' is "
                             f"incompatible with return type of operation "
                             f"{V.type_str(op.results[0].type)}")


def _verify_constant(op):
    """``value`` present and typed like the result."""
    V.num_results(1)(op)
    v = op.attributes.get("value")
    if v is None:
        raise V.op_error(op, "requires attribute 'value'")
    vt = getattr(v, "type", None)
    if isinstance(vt, T.Type) and not V.compatible_types(vt, op.results[0].type):
        raise V.op_error(op, f"value type {V.type_str(vt)} doesn't match result type "
                             f"{V.type_str(op.results[0].type)}")


def _int_attr(op, name: str, required: bool = True):
    a = op.attributes.get(name)
    if a is None:
        if required:
            raise V.op_error(op, f"requires attribute '{name}'")
        return None
    v = getattr(a, "value", None)
    if not isinstance(v, int) or isinstance(v, bool):
        raise V.op_error(op, f"attribute '{name}' failed to satisfy constraint: integer attribute")
    return v


def _dim_in_range(op, d: int, rank: int, what: str) -> None:
    if not 0 <= d < rank:
        raise V.op_error(op, f"{what} {d} is out of range [0, {rank})")


def _dims_in_range(op, dims: List[int], rank: int, what: str) -> None:
    if len(set(dims)) != len(dims):
        raise V.op_error(op, f"{what} {dims} has duplicates")
    for d in dims:
        _dim_in_range(op, d, rank, f"{what} element")


def _check_result_shape(op, inferred, i: int = 0) -> None:
    res = V.shape_of(op.results[i].type)
    if res is not None and not V.compatible_shapes(tuple(inferred), res):
        raise V.op_error(op, f"inferred shape '{_dims_str(list(inferred))}' is incompatible with "
                             f"return type of operation {V.type_str(op.results[i].type)}")


def _verify_concatenate(op):
    """Operands of one rank and element type, equal except along ``dimension``; the
    result's ``dimension`` is their sum (spec: concatenate C1-C6)."""
    V.at_least_operands(1)(op)
    V.num_results(1)(op)
    V.same_operands_and_result_element_type(op)
    dim = _int_attr(op, "dimension")
    shapes = [_tensor_shape(op, v, f"operand #{i}") for i, v in enumerate(op.operands)]
    if any(s is None for s in shapes):
        return
    rank = len(shapes[0])
    _dim_in_range(op, dim, rank, "dimension")
    for i, s in enumerate(shapes[1:], 1):
        if len(s) != rank:
            raise V.op_error(op, f"operands (0) and ({i}) do not match rank")
        for d in range(rank):
            if d != dim and not V.compatible_dims(s[d], shapes[0][d]):
                raise V.op_error(op, f"shapes of operand (0) and ({i}) do not match at non-concat "
                                     f"index: dimension {d}")
    if all(s[dim] is not None for s in shapes):
        out = list(shapes[0])
        out[dim] = sum(s[dim] for s in shapes)
        _check_result_shape(op, out)


def _verify_slice(op):
    """``start_indices``/``limit_indices``/``strides`` one per dimension with
    0 <= start <= limit <= size and strides > 0 (spec: slice C2-C5)."""
    V.num_operands(1)(op)
    V.num_results(1)(op)
    V.same_operands_and_result_element_type(op)
    src = _tensor_shape(op, op.operands[0], "operand")
    starts, limits, strides = (_int_list_attr(op, n) for n in ("start_indices", "limit_indices", "strides"))
    if src is None:
        return
    if not len(starts) == len(limits) == len(strides) == len(src):
        raise V.op_error(op, f"start_indices, limit_indices and strides must each have {len(src)} "
                             "elements (the operand's rank)")
    out = []
    for d, (a, b, c) in enumerate(zip(starts, limits, strides)):
        if c <= 0:
            raise V.op_error(op, f"stride of dimension {d} must be positive, got {c}")
        if a < 0 or b < a or (src[d] is not None and b > src[d]):
            raise V.op_error(op, f"slice [{a}, {b}) of dimension {d} is not within its size {src[d]}")
        out.append(-(-(b - a) // c))
    _check_result_shape(op, out)


def _verify_pad(op):
    """Paddings one per dimension, interior >= 0, a rank-0 padding value; the result
    shape follows (spec: pad C1-C4)."""
    V.num_operands(2)(op)
    V.num_results(1)(op)
    V.same_operands_and_result_element_type(op)
    src = _tensor_shape(op, op.operands[0], "operand")
    pv = _tensor_shape(op, op.operands[1], "padding value")
    lo, hi, interior = (_int_list_attr(op, n) for n in ("edge_padding_low", "edge_padding_high", "interior_padding"))
    if pv is not None and len(pv) != 0:
        raise V.op_error(op, "padding value must be a rank-0 tensor")
    if src is None:
        return
    if not len(lo) == len(hi) == len(interior) == len(src):
        raise V.op_error(op, f"edge_padding_low, edge_padding_high and interior_padding must each "
                             f"have {len(src)} elements (the operand's rank)")
    out = []
    for d, (a, b, c) in enumerate(zip(lo, hi, interior)):
        if c < 0:
            raise V.op_error(op, f"interior padding of dimension {d} must be non-negative, got {c}")
        if src[d] is None:
            out.append(None)
            continue
        n = a + b + src[d] + max(src[d] - 1, 0) * c
        if n < 0:
            raise V.op_error(op, f"padding of dimension {d} gives a negative size {n}")
        out.append(n)
    _check_result_shape(op, out)


def _verify_iota(op):
    """``iota_dimension`` within the result's rank (spec: iota C1)."""
    V.num_results(1)(op)
    rank = len(_tensor_shape(op, op.results[0], "result") or ())
    _dim_in_range(op, _int_attr(op, "iota_dimension"), rank, "iota_dimension")


def _verify_dimension_attr(attr: str, operand: int = 0):
    def check(op):
        V.at_least_operands(operand + 1)(op)
        shape = _tensor_shape(op, op.operands[operand], "operand")
        if shape is not None:
            d = _int_attr(op, attr, required=attr != "dimension" or op.name != "stablehlo.sort")
            if d is not None:
                _dim_in_range(op, d + len(shape) if d < 0 and op.name == "stablehlo.sort" else d,
                              len(shape), attr)
    return check


def _verify_dims_list(attr: str):
    """``attr`` lists distinct dimensions of operand 0."""
    def check(op):
        V.at_least_operands(1)(op)
        shape = _tensor_shape(op, op.operands[0], "operand")
        if shape is not None:
            _dims_in_range(op, _int_list_attr(op, attr), len(shape), attr)
    return check


def _verify_reduce(op):
    """As many inputs as init values, rank-0 init values, distinct ``dimensions`` within the
    inputs' rank, results shaped as the inputs without those dimensions (spec: reduce C1-C4,
    C7)."""
    n = len(op.operands)
    if n == 0 or n % 2:
        raise V.op_error(op, "expects an even, non-zero number of operands (inputs, then init values)")
    for i, v in enumerate(op.operands[n // 2:], n // 2):
        s = _tensor_shape(op, v, f"init value #{i - n // 2}")
        if s is not None and len(s) != 0:
            raise V.op_error(op, f"init value #{i - n // 2} must be a rank-0 tensor")
    _verify_dims_list("dimensions")(op)
    if len(op.results) != n // 2:
        raise V.op_error(op, f"expects {n // 2} results, got {len(op.results)}")
    dims = set(_int_list_attr(op, "dimensions"))
    for k in range(n // 2):
        s = _tensor_shape(op, op.operands[k], f"input #{k}")
        if s is not None:
            _check_result_shape(op, [d for i, d in enumerate(s) if i not in dims], k)


def _verify_reduce_window(op):
    """Inputs and init values in equal numbers; ``window_dimensions`` (and any
    ``window_strides``, ``base_dilations``, ``window_dilations``: positive) one per input
    dimension, ``padding`` one pair per dimension (spec: reduce_window C1-C13)."""
    n = len(op.operands)
    if n == 0 or n % 2:
        raise V.op_error(op, "expects an even, non-zero number of operands (inputs, then init values)")
    shape = _tensor_shape(op, op.operands[0], "input")
    if shape is None:
        return
    rank = len(shape)
    win = _int_list_attr(op, "window_dimensions")
    if len(win) != rank or any(w <= 0 for w in win):
        raise V.op_error(op, f"window_dimensions must have {rank} positive elements, got {win}")
    for name in ("window_strides", "base_dilations", "window_dilations"):
        vals = _int_list_attr(op, name, required=False)
        if vals and (len(vals) != rank or any(v <= 0 for v in vals)):
            raise V.op_error(op, f"{name} must have {rank} positive elements, got {vals}")
    pad = op.attributes.get("padding")
    if pad is not None:
        arr = getattr(pad, "array", None)
        if arr is None or tuple(arr.shape) != (rank, 2):
            raise V.op_error(op, f"padding must be a {rank}x2 dense i64 attribute")
    for i, v in enumerate(op.operands[1:n // 2], 1):
        if _tensor_shape(op, v, f"input #{i}") != shape:
            raise V.op_error(op, f"input #{i} does not have the shape of input #0")


def _verify_dynamic_slice(op):
    """One start index per dimension; 0 <= slice_sizes <= the operand's sizes (spec:
    dynamic_slice C2-C5)."""
    V.num_results(1)(op)
    V.at_least_operands(1)(op)
    src = _tensor_shape(op, op.operands[0], "operand")
    sizes = _int_list_attr(op, "slice_sizes")
    if src is None:
        return
    if len(op.operands) - 1 != len(src) or len(sizes) != len(src):
        raise V.op_error(op, f"expects {len(src)} start indices and slice sizes (the operand's rank)")
    for d, (k, n) in enumerate(zip(sizes, src)):
        if k < 0 or (n is not None and k > n):
            raise V.op_error(op, f"slice size {k} of dimension {d} is not within [0, {n}]")
    _check_result_shape(op, sizes)


def _verify_dynamic_update_slice(op):
    """An update of the operand's rank no larger than it, one start index per dimension,
    result typed as the operand (spec: dynamic_update_slice C1-C5)."""
    V.num_results(1)(op)
    V.at_least_operands(2)(op)
    src = _tensor_shape(op, op.operands[0], "operand")
    upd = _tensor_shape(op, op.operands[1], "update")
    if src is None or upd is None:
        return
    if len(upd) != len(src) or len(op.operands) - 2 != len(src):
        raise V.op_error(op, f"expects an update of rank {len(src)} and {len(src)} start indices")
    for d, (u, n) in enumerate(zip(upd, src)):
        if u is not None and n is not None and u > n:
            raise V.op_error(op, f"update size {u} of dimension {d} exceeds the operand's {n}")
    _check_result_shape(op, src)


def _verify_dimension_numbers(name: str, mnemonic: str):
    """Verifier: attribute ``name`` is present and is a ``#stablehlo.<mnemonic><...>`` the
    accessors can read (a misspelt ``#stablehlo.gatger<...>`` parses as an opaque attribute)."""
    def verify(op):
        if name not in op.attributes:
            raise V.op_error(op, f"requires attribute '{name}'")
        accessor = {"gather": gather_dimension_numbers, "scatter": scatter_dimension_numbers,
                    "conv": conv_dimension_numbers}[mnemonic]
        try:
            accessor(op.attributes[name])
        except (KeyError, ValueError, TypeError, IndexError):
            raise V.op_error(op, f"expects attribute '{name}' to be a #stablehlo.{mnemonic}<...>, "
                                 f"got {op.attributes[name]}") from None
    return verify

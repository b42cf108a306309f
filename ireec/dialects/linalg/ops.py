"""linalg op registration and verifiers.

Structured ops are registered without "pure" (on memrefs they write their outputs).
:func:`_verify_structured` checks the LinalgOp interface (upstream
``verifyStructuredOpInterface``: one indexing map per operand over all loops, loop sizes
that agree between operands, results typed as their inits, and the payload of
generic/reduce/map); :func:`_verify_pack` the ``inner_dims_pos`` / ``inner_tiles`` /
``outer_dims_perm`` of pack and unpack. Both raise the located error of
:func:`ireec.ir.verifier.op_error`.
"""
from __future__ import annotations

from typing import List, Optional

from ...ir import types as T
from ...ir import verifier as V
from ...ir.affine import AffineDim, AffineMap, eval_expr
from ...ir.attributes import AffineMapAttr, ArrayAttr, DenseArrayAttr, DenseElementsAttr
from ...ir.core import Operation, Value
from ...ir.diagnostics import CompileError
from ..registry import register
from ..syntax import parse_terminator, print_terminator
from .asm import (_make_identity_op, _parse_generic, _parse_index, _parse_map, _parse_named,
                  _parse_pack, _parse_reduce, _parse_softmax, _print_generic, _print_index,
                  _print_map, _print_named, _print_pack, _print_reduce, _print_softmax)
from .named import NAMED_OPS, NAMED_SPECS, STRUCTURED_OPS, _short
from .structured import indexing_maps, inputs, iterator_types, outputs


# Structured ops are not registered "pure": on memrefs they write their outputs.
# ------------------------------------------------------------------ verifiers
# Ops whose loops come from an i64 array attribute.
_DIMS_ATTR = {"transpose": "permutation", "broadcast": "dimensions", "reduce": "dimensions"}


def _verify_structured(op: Operation) -> None:
    """LinalgOp interface checks (upstream ``verifyStructuredOpInterface``): one indexing
    map per operand, each over all loops and with as many results as the operand's rank;
    loop sizes read through the maps agree between operands (a matmul's inner dims);
    tensor results typed as their inits. For linalg.generic/reduce/map also the payload:
    block arguments and ``linalg.yield`` operands typed as the operands' elements."""
    seg = op.attributes.get("operandSegmentSizes")
    if seg is not None and (not isinstance(seg, DenseArrayAttr) or sum(seg.value) != len(op.operands)):
        raise V.op_error(op, "operand count does not match its 'operandSegmentSizes'")
    if len(op.operands) < 1:
        raise V.op_error(op, "expected at least one init operand")
    maps_attr = op.attributes.get("indexing_maps")
    if maps_attr is not None and (not isinstance(maps_attr, ArrayAttr) or not all(
            isinstance(m, AffineMapAttr) for m in maps_attr)):
        raise V.op_error(op, "attribute 'indexing_maps' failed to satisfy constraint: array of "
                             "affine maps")
    its_attr = op.attributes.get("iterator_types")
    if op.name == "linalg.generic" and (maps_attr is None or its_attr is None):
        raise V.op_error(op, f"requires attribute '{'indexing_maps' if maps_attr is None else 'iterator_types'}'")
    dims_attr = _DIMS_ATTR.get(_short(op))
    if dims_attr is not None and not isinstance(op.attributes.get(dims_attr), DenseArrayAttr):
        raise V.op_error(op, f"requires attribute '{dims_attr}'")
    ins, outs = inputs(op), outputs(op)
    if op.name == "linalg.transpose":
        perm = list(op.attributes["permutation"].value)
        if sorted(perm) != list(range(len(perm))):
            raise V.op_error(op, "permutation is not valid")
    for v in ins + outs:
        if isinstance(v.type, T.ShapedType) and v.type.shape is None:
            return  # unranked: nothing to check statically
    _verify_index_attributes(op)
    try:
        maps = indexing_maps(op)
        its = iterator_types(op)
    except (ValueError, IndexError, KeyError, AttributeError, TypeError):
        raise V.op_error(op, "has malformed indexing maps or iterator types") from None
    if len(maps) != len(op.operands):
        raise V.op_error(op, f"expected the number of indexing_map ({len(maps)}) to be equal to "
                             f"the number of input/output operands ({len(op.operands)})")
    for i, (v, m) in enumerate(zip(op.operands, maps)):
        if m.num_dims != len(its):
            raise V.op_error(op, f"expected indexing_map #{i} to have {len(its)} dim(s) to match "
                                 f"the number of loops")
        rank = len(V.shape_of(v.type))
        if len(m.results) != rank:
            raise V.op_error(op, f"expected operand rank ({rank}) to match the result rank of "
                                 f"indexing_map #{i} ({len(m.results)})")
    sizes: List[Optional[int]] = [None] * len(its)
    # A distributed op after bufferization (``ireec.distribute``) describes every workgroup's
    # tile at once: its workgroup-local scratch buffers already have the tile's shape while
    # the bindings keep the full one, until convert-linalg-to-loops tiles it.
    distributed = "ireec.distribute" in op.attributes and any(
        isinstance(v.type, T.MemRefType) for v in op.operands)
    for i, (v, m) in enumerate(zip(op.operands, maps) if not distributed else ()):
        shape = V.shape_of(v.type)
        for j, e in enumerate(m.results):
            if not isinstance(e, AffineDim) or shape[j] is None or e.pos >= len(sizes):
                continue
            if sizes[e.pos] is None:
                sizes[e.pos] = shape[j]
            elif sizes[e.pos] != shape[j]:
                raise V.op_error(op, f"inferred input/output operand #{i} has shape's dimension "
                                     f"#{j} to be {sizes[e.pos]}, but found {shape[j]}")
    if not distributed and sizes and all(s is not None and s > 0 for s in sizes):
        _verify_window_bounds(op, maps, sizes)
    tensor_outs = [v for v in outs if isinstance(v.type, T.TensorType)]
    if len(op.results) != len(tensor_outs):
        raise V.op_error(op, f"expected {len(tensor_outs)} results (one per tensor init), but "
                             f"found {len(op.results)}")
    for k, (r, v) in enumerate(zip(op.results, tensor_outs)):
        if not V.compatible_types(r.type, v.type):
            raise V.op_error(op, f"expected type of init #{k} ({V.type_str(v.type)}) to match "
                                 f"the type of the corresponding result ({V.type_str(r.type)})")
    if op.name in ("linalg.generic", "linalg.reduce", "linalg.map") or (
            op.regions and op.regions[0].blocks):
        _verify_payload(op, ins, outs)


def _verify_index_attributes(op: Operation) -> None:
    """``strides`` / ``dilations`` of a convolution or pooling op hold one i64 per window dim
    (OpDSL's ``IndexAttrDef``; the ``verifyIndexingMapRequiredAttributes`` upstream generates
    for every named op that has them)."""
    spec = NAMED_SPECS.get(_short(op))
    if spec is None or not spec.num_windows:
        return
    for name in ("strides", "dilations"):
        a = op.attributes.get(name)
        if isinstance(a, DenseElementsAttr):
            et = a.type.element_type
            if not (isinstance(et, T.IntegerType) and et.width == 64):
                raise CompileError(f"incorrect element type for index attribute '{name}'",
                                   V.op_location(op))
            if tuple(a.type.shape) != (spec.num_windows,):
                raise CompileError(f"incorrect shape for index attribute '{name}'",
                                   V.op_location(op))
        elif isinstance(a, (DenseArrayAttr, ArrayAttr)) and len(a.value) != spec.num_windows:
            raise CompileError(f"incorrect shape for index attribute '{name}'", V.op_location(op))


def _verify_window_bounds(op: Operation, maps: List[AffineMap], sizes: List[int]) -> None:
    """Indices that are not a plain loop dim (a convolution's ``oh * stride + kh * dilation``)
    stay within their operand for every point of the static loop ranges ``sizes``: upstream
    ``verifyStructuredOpInterface`` evaluates each such index at the first and the last point
    of the iteration domain and requires both to be >= 0 and the larger one < the dim's size
    (an input too small for the strides, dilations and window of its output is rejected, not
    read past its end)."""
    first, last = [0] * len(sizes), [s - 1 for s in sizes]
    for i, (v, m) in enumerate(zip(op.operands, maps)):
        shape = V.shape_of(v.type)
        for j, e in enumerate(m.results):
            if isinstance(e, AffineDim) or shape[j] is None or shape[j] == 0:
                continue
            try:
                lo, hi = eval_expr(e, first), eval_expr(e, last)
            except (IndexError, KeyError, ValueError, ZeroDivisionError):
                continue  # symbols, or an expression the endpoints do not bound
            if min(lo, hi) < 0:
                raise V.op_error(op, f"unexpected result less than 0 at expression #{j} in {m}")
            if max(lo, hi) + 1 > shape[j]:
                raise V.op_error(op, f"inferred input/output operand #{i} has shape's dimension "
                                     f"#{j} to be greater than or equal to {max(lo, hi) + 1}, "
                                     f"but found {shape[j]}")


def _verify_pack(op: Operation) -> None:
    """``inner_dims_pos`` distinct dims of the unpacked tensor, one inner tile each;
    ``outer_dims_perm`` a permutation of them (upstream ``commonVerifierPackAndUnPackOp``)."""
    unpacked = op.operands[0] if op.name.endswith(".pack") else (op.operands[1] if len(op.operands) > 1 else None)
    shape = V.shape_of(unpacked.type) if unpacked is not None else None
    if shape is None:
        return
    rank = len(shape)
    pos = _int_list(op, "inner_dims_pos")
    if len(set(pos)) != len(pos) or any(not 0 <= d < rank for d in pos):
        raise V.op_error(op, f"invalid inner_dims_pos vector {pos} for a rank-{rank} tensor")
    tiles = _int_list(op, "static_inner_tiles")
    if len(tiles) != len(pos):
        raise V.op_error(op, "length of inner_dims_pos and inner_tiles must match")
    perm = _int_list(op, "outer_dims_perm", required=False)
    if perm and sorted(perm) != list(range(rank)):
        raise V.op_error(op, f"invalid outer_dims_perm vector {perm}")


def _int_list(op: Operation, name: str, required: bool = True) -> List[int]:
    a = op.attributes.get(name)
    if a is None:
        if required:
            raise V.op_error(op, f"requires attribute '{name}'")
        return []
    vals = getattr(a, "value", None)
    if not isinstance(vals, (list, tuple)) or not all(isinstance(x, int) for x in vals):
        raise V.op_error(op, f"attribute '{name}' failed to satisfy constraint: i64 dense array attribute")
    return list(vals)


def _verify_payload(op: Operation, ins: List[Value], outs: List[Value]) -> None:
    if len(op.regions) != 1 or len(op.regions[0].blocks) != 1:
        raise V.op_error(op, "expected a region with one block")
    block = op.regions[0].blocks[0]
    operands = ins if op.name == "linalg.map" else ins + outs
    if len(block.args) != len(operands):
        raise V.op_error(op, f"expected as many non-induction variable region arguments as the "
                             f"number of input/output operands ({len(operands)}), found "
                             f"{len(block.args)}")
    for i, (a, v) in enumerate(zip(block.args, operands)):
        if a.type != T.element_type(v.type) and a.type != v.type:
            raise V.op_error(op, f"expected type of bb argument #{i} ({V.type_str(a.type)}) to "
                                 f"match element or self type of the corresponding operand "
                                 f"({V.type_str(v.type)})")
    y = block.terminator
    if y is None or y.name != "linalg.yield":
        raise V.op_error(op, "expects regions to end with 'linalg.yield', found "
                             + (f"'{y.name}'" if y is not None else "an empty block"))
    if len(y.operands) != len(outs):
        raise V.op_error(y, f"expected number of yield values ({len(y.operands)}) to match the "
                            f"number of inits / outs operands of the enclosing LinalgOp "
                            f"({len(outs)})")
    for i, (yv, o) in enumerate(zip(y.operands, outs)):
        et = T.element_type(o.type)
        if yv.type != et and yv.type != o.type:
            raise V.op_error(y, f"type of yield operand {i + 1} ({V.type_str(yv.type)}) doesn't "
                                f"match the element type of the enclosing linalg.generic op "
                                f"({V.type_str(et)})")


register("linalg.generic", _parse_generic, _print_generic)
for _n in NAMED_OPS:
    register(f"linalg.{_n}", _parse_named, _print_named)
register("linalg.transpose", *_make_identity_op("permutation"))
register("linalg.broadcast", *_make_identity_op("dimensions"))
register("linalg.map", _parse_map, _print_map)
register("linalg.reduce", _parse_reduce, _print_reduce)
register("linalg.softmax", _parse_softmax, _print_softmax)
register("linalg.pack", _parse_pack, _print_pack)  # may write a memref: not "pure"
register("linalg.unpack", _parse_pack, _print_pack)
register("tensor.pack", _parse_pack, _print_pack, traits=("pure",))  # names before LLVM 21
register("tensor.unpack", _parse_pack, _print_pack, traits=("pure",))
register("linalg.index", _parse_index, _print_index, traits=("pure",))
register("linalg.yield", parse_terminator, print_terminator, traits=("terminator",))
V.register_verifiers({n: _verify_structured for n in sorted(STRUCTURED_OPS)})
V.register_verifiers({n: _verify_pack for n in ("linalg.pack", "linalg.unpack", "tensor.pack", "tensor.unpack")})

"""linalg structured-op machinery: the LinalgOp interface and payload builders.

:func:`is_linalg_structured`, :func:`inputs`, :func:`outputs`, :func:`payload`,
:func:`indexing_maps` (one map per operand, ins then outs), :func:`iterator_types`,
:func:`loop_ranges` (static loop sizes, None where dynamic) read any structured op;
:func:`build_generic` builds a ``linalg.generic``, :func:`build_named_region` the payload
region upstream's region builders give a named op (matmul: ``mulf`` then ``addf``, casts
to the output element type where types differ).
"""
from __future__ import annotations

from typing import Callable, Dict, List, Optional, Sequence, Union

from ...ir import types as T
from ...ir.affine import AffineDim, AffineMap
from ...ir.attributes import AffineMapAttr, ArrayAttr, Attribute
from ...ir.core import Block, Builder, Operation, Region, Value
from ...ir.diagnostics import CompileError
from ..arith import ScalarBuilder
from ..tensor import segment_sizes
from .named import (ELEMENTWISE, ELEMENTWISE_BINARY, ELEMENTWISE_UNARY, NAMED_SPECS, PARALLEL,
                    REDUCTION, STRUCTURED_OPS, _identity_or_scalar, _short, element_type, int_list,
                    iterator_attr, iterator_name, maps_attr, spec_iterators, spec_maps)


def is_linalg_structured(op: Operation) -> bool:
    """True for linalg.generic and the named structured ops (LinalgOp interface)."""
    return op.name in STRUCTURED_OPS


def is_named_structured(op: Operation) -> bool:
    """A structured op other than linalg.generic (what generalization rewrites)."""
    return op.name in STRUCTURED_OPS and op.name != "linalg.generic"


def _num_inputs(op: Operation) -> int:
    seg = op.attributes.get("operandSegmentSizes")
    if seg is not None:
        return seg.value[0]
    if op.name == "linalg.reduce":
        return len(op.operands) // 2
    return len(op.operands) - 1


def inputs(op: Operation) -> List[Value]:
    """The ``ins(...)`` operands of a structured op."""
    return list(op.operands[: _num_inputs(op)])


def outputs(op: Operation) -> List[Value]:
    """The ``outs(...)`` (init) operands of a structured op."""
    return list(op.operands[_num_inputs(op):])


def payload(op: Operation) -> Block:
    """The body block of a structured op (named ops have one too)."""
    return op.regions[0].blocks[0]


def indexing_maps(op: Operation) -> List[AffineMap]:
    """One AffineMap per operand (inputs then outputs), from the loop dims to the operand's
    indices. Named ops use their upstream definitions (with strides/dilations)."""
    maps = op.attributes.get("indexing_maps")
    if maps is not None:
        if not isinstance(maps, ArrayAttr) or not all(isinstance(m, AffineMapAttr) for m in maps):
            raise CompileError(f"'{op.name}' op attribute 'indexing_maps' must be an array of "
                               "affine maps", op.loc)
        return [m.value for m in maps]
    short = _short(op)
    ins, outs = inputs(op), outputs(op)
    if short in NAMED_SPECS:
        spec = NAMED_SPECS[short]
        n = spec.num_windows
        return spec_maps(spec, int_list(op.attributes.get("strides"), n),
                         int_list(op.attributes.get("dilations"), n))
    if short in ELEMENTWISE or short in ("fill", "copy", "map"):
        rank = outs[0].type.rank
        return [_identity_or_scalar(v.type, rank) for v in ins + outs]
    if short == "transpose":
        perm = list(op.attributes["permutation"].value)
        inverse = [perm.index(i) for i in range(len(perm))]
        return [AffineMap.from_dims(len(perm), inverse), AffineMap.identity(len(perm))]
    if short == "broadcast":
        rank = outs[0].type.rank
        dims = set(op.attributes["dimensions"].value)
        kept = [d for d in range(rank) if d not in dims]
        return [AffineMap.from_dims(rank, kept), AffineMap.identity(rank)]
    if short == "reduce":
        rank = ins[0].type.rank
        dims = set(op.attributes["dimensions"].value)
        kept = [d for d in range(rank) if d not in dims]
        return ([AffineMap.identity(rank)] * len(ins)
                + [AffineMap.from_dims(rank, kept)] * len(outs))
    if short == "generic":
        op.attributes["indexing_maps"]  # absent: a located "requires attribute" error
    raise CompileError(f"'{op.name}' is not a structured linalg op", op.loc)


def iterator_types(op: Operation) -> List[str]:
    """'parallel' / 'reduction' per loop dim."""
    its = op.attributes.get("iterator_types")
    if its is not None:
        return [iterator_name(a) for a in its]
    short = _short(op)
    if short in NAMED_SPECS:
        return spec_iterators(NAMED_SPECS[short])
    if short == "reduce":
        dims = set(op.attributes["dimensions"].value)
        return [REDUCTION if d in dims else PARALLEL for d in range(inputs(op)[0].type.rank)]
    return [PARALLEL] * indexing_maps(op)[0].num_dims


def loop_ranges(op: Operation) -> List[Optional[int]]:
    """Static size of each loop dim, read from operand shapes through the maps where an
    index is a plain dim (None where no static shape gives it)."""
    maps = indexing_maps(op)
    ranges: List[Optional[int]] = [None] * (maps[0].num_dims if maps else 0)
    for v, m in zip(op.operands, maps):
        shape = getattr(v.type, "shape", None)
        if not shape:
            continue
        for i, e in enumerate(m.results):
            if isinstance(e, AffineDim) and ranges[e.pos] is None and shape[i] is not None:
                ranges[e.pos] = shape[i]
    return ranges


def is_pure_broadcast(op: Operation) -> bool:
    """A ``linalg.broadcast``, or a ``linalg.generic`` that only broadcasts: all loops
    parallel, the payload a bare ``linalg.yield``, an input map dropping dims or reading a unit
    dim at 0 (IREE's broadcast-like ops: cheaper recomputed in a consumer than stored
    expanded)."""
    if op.name == "linalg.broadcast":
        return True
    if op.name != "linalg.generic":
        return False
    if any(it != PARALLEL for it in iterator_types(op)) or payload(op).ops[0].name != "linalg.yield":
        return False
    maps = indexing_maps(op)[:len(inputs(op))]
    return any(m.is_projected_permutation() and (m.num_dims != len(m.results) or not all(
        isinstance(e, AffineDim) for e in m.results)) for m in maps)


def tensor_results(values: Sequence[Value]) -> List[T.Type]:
    """Result types of a destination-style op: its ranked-tensor inits."""
    return [v.type for v in values if isinstance(v.type, T.TensorType) and v.type.shape is not None]


BodyFn = Callable[[ScalarBuilder, List[Value]], Sequence[Value]]


def build_generic(ins: Sequence[Value], outs: Sequence[Value], maps: Sequence[AffineMap],
                  iterators: Sequence[str], body: Union[Region, BodyFn],
                  result_types: Optional[Sequence[T.Type]] = None,
                  attrs: Optional[Dict[str, Attribute]] = None, loc=None,
                  builder: Optional[Builder] = None) -> Operation:
    """A new ``linalg.generic`` over ``ins``/``outs`` with one map per operand and one
    iterator kind ('parallel' | 'reduction') per loop dim.

    ``body`` is a Region to adopt, or ``fn(sb, args) -> yielded values`` where ``args`` are
    the block arguments (element types of ``ins`` then ``outs``) and ``sb`` a ScalarBuilder
    appending to the block; ``linalg.yield`` is added after it. ``result_types`` defaults to
    the ranked-tensor ``outs``. With ``builder`` the op is inserted at its insertion point;
    otherwise it is returned unattached.
    """
    a = {"indexing_maps": maps_attr(maps),
         "iterator_types": ArrayAttr(tuple(iterator_attr(k) for k in iterators))}
    a.update(attrs or {})
    a["operandSegmentSizes"] = segment_sizes(len(ins), len(outs))
    if loc is None and builder is not None:
        loc = builder.loc
    if isinstance(body, Region):
        region = body
    else:
        block = Block([element_type(v.type) for v in list(ins) + list(outs)])
        sb = ScalarBuilder(block, loc)
        sb.yield_(body(sb, list(block.args)))
        region = Region([block])
    if result_types is None:
        result_types = tensor_results(outs)
    op = Operation("linalg.generic", list(ins) + list(outs), list(result_types), a,
                   regions=[region], loc=loc)
    return builder.insert(op) if builder is not None else op


make_generic = build_generic  # the name used in the design notes


# =============================================================== payload builders
def _cast_attr_unsigned(attrs: Dict[str, Attribute]) -> bool:
    c = attrs.get("cast")
    return c is not None and "cast_unsigned" in str(c)


def _build_named_body(short: str, sb: ScalarBuilder, args: List[Value],
                      attrs: Dict[str, Attribute]) -> List[Value]:
    """Scalar payload of named op ``short`` (upstream region builders)."""
    out = args[-1]
    u = out.type
    if short in NAMED_SPECS:
        spec = NAMED_SPECS[short]
        unsigned = spec.unsigned or _cast_attr_unsigned(attrs)
        if spec.body == "mac":
            a = sb.cast(args[0], u, unsigned)
            b = sb.cast(args[1], u, unsigned)
            return [sb.binary("add", out, sb.binary("mul", a, b))]
        if spec.body == "qmac":
            lhs = sb.binary("sub", sb.cast(args[0], u), sb.cast(args[2], u))
            rhs = sb.binary("sub", sb.cast(args[1], u), sb.cast(args[3], u))
            return [sb.binary("add", out, sb.binary("mul", lhs, rhs))]
        value = sb.cast(args[0], u, unsigned)
        if spec.body == "sum":
            return [sb.binary("add", out, value)]
        fn = f"{spec.body}_{'unsigned' if unsigned else 'signed'}"
        return [sb.binary(fn, out, value)]
    if short in ("fill", "copy"):
        return [sb.cast(args[0], u, _cast_attr_unsigned(attrs))]
    if short in ELEMENTWISE_UNARY:
        return [sb.unary(short, args[0])]
    if short in ELEMENTWISE_BINARY:
        return [sb.binary(ELEMENTWISE_BINARY[short], args[0], args[1])]
    if short == "select":
        return [sb.select(args[0], args[1], args[2])]
    raise ValueError(f"no payload builder for linalg.{short}")


def build_named_region(short: str, in_types: Sequence[T.Type], out_types: Sequence[T.Type],
                       attrs: Dict[str, Attribute], loc=None) -> Region:
    """The region upstream attaches to named op ``linalg.<short>`` for these operand types."""
    block = Block([element_type(t) for t in list(in_types) + list(out_types)])
    sb = ScalarBuilder(block, loc)
    sb.yield_(_build_named_body(short, sb, list(block.args), attrs))
    return Region([block])


def build_fill(value: Value, t: T.TensorType, builder: Builder) -> Value:
    """``linalg.fill ins(value) outs(tensor.empty() : t)`` at ``builder``'s insertion point:
    a new tensor of static type ``t`` holding scalar ``value`` (of ``t``'s element type)
    everywhere."""
    empty = builder.create("tensor.empty", [], [t]).result
    return builder.create("linalg.fill", [value, empty], [t], {"operandSegmentSizes": segment_sizes(1, 1)},
                          regions=[build_named_region("fill", [value.type], [t], {}, builder.loc)]).result


def identity_region(types: Sequence[T.Type]) -> Region:
    """Block with one argument per operand element type, yielding the first (transpose,
    broadcast, copy-like ops)."""
    block = Block([element_type(t) for t in types])
    block.append(Operation("linalg.yield", [block.args[0]]))
    return Region([block])

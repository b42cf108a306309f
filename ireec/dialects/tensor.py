"""tensor dialect: creation, element access, slicing, reshaping and padding of tensors.

Pretty syntax as mlir-opt prints it (https://mlir.llvm.org/docs/Dialects/TensorOps/):

    %e = tensor.empty(%d) : tensor<?x4xf32>
    %x = tensor.extract %t[%i, %j] : tensor<4x4xf32>
    %u = tensor.insert %x into %t[%i, %j] : tensor<4x4xf32>
    %s = tensor.extract_slice %t[0, %o] [2, 2] [1, 1] : tensor<4x4xf32> to tensor<2x2xf32>
    %v = tensor.insert_slice %s into %t[0, 0] [2, 2] [1, 1] : tensor<2x2xf32> into tensor<4x4xf32>
    %r = tensor.expand_shape %t [[0, 1], [2]] output_shape [2, 3, 4] : tensor<6x4xf32> into tensor<2x3x4xf32>
    %c = tensor.collapse_shape %r [[0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
    %p = tensor.pad %t low[0, 1] high[2, %h] { ^bb0(%i: index, %j: index): tensor.yield %z : f32 }
             : tensor<4x4xf32> to tensor<6x?xf32>
    tensor.cast / dim / splat / from_elements / generate / concat / bitcast / reshape / rank / yield

Mixed static/dynamic lists (offsets, sizes, ``low``...) follow MLIR's DynamicIndexList: a
``static_*`` DenseArrayAttr(i64) holds every entry, with :data:`K_DYNAMIC` where the value
is an SSA operand. Ops with several variadic operand groups carry ``operandSegmentSizes``.
The helpers for those lists are shared with the memref dialect.
"""
from __future__ import annotations

from typing import List, Sequence, Tuple

from ..ir import types as T
from ..ir import verifier as V
from ..ir.attributes import ArrayAttr, DenseArrayAttr, IntegerAttr, UnitAttr
from ..ir.core import Block, Operation, Value
from .registry import register
from .syntax import parse_terminator, print_terminator

K_DYNAMIC = -9223372036854775808  # ShapedType::kDynamic


# ------------------------------------------------------------------ shared helpers
def i64_array(vals: Sequence[int]) -> DenseArrayAttr:
    """``array<i64: ...>`` (DenseI64ArrayAttr)."""
    return DenseArrayAttr(T.i64, tuple(int(v) for v in vals))


def segment_sizes(*sizes: int) -> DenseArrayAttr:
    """``operandSegmentSizes = array<i32: ...>``."""
    return DenseArrayAttr(T.i32, tuple(int(s) for s in sizes))


def split_segments(op: Operation, sizes: Sequence[int] = None) -> List[List[Value]]:
    """The operand groups of ``op`` as given by its ``operandSegmentSizes``."""
    if sizes is None:
        sizes = op.attributes["operandSegmentSizes"].value
    out, i = [], 0
    for n in sizes:
        out.append(op.operands[i: i + n])
        i += n
    return out


def parse_dynamic_index_list(p) -> Tuple[List[int], list]:
    """``[0, %a, 4]`` → (static values with K_DYNAMIC for SSA entries, operand refs)."""
    static, refs = [], []
    p.expect("[")
    if p.try_punct("]"):
        return static, refs
    while True:
        if p.peek("%"):
            refs.append(p.parse_operand())
            static.append(K_DYNAMIC)
        else:
            static.append(p.parse_integer())
        if not p.try_punct(","):
            break
    p.expect("]")
    return static, refs


def dynamic_index_list_str(pr, static: Sequence[int], values: Sequence[Value]) -> str:
    """Inverse of :func:`parse_dynamic_index_list` (``[0, %1, 4]``)."""
    it = iter(values)
    parts = [pr.name_of(next(it)) if s == K_DYNAMIC else str(s) for s in static]
    return "[" + ", ".join(parts) + "]"


def parse_reassociation(p) -> ArrayAttr:
    """``[[0, 1], [2]]`` → ArrayAttr of ArrayAttr of IntegerAttr(i64)."""
    groups = []
    p.expect("[")
    if not p.try_punct("]"):
        while True:
            p.expect("[")
            g = []
            if not p.try_punct("]"):
                while True:
                    g.append(IntegerAttr(p.parse_integer(), T.i64))
                    if not p.try_punct(","):
                        break
                p.expect("]")
            groups.append(ArrayAttr(tuple(g)))
            if not p.try_punct(","):
                break
        p.expect("]")
    return ArrayAttr(tuple(groups))


def reassociation_str(a: ArrayAttr) -> str:
    """Inverse of :func:`parse_reassociation`."""
    return "[" + ", ".join("[" + ", ".join(str(x.value) for x in g) + "]" for g in a) + "]"


def reassociation(op: Operation) -> List[List[int]]:
    """The ``reassociation`` groups of an expand/collapse_shape as lists of ints."""
    return [[x.value for x in g] for g in op.attributes["reassociation"]]


def static_list(op: Operation, name: str) -> List[int]:
    """A ``static_*`` DenseArrayAttr as a list (K_DYNAMIC marks SSA entries)."""
    return list(op.attributes[name].value)


def _index_values(p, refs) -> List[Value]:
    return p.resolve_list(refs, [T.index] * len(refs))


def _from_to(p, kw: str = "to"):
    p.expect(":")
    src = p.parse_type()
    p.expect_keyword(kw)
    return src, p.parse_type()


# ------------------------------------------------------------------------- empty
def _parse_empty(p, name, loc):
    refs = p.parse_operand_list("()")
    attrs = p.parse_optional_attr_dict()
    p.expect(":")
    t = p.parse_type()
    return Operation(name, _index_values(p, refs), [t], attrs, loc=loc)


def _print_empty(pr, op):
    pr.write("(")
    pr.print_operands(op.operands)
    pr.write(")")
    pr.print_attr_dict(op.attributes)
    pr.write(f" : {op.results[0].type}")


# ------------------------------------------------------------ extract / insert
def _parse_extract(p, name, loc):
    src = p.parse_operand()
    idx = p.parse_operand_list("[]")
    attrs = p.parse_optional_attr_dict()
    p.expect(":")
    t = p.parse_type()
    return Operation(name, [p.resolve(src, t)] + _index_values(p, idx), [t.element_type], attrs,
                     loc=loc)


def _print_extract(pr, op):
    pr.write(" " + pr.name_of(op.operands[0]) + "[")
    pr.print_operands(op.operands[1:])
    pr.write("]")
    pr.print_attr_dict(op.attributes)
    pr.write(f" : {op.operands[0].type}")


def _parse_insert(p, name, loc):
    val = p.parse_operand()
    p.expect_keyword("into")
    dest = p.parse_operand()
    idx = p.parse_operand_list("[]")
    attrs = p.parse_optional_attr_dict()
    p.expect(":")
    t = p.parse_type()
    ops = [p.resolve(val, t.element_type), p.resolve(dest, t)] + _index_values(p, idx)
    return Operation(name, ops, [t], attrs, loc=loc)


def _print_insert(pr, op):
    pr.write(f" {pr.name_of(op.operands[0])} into {pr.name_of(op.operands[1])}[")
    pr.print_operands(op.operands[2:])
    pr.write("]")
    pr.print_attr_dict(op.attributes)
    pr.write(f" : {op.results[0].type}")


# --------------------------------------------------------------------- slices
_SLICE_ATTRS = ("static_offsets", "static_sizes", "static_strides")


def parse_offsets_sizes_strides(p):
    """Three DynamicIndexLists: returns (attrs without segments, [off, size, stride] refs)."""
    attrs, groups = {}, []
    for a in _SLICE_ATTRS:
        static, refs = parse_dynamic_index_list(p)
        attrs[a] = i64_array(static)
        groups.append(refs)
    return attrs, groups


def offsets_sizes_strides_str(pr, op: Operation, dyn_groups) -> str:
    """``[o..] [s..] [t..]`` of an op with static_offsets/sizes/strides."""
    return " ".join(dynamic_index_list_str(pr, op.attributes[a].value, vals)
                    for a, vals in zip(_SLICE_ATTRS, dyn_groups))


def _parse_extract_slice(p, name, loc):
    src = p.parse_operand()
    attrs, groups = parse_offsets_sizes_strides(p)
    attrs.update(p.parse_optional_attr_dict())
    st, rt = _from_to(p)
    ops = [p.resolve(src, st)] + [v for g in groups for v in _index_values(p, g)]
    attrs["operandSegmentSizes"] = segment_sizes(1, *(len(g) for g in groups))
    return Operation(name, ops, [rt], attrs, loc=loc)


def _print_extract_slice(pr, op):
    _, off, sz, st = split_segments(op)
    pr.write(" " + pr.name_of(op.operands[0]) + offsets_sizes_strides_str(pr, op, (off, sz, st)))
    pr.print_attr_dict(op.attributes, elided=_SLICE_ATTRS + ("operandSegmentSizes",))
    pr.write(f" : {op.operands[0].type} to {op.results[0].type}")


def _parse_insert_slice(p, name, loc):
    src = p.parse_operand()
    p.expect_keyword("into")
    dest = p.parse_operand()
    attrs, groups = parse_offsets_sizes_strides(p)
    attrs.update(p.parse_optional_attr_dict())
    st, dt = _from_to(p, "into")
    ops = [p.resolve(src, st), p.resolve(dest, dt)] + [v for g in groups for v in _index_values(p, g)]
    attrs["operandSegmentSizes"] = segment_sizes(1, 1, *(len(g) for g in groups))
    return Operation(name, ops, [dt], attrs, loc=loc)


def _print_insert_slice(pr, op):
    _, _, off, sz, st = split_segments(op)
    pr.write(f" {pr.name_of(op.operands[0])} into {pr.name_of(op.operands[1])}"
             + offsets_sizes_strides_str(pr, op, (off, sz, st)))
    pr.print_attr_dict(op.attributes, elided=_SLICE_ATTRS + ("operandSegmentSizes",))
    pr.write(f" : {op.operands[0].type} into {op.results[0].type}")


# ------------------------------------------------------------------ reshapes
def parse_expand_shape(p, name, loc):
    """``%src [[0, 1], [2]] output_shape [2, %d, 4] attr-dict : t into t2``."""
    src = p.parse_operand()
    attrs = {"reassociation": parse_reassociation(p)}
    refs, static = [], None
    if p.try_keyword("output_shape"):
        static, refs = parse_dynamic_index_list(p)
    attrs.update(p.parse_optional_attr_dict())
    st, rt = _from_to(p, "into")
    if static is None:  # syntax before output_shape existed: static result shapes only
        if not rt.has_static_shape:
            raise p.error("expand_shape with a dynamic result needs 'output_shape [...]'", loc)
        static = list(rt.shape)
    attrs["static_output_shape"] = i64_array(static)
    return Operation(name, [p.resolve(src, st)] + _index_values(p, refs), [rt], attrs, loc=loc)


def print_expand_shape(pr, op):
    """Inverse of :func:`parse_expand_shape`."""
    pr.write(f" {pr.name_of(op.operands[0])} {reassociation_str(op.attributes['reassociation'])}"
             f" output_shape "
             + dynamic_index_list_str(pr, op.attributes["static_output_shape"].value, op.operands[1:]))
    pr.print_attr_dict(op.attributes, elided=("reassociation", "static_output_shape"))
    pr.write(f" : {op.operands[0].type} into {op.results[0].type}")


def parse_collapse_shape(p, name, loc):
    """``%src [[0, 1], [2]] attr-dict : t into t2`` (tensor and memref)."""
    src = p.parse_operand()
    attrs = {"reassociation": parse_reassociation(p)}
    attrs.update(p.parse_optional_attr_dict())
    st, rt = _from_to(p, "into")
    return Operation(name, [p.resolve(src, st)], [rt], attrs, loc=loc)


def print_collapse_shape(pr, op):
    """Inverse of :func:`parse_collapse_shape`."""
    pr.write(f" {pr.name_of(op.operands[0])} {reassociation_str(op.attributes['reassociation'])}")
    pr.print_attr_dict(op.attributes, elided=("reassociation",))
    pr.write(f" : {op.operands[0].type} into {op.results[0].type}")


def _parse_reshape(p, name, loc):
    src = p.parse_operand()
    p.expect("(")
    shape = p.parse_operand()
    p.expect(")")
    attrs = p.parse_optional_attr_dict()
    p.expect(":")
    ft = p.parse_type()
    if not isinstance(ft, T.FunctionType) or len(ft.inputs) != 2 or len(ft.results) != 1:
        raise p.error("expected '(source type, shape type) -> result type'", loc)
    return Operation(name, [p.resolve(src, ft.inputs[0]), p.resolve(shape, ft.inputs[1])],
                     list(ft.results), attrs, loc=loc)


def _print_reshape(pr, op):
    pr.write(f" {pr.name_of(op.operands[0])}({pr.name_of(op.operands[1])})")
    pr.print_attr_dict(op.attributes)
    pr.write(f" : ({op.operands[0].type}, {op.operands[1].type}) -> {op.results[0].type}")


# ------------------------------------------------------------- simple casts
def parse_source_to(p, name, loc):
    """``%src attr-dict : t to t2`` (tensor.cast, tensor.bitcast, memref.cast)."""
    src = p.parse_operand()
    attrs = p.parse_optional_attr_dict()
    st, rt = _from_to(p)
    return Operation(name, [p.resolve(src, st)], [rt], attrs, loc=loc)


def print_source_to(pr, op):
    """Inverse of :func:`parse_source_to`."""
    pr.write(" " + pr.name_of(op.operands[0]))
    pr.print_attr_dict(op.attributes)
    pr.write(f" : {op.operands[0].type} to {op.results[0].type}")


def parse_dim(p, name, loc):
    """``attr-dict %src, %index : type`` (tensor.dim, memref.dim)."""
    attrs = p.parse_optional_attr_dict()
    src = p.parse_operand()
    p.expect(",")
    idx = p.parse_operand()
    p.expect(":")
    t = p.parse_type()
    return Operation(name, [p.resolve(src, t), p.resolve(idx, T.index)], [T.index], attrs, loc=loc)


def print_dim(pr, op):
    """Inverse of :func:`parse_dim`."""
    pr.print_attr_dict(op.attributes)
    pr.write(f" {pr.name_of(op.operands[0])}, {pr.name_of(op.operands[1])} : {op.operands[0].type}")


def parse_operand_colon_type(p, name, loc, result=False):
    """``%x attr-dict : type`` (memref.dealloc; tensor.rank with an index result)."""
    src = p.parse_operand()
    attrs = p.parse_optional_attr_dict()
    p.expect(":")
    t = p.parse_type()
    return Operation(name, [p.resolve(src, t)], [T.index] if result else [], attrs, loc=loc)


def print_operand_colon_type(pr, op):
    """Inverse of :func:`parse_operand_colon_type`."""
    pr.write(" " + pr.name_of(op.operands[0]))
    pr.print_attr_dict(op.attributes)
    pr.write(f" : {op.operands[0].type}")


# ------------------------------------------------- splat / from_elements / concat
def _parse_splat(p, name, loc):
    val = p.parse_operand()
    refs = p.parse_operand_list("[]") if p.peek("[") else []
    attrs = p.parse_optional_attr_dict()
    p.expect(":")
    t = p.parse_type()
    return Operation(name, [p.resolve(val, t.element_type)] + _index_values(p, refs), [t], attrs,
                     loc=loc)


def _print_splat(pr, op):
    pr.write(" " + pr.name_of(op.operands[0]))
    if len(op.operands) > 1:
        pr.write("[")
        pr.print_operands(op.operands[1:])
        pr.write("]")
    pr.print_attr_dict(op.attributes)
    pr.write(f" : {op.results[0].type}")


def _parse_from_elements(p, name, loc):
    refs = p.parse_operand_list()
    attrs = p.parse_optional_attr_dict()
    p.expect(":")
    t = p.parse_type()
    return Operation(name, p.resolve_list(refs, [t.element_type] * len(refs)), [t], attrs, loc=loc)


def _print_from_elements(pr, op):
    if op.operands:
        pr.write(" ")
        pr.print_operands(op.operands)
    pr.print_attr_dict(op.attributes)
    pr.write(f" : {op.results[0].type}")


def _parse_concat(p, name, loc):
    p.expect_keyword("dim")
    p.expect("(")
    dim = p.parse_integer()
    p.expect(")")
    refs = p.parse_operand_list()
    attrs = p.parse_optional_attr_dict()
    p.expect(":")
    ft = p.parse_type()
    if not isinstance(ft, T.FunctionType):
        raise p.error("expected functional type after tensor.concat", loc)
    attrs = {"dim": IntegerAttr(dim, T.i64), **attrs}
    return Operation(name, p.resolve_list(refs, ft.inputs), list(ft.results), attrs, loc=loc)


def _print_concat(pr, op):
    pr.write(f" dim({op.attributes['dim'].value}) ")
    pr.print_operands(op.operands)
    pr.print_attr_dict(op.attributes, elided=("dim",))
    pr.write(" : " + str(T.FunctionType(tuple(v.type for v in op.operands),
                                        tuple(op.result_types))))


# ------------------------------------------------------------ pad / generate
def _parse_pad(p, name, loc):
    src = p.parse_operand()
    attrs = {}
    if p.try_keyword("nofold"):
        attrs["nofold"] = UnitAttr()
    p.expect_keyword("low")
    low, low_refs = parse_dynamic_index_list(p)
    p.expect_keyword("high")
    high, high_refs = parse_dynamic_index_list(p)
    region = p.parse_region()
    attrs.update(p.parse_optional_attr_dict())
    st, rt = _from_to(p)
    attrs["static_low"] = i64_array(low)
    attrs["static_high"] = i64_array(high)
    attrs["operandSegmentSizes"] = segment_sizes(1, len(low_refs), len(high_refs))
    ops = [p.resolve(src, st)] + _index_values(p, low_refs) + _index_values(p, high_refs)
    return Operation(name, ops, [rt], attrs, regions=[region], loc=loc)


def _print_pad(pr, op):
    _, low, high = split_segments(op)
    pr.write(" " + pr.name_of(op.operands[0]))
    if "nofold" in op.attributes:
        pr.write(" nofold")
    pr.write(" low" + dynamic_index_list_str(pr, op.attributes["static_low"].value, low))
    pr.write(" high" + dynamic_index_list_str(pr, op.attributes["static_high"].value, high))
    pr.write(" ")
    pr.print_region(op.regions[0])
    pr.print_attr_dict(op.attributes, elided=("nofold", "static_low", "static_high",
                                              "operandSegmentSizes"))
    pr.write(f" : {op.operands[0].type} to {op.results[0].type}")


def pad_low_high(op: Operation) -> Tuple[List[int], List[int]]:
    """Static low/high padding of a tensor.pad (K_DYNAMIC where an SSA value is used)."""
    return static_list(op, "static_low"), static_list(op, "static_high")


def pad_value(op: Operation):
    """The value a tensor.pad yields, if it is defined outside the region (else None)."""
    y = op.regions[0].blocks[0].terminator
    v = y.operands[0] if y is not None and y.operands else None
    if v is None:
        return None
    owner = v.owner
    blk = owner if isinstance(owner, Block) else owner.parent
    return None if blk is op.regions[0].blocks[0] else v


def _parse_generate(p, name, loc):
    refs = p.parse_operand_list()
    region = p.parse_region()
    attrs = p.parse_optional_attr_dict()
    p.expect(":")
    t = p.parse_type()
    return Operation(name, _index_values(p, refs), [t], attrs, regions=[region], loc=loc)


def _print_generate(pr, op):
    if op.operands:
        pr.write(" ")
        pr.print_operands(op.operands)
    pr.write(" ")
    pr.print_region(op.regions[0])
    pr.print_attr_dict(op.attributes)
    pr.write(f" : {op.results[0].type}")


# ------------------------------------------------------------------------ yield


# ----------------------------------------------------------------- registration
_PURE = ("pure",)
register("tensor.empty", _parse_empty, _print_empty, traits=_PURE)
register("tensor.extract", _parse_extract, _print_extract, traits=_PURE)
register("tensor.insert", _parse_insert, _print_insert, traits=_PURE)
register("tensor.extract_slice", _parse_extract_slice, _print_extract_slice, traits=_PURE)
register("tensor.insert_slice", _parse_insert_slice, _print_insert_slice, traits=_PURE)
register("tensor.expand_shape", parse_expand_shape, print_expand_shape, traits=_PURE)
register("tensor.collapse_shape", parse_collapse_shape, print_collapse_shape, traits=_PURE)
register("tensor.reshape", _parse_reshape, _print_reshape, traits=_PURE)
register("tensor.cast", parse_source_to, print_source_to, traits=_PURE)
register("tensor.bitcast", parse_source_to, print_source_to, traits=_PURE)
register("tensor.dim", parse_dim, print_dim, traits=_PURE)
register("tensor.rank", lambda p, n, l: parse_operand_colon_type(p, n, l, result=True),
         print_operand_colon_type, traits=_PURE)
register("tensor.splat", _parse_splat, _print_splat, traits=_PURE)
register("tensor.from_elements", _parse_from_elements, _print_from_elements, traits=_PURE)
register("tensor.concat", _parse_concat, _print_concat, traits=_PURE)
register("tensor.pad", _parse_pad, _print_pad, traits=_PURE)
register("tensor.generate", _parse_generate, _print_generate, traits=_PURE)
register("tensor.yield", parse_terminator, print_terminator, traits=("terminator",))


# -------------------------------------------------------------------- verifiers
def _ranked(op, i: int, what: str = "ranked tensor") -> T.TensorType:
    t = op.operands[i].type if i >= 0 else op.results[-1 - i].type
    if not isinstance(t, T.TensorType) or t.shape is None:
        kind = f"operand #{i}" if i >= 0 else f"result #{-1 - i}"
        raise V.op_error(op, f"{kind} must be {what} of any type values, but got "
                             f"{V.type_str(t)}")
    return t


def _indices(op, start: int) -> None:
    for k, v in enumerate(op.operands[start:]):
        if not isinstance(v.type, T.IndexType):
            raise V.op_error(op, f"operand #{start + k} must be index, but got "
                                 f"{V.type_str(v.type)}")


def _verify_extract(op):
    """One index per dimension; the result is the element type."""
    V.at_least_operands(1)(op)
    V.num_results(1)(op)
    t = _ranked(op, 0)
    if len(op.operands) - 1 != t.rank:
        raise V.op_error(op, "incorrect number of indices for extract_element")
    _indices(op, 1)
    if op.results[0].type != t.element_type:
        raise V.op_error(op, "failed to verify that result type matches element type of tensor")


def _verify_insert(op):
    """One index per dimension; scalar = element type; result typed as the destination."""
    V.at_least_operands(2)(op)
    V.num_results(1)(op)
    t = _ranked(op, 1)
    if len(op.operands) - 2 != t.rank:
        raise V.op_error(op, "incorrect number of indices")
    _indices(op, 2)
    if op.operands[0].type != t.element_type:
        raise V.op_error(op, "failed to verify that scalar type matches element type of dest")
    if not V.compatible_types(op.results[0].type, t):
        raise V.op_error(op, "failed to verify that result type matches type of dest")


def _verify_empty(op):
    """One index operand per dynamic dimension of the result."""
    V.num_results(1)(op)
    t = _ranked(op, -1)
    n_dyn = sum(d is None for d in t.shape)
    if len(op.operands) != n_dyn:
        raise V.op_error(op, f"incorrect number of dynamic sizes, has {len(op.operands)}, "
                             f"expected {n_dyn}")
    _indices(op, 0)


def _verify_slice(n_fixed: int, source_index: int):
    """extract_slice / insert_slice: offsets, sizes and strides give one entry per source
    (insert: destination) dimension, one SSA operand per dynamic entry; element types
    agree; the slice's rank is at most the full rank."""
    def check(op):
        V.num_results(1)(op)
        full = _ranked(op, source_index)
        sliced = _ranked(op, -1) if n_fixed == 1 else _ranked(op, 0)
        n_dyn = 0
        for a in _SLICE_ATTRS:
            vals = op.attributes.get(a)
            if not isinstance(vals, DenseArrayAttr):
                raise V.op_error(op, f"requires attribute '{a}'")
            if len(vals.value) != full.rank:
                raise V.op_error(op, f"expected {full.rank} {a[len('static_'):]} values, got "
                                     f"{len(vals.value)}")
            n_dyn += sum(v == K_DYNAMIC for v in vals.value)
        if len(op.operands) != n_fixed + n_dyn:
            raise V.op_error(op, f"expected {n_fixed + n_dyn} operands (one per dynamic offset, "
                                 f"size or stride), but found {len(op.operands)}")
        _indices(op, n_fixed)
        if sliced.element_type != full.element_type:
            raise V.op_error(op, "requires the same element type for the slice and the tensor")
        if sliced.rank > full.rank:
            raise V.op_error(op, f"expected the slice rank ({sliced.rank}) to be at most the "
                                 f"tensor rank ({full.rank})")
        if n_fixed == 2 and not V.compatible_types(op.results[0].type, op.operands[1].type):
            raise V.op_error(op, "failed to verify that result type matches type of dest")
        sizes = [None if v == K_DYNAMIC else v for v in op.attributes["static_sizes"].value]
        if not _rank_reduces_to(sizes, list(sliced.shape)):
            raise V.op_error(op, f"expected type to be {V.type_str(sliced)} or a rank-reduced "
                                 f"version of sizes [{', '.join('?' if d is None else str(d) for d in sizes)}]")
    return check


def _rank_reduces_to(sizes, shape) -> bool:
    """Whether ``shape`` is ``sizes`` with some unit dimensions dropped (dynamic entries,
    None, match anything): upstream ``isRankReducedType``."""
    i = 0
    for d in sizes:
        if i < len(shape) and V.compatible_dims(d, shape[i]) and (
                d != 1 or len(sizes) - len(shape) <= 0 or shape[i] == 1):
            i += 1
        elif d != 1:
            return False
    return i == len(shape)


def _verify_reshape_groups(expand: bool):
    """expand_shape / collapse_shape: the reassociation partitions the dims of the larger
    type, one group per dim of the smaller one; static group products agree."""
    def check(op):
        V.num_results(1)(op)
        src, res = op.operands[0].type, op.results[0].type
        if not isinstance(src, T.ShapedType) or not isinstance(res, T.ShapedType) \
                or src.shape is None or res.shape is None:
            raise V.op_error(op, "expects ranked source and result types")
        if T.element_type(src) != T.element_type(res):
            raise V.op_error(op, "requires the same element type for source and result")
        small, big = (src, res) if expand else (res, src)
        if big.rank < small.rank:
            raise V.op_error(op, f"expected the {'result' if expand else 'source'} rank to be "
                                 f"greater than or equal to the {'source' if expand else 'result'}"
                                 " rank")
        a = op.attributes.get("reassociation")
        if not isinstance(a, ArrayAttr):
            raise V.op_error(op, "requires attribute 'reassociation'")
        groups = [[x.value for x in g] for g in a]
        flat = [d for g in groups for d in g]
        if small.rank == 0 and not groups:  # to/from rank 0: every dim of the other is 1
            if any(d is not None and d != 1 for d in big.shape):
                raise V.op_error(op, f"expected all dimensions of {V.type_str(big)} to be 1 to "
                                     "reshape it to or from rank 0")
            return
        if len(groups) != small.rank or flat != list(range(big.rank)):
            raise V.op_error(op, f"expected reassociation map #0 to be valid and contiguous: "
                                 f"{len(groups)} groups covering the {big.rank} dims of "
                                 f"{V.type_str(big)}, one group per dim of {V.type_str(small)}")
        for i, g in enumerate(groups):
            dims = [big.shape[d] for d in g]
            if small.shape[i] is not None and all(d is not None for d in dims):
                prod = 1
                for d in dims:
                    prod *= d
                if prod != small.shape[i]:
                    raise V.op_error(op, f"expected dimension {i} of the collapsed type to be "
                                         f"static value of {prod}")
    return check


def _verify_from_elements(op):
    """As many scalar operands as the static result has elements, each the element type."""
    V.num_results(1)(op)
    t = _ranked(op, -1)
    if t.has_static_shape and len(op.operands) != t.num_elements:
        raise V.op_error(op, f"expected {t.num_elements} operands, but found {len(op.operands)}")
    for i, v in enumerate(op.operands):
        if v.type != t.element_type:
            raise V.op_error(op, f"operand #{i} must be {V.type_str(t.element_type)}, but got "
                                 f"{V.type_str(v.type)}")


def _verify_cast(op):
    """Same element type, compatible shapes."""
    V.num_operands(1)(op)
    V.num_results(1)(op)
    a, b = op.operands[0].type, op.results[0].type
    if not V.compatible_types(a, b):
        raise V.op_error(op, f"operand type {V.type_str(a)} and result type {V.type_str(b)} are "
                             "cast incompatible")


def _verify_dim(op):
    """A shaped source and an index."""
    V.num_operands(2)(op)
    V.num_results(1)(op)
    if not isinstance(op.operands[0].type, T.ShapedType):
        raise V.op_error(op, f"operand #0 must be non-0-ranked or unranked tensor, but got "
                             f"{V.type_str(op.operands[0].type)}")
    _indices(op, 1)


def _verify_reshape(op):
    """Static element counts of source and result agree; shape operand is 1-D."""
    V.num_operands(2)(op)
    V.num_results(1)(op)
    src, res = op.operands[0].type, op.results[0].type
    if T.element_type(src) != T.element_type(res):
        raise V.op_error(op, "element types of source and destination tensor types should be "
                             "the same")
    if isinstance(src, T.TensorType) and isinstance(res, T.TensorType) \
            and src.has_static_shape and res.has_static_shape and src.num_elements != res.num_elements:
        raise V.op_error(op, "source and destination tensor should have the same number of "
                             "elements")


def _verify_pad(op):
    """A source of the result's rank; the region has one block with one index argument per
    dimension and ends in ``tensor.yield`` of one element-typed value (upstream
    ``PadOp::verifyRegions``)."""
    V.num_results(1)(op)
    V.at_least_operands(1)(op)
    src = V.shape_of(op.operands[0].type)
    res = V.shape_of(op.results[0].type)
    if src is None or res is None:
        return
    if len(src) != len(res):
        raise V.op_error(op, f"expected the result rank ({len(res)}) to equal the source rank ({len(src)})")
    if len(op.regions) != 1 or len(op.regions[0].blocks) != 1:
        raise V.op_error(op, "expected a region with one block")
    blk = op.regions[0].blocks[0]
    if len(blk.args) != len(src) or any(not isinstance(a.type, T.IndexType) for a in blk.args):
        raise V.op_error(op, f"expected the block to have {len(src)} index arguments")
    y = blk.terminator
    if y is None or y.name != "tensor.yield" or len(y.operands) != 1:
        raise V.op_error(op, "expected the region to end with 'tensor.yield' of one value")
    if y.operands[0].type != T.element_type(op.results[0].type):
        raise V.op_error(y, f"expected yield type to match the element type "
                            f"{V.type_str(T.element_type(op.results[0].type))}")


V.register_verifiers({
    "tensor.pad": _verify_pad,
    "tensor.extract": _verify_extract,
    "tensor.insert": _verify_insert,
    "tensor.empty": _verify_empty,
    "tensor.extract_slice": _verify_slice(1, 0),
    "tensor.insert_slice": _verify_slice(2, 1),
    "tensor.expand_shape": _verify_reshape_groups(True),
    "tensor.collapse_shape": _verify_reshape_groups(False),
    "tensor.from_elements": _verify_from_elements,
    "tensor.cast": _verify_cast,
    "tensor.dim": _verify_dim,
    "tensor.reshape": _verify_reshape,
})

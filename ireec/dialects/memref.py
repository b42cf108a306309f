"""memref dialect: buffers, loads/stores, views and globals.

Pretty syntax as mlir-opt prints it (https://mlir.llvm.org/docs/Dialects/MemRef/):

    %m = memref.alloc(%d) {alignment = 64 : i64} : memref<?x4xf32>     (also alloca)
    %x = memref.load %m[%i, %j] : memref<?x4xf32>
    memref.store %x, %m[%i, %j] : memref<?x4xf32>
    %s = memref.subview %m[0, 0] [2, 2] [1, 1] : memref<8x8xf32> to memref<2x2xf32, strided<[8, 1]>>
    %r = memref.reinterpret_cast %m to offset: [0], sizes: [4, 4], strides: [4, 1]
             : memref<16xf32> to memref<4x4xf32>
    memref.copy %a, %b : memref<4xf32> to memref<4xf32>
    memref.global "private" constant @c : memref<2xf32> = dense<[1.0, 2.0]> {alignment = 64 : i64}
    %g = memref.get_global @c : memref<2xf32>
    cast / dim / expand_shape / collapse_shape / dealloc

Static/dynamic lists use the DynamicIndexList helpers of the tensor dialect.
"""
from __future__ import annotations

from ..frontend.parser import check_dense_type, make_dense
from ..ir import types as T
from ..ir.attributes import DenseResourceAttr, StringAttr, TypeAttr, UnitAttr
from ..ir.core import Operation
from ..ir.diagnostics import CompileError
from .registry import register
from .tensor import (dynamic_index_list_str, i64_array, offsets_sizes_strides_str,
                     parse_collapse_shape, parse_dim, parse_dynamic_index_list,
                     parse_expand_shape, parse_offsets_sizes_strides, parse_operand_colon_type,
                     parse_source_to, print_collapse_shape, print_dim, print_expand_shape,
                     print_operand_colon_type, print_source_to, segment_sizes, split_segments)


def _index_values(p, refs):
    return p.resolve_list(refs, [T.index] * len(refs))


# ----------------------------------------------------------------- alloc / alloca
def _parse_alloc(p, name, loc):
    dyn = p.parse_operand_list("()")
    sym = p.parse_operand_list("[]") if p.peek("[") else []
    attrs = p.parse_optional_attr_dict()
    p.expect(":")
    t = p.parse_type()
    attrs["operandSegmentSizes"] = segment_sizes(len(dyn), len(sym))
    return Operation(name, _index_values(p, dyn) + _index_values(p, sym), [t], attrs, loc=loc)


def build_alloc(b, name, memref_type, dynamic_sizes=(), symbol_operands=(), attrs=None):
    """Create ``memref.alloc``/``memref.alloca`` (``name``) of ``memref_type`` with ``b`` (a
    :class:`~ireec.ir.core.Builder`), one index operand per dynamic dim and per layout symbol.

    Sets ``operandSegmentSizes`` as MLIR's ``AllocLikeOp`` builders do, so the op prints in
    its pretty form. Returns the new op.
    """
    attrs = dict(attrs or {})
    attrs["operandSegmentSizes"] = segment_sizes(len(dynamic_sizes), len(symbol_operands))
    return b.create(name, list(dynamic_sizes) + list(symbol_operands), [memref_type], attrs)


def _print_alloc(pr, op):
    dyn, sym = split_segments(op)
    pr.write("(")
    pr.print_operands(dyn)
    pr.write(")")
    if sym:
        pr.write("[")
        pr.print_operands(sym)
        pr.write("]")
    pr.print_attr_dict(op.attributes, elided=("operandSegmentSizes",))
    pr.write(f" : {op.results[0].type}")


# -------------------------------------------------------------------- load / store
def _parse_load(p, name, loc):
    m = p.parse_operand()
    idx = p.parse_operand_list("[]")
    attrs = p.parse_optional_attr_dict()
    p.expect(":")
    t = p.parse_type()
    return Operation(name, [p.resolve(m, t)] + _index_values(p, idx), [t.element_type], attrs,
                     loc=loc)


def _print_load(pr, op):
    pr.write(f" {pr.name_of(op.operands[0])}[")
    pr.print_operands(op.operands[1:])
    pr.write("]")
    pr.print_attr_dict(op.attributes)
    pr.write(f" : {op.operands[0].type}")


def _parse_store(p, name, loc):
    v = p.parse_operand()
    p.expect(",")
    m = p.parse_operand()
    idx = p.parse_operand_list("[]")
    attrs = p.parse_optional_attr_dict()
    p.expect(":")
    t = p.parse_type()
    ops = [p.resolve(v, t.element_type), p.resolve(m, t)] + _index_values(p, idx)
    return Operation(name, ops, [], attrs, loc=loc)


def _print_store(pr, op):
    pr.write(f" {pr.name_of(op.operands[0])}, {pr.name_of(op.operands[1])}[")
    pr.print_operands(op.operands[2:])
    pr.write("]")
    pr.print_attr_dict(op.attributes)
    pr.write(f" : {op.operands[1].type}")


# --------------------------------------------------------------------- views
_SLICE_ATTRS = ("static_offsets", "static_sizes", "static_strides", "operandSegmentSizes")


def _parse_subview(p, name, loc):
    src = p.parse_operand()
    attrs, groups = parse_offsets_sizes_strides(p)
    attrs.update(p.parse_optional_attr_dict())
    p.expect(":")
    st = p.parse_type()
    p.expect_keyword("to")
    rt = p.parse_type()
    attrs["operandSegmentSizes"] = segment_sizes(1, *(len(g) for g in groups))
    ops = [p.resolve(src, st)] + [v for g in groups for v in _index_values(p, g)]
    return Operation(name, ops, [rt], attrs, loc=loc)


def _print_subview(pr, op):
    _, off, sz, st = split_segments(op)
    pr.write(" " + pr.name_of(op.operands[0]) + offsets_sizes_strides_str(pr, op, (off, sz, st)))
    pr.print_attr_dict(op.attributes, elided=_SLICE_ATTRS)
    pr.write(f" : {op.operands[0].type} to {op.results[0].type}")


def _parse_reinterpret_cast(p, name, loc):
    src = p.parse_operand()
    p.expect_keyword("to")
    attrs, groups = {}, []
    for i, (kw, a) in enumerate((("offset", "static_offsets"), ("sizes", "static_sizes"),
                                 ("strides", "static_strides"))):
        if i:
            p.expect(",")
        p.expect_keyword(kw)
        p.expect(":")
        static, refs = parse_dynamic_index_list(p)
        attrs[a] = i64_array(static)
        groups.append(refs)
    attrs.update(p.parse_optional_attr_dict())
    p.expect(":")
    st = p.parse_type()
    p.expect_keyword("to")
    rt = p.parse_type()
    attrs["operandSegmentSizes"] = segment_sizes(1, *(len(g) for g in groups))
    ops = [p.resolve(src, st)] + [v for g in groups for v in _index_values(p, g)]
    return Operation(name, ops, [rt], attrs, loc=loc)


def _print_reinterpret_cast(pr, op):
    _, off, sz, st = split_segments(op)
    a = op.attributes
    pr.write(f" {pr.name_of(op.operands[0])} to "
             f"offset: {dynamic_index_list_str(pr, a['static_offsets'].value, off)}, "
             f"sizes: {dynamic_index_list_str(pr, a['static_sizes'].value, sz)}, "
             f"strides: {dynamic_index_list_str(pr, a['static_strides'].value, st)}")
    pr.print_attr_dict(op.attributes, elided=_SLICE_ATTRS)
    pr.write(f" : {op.operands[0].type} to {op.results[0].type}")


# ---------------------------------------------------------------------- copy
def _parse_copy(p, name, loc):
    src = p.parse_operand()
    p.expect(",")
    dst = p.parse_operand()
    attrs = p.parse_optional_attr_dict()
    p.expect(":")
    st = p.parse_type()
    p.expect_keyword("to")
    dt = p.parse_type()
    return Operation(name, [p.resolve(src, st), p.resolve(dst, dt)], [], attrs, loc=loc)


def _print_copy(pr, op):
    pr.write(f" {pr.name_of(op.operands[0])}, {pr.name_of(op.operands[1])}")
    pr.print_attr_dict(op.attributes)
    pr.write(f" : {op.operands[0].type} to {op.operands[1].type}")


# -------------------------------------------------------------------- globals
def _parse_initial_value(p, memref_type):
    """``uninitialized`` / ``dense<...>`` / ``dense_resource<..>`` without a type: the type
    is the tensor form of the global's memref type."""
    if p.try_keyword("uninitialized"):
        return UnitAttr()
    loc = p.loc()
    if not isinstance(memref_type, T.MemRefType):
        raise CompileError(f"the initial value of a memref.global needs a memref type, got "
                           f"'{memref_type}'", loc)
    tt = T.TensorType(memref_type.shape, memref_type.element_type)
    if p.try_keyword("dense_resource"):
        p.expect("<")
        key = p.parse_bare_id("resource name")
        p.expect(">")
        return DenseResourceAttr(key, check_dense_type(tt, loc))
    if not p.try_keyword("dense"):
        raise p.error("expected 'uninitialized', 'dense<...>' or 'dense_resource<...>'")
    check_dense_type(tt, loc)
    p.expect("<")
    hexstr, raw, elems = None, None, None
    if p.peek('"'):
        hexstr = p.parse_string_or_blob()  # bytes for a long hex literal (already decoded)
        if isinstance(hexstr, bytes):
            hexstr, raw = None, hexstr
    elif p.peek(">"):
        elems = []
    else:
        elems = p._parse_dense_literal()  # the dense literal grammar of the core parser
    p.expect(">")
    return make_dense(tt, elems, hexstr, loc, raw=raw)


def _initial_value_str(a) -> str:
    if isinstance(a, UnitAttr):
        return "uninitialized"
    if isinstance(a, DenseResourceAttr):
        return f"dense_resource<{a.name}>"
    return f"dense<{a.literal()}>"


def _parse_global(p, name, loc):
    attrs = {}
    if p.peek('"'):
        attrs["sym_visibility"] = StringAttr(p.parse_string())
    if p.try_keyword("constant"):
        attrs["constant"] = UnitAttr()
    attrs["sym_name"] = StringAttr(p.parse_symbol_name())
    p.expect(":")
    t = p.parse_type()
    attrs["type"] = TypeAttr(t)
    if p.try_punct("="):
        attrs["initial_value"] = _parse_initial_value(p, t)
    attrs.update(p.parse_optional_attr_dict())
    return Operation(name, [], [], attrs, loc=loc)


def _print_global(pr, op):
    a = op.attributes
    if "sym_visibility" in a:
        pr.write(f" {a['sym_visibility']}")
    if "constant" in a:
        pr.write(" constant")
    pr.write(" ")
    pr.print_symbol(a["sym_name"].value)
    pr.write(f" : {a['type'].value}")
    if "initial_value" in a:
        pr.write(" = " + _initial_value_str(a["initial_value"]))
    pr.print_attr_dict(a, elided=("sym_visibility", "constant", "sym_name", "type",
                                  "initial_value"))


def _parse_get_global(p, name, loc):
    sym = p.parse_symbol_ref()
    attrs = p.parse_optional_attr_dict()
    p.expect(":")
    t = p.parse_type()
    return Operation(name, [], [t], {"name": sym, **attrs}, loc=loc)


def _print_get_global(pr, op):
    pr.write(f" {op.attributes['name']}")
    pr.print_attr_dict(op.attributes, elided=("name",))
    pr.write(f" : {op.results[0].type}")


register("memref.alloc", _parse_alloc, _print_alloc)
register("memref.alloca", _parse_alloc, _print_alloc)
register("memref.dealloc", parse_operand_colon_type, print_operand_colon_type)
register("memref.load", _parse_load, _print_load)
register("memref.store", _parse_store, _print_store)
register("memref.subview", _parse_subview, _print_subview, traits=("pure",))
register("memref.reinterpret_cast", _parse_reinterpret_cast, _print_reinterpret_cast,
         traits=("pure",))
register("memref.cast", parse_source_to, print_source_to, traits=("pure",))
register("memref.copy", _parse_copy, _print_copy)
register("memref.dim", parse_dim, print_dim, traits=("pure",))
register("memref.expand_shape", parse_expand_shape, print_expand_shape, traits=("pure",))
register("memref.collapse_shape", parse_collapse_shape, print_collapse_shape, traits=("pure",))
register("memref.global", _parse_global, _print_global)
register("memref.get_global", _parse_get_global, _print_get_global, traits=("pure",))

"""linalg assembly formats (LinalgOps.cpp upstream): generic, named ops, transpose /
broadcast, map / reduce (short and long forms), softmax, pack / unpack, index.

Parsers take ``(p, name, loc)`` and return an :class:`Operation`; printers take ``(pr, op)``
and write what follows the op name.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Sequence

from ...ir import types as T
from ...ir.attributes import ArrayAttr, Attribute, DenseArrayAttr, IntegerAttr, StringAttr
from ...ir.core import Block, Operation, Region, Value
from ..tensor import (dynamic_index_list_str, i64_array, parse_dynamic_index_list, segment_sizes,
                      split_segments)
from .named import (MAPS_ATTR_OPS, _short, default_maps, element_type, iterator_attr,
                    iterator_name, maps_attr)
from .structured import (build_named_region, identity_region, inputs, outputs, payload,
                         tensor_results)


def _parse_ins_outs(p):
    """``ins(%a, %b : t1, t2)? outs(%c : t3)?`` → (input values, output values)."""
    groups = []
    for kw in ("ins", "outs"):
        vals = []
        if p.try_keyword(kw):
            p.expect("(")
            refs = p.parse_operand_list()
            types = p.parse_colon_type_list() if refs else []
            p.expect(")")
            vals = p.resolve_list(refs, types)
        groups.append(vals)
    return groups[0], groups[1]


def _ins_outs_str(pr, ins: Sequence[Value], outs: Sequence[Value]) -> str:
    s = ""
    for kw, vals in (("ins", ins), ("outs", outs)):
        if vals:
            s += (f" {kw}(" + ", ".join(pr.name_of(v) for v in vals) + " : "
                  + ", ".join(str(v.type) for v in vals) + ")")
    return s


def _parse_arrow_types(p) -> List[T.Type]:
    if not p.try_punct("->"):
        return []
    return p.parse_type_list_parens() if p.peek("(") else [p.parse_type()]


def _arrow_types_str(types: Sequence[T.Type]) -> str:
    if not types:
        return ""
    if len(types) == 1 and not isinstance(types[0], T.FunctionType):
        return f" -> {types[0]}"
    return " -> (" + ", ".join(str(t) for t in types) + ")"


def _parse_int_array(p) -> DenseArrayAttr:
    """``[1, 0]`` (a DenseI64ArrayAttr in custom syntax)."""
    vals = []
    p.expect("[")
    if not p.try_punct("]"):
        while True:
            vals.append(p.parse_integer())
            if not p.try_punct(","):
                break
        p.expect("]")
    return i64_array(vals)


def _int_array_str(a: DenseArrayAttr) -> str:
    return "[" + ", ".join(str(int(v)) for v in a.value) + "]"


# ------------------------------------------------------------------- generic
GENERIC_TRAIT_ATTRS = ("doc", "indexing_maps", "iterator_types", "library_call")


def _parse_generic(p, name, loc):
    attrs = p.parse_attr_dict()
    its = attrs.get("iterator_types")
    if isinstance(its, ArrayAttr):
        attrs["iterator_types"] = ArrayAttr(tuple(
            iterator_attr(a.value) if isinstance(a, StringAttr) else a for a in its))
    attrs.update(p.parse_optional_attr_dict())
    ins, outs = _parse_ins_outs(p)
    if p.try_keyword("attrs"):
        p.expect("=")
        attrs.update(p.parse_optional_attr_dict())
    region = p.parse_region()
    result_types = _parse_arrow_types(p)
    attrs["operandSegmentSizes"] = segment_sizes(len(ins), len(outs))
    return Operation(name, ins + outs, result_types, attrs, regions=[region], loc=loc)


def _print_generic(pr, op):
    a = op.attributes
    trait = []
    for k in sorted(GENERIC_TRAIT_ATTRS):
        if k not in a:
            continue
        v = a[k]
        if k == "iterator_types":
            trait.append(k + " = [" + ", ".join(f'"{iterator_name(x)}"' for x in v) + "]")
        else:
            trait.append(f"{k} = {v}")
    if trait:
        pr.write(" {" + ", ".join(trait) + "}")
    ins, outs = inputs(op), outputs(op)
    pr.write(_ins_outs_str(pr, ins, outs))
    elided = GENERIC_TRAIT_ATTRS + ("operandSegmentSizes",)
    if any(k not in elided for k in a):
        pr.write(" attrs = ")
        pr.print_attr_dict(a, elided=elided)
    if op.regions and op.regions[0].blocks:
        pr.write(" ")
        pr.print_region(op.regions[0])
    pr.write(_arrow_types_str(op.result_types))


# ---------------------------------------------------------------- named ops
_NAMED_ELIDED = ("operandSegmentSizes", "linalg.memoized_indexing_maps")


def _parse_named(p, name, loc):
    short = _short(name)
    attrs: Dict[str, Attribute] = {}
    if short in MAPS_ATTR_OPS and p.try_keyword("indexing_maps"):
        p.expect("=")
        attrs["indexing_maps"] = p.parse_attribute()
    attrs.update(p.parse_optional_attr_dict())
    ins, outs = _parse_ins_outs(p)
    attrs.update(p.parse_optional_attr_dict())
    result_types = _parse_arrow_types(p)
    if short in MAPS_ATTR_OPS and "indexing_maps" not in attrs:
        attrs["indexing_maps"] = maps_attr(default_maps(short))
    attrs["operandSegmentSizes"] = segment_sizes(len(ins), len(outs))
    try:
        region = build_named_region(short, [v.type for v in ins], [v.type for v in outs], attrs,
                                    loc)
    except (ValueError, IndexError, KeyError) as e:
        raise p.error(f"cannot build the body of linalg.{short}: {e}", loc) from None
    return Operation(name, ins + outs, result_types, attrs, regions=[region], loc=loc)


def _print_named(pr, op):
    short = _short(op)
    elided = _NAMED_ELIDED
    if short in MAPS_ATTR_OPS:
        elided = elided + ("indexing_maps",)
        maps = op.attributes.get("indexing_maps")
        if maps is not None and maps != maps_attr(default_maps(short)):
            pr.write(f" indexing_maps = {maps}")
    pr.print_attr_dict(op.attributes, elided=elided)
    pr.write(_ins_outs_str(pr, inputs(op), outputs(op)))
    pr.write(_arrow_types_str(op.result_types))


# ------------------------------------------------------- transpose / broadcast
def _parse_dst_style(p):
    """``{attrs}? ins(..) outs(..)``; results are the ranked-tensor inits."""
    attrs = p.parse_optional_attr_dict()
    ins, outs = _parse_ins_outs(p)
    return attrs, ins, outs, tensor_results(outs)


def _make_identity_op(attr_name: str):
    def parse(p, name, loc):
        attrs, ins, outs, rts = _parse_dst_style(p)
        p.expect_keyword(attr_name)
        p.expect("=")
        attrs[attr_name] = _parse_int_array(p)
        attrs.update(p.parse_optional_attr_dict())
        region = identity_region([v.type for v in ins + outs])
        return Operation(name, ins + outs, rts, attrs, regions=[region], loc=loc)

    def print_(pr, op):
        pr.write(_ins_outs_str(pr, inputs(op), outputs(op)))
        pr.write(f" {attr_name} = {_int_array_str(op.attributes[attr_name])} ")
        pr.print_attr_dict(op.attributes, elided=(attr_name,))

    return parse, print_


# -------------------------------------------------------------- map / reduce
def _parse_short_form(p):
    """``{ op.name {attrs}? }`` before ins/outs; returns (name, attrs) or None."""
    if not p.try_punct("{"):
        return None
    loc = p.loc()
    opname = p.parse_bare_id("payload operation name")
    if "." not in opname:
        raise p.error("expected a dialect-qualified payload op name", loc)
    attrs = p.parse_optional_attr_dict()
    p.expect("}")
    return opname, attrs


def _payload_region(ins, outs, opname, attrs, init_first: bool, loc) -> Region:
    """Body of the short form: one payload op on all block args, then linalg.yield."""
    args_from = list(ins) + (list(outs) if init_first else [])
    block = Block([element_type(v.type) for v in args_from])
    args = list(block.args)
    if init_first:  # reduce: payload(init, inputs...)
        args = [args[-1]] + args[:-1]
    pay = block.append(Operation(opname, args, [element_type(outs[-1].type)], attrs, loc=loc))
    block.append(Operation("linalg.yield", list(pay.results), loc=loc))
    return Region([block])


def _parse_long_form_region(p) -> Region:
    """``(%a: f32, %b: f32) { ... }``."""
    p.expect("(")
    entry = []
    if not p.try_punct(")"):
        while True:
            ref = p.parse_operand()
            p.expect(":")
            entry.append((ref, p.parse_type()))
            p.parse_optional_attr_dict()
            if not p.try_punct(","):
                break
        p.expect(")")
    return p.parse_region(entry_args=entry)


def find_payload_op(block: Block, result_type: T.Type, init_first: bool = False
                    ) -> Optional[Operation]:
    """The single payload op of a map/reduce body eligible for the short form, else None.

    Upstream ``findPayloadOp``; additionally the yield must return the payload's only
    result, of the init element type, and the payload must have no regions, so that the
    short form parses back to the same body (see :func:`_payload_region`).
    """
    if len(block.ops) != 2:
        return None
    pay, yld = block.ops
    args = list(block.args)
    if not pay.operands or len(pay.operands) != len(args) or pay.regions:
        return None
    expected = [args[-1]] + args[:-1] if init_first else args
    if list(pay.operands) != expected or list(yld.operands) != list(pay.results):
        return None
    if len(pay.results) != 1 or pay.results[0].type != result_type:
        return None
    return pay


def _print_short_form(pr, pay: Operation) -> None:
    """`` { arith.addf {attrs} }`` (a ``fastmath<none>`` attribute is left out)."""
    attrs = {k: v for k, v in pay.attributes.items()
             if not (k == "fastmath" and str(v) == "#arith.fastmath<none>")}
    pr.write(f" {{ {pay.name}")
    pr.print_attr_dict(attrs)
    pr.write(" }")


def _long_form_region(pr, region: Region) -> None:
    block = region.blocks[0]
    pr.name_block_args(block)
    pr.indent += 1
    pr.newline()
    pr.write("(" + ", ".join(f"{pr.name_of(a)}: {a.type}" for a in block.args) + ") ")
    pr.print_region(region, print_entry_block_args=False)
    pr.indent -= 1


def _parse_map(p, name, loc):
    short = _parse_short_form(p)
    attrs, ins, outs, rts = _parse_dst_style(p)
    if short is not None:
        region = _payload_region(ins, outs, short[0], short[1], False, loc)
    else:
        region = _parse_long_form_region(p)
    return Operation(name, ins + outs, rts, attrs, regions=[region], loc=loc)


def _print_map(pr, op):
    pay = find_payload_op(payload(op), element_type(outputs(op)[0].type))
    if pay is not None:
        _print_short_form(pr, pay)
    pr.write(_ins_outs_str(pr, inputs(op), outputs(op)))
    pr.print_attr_dict(op.attributes)
    if pay is None:
        _long_form_region(pr, op.regions[0])


def _parse_reduce(p, name, loc):
    short = _parse_short_form(p)
    attrs, ins, outs, rts = _parse_dst_style(p)
    p.expect_keyword("dimensions")
    p.expect("=")
    attrs["dimensions"] = _parse_int_array(p)
    attrs.update(p.parse_optional_attr_dict())
    if short is not None:
        region = _payload_region(ins, outs, short[0], short[1], True, loc)
    else:
        region = _parse_long_form_region(p)
    return Operation(name, ins + outs, rts, attrs, regions=[region], loc=loc)


def _print_reduce(pr, op):
    pay = find_payload_op(payload(op), element_type(outputs(op)[-1].type), init_first=True)
    if pay is not None:
        _print_short_form(pr, pay)
    pr.write(_ins_outs_str(pr, inputs(op), outputs(op)))
    pr.write(f" dimensions = {_int_array_str(op.attributes['dimensions'])} ")
    pr.print_attr_dict(op.attributes, elided=("dimensions",))
    if pay is None:
        _long_form_region(pr, op.regions[0])


# ----------------------------------------------------------------- softmax
def _parse_softmax(p, name, loc):
    attrs = p.parse_optional_attr_dict()
    p.expect_keyword("dimension")
    p.expect("(")
    attrs["dimension"] = IntegerAttr(p.parse_integer(), T.i64)
    p.expect(")")
    ins, outs = _parse_ins_outs(p)
    return Operation(name, ins + outs, _parse_arrow_types(p), attrs, loc=loc)


def _print_softmax(pr, op):
    pr.print_attr_dict(op.attributes, elided=("dimension",))
    pr.write(f" dimension({op.attributes['dimension'].value})")
    pr.write(_ins_outs_str(pr, op.operands[:1], op.operands[1:]))
    pr.write(_arrow_types_str(op.result_types))


# ------------------------------------------------------------ pack / unpack
def _parse_pack(p, name, loc):
    """``%src padding_value(%p : t)? outer_dims_perm = [..]? inner_dims_pos = [..]
    inner_tiles = [..] into %dest attr-dict : t -> t2`` (padding only for pack)."""
    is_pack = name.endswith(".pack")
    src = p.parse_operand()
    attrs: Dict[str, Attribute] = {}
    pad = None
    if is_pack and p.try_keyword("padding_value"):
        p.expect("(")
        ref = p.parse_operand()
        p.expect(":")
        pad = p.resolve(ref, p.parse_type())
        p.expect(")")
    if p.try_keyword("outer_dims_perm"):
        p.expect("=")
        attrs["outer_dims_perm"] = _parse_int_array(p)
    p.expect_keyword("inner_dims_pos")
    p.expect("=")
    attrs["inner_dims_pos"] = _parse_int_array(p)
    p.expect_keyword("inner_tiles")
    p.expect("=")
    static, refs = parse_dynamic_index_list(p)
    attrs["static_inner_tiles"] = i64_array(static)
    p.expect_keyword("into")
    dest = p.parse_operand()
    attrs.update(p.parse_optional_attr_dict())
    p.expect(":")
    st = p.parse_type()
    p.expect("->")
    dt = p.parse_type()
    tiles = p.resolve_list(refs, [T.index] * len(refs))
    operands = [p.resolve(src, st), p.resolve(dest, dt)] + ([pad] if pad is not None else []) + tiles
    if is_pack:
        attrs["operandSegmentSizes"] = segment_sizes(1, 1, 1 if pad is not None else 0, len(tiles))
    return Operation(name, operands, tensor_results(operands[1:2]), attrs, loc=loc)


def _print_pack(pr, op):
    a = op.attributes
    if "operandSegmentSizes" in a:
        _, _, pad, tiles = split_segments(op)
    else:
        pad, tiles = [], op.operands[2:]
    pr.write(" " + pr.name_of(op.operands[0]))
    if pad:
        pr.write(f" padding_value({pr.name_of(pad[0])} : {pad[0].type})")
    if "outer_dims_perm" in a:
        pr.write(f" outer_dims_perm = {_int_array_str(a['outer_dims_perm'])}")
    pr.write(f" inner_dims_pos = {_int_array_str(a['inner_dims_pos'])}")
    pr.write(" inner_tiles = " + dynamic_index_list_str(pr, a["static_inner_tiles"].value, tiles))
    pr.write(f" into {pr.name_of(op.operands[1])}")
    pr.print_attr_dict(a, elided=("outer_dims_perm", "inner_dims_pos", "static_inner_tiles",
                                  "operandSegmentSizes"))
    pr.write(f" : {op.operands[0].type} -> {op.operands[1].type}")


# --------------------------------------------------------------- index / yield
def _parse_index(p, name, loc):
    dim = p.parse_integer()
    attrs = p.parse_optional_attr_dict()
    p.expect(":")
    t = p.parse_type()
    return Operation(name, [], [t], {"dim": IntegerAttr(dim, T.i64), **attrs}, loc=loc)


def _print_index(pr, op):
    pr.write(f" {op.attributes['dim'].value}")
    pr.print_attr_dict(op.attributes, elided=("dim",))
    pr.write(f" : {op.results[0].type}")

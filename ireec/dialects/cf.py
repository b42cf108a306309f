"""cf dialect: unstructured control flow between blocks.

Pretty syntax as mlir-opt prints it (https://mlir.llvm.org/docs/Dialects/ControlFlowDialect/):

    cf.br ^bb1(%a : i32)
    cf.cond_br %c, ^bb1(%a : i32), ^bb2
    cf.switch %flag : i32, [
      default: ^bb1(%a : i32),
      42: ^bb2
    ]
    cf.assert %ok, "message"

Successor operands are the op's operands after the condition/flag; ``cf.cond_br`` carries
``operandSegmentSizes = array<i32: 1, nTrue, nFalse>``; ``cf.switch`` carries ``case_values``
(``dense<[..]> : vector<Nxi32>``), ``case_operand_segments`` and ``operandSegmentSizes``.
"""
from __future__ import annotations


from ..ir import types as T
from ..ir.attributes import DenseArrayAttr, DenseElementsAttr, StringAttr, int_array
from ..ir.core import Operation
from ..ir.diagnostics import CompileError
from ..ir import verifier as V
from .registry import register
from .tensor import segment_sizes, split_segments


def _successor_str(pr, block, values) -> str:
    s = pr.block_names.get(block, "^bb?")
    if values:
        s += "(" + ", ".join(pr.name_of(v) for v in values) + " : " + \
             ", ".join(str(v.type) for v in values) + ")"
    return s


def _parse_br(p, name, loc):
    dest, vals = p.parse_successor_with_args()
    attrs = p.parse_optional_attr_dict()
    return Operation(name, vals, [], attrs, successors=[dest], loc=loc)


def _print_br(pr, op):
    pr.write(" " + _successor_str(pr, op.successors[0], op.operands))
    pr.print_attr_dict(op.attributes)


def _parse_cond_br(p, name, loc):
    cond = p.parse_operand()
    p.expect(",")
    t_dest, t_vals = p.parse_successor_with_args()
    p.expect(",")
    f_dest, f_vals = p.parse_successor_with_args()
    attrs = p.parse_optional_attr_dict()
    attrs["operandSegmentSizes"] = segment_sizes(1, len(t_vals), len(f_vals))
    return Operation(name, [p.resolve(cond, T.i1)] + t_vals + f_vals, [], attrs,
                     successors=[t_dest, f_dest], loc=loc)


def _print_cond_br(pr, op):
    _, t_vals, f_vals = split_segments(op)
    pr.write(f" {pr.name_of(op.operands[0])}, {_successor_str(pr, op.successors[0], t_vals)}, "
             f"{_successor_str(pr, op.successors[1], f_vals)}")
    pr.print_attr_dict(op.attributes, elided=("operandSegmentSizes",))


def _check_case_type(ft, loc) -> None:
    """CompileError at the case value ``loc`` when the flag type ``ft`` cannot hold integer
    case values: not an integer type, or an integer width with no array form (``i3``)."""
    if not isinstance(ft, T.IntegerType):
        raise CompileError(f"integer literal in switch case of type {ft}", loc)
    try:
        T.numpy_dtype(ft)
    except ValueError:
        raise CompileError(f"switch case values of type {ft} are not supported", loc) from None


def _parse_switch(p, name, loc):
    flag = p.parse_operand()
    p.expect(":")
    ft = p.parse_type()
    p.expect(",")
    p.expect("[")
    p.expect_keyword("default")
    p.expect(":")
    default, default_vals = p.parse_successor_with_args()
    cases, dests, case_vals = [], [], []
    while p.try_punct(","):
        cloc = p.loc()
        cases.append(p.parse_integer())
        _check_case_type(ft, cloc)
        p.expect(":")
        d, vals = p.parse_successor_with_args()
        dests.append(d)
        case_vals.append(vals)
    p.expect("]")
    attrs = p.parse_optional_attr_dict()
    if cases:
        vt = T.VectorType((len(cases),), ft)
        attrs["case_values"] = DenseElementsAttr(int_array(cases, ft), vt)  # wrapped to the flag width
    attrs["case_operand_segments"] = DenseArrayAttr(T.i32, tuple(len(v) for v in case_vals))
    n_case = sum(len(v) for v in case_vals)
    attrs["operandSegmentSizes"] = segment_sizes(1, len(default_vals), n_case)
    operands = [p.resolve(flag, ft)] + default_vals + [v for vs in case_vals for v in vs]
    return Operation(name, operands, [], attrs, successors=[default] + dests, loc=loc)


def _print_switch(pr, op):
    _, default_vals, case_ops = split_segments(op)
    flag = op.operands[0]
    pr.write(f" {pr.name_of(flag)} : {flag.type}, [")
    pr.indent += 1
    pr.newline()
    pr.write("default: " + _successor_str(pr, op.successors[0], default_vals))
    cv = op.attributes.get("case_values")
    values = cv.int_list() if cv is not None else []
    segs = op.attributes["case_operand_segments"].value
    i = 0
    for k, (v, n) in enumerate(zip(values, segs)):
        pr.write(",")
        pr.newline()
        pr.write(f"{v}: " + _successor_str(pr, op.successors[k + 1], case_ops[i: i + n]))
        i += n
    pr.indent -= 1
    pr.newline()
    pr.write("]")
    pr.print_attr_dict(op.attributes, elided=("case_values", "case_operand_segments",
                                              "operandSegmentSizes"))


def _parse_assert(p, name, loc):
    cond = p.parse_operand()
    p.expect(",")
    msg = p.parse_string()
    attrs = p.parse_optional_attr_dict()
    attrs = {"msg": StringAttr(msg), **attrs}
    return Operation(name, [p.resolve(cond, T.i1)], [], attrs, loc=loc)


def _print_assert(pr, op):
    pr.write(f" {pr.name_of(op.operands[0])}, {op.attributes['msg']}")
    pr.print_attr_dict(op.attributes, elided=("msg",))


# -------------------------------------------------------------------- verifiers
def _check_successor(op, k: int, values) -> None:
    """Operands passed to successor ``k`` match its block arguments (MLIR:
    ``branch has N operands for successor #k, but target block has M``)."""
    args = op.successors[k].args
    if len(values) != len(args):
        raise V.op_error(op, f"branch has {len(values)} operands for successor #{k}, but target "
                             f"block has {len(args)}")
    for i, (v, a) in enumerate(zip(values, args)):
        if v.type != a.type:
            raise V.op_error(op, f"type mismatch for bb argument #{i} of successor #{k}: "
                                 f"{V.type_str(v.type)} vs {V.type_str(a.type)}")


def _segments(op, n: int):
    seg = op.attributes.get("operandSegmentSizes")
    if not isinstance(seg, DenseArrayAttr) or len(seg.value) != n or sum(seg.value) != len(op.operands):
        raise V.op_error(op, "requires attribute 'operandSegmentSizes' matching its operands")
    return split_segments(op)


def _verify_br(op):
    if len(op.successors) != 1:
        raise V.op_error(op, "requires 1 successor")
    _check_successor(op, 0, op.operands)


def _verify_cond_br(op):
    if len(op.successors) != 2:
        raise V.op_error(op, "requires 2 successors")
    cond, t_vals, f_vals = _segments(op, 3)
    if len(cond) != 1 or cond[0].type != T.i1:
        raise V.op_error(op, "operand #0 must be 1-bit signless integer")
    _check_successor(op, 0, t_vals)
    _check_successor(op, 1, f_vals)


def _verify_switch(op):
    flag, default_vals, case_ops = _segments(op, 3)
    if len(flag) != 1 or not isinstance(flag[0].type, T.IntegerType):
        raise V.op_error(op, "operand #0 must be an integer flag")
    segs = op.attributes.get("case_operand_segments")
    segs = list(segs.value) if isinstance(segs, DenseArrayAttr) else []
    if len(segs) != len(op.successors) - 1 or sum(segs) != len(case_ops):
        raise V.op_error(op, f"expects {len(op.successors) - 1} case operand segments matching "
                             "its case successors")
    _check_successor(op, 0, default_vals)
    i = 0
    for k, n in enumerate(segs):
        _check_successor(op, k + 1, case_ops[i: i + n])
        i += n


def _verify_assert(op):
    V.num_operands(1)(op)
    if op.operands[0].type != T.i1:
        raise V.op_error(op, f"operand #0 must be 1-bit signless integer, but got "
                             f"{V.type_str(op.operands[0].type)}")


register("cf.br", _parse_br, _print_br, traits=("terminator",))
register("cf.cond_br", _parse_cond_br, _print_cond_br, traits=("terminator",))
register("cf.switch", _parse_switch, _print_switch, traits=("terminator",))
register("cf.assert", _parse_assert, _print_assert)
V.register_verifiers({"cf.br": _verify_br, "cf.cond_br": _verify_cond_br,
                      "cf.switch": _verify_switch, "cf.assert": _verify_assert})

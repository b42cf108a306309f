"""func dialect: ``func.func``, ``func.return``, ``func.call``.

Syntax source: https://mlir.llvm.org/docs/Dialects/Func/
"""
from ..ir import types as T
from ..ir.attributes import ArrayAttr, DictAttr, StringAttr, SymbolRefAttr, TypeAttr
from ..ir.core import Operation
from ..ir.diagnostics import CompileError
from ..ir import verifier as V
from .registry import register


def _parse_func(p, name, loc):
    op = Operation("func.func", loc=loc)
    for vis in ("private", "public", "nested"):
        if p.try_keyword(vis):
            op.attributes["sym_visibility"] = StringAttr(vis)
            break
    op.attributes["sym_name"] = StringAttr(p.parse_symbol_name())
    p.expect("(", "to start the argument list")
    args, arg_types, arg_attrs = [], [], []
    if not p.try_punct(")"):
        while True:
            if p.peek("%"):
                ref = p.parse_operand()
                p.expect(":")
                t = p.parse_type()
                args.append((ref, t))
            else:
                t = p.parse_type()
            arg_types.append(t)
            arg_attrs.append(p.parse_optional_attr_dict())
            p.parse_optional_location()
            if not p.try_punct(","):
                break
        p.expect(")", "to close the argument list")
    results, res_attrs = [], []
    if p.try_punct("->"):
        if p.peek("(") and not p._looks_like_function_type():
            p.expect("(")
            if not p.try_punct(")"):
                while True:
                    results.append(p.parse_type())
                    res_attrs.append(p.parse_optional_attr_dict())
                    if not p.try_punct(","):
                        break
                p.expect(")")
        else:
            results.append(p.parse_type())
            res_attrs.append({})
    op.attributes["function_type"] = TypeAttr(T.FunctionType(tuple(arg_types), tuple(results)))
    op.attributes.update(p.parse_optional_attr_dict_with_keyword())
    if any(arg_attrs):
        op.attributes["arg_attrs"] = ArrayAttr(tuple(DictAttr(tuple(d.items())) for d in arg_attrs))
    if any(res_attrs):
        op.attributes["res_attrs"] = ArrayAttr(tuple(DictAttr(tuple(d.items())) for d in res_attrs))
    if p.peek("{"):
        if len(args) != len(arg_types):
            raise CompileError("a function with a body needs named arguments (%name: type)", loc)
        p.default_dialects.append("func")
        try:
            op.add_region(p.parse_region(entry_args=args, isolated=True))
        finally:
            p.default_dialects.pop()
    else:
        from ..ir.core import Region

        op.add_region(Region())
    return op


def func_type(op) -> T.FunctionType:
    """The FunctionType of a ``func.func``."""
    return op.attributes["function_type"].value


def func_name(op) -> str:
    """The symbol name of a ``func.func`` (without ``@``)."""
    return op.attributes["sym_name"].value


def is_declaration(op) -> bool:
    """Whether a ``func.func`` has no body."""
    return not op.regions or not op.regions[0].blocks


def _print_func(pr, op):
    vis = op.attributes.get("sym_visibility")
    if vis is not None:
        pr.write(f" {vis.value}")
    pr.write(" ")
    pr.print_symbol(func_name(op))
    ft = func_type(op)
    arg_attrs = op.attributes.get("arg_attrs")
    res_attrs = op.attributes.get("res_attrs")
    if res_attrs is not None and not any(len(d.value) for d in res_attrs):
        res_attrs = None  # all-empty result attributes carry nothing; print the plain form
    decl = is_declaration(op)
    if not decl:
        pr.name_block_args(op.body)
    parts = []
    for i, t in enumerate(ft.inputs):
        s = f"{pr.names[op.body.args[i]]}: {t}" if not decl else str(t)
        if arg_attrs is not None and len(arg_attrs[i].value):
            s += " " + str(arg_attrs[i])
        parts.append(s)
    pr.write("(" + ", ".join(parts) + ")")
    if ft.results:
        rs = []
        for i, t in enumerate(ft.results):
            s = str(t)
            if res_attrs is not None and len(res_attrs[i].value):
                s += " " + str(res_attrs[i])
            rs.append(s)
        if len(rs) == 1 and res_attrs is None and not isinstance(ft.results[0], T.FunctionType):
            pr.write(" -> " + rs[0])
        else:
            pr.write(" -> (" + ", ".join(rs) + ")")
    pr.print_attr_dict(op.attributes, elided=("sym_name", "function_type", "sym_visibility",
                                              "arg_attrs", "res_attrs"), keyword=True)
    if not decl:
        pr.write(" ")
        pr.print_region(op.regions[0], print_entry_block_args=False)


def _parse_return(p, name, loc):
    refs = p.parse_operand_list()
    types = p.parse_colon_type_list() if refs else []
    return Operation(name, p.resolve_list(refs, types), loc=loc)


def _print_return(pr, op):
    if op.operands:
        pr.write(" ")
        pr.print_operands(op.operands)
        pr.write(" : ")
        pr.print_types(v.type for v in op.operands)


def _parse_call(p, name, loc):
    callee = p.parse_symbol_ref()
    refs = p.parse_operand_list("()")
    attrs = p.parse_optional_attr_dict()
    p.expect(":")
    ft = p.parse_type()
    if not isinstance(ft, T.FunctionType):
        raise CompileError("expected function type after ':' in call", loc)
    attrs["callee"] = callee
    return Operation(name, p.resolve_list(refs, ft.inputs), ft.results, attrs, loc=loc)


def _print_call(pr, op):
    pr.write(" ")
    pr.print_attr(op.attributes["callee"])
    pr.write("(")
    pr.print_operands(op.operands)
    pr.write(")")
    pr.print_attr_dict(op.attributes, elided=("callee",))
    pr.write(" : " + str(T.FunctionType(tuple(v.type for v in op.operands), tuple(op.result_types))))


def callee_name(op) -> str:
    """The symbol a ``func.call`` calls (without ``@``)."""
    c = op.attributes["callee"]
    return c.root if isinstance(c, SymbolRefAttr) else str(c)


def _verify_func(op):
    """Signature attributes; entry block arguments match the inputs; every block of the body
    ends with a terminator (an unregistered last op may be one, as in MLIR)."""
    ft = op.attributes.get("function_type")
    if not isinstance(op.attributes.get("sym_name"), StringAttr):
        raise V.op_error(op, "requires string attribute 'sym_name'")
    if not isinstance(ft, TypeAttr) or not isinstance(ft.value, T.FunctionType):
        raise V.op_error(op, "requires attribute 'function_type' holding a function type")
    if is_declaration(op):
        return
    ins = ft.value.inputs
    args = op.regions[0].blocks[0].args
    if len(args) != len(ins):
        raise V.op_error(op, f"entry block must have {len(ins)} arguments to match function "
                             "signature")
    for i, (a, t) in enumerate(zip(args, ins)):
        if a.type != t:
            raise V.op_error(op, f"type of entry block argument #{i}({V.type_str(a.type)}) must "
                                 f"match the type of the corresponding argument in function "
                                 f"signature({V.type_str(t)})")
    V.blocks_end_with_terminators(op)


def _verify_return(op):
    """Operands match the enclosing function's result types (count and each type)."""
    fn = op.parent_op
    if fn is None or fn.name != "func.func":
        raise V.op_error(op, "expects parent op 'func.func'")
    ft = fn.attributes.get("function_type")
    if not isinstance(ft, TypeAttr) or not isinstance(ft.value, T.FunctionType):
        return  # reported by the function itself
    results = ft.value.results
    if len(op.operands) != len(results):
        raise V.op_error(op, f"has {len(op.operands)} operands, but enclosing function "
                             f"(@{func_name(fn)}) returns {len(results)}")
    for i, (v, t) in enumerate(zip(op.operands, results)):
        if v.type != t:
            raise V.op_error(op, f"type of return operand {i} ({V.type_str(v.type)}) doesn't "
                                 f"match function result type ({V.type_str(t)}) in function "
                                 f"@{func_name(fn)}")


def _verify_call(op):
    """The callee exists (when it is a function of the enclosing symbol table) and its
    signature matches the operand and result types."""
    callee = op.attributes.get("callee")
    if not isinstance(callee, SymbolRefAttr):
        raise V.op_error(op, "requires a 'callee' symbol reference attribute")
    fn = V.lookup_symbol(op, callee)
    if fn is None:
        return  # resolved later (external declarations, other symbol tables)
    ft = fn.attributes.get("function_type")
    if not isinstance(ft, TypeAttr) or not isinstance(ft.value, T.FunctionType):
        return
    ft = ft.value
    if len(ft.inputs) != len(op.operands):
        raise V.op_error(op, "incorrect number of operands for callee")
    for i, (v, t) in enumerate(zip(op.operands, ft.inputs)):
        if v.type != t:
            raise V.op_error(op, f"operand type mismatch: expected operand type {V.type_str(t)}, "
                                 f"but provided {V.type_str(v.type)} for operand number {i}")
    if len(ft.results) != len(op.results):
        raise V.op_error(op, "incorrect number of results for callee")
    for i, (r, t) in enumerate(zip(op.results, ft.results)):
        if r.type != t:
            raise V.op_error(op, f"result type mismatch at index {i}: expected result type "
                                 f"{V.type_str(t)}, but provided {V.type_str(r.type)}")


register("func.func", _parse_func, _print_func, traits=("isolated",))
register("func.return", _parse_return, _print_return, traits=("terminator",))
register("func.call", _parse_call, _print_call)
V.register_verifiers({"func.func": _verify_func, "func.return": _verify_return,
                      "func.call": _verify_call})

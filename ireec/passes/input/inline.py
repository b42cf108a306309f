"""Calls to functions of the module are inlined.

Mirrors MLIR's ``inline`` pass as IREE's input pipeline runs it: every ``func.call`` of a
function defined in the module is replaced by a copy of the callee's body. A single-block
callee is spliced in place; a multi-block one splits the caller's block at the call, its
blocks go in between, and each ``func.return`` branches to the continuation with the returned
values. Private functions left without callers are erased. Recursion is an error.

``stablehlo.composite`` is a call of its ``decomposition`` function (its semantics in the
StableHLO spec; upstream's ``stablehlo-legalize-composite-to-call`` makes it one), so it is
inlined the same way.
"""
from __future__ import annotations

from typing import Dict

from ...dialects.func import callee_name, func_name, is_declaration
from ...ir import types as T
from ...ir.attributes import DenseArrayAttr, DictAttr, StringAttr, SymbolRefAttr
from ...ir.core import Builder, Operation, Value
from ...ir.diagnostics import CompileError
from ..pass_base import Pass, PassContext, functions, register_pass
from .convert_scf_to_cf import _br, _split_after

_MAX_DEPTH = 64


def _decomposition(op: Operation) -> str:
    d = op.attributes.get("decomposition")
    if d is None:
        raise CompileError("'stablehlo.composite' needs a 'decomposition' function", op.loc)
    return d.root if isinstance(d, SymbolRefAttr) else str(d).lstrip("@")


# Call-like ops: {op name: the name of the function it calls}.
_CALLEE = {"func.call": callee_name, "stablehlo.composite": _decomposition}


def _keep_dimension_names(call: Operation, callee: Operation) -> None:
    """JAX's dimension variables survive inlining: a callee argument marked
    ``jax.global_constant = "s"`` (``jax.export``'s wrapped main) that receives
    ``get_dimension_size`` of an argument of the calling function names that dimension, in
    the caller's ``ireec.dimension_names`` ({name: [argument, dimension]}), which
    ``--dim-bound`` reads (pad_dynamic_dims_to_bounds.py)."""
    attrs = callee.attributes.get("arg_attrs")
    caller = call.parent_op
    while caller is not None and caller.name != "func.func":
        caller = caller.parent_op
    if attrs is None or caller is None:
        return
    named = dict(caller.attributes["ireec.dimension_names"].as_dict()) \
        if "ireec.dimension_names" in caller.attributes else {}
    for v, a in zip(call.operands, attrs.value):
        name = a.as_dict().get("jax.global_constant") if isinstance(a, DictAttr) else None
        src = v.owner
        if not isinstance(name, StringAttr) or not isinstance(src, Operation) \
                or src.name != "stablehlo.get_dimension_size":
            continue
        arg = src.operands[0]
        if getattr(arg, "block", None) is caller.body:
            named.setdefault(name.value, DenseArrayAttr(T.i64, (arg.index, int(src.attributes["dimension"].value))))
    if named:
        caller.attributes["ireec.dimension_names"] = DictAttr(tuple(sorted(named.items())))


@register_pass
class InlinePass(Pass):
    name = "inline"

    def run(self, module: Operation, ctx: PassContext) -> None:
        funcs: Dict[str, Operation] = {func_name(f): f for f in functions(module)}
        for _ in range(_MAX_DEPTH):
            calls = [op for op in module.walk() if op.name in _CALLEE]
            if not calls:
                break
            for call in calls:
                name = _CALLEE[call.name](call)
                callee = funcs.get(name)
                if callee is None or is_declaration(callee):
                    raise CompileError(f"call of '@{name}', which has no body in this module "
                                       "(external functions are not supported)", call.loc)
                self.inline(call, callee)
        else:
            raise CompileError("recursive calls cannot be inlined", module.loc)
        for f in functions(module):
            v = f.attributes.get("sym_visibility")
            if v is not None and v.value == "private":
                f.drop_all_references()
                f.detach()

    @staticmethod
    def inline(call: Operation, callee: Operation) -> None:
        """Replace ``call`` by a copy of ``callee``'s body (splitting the block when the callee has
        several blocks)."""
        _keep_dimension_names(call, callee)
        mapping: Dict[Value, Value] = {a: v for a, v in zip(callee.body.args, call.operands)}
        body = callee.regions[0].clone(mapping)
        blocks = list(body.blocks)
        entry = blocks[0]
        # Arguments of the cloned entry block stand for the call operands.
        for a, v in zip(entry.args, call.operands):
            a.replace_all_uses_with(v)
        if len(blocks) == 1:
            ret = entry.terminator
            b = Builder.before(call)
            for op in list(entry.ops):
                if op is ret:
                    continue
                op.detach()
                b.insert(op)
            call.replace_with(list(ret.operands))
            ret.drop_operands()
            return
        cont = _split_after(call)
        region = cont.parent
        at = region.blocks.index(cont)
        for k, blk in enumerate(blocks):
            blk.parent = region
            region.blocks.insert(at + k, blk)
        for blk in blocks:
            ret = blk.terminator
            if ret is not None and ret.name == "func.return":
                _br(Builder.before(ret), cont, list(ret.operands))
                ret.drop_operands()
                ret.detach()
        for a in list(entry.args):
            entry.args.remove(a)
        _br(Builder.before(call), entry, [])
        call.drop_operands()
        call.detach()

"""Public functions take and return ``!hal.buffer_view``; tensors cross the boundary through
``hal.tensor.import`` / ``hal.tensor.export``.

Mirrors IREE's ABI ``WrapEntryPointsPass`` (ConvertStreamableOps/WrapEntryPoints.cpp): the
function keeps its name, gains ``iree.abi.stub`` and an ``iree.reflection`` dictionary whose
``iree.abi.declaration`` spells the original signature, e.g.
``sync func @abs(%input0: tensor<f32>) -> (%output0: tensor<f32>)``.
"""
from __future__ import annotations

from ...dialects.func import func_name, func_type, is_declaration
from ...ir import types as T
from ...ir.attributes import DictAttr, StringAttr, TypeAttr, UnitAttr
from ...ir.core import Builder, Operation
from ...ir.diagnostics import CompileError
from ..pass_base import Pass, PassContext, functions, register_pass


def is_public(f: Operation) -> bool:
    """Whether ``f`` is exported (no ``sym_visibility`` or ``public``)."""
    v = f.attributes.get("sym_visibility")
    return v is None or v.value == "public"


def _with_dynamic(t: T.TensorType, leading: int) -> T.TensorType:
    """``t`` with its first ``leading`` dims dynamic (the dims ``ireec-map-dynamic-dims``
    made 1 in the slice program)."""
    if not leading:
        return t
    return T.TensorType((None,) * leading + tuple(t.shape[leading:]), t.element_type)


def _with_padded(t: T.TensorType, pairs) -> T.TensorType:
    """``t`` with the dims ``ireec-pad-dynamic-dims-to-bounds`` padded to their bounds dynamic
    again (``pairs``: flat [dimension, symbol, ...])."""
    dims = set(pairs[0::2])
    if not dims:
        return t
    return T.TensorType(tuple(None if d in dims else x for d, x in enumerate(t.shape)), t.element_type)


@register_pass
class WrapEntryPointsPass(Pass):
    name = "iree-abi-wrap-entry-points"

    def run(self, module: Operation, ctx: PassContext) -> None:
        for f in functions(module):
            if is_public(f) and not is_declaration(f):
                self.wrap(f)

    @staticmethod
    def scalars_as_tensors(f: Operation) -> None:
        """Scalar arguments and results cross the ABI as rank-0 tensors (as IREE's
        buffer views of shape [] print them: ``i32=42``)."""
        ft = func_type(f)
        entry = f.body
        b = Builder(entry, 0, f.loc)
        for a in list(entry.args):
            if isinstance(a.type, (T.IntegerType, T.FloatType, T.IndexType)):
                st = a.type
                a.type = T.TensorType((), st)
                ex = b.create("tensor.extract", [], [st])
                a.replace_all_uses_with(ex.result)
                ex.set_operands([a])
        for ret in [op for op in f.walk() if op.name == "func.return" and op.parent_op is f]:
            rb = Builder.before(ret)
            outs = []
            for v in ret.operands:
                if isinstance(v.type, (T.IntegerType, T.FloatType, T.IndexType)):
                    v = rb.create("tensor.from_elements", [v], [T.TensorType((), v.type)]).result
                outs.append(v)
            ret.set_operands(outs)
        scalar = (T.IntegerType, T.FloatType, T.IndexType)
        f.attributes["function_type"] = TypeAttr(T.FunctionType(
            tuple(T.TensorType((), t) if isinstance(t, scalar) else t for t in ft.inputs),
            tuple(T.TensorType((), t) if isinstance(t, scalar) else t for t in ft.results)))

    @classmethod
    def wrap(cls, f: Operation) -> None:
        """Give public function ``f`` the buffer-view ABI. CompileError for dynamic shapes and
        sub-byte element types at the boundary."""
        cls.scalars_as_tensors(f)
        ft = func_type(f)
        for t in list(ft.inputs) + list(ft.results):
            et = getattr(t, "element_type", None)
            if isinstance(et, T.IntegerType) and 1 < et.width < 8:
                raise CompileError(f"public function @{func_name(f)}: {et} elements at the ABI are not "
                                   f"supported (IREE passes them packed); use i8 and a bitcast", f.loc)
            if not (isinstance(t, T.TensorType) and t.has_static_shape):
                raise CompileError(f"public function @{func_name(f)}: only statically shaped "
                                   f"tensor arguments and results are supported, got '{t}'", f.loc)
        entry = f.body
        b = Builder(entry, 0, f.loc)
        for i, a in enumerate(list(entry.args)):
            tt = a.type
            a.type = T.BUFFER_VIEW
            imp = b.create("hal.tensor.import", [], [tt], {"name": StringAttr(f"input{i}")})
            a.replace_all_uses_with(imp.result)
            imp.set_operands([a])
        for ret in [op for op in f.walk() if op.name == "func.return" and op.parent_op is f]:
            rb = Builder.before(ret)
            outs = []
            for j, v in enumerate(ret.operands):
                outs.append(rb.create("hal.tensor.export", [v], [T.BUFFER_VIEW],
                                      {"name": StringAttr(f"output{j}")}).result)
            ret.set_operands(outs)
        decl_in, decl_out = list(ft.inputs), list(ft.results)
        dyn = f.attributes.get("ireec.dynamic_dims")
        if dyn is not None:  # the declaration spells the dims the slice program maps over
            d = dyn.as_dict()
            decl_in = [_with_dynamic(t, len(a.value)) for t, a in zip(decl_in, d["args"])]
            decl_out = [_with_dynamic(t, len(r.value)) for t, r in zip(decl_out, d["results"])]
        pad = f.attributes.get("ireec.padded_dims")
        if pad is not None:  # padded dims are dynamic too; the extents' hidden arguments are no ABI
            p = pad.as_dict()
            hidden = {int(x) for x in p["extents"].value if int(x) >= 0}
            decl_in = [_with_padded(t, a.value) for i, (t, a) in enumerate(zip(decl_in, p["args"]))
                       if i not in hidden]
            decl_out = [_with_padded(t, r.value) for t, r in zip(decl_out, p["results"])]
        decl_args = ", ".join(f"%input{i}: {t}" for i, t in enumerate(decl_in))
        decl_res = ", ".join(f"%output{j}: {t}" for j, t in enumerate(decl_out))
        f.attributes["function_type"] = TypeAttr(T.FunctionType(
            tuple(T.BUFFER_VIEW for _ in ft.inputs), tuple(T.BUFFER_VIEW for _ in ft.results)))
        f.attributes["iree.abi.stub"] = UnitAttr()
        f.attributes["iree.reflection"] = DictAttr((("iree.abi.declaration", StringAttr(
            f"sync func @{func_name(f)}({decl_args}) -> ({decl_res})")),))
        # The original tensor signature, kept for code generation (names, shapes, types);
        # with dynamic dims mapped over, that of one slice.
        f.attributes["ireec.abi.tensor_type"] = TypeAttr(ft)

"""Large splat tensor constants become fills computed at run time.

Mirrors IREE's handling of splat constants at dispatch creation (a splat ``arith.constant``
becomes ``flow.tensor.splat``, i.e. a fill, instead of constant data): a splat constant of more
than ``MAX_POOLED_SPLAT_ELEMENTS`` elements at function level becomes ``tensor.empty`` +
``linalg.fill`` of its one value, so the constant pool (and the generated C) does not carry
megabytes of one repeated value. Smaller splats stay constants.
"""
from __future__ import annotations

from ...ir import types as T
from ...dialects.linalg import build_named_region
from ...ir.attributes import DenseArrayAttr, DenseElementsAttr, FloatAttr, IntegerAttr
from ...ir.core import Builder, Operation
from ..pass_base import Pass, PassContext, defined_functions, register_pass

MAX_POOLED_SPLAT_ELEMENTS = 256  # elements; a 1 KiB f32 splat is cheaper as data than as a dispatch


def _scalar_attr(attr: DenseElementsAttr):
    et = attr.type.element_type
    v = attr.array.reshape(-1)[0]
    if isinstance(et, T.FloatType):
        return FloatAttr(float(v), et)
    return IntegerAttr(int(v), et)


@register_pass
class ConvertSplatConstantsToFillsPass(Pass):
    name = "iree-flow-convert-splat-constants-to-fills"

    def run(self, module: Operation, ctx: PassContext) -> None:
        for f in defined_functions(module):
            for blk in f.regions[0].blocks:
                for op in list(blk.ops):
                    if op.name != "arith.constant":
                        continue
                    v = op.attributes.get("value")
                    t = op.results[0].type
                    if not (isinstance(v, DenseElementsAttr) and isinstance(t, T.TensorType) and t.has_static_shape
                            and t.num_elements > MAX_POOLED_SPLAT_ELEMENTS and v.is_splat):
                        continue
                    et = t.element_type
                    if not isinstance(et, (T.FloatType, T.IntegerType)) or T.storage_bytes(et) not in (1, 2, 4, 8):
                        continue
                    b = Builder.before(op)
                    scalar = b.create("arith.constant", [], [et], {"value": _scalar_attr(v)}).result
                    empty = b.create("tensor.empty", [], [t]).result
                    fill = b.create("linalg.fill", [scalar, empty], [t], {
                        "operandSegmentSizes": DenseArrayAttr(T.i32, (1, 1))},
                        regions=[build_named_region("fill", [et], [et], {})])
                    op.replace_with([fill.result])


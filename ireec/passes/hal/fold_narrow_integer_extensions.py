"""An extension of a narrow integer that a float conversion made becomes that conversion at
the wide type.

Mirrors LLVM InstCombine's folds of a sign/zero extension through ``select`` and of
``sext(fptosi)`` / ``zext(fptoui)`` (``InstCombineCasts.cpp``), which MLIR's arith
canonicalization does not have: ireec's C is compiled by cc, which needs the narrow type
gone before its vectorizer sees the loop. The quantize-dequantize pairs of a QDQ network
(ONNX ``QuantizeLinear`` then ``DequantizeLinear``, lowered through TOSA's ``cast``)
compute per element::

    q  = fptosi x : f32 to i8          (x already rounded and clamped to [-128, 127])
    q' = select(x >= 128, 127, select(x < -128, -128, select(x != x, 0, q)))
    y  = sitofp(extsi q' to i32 - zp) * scale

An ``i8`` in the middle of an f32 loop makes GCC 12 pick vectors of as many lanes as bytes:
``floorf`` then has no vector form and the whole loop stays scalar (cnn_int8's TOSA form, a
3x3 convolution's quantizing epilogue: 8192 elements, ~100 us). Rewritten, in the
executables' kernels, for ``arith.extsi`` (``arith.extui``) of a value that is

- an ``arith.fptosi`` (``arith.fptoui``): the conversion to the wide type (at most ``i32``:
  an extension to ``i64``, as ONNX's ``DequantizeLinear`` lowers, keeps an ``extsi`` from
  the ``i32``, since a float to ``i64`` conversion is a library call on 32-bit targets and
  made a Cortex-M4 run 1.4x the instructions). Where the narrow
  conversion is defined (the float within the narrow range) both give the same integer;
  elsewhere the narrow one is poison (C: undefined), which the wide result refines;
- an integer ``arith.constant``: the constant extended;
- an ``arith.select`` of two such values: the select of their wide forms,

when the extension's operand chain holds at least one conversion and each narrow value in it
has this one use (nothing is computed twice). The narrow ops left without uses go.
"""
from __future__ import annotations

from typing import List, Optional

from ...dialects.arith import constant_value
from ...ir import types as T
from ...ir.attributes import IntegerAttr
from ...ir.core import Builder, Operation, Value
from ..pass_base import Pass, PassContext, register_pass

#: Widest integer the chain is rebuilt at (a wider extension keeps its last step).
CHAIN_MAX_WIDTH = 32
#: The extensions folded and the float conversion each goes through.
CONVERSION_OF = {"arith.extsi": "arith.fptosi", "arith.extui": "arith.fptoui"}


def _extended(value: int, width: int, signed: bool) -> int:
    """``value`` (an ``iN`` constant's stored integer) read as signed or unsigned ``iN``."""
    value &= (1 << width) - 1
    return value - (1 << width) if signed and value >> (width - 1) else value


class _Widening:
    """The wide form of one extension's operand chain (:meth:`build`), or None."""

    def __init__(self, ext: Operation):
        self.ext = ext
        self.signed = ext.name == "arith.extsi"
        self.result = ext.results[0].type
        # The chain is rebuilt at 32 bits at most: a float to i64 conversion is a library
        # call on 32-bit targets (__aeabi_f2lz on a Cortex-M), a sign extension is not.
        self.wide = T.IntegerType(CHAIN_MAX_WIDTH) if self.result.width > CHAIN_MAX_WIDTH else self.result
        self.b = Builder.before(ext)
        self.narrow_ops: List[Operation] = []
        self.converts = 0

    def plan(self, v: Value) -> bool:
        """Whether ``v`` (and its operands) can be rebuilt at the wide type."""
        op = v.owner
        if not isinstance(op, Operation) or not v.has_one_use:
            return False
        attr = constant_value(op)
        if isinstance(attr, IntegerAttr):
            return True
        if op.name == CONVERSION_OF[self.ext.name]:
            self.converts += 1
            self.narrow_ops.append(op)
            return True
        if op.name == "arith.select" and self.plan(op.operands[1]) and self.plan(op.operands[2]):
            self.narrow_ops.append(op)
            return True
        return False

    def build(self, v: Value) -> Value:
        op = v.owner
        attr = constant_value(op)
        if isinstance(attr, IntegerAttr):
            n = _extended(int(attr.value), v.type.width, self.signed)
            return self.b.create("arith.constant", [], [self.wide],
                                 {"value": IntegerAttr(n, self.wide)}).results[0]
        if op.name == "arith.select":
            a, c = self.build(op.operands[1]), self.build(op.operands[2])
            return self.b.create("arith.select", [op.operands[0], a, c], [self.wide]).results[0]
        return self.b.create(op.name, [op.operands[0]], [self.wide]).results[0]


def fold_extension(ext: Operation) -> bool:
    """Rewrite ``ext`` (an ``arith.extsi`` / ``arith.extui`` of a scalar) as the module
    docstring says; False when its operand chain does not qualify."""
    src = ext.operands[0]
    if not isinstance(src.type, T.IntegerType) or not isinstance(ext.results[0].type, T.IntegerType):
        return False
    w = _Widening(ext)
    if not w.plan(src) or w.converts == 0:
        return False
    new = w.build(src)
    if w.wide != w.result:  # the rest of the way as an extension of the i32
        new = w.b.create(ext.name, [new], [w.result]).results[0]
    ext.replace_with([new])
    for op in reversed(w.narrow_ops):  # users before their operands
        if op.parent is not None and not any(r.uses for r in op.results):
            op.erase()
    return True


@register_pass
class FoldNarrowIntegerExtensionsPass(Pass):
    """Extensions of narrow integers made by float conversions become wide conversions: see
    the module docstring."""

    name = "ireec-fold-narrow-integer-extensions"

    def run(self, module: Operation, ctx: PassContext) -> None:
        for exe in [o for o in module.body.ops if o.name == "hal.executable"]:
            for ext in [o for o in exe.walk() if o.name in CONVERSION_OF]:
                if ext.parent is not None:
                    fold_extension(ext)

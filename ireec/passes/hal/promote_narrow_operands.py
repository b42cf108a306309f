"""Boolean inputs of CPU kernels are widened once into a 32-bit stack copy the loops read.

ireec's own pass, in the spirit of IREE's operand promotion (``iree-codegen-gpu-promote-
matmul-operands`` copies an operand into storage its loops read better) and the reverse of
``iree-codegen-type-propagation`` (which stores ``i1`` tensors as ``i8``, as ireec does). A
kernel loop that reads a byte-wide ``i1`` mask next to ``f32`` data, like the causal mask of
an attention softmax::

    s = max(s, mask[i][j] ? x[b][h][i][j] * 0.25f : -INFINITY);   /* j < 16 */

does not vectorize with GCC on AVX-512: its vectorizer sizes the vector by the narrowest
element, 64 bytes of the mask for 16 floats, so a 16-iteration loop is "too short", and the
128-bit fallback cannot convert a 16-lane mask into 4-lane ones (GCC 12: "conversion not
supported by target"). LLVM, which IREE uses, widens the mask itself. Here the mask is copied
once per workgroup into an ``i32`` temporary (``arith.extui``, one vectorized pass) and the
loops read that: every element of the loop is then 32 bits wide and the loops vectorize at
the full width (torch-mlir gpt_block's masked softmax: 8.2 to 3.6 µs per call).

Rewritten, in kernels of targets with ``Target.promote_narrow_operands``: a read-only binding
(``hal.interface.binding.subspan``, ``descriptor_flags = "ReadOnly"``) of static shape and
element type ``i1`` that is an input of a ``linalg.generic`` in the kernel's body whose other
operands include an element type of at least 32 bits. The copy is a ``memref.alloca`` of
the binding's shape in ``i32`` written by a ``linalg.generic`` before the first such
consumer; each consumer reads it instead, its block argument ``i32`` and ``arith.trunci`` to
``i1`` (C: ``x & 1``) at the top of its body. Only when the copy fits the kernel's stack: its
bytes plus those of the kernel's other allocas at most
:func:`..common.distribution.stack_budget` (``--max-stack-bytes`` lowers it).
"""
from __future__ import annotations

from typing import List

from ...dialects.linalg import build_generic
from ...dialects.memref import build_alloc
from ...ir import types as T
from ...ir.affine import AffineMap
from ...ir.core import Builder, Operation, Value
from ..common.distribution import stack_budget
from ..pass_base import Pass, PassContext, register_pass
from .bufferize import segment_sizes

#: Element type of the widened copy: as wide as an f32 lane.
WIDE = T.IntegerType(32)


def _is_bool(t) -> bool:
    return isinstance(t, T.IntegerType) and t.width == 1


def _element_bits(v: Value) -> int:
    t = T.element_type(v.type)
    return T.bit_width(t) if isinstance(t, (T.IntegerType, T.FloatType)) else 0


def _bytes(t: T.MemRefType) -> int:
    return t.num_elements * T.storage_bytes(t.element_type)


def _consumers(mask: Value) -> List[Operation]:
    """The generics of the mask's block that read it as an input next to a >= 32-bit operand."""
    out = []
    for op in mask.users:
        if op.name != "linalg.generic" or op.parent is not mask.owner.parent:
            continue
        n_in, _ = segment_sizes(op)
        if any(v is mask for v in op.operands[n_in:]):
            continue
        if any(_element_bits(v) >= 32 for v in op.operands if v is not mask):
            out.append(op)
    return out


def _promote(mask: Value, consumers: List[Operation]) -> None:
    first = min(consumers, key=lambda o: o.parent.ops.index(o))
    b = Builder.before(first)
    wide = build_alloc(b, "memref.alloca", T.MemRefType(tuple(mask.type.shape), WIDE)).results[0]
    rank = len(mask.type.shape)
    build_generic([mask], [wide], [AffineMap.identity(rank)] * 2, ["parallel"] * rank,
                  lambda sb, args: [sb.op("arith.extui", [args[0]], WIDE)], result_types=[], builder=b)
    for op in consumers:
        for i, v in enumerate(op.operands):
            if v is not mask:
                continue
            op.set_operand(i, wide)
            arg = op.body.args[i]
            arg.type = WIDE
            narrow = Operation("arith.trunci", [arg], [T.i1], {}, loc=op.loc)
            op.body.insert(0, narrow)
            arg.replace_uses_if(narrow.results[0], lambda u: u is not narrow)


def promote_kernel(kernel: Operation, budget: int) -> None:
    """Widen the ``i1`` read-only bindings of one kernel (``func.func``) as the module
    docstring says, while the kernel's allocas stay within ``budget`` bytes."""
    used = sum(_bytes(o.results[0].type) for o in kernel.walk() if o.name == "memref.alloca"
               and isinstance(o.results[0].type, T.MemRefType) and o.results[0].type.has_static_shape)
    for sub in [o for o in kernel.body.ops if o.name == "hal.interface.binding.subspan"]:
        mask = sub.results[0]
        t = mask.type
        flags = sub.attributes.get("descriptor_flags")
        if (not isinstance(t, T.MemRefType) or not _is_bool(t.element_type) or not t.has_static_shape
                or flags is None or "ReadOnly" not in str(flags.value)):
            continue
        consumers = _consumers(mask)
        need = _bytes(T.MemRefType(tuple(t.shape), WIDE))
        if not consumers or used + need > budget:
            continue
        _promote(mask, consumers)
        used += need


@register_pass
class PromoteNarrowOperandsPass(Pass):
    """``i1`` inputs of CPU kernels read next to 32-bit data are widened into an ``i32``
    stack copy first (see the module docstring)."""

    name = "ireec-promote-narrow-operands"

    def run(self, module: Operation, ctx: PassContext) -> None:
        if not getattr(ctx.target, "promote_narrow_operands", False):
            return
        budget = stack_budget(ctx.max_stack_bytes)
        for exe in [o for o in module.body.ops if o.name == "hal.executable"]:
            for kernel in [k for k in exe.walk() if k.name == "func.func"]:
                promote_kernel(kernel, budget)

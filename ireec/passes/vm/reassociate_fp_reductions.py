"""Float reduction loops of kernels accumulate in a scalar the C compiler may vectorize.

Mirrors IREE's ``--iree-llvmcpu-reassociate-fp-reductions`` (on by default: the LLVM CPU
backend vectorizes a floating-point reduction as partial sums per SIMD lane, added at the end,
instead of one sum in program order), together with the store-to-load forwarding of MLIR's
``affine-scalrep`` that turns the accumulator into a register. A kernel's innermost loop that
reduces into one array element (a row sum, a softmax's sum of exponentials, a layer norm's
mean and variance)::

    for (k...) { t = expr(k); acc[i] = acc[i] + t; }

is, as C, one chain of dependent additions: the compiler may not reorder them (no
``-ffast-math``), so the whole loop, ``expr`` included (an exp polynomial, a mask), runs one
element at a time. Rewritten to::

    float s = acc[i];
    IREEC_SIMD_REDUCTION(+, s)
    for (k...) { t = expr(k); s = s + t; }
    acc[i] = s;

``IREEC_SIMD_REDUCTION`` (kernels.c.j2) is ``#pragma omp simd reduction(+:s)`` when the build
defines ``IREEC_REASSOCIATE_REDUCTIONS`` (``ireec build`` does, with ``-fopenmp-simd``, unless
``--strict-fp``), else nothing: the loop then adds in program order, as before. With it the
compiler keeps one partial sum per lane and adds them at the end, so the result differs from
the sequential sum by rounding only (as IREE's and numpy's pairwise/vectorized sums do).

Rewritten: innermost ``emitc.for`` loops (no nested control flow) of kernels of CPU targets
(``Target.reassociate_fp_reductions``) with exactly one load and one store of one array,
at the same loop-invariant address, the store's value ``load + x`` or ``load * x`` (f32/f64/f16/bf16
``arith.addf`` / ``arith.mulf``), the load used only there and the sum only by the store,
at least :data:`MIN_TRIP_COUNT` iterations (constant bounds),
and every other array the loop stores to accessed at one address that moves with the
induction variable (the ``ivdep`` test of ``iree-codegen-mark-independent-loops``), since
``omp simd`` lets the iterations run side by side. The accumulator ``emitc.variable`` is the
loop's fourth operand and ``simd_reduction`` its operator, for the printer.

f16 and bf16 values live in ``float`` registers and every op rounds to its type; the
accumulator of such a reduction stays unrounded (the combining expression becomes the plain
``float`` one) and the store after the loop rounds once: an f32 accumulator (one f16 chain of 4096 x 0.001 stalls at 4,
where IREE's vectorised partial sums give 4.096, IREE's e2e expectation). The constant evaluator accumulates such reductions in float32 too.
"""
from __future__ import annotations

from ...emitc.arith_to_c import accumulation_expression
from ...emitc.ctypes import rounding_function
from ...ir import types as T
from ...ir.attributes import StringAttr
from ...ir.core import Block, Operation
from ..pass_base import Pass, PassContext, register_pass
from .emitc_utils import constant_value, defined_inside, emitc_funcs
from .mark_independent_loops import access_address, stores_independent_except

#: The combining ops rewritten: {source op of the emitc.expression: C reduction operator}.
REDUCTION_OPERATORS = {"arith.addf": "+", "arith.mulf": "*"}

#: Fewest iterations (constant bounds) of a rewritten loop: one AVX-512 vector of f32. Shorter
#: reductions (a convolution's 5 filter taps, a 2x2 pooling window) stay as they are: GCC
#: unrolls them into the enclosing loop, while a forced SIMD loop of 5 would be masked
#: vectors and a final horizontal sum per output (LeNet: 2x slower).
MIN_TRIP_COUNT = 16


def _is_float(t) -> bool:
    return isinstance(t, T.FloatType) and t.name in ("f32", "f64", "f16", "bf16")


def _accumulator(loop: Operation):
    """``(load, combine, store, operator)`` of an innermost ``loop`` that reduces into one
    array element as the module docstring describes, else None."""
    body = loop.body
    if any(o.regions for o in body.ops):
        return None
    lb, ub, step = (constant_value(x) for x in loop.operands[:3])
    if lb is None or ub is None or not step or (ub - lb) // step < MIN_TRIP_COUNT:
        return None
    inside = defined_inside(loop)
    iv = body.args[0]
    for store in [o for o in body.ops if o.name == "emitc.store"]:
        base, idx = store.operands[1], store.operands[2:]
        if base in inside or any(i is iv or i in inside for i in idx):
            continue
        accesses = [o for o in body.ops if (o.name == "emitc.load" and o.operands[0] is base)
                    or (o.name == "emitc.store" and o.operands[1] is base)]
        loads = [o for o in accesses if o.name == "emitc.load"]
        if len(accesses) != 2 or len(loads) != 1:
            continue
        load = loads[0]
        if access_address(load) != access_address(store):
            continue
        combine = store.operands[0].owner
        if not (isinstance(combine, Operation) and combine.name == "emitc.expression" and combine.parent is body):
            continue
        src = combine.attributes.get("source_op")
        op = REDUCTION_OPERATORS.get(src.value if src is not None else None)
        if op is None or not _is_float(store.operands[0].type) or load.results[0] not in combine.operands:
            continue
        if len(load.results[0].uses) != 1 or len(combine.results[0].uses) != 1:
            continue
        if not stores_independent_except(loop, base):
            continue
        return load, combine, store, op
    return None


def scalarize_reduction(loop: Operation) -> bool:
    """Rewrite ``loop`` (an innermost ``emitc.for``) to accumulate in a scalar variable under
    ``IREEC_SIMD_REDUCTION`` when :func:`_accumulator` accepts it; whether it did."""
    found = _accumulator(loop)
    if found is None:
        return False
    load, combine, store, op = found
    blk: Block = loop.parent
    # The load moves before the loop and initialises the accumulator; the store moves after
    # it and writes the accumulator back.
    load.detach()
    blk.insert_before(loop, load)
    var = Operation("emitc.variable", [load.results[0]], [load.results[0].type], {}, loc=loop.loc)
    blk.insert_before(loop, var)
    acc = var.results[0]
    load.results[0].replace_uses_if(acc, lambda u: u is not var)
    loop.body.insert_before(store, Operation("emitc.assign", [acc, combine.results[0]], [], {}, loc=store.loc))
    store.detach()
    store.set_operand(0, acc)
    blk.insert_after(loop, store)
    loop.set_operands(list(loop.operands) + [acc])
    loop.attributes["simd_reduction"] = StringAttr(op)
    if rounding_function(acc.type) is not None:
        # f16/bf16 live in float registers: the accumulator stays unrounded, the store
        # after the loop rounds once.
        combine.attributes["c"] = StringAttr(accumulation_expression(combine.attributes["source_op"].value))
    return True


def scalarize_reductions(blk: Block) -> None:
    """Apply :func:`scalarize_reduction` to every innermost loop nested in ``blk``."""
    for op in list(blk.ops):
        for r in op.regions:
            for inner in r.blocks:
                scalarize_reductions(inner)
        if op.name == "emitc.for" and "simd_reduction" not in op.attributes:
            scalarize_reduction(op)


@register_pass
class ReassociateFpReductionsPass(Pass):
    """Float reduction loops of CPU kernels accumulate in a scalar under
    ``IREEC_SIMD_REDUCTION`` (see the module docstring)."""

    name = "iree-llvmcpu-reassociate-fp-reductions"

    def run(self, module: Operation, ctx: PassContext) -> None:
        if not getattr(ctx.target, "reassociate_fp_reductions", False):
            return
        for f in emitc_funcs(module, "kernel"):
            scalarize_reductions(f.body)

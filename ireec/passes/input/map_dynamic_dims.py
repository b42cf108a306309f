"""Dynamic dimensions of public functions become a loop of the entry point around one static
slice program.

ireec-specific: this pass has no IREE counterpart. IREE carries dynamic dimensions through
flow and stream as SSA values (``flow.tensor.tie_shape``, dynamic workgroup counts, a
run-time allocator). ireec generates runtimeless C with a static memory plan, so it takes
another route that covers what exporters actually produce: a dimension left open by
``jax.export`` symbolic shapes or torch-mlir's dynamic batch is almost always a *map*
dimension, one every op treats independently (convolution batch, matmul rows, elementwise
work, reductions over other dimensions). Such a program is compiled **once, statically, for
one slice** (each dynamic dimension = 1), and the generated entry point loops over the
dynamic extents, calling the slice program with offset pointers. The arena does not depend
on the extents (``<M>_WORKSPACE_SIZE`` is exact for every batch, no bound is needed), the
kernels are the static ones, and any extent works at run time.

Analysis. Each dynamic dimension of a public function argument is a *symbol* (argument i,
dimension j). Ops that force two dimensions equal (elementwise ops on two batched values,
``dot_general`` batching dims, concatenation...) unify symbols (union-find); the entry point
checks at run time that unified dimensions have equal extents (else
``IREEC_STATUS_INVALID_ARGUMENT``). Per value the pass tracks which dimensions carry which
symbol, through a table of rules keyed by op name (:data:`RULES`), and per *shape value*
(``get_dimension_size``, ``tensor.dim`` and the reshapes, concatenations, conversions and
multiplications of them) its entries as ``k * symbol`` or constants. Symbol dimensions must
stay a leading prefix of every tensor (so a slice is a contiguous block), must never be
reduced, contracted, windowed, sliced or concatenated along, and shape values may only feed
shape operands (``dynamic_broadcast_in_dim``, ``dynamic_reshape``, ``dynamic_iota``,
``tensor.empty``, ``tensor.expand_shape``) and JAX's ``stablehlo.custom_call
@shape_assertion``. TOSA: elementwise ops, ``matmul``, convolutions, pools and reductions
over other dimensions with a dynamic batch. Anything else is a CompileError at the op naming the dimension and why.

JAX's shape assertions of the form ``compare(dim, constant)`` become entry-time checks
(INVALID_ARGUMENT when they fail); any other assertion is dropped: the slice program does
not read the extents, so an assertion about them cannot change what it computes.

Rewrite. Every symbol ``?`` becomes 1 and every shape value of symbols becomes a constant,
so ``stablehlo-canonicalize-dynamism``, ``stablehlo-refine-shapes`` and ``canonicalize``
make the program static. The public function gets ``ireec.dynamic_dims``, a dictionary:
``symbols`` (per symbol the [argument, dimension] it is read from), ``arg_dims`` (every
dynamic argument dimension as [argument, dimension, symbol], in order: the ``int64_t``
parameters of the C entry), ``args`` / ``results`` (per tensor the symbols of its leading
dimensions) and ``checks`` (per shape assertion [symbol, comparison, constant]).
"""
from __future__ import annotations

import dataclasses
from typing import Dict, List

from ...dialects.func import func_type, is_declaration
from ...dialects.tensor import K_DYNAMIC, static_list
from ...emitc.entry_abi import dynamic_dims_of  # noqa: F401  (the attribute's reader; tests import it here)
from ...ir import types as T
from ...ir.attributes import ArrayAttr, DenseArrayAttr, DictAttr, IntegerAttr, StringAttr, TypeAttr
from ...ir.core import Builder, Operation
from ...ir.diagnostics import CompileError
from ..abi.wrap_entry_points import is_public
from ..pass_base import Pass, PassContext, functions, register_pass
from .dynamic_dims_analysis import SHAPE_OPERANDS, WHY, State, analyse, shape_constant

# ============================================================================= rewrite


def _static_type(t: T.Type, dims: Dict[int, int]) -> T.Type:
    shape = tuple(1 if d in dims else x for d, x in enumerate(t.shape))
    return dataclasses.replace(t, shape=shape)


def _rewrite(st: State, f: Operation) -> None:
    """Symbol dims become 1, shape operands constants; ``tensor.empty``/``expand_shape``
    drop their size operands of symbol dims; shape assertions and dead shape code go."""
    for v, dims in st.dims.items():
        v.type = _static_type(v.type, dims)
    for op in list(f.walk()):
        if op.name in SHAPE_OPERANDS:
            for i in SHAPE_OPERANDS[op.name]:
                v = op.operands[i]
                c = shape_constant(Builder.before(op), v, st.entries(op, v))
                if c is not None:
                    op.set_operand(i, c)
        elif op.name == "tensor.empty":
            dyn = [d for d, x in enumerate(op.results[0].type.shape) if x is None]
            # the result type is rewritten already: keep the operands of its remaining ? dims
            old_dyn = [d for d in range(len(op.results[0].type.shape))
                       if d in st.dims.get(op.results[0], {}) or d in dyn]
            keep = [v for d, v in zip(old_dyn, op.operands) if d in dyn]
            op.set_operands(keep)
        elif op.name == "tensor.expand_shape" and op.results[0] in st.dims:
            static = static_list(op, "static_output_shape")
            dims = st.dims[op.results[0]]
            dyn_pos = [d for d, x in enumerate(static) if x == K_DYNAMIC]
            keep = [v for d, v in zip(dyn_pos, op.operands[1:]) if d not in dims]
            new_static = [1 if d in dims else x for d, x in enumerate(static)]
            op.attributes["static_output_shape"] = DenseArrayAttr(T.i64, tuple(new_static))
            op.set_operands([op.operands[0]] + keep)
    for op in st.assertions:
        op.erase()
    # Shape code now unused (get_dimension_size of arguments, concatenations...) goes.
    changed = True
    while changed:
        changed = False
        for op in list(f.walk(pre_order=False)):
            if op.results and all(r in st.shape for r in op.results) and not any(r.uses for r in op.results):
                op.erase()
                changed = True
    ft = func_type(f)
    args = [a.type for a in f.body.args]
    results = list(ft.results)
    rets = [op for op in f.walk() if op.name == "func.return" and op.parent_op is f]
    if rets:
        results = [v.type for v in rets[0].operands]
    f.attributes["function_type"] = TypeAttr(T.FunctionType(tuple(args), tuple(results)))


def _i64s(vals) -> DenseArrayAttr:
    return DenseArrayAttr(T.i64, tuple(int(v) for v in vals))


def map_function(f: Operation) -> None:
    """Analyse and rewrite public function ``f`` (see the module docstring); CompileError at
    the op that uses a dynamic dimension in a way a slice program cannot compute."""
    st, arg_dims = analyse(f)
    if not arg_dims:
        return
    rets = [op for op in f.walk() if op.name == "func.return" and op.parent_op is f]
    res_syms: List[List[int]] = []
    for j, v in enumerate(rets[0].operands if rets else []):
        syms = st.syms(v)
        shape = getattr(v.type, "shape", None) or ()
        for d, x in enumerate(shape):
            if x is None and d not in syms:
                raise CompileError(f"result #{j} ({v.type}): dynamic dimension {d} is not an "
                                   f"argument's dynamic dimension; {WHY}", rets[0].loc)
        res_syms.append([syms[d] for d in range(len(syms))])
    # Canonical symbol numbering: union-find roots in order of first argument dimension.
    roots: List[int] = []
    for _i, _d, s in arg_dims:
        r = st.find(s)
        if r not in roots:
            roots.append(r)
    num = {r: k for k, r in enumerate(roots)}
    arg_syms = [[num[s] for _d, s in sorted(st.syms(a).items())] for a in f.body.args]
    _rewrite(st, f)
    f.attributes["ireec.dynamic_dims"] = DictAttr((
        ("symbols", ArrayAttr(tuple(_i64s(st.origin[r]) for r in roots))),
        ("arg_dims", ArrayAttr(tuple(_i64s((i, d, num[st.find(s)])) for i, d, s in arg_dims))),
        ("args", ArrayAttr(tuple(_i64s(s) for s in arg_syms))),
        ("results", ArrayAttr(tuple(_i64s([num[st.find(s)] for s in r]) for r in res_syms))),
        ("checks", ArrayAttr(tuple(ArrayAttr((IntegerAttr(num[st.find(s)], T.i64), StringAttr(c),
                                              IntegerAttr(k, T.i64)))
                                   for s, c, k in st.checks))),
    ))


@register_pass
class MapDynamicDimsPass(Pass):
    """See the module docstring."""

    name = "ireec-map-dynamic-dims"

    def run(self, module: Operation, ctx: PassContext) -> None:
        for f in functions(module):
            if f.name == "func.func" and is_public(f) and not is_declaration(f):
                map_function(f)

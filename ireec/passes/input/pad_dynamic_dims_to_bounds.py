"""Dynamic dimensions the slice map cannot handle are padded to an upper bound.

Mirrors XLA's ``DynamicPadder`` (the bounded-dynamism lowering of ``#stablehlo.bounds``
types): a tensor whose dimension has a run-time extent ``s <= S`` is stored at its bound
``S``; only the first ``s`` positions along that dimension are valid, the rest is padding
whose contents never reach a valid position. Element-wise ops, broadcasts, transposes and
matmul free dimensions compute the padding along with the valid part; an op that *combines*
positions along a padded dimension is masked first (``iota < s ? x : fill``):

* ``stablehlo.reduce`` over a padded dimension: the padding becomes the init value (the
  reduction's identity, as the StableHLO spec requires of ``init_values`` for a
  deterministic result);
* ``stablehlo.dot_general`` contracting a padded dimension: both operands' padding becomes
  zero (both, so that no padding value, even an infinity or NaN, meets a zero);
* a linalg structured op with a reduction loop over a padded dimension: its payload yields
  the accumulator unchanged past the extent (``linalg.index < extent``), so any combiner
  works without an identity (named ops are generalized first);
* ``stablehlo.scatter`` with a padded number of updates: the padding indices become -1,
  outside the operand, so their updates are skipped (StableHLO spec §scatter).

The program is then static at the bound: one memory plan, no allocation, and the kernels
are the static ones (they run over the whole bound; the extent only moves the masks).

Which dimensions. ``ireec-map-dynamic-dims`` (map_dynamic_dims.py, which runs next)
compiles one slice and loops over extents, the faster plan where it applies: a dimension is
padded only when mapping fails and it has a bound. The bound of a dimension comes from the
program (``#stablehlo.bounds`` type encodings, JAX shape assertions ``dim <= N`` /
``dim < N``) or from the user
(``--dim-bound NAME=N``, ``options["dim_bounds"]``), where NAME is the JAX dimension variable
(``jax.global_constant``, kept by ``inline`` as ``ireec.dimension_names``) or the C entry's
parameter name ``input<I>_dim<D>``. The smallest set of bounded dimensions whose padding
makes the program compile is chosen (fewest, then in argument order). When mapping fails
and no bound helps, the error of the mapping analysis names the flag.

Rewrite. Every value's padded dimensions get the bound as their static size; the padded
arguments' shape reads (``get_dimension_size``, ``tensor.dim``) then fold to the bound where
they give shapes, and where a size is used as data (a mean over the sequence divides by it)
the op reads ``k * extent`` at run time instead. Each padded symbol
whose extent a mask reads gets a hidden ``tensor<i32>`` argument appended to the function,
filled by the entry point. The function gets ``ireec.padded_dims`` (see
:func:`ireec.emitc.entry_abi.padded_dims_of`): ``symbols`` ([argument, dimension, bound]
per padded symbol), ``args`` / ``results`` (per tensor its padded dimensions as flat
[dimension, symbol, ...] pairs), ``extents`` (per symbol the index of its hidden argument,
-1 when no mask reads it), ``staging`` (per argument, then per result, the bytes of its
slice at the bounds when it has a padded dimension, else 0), ``checks`` (JAX shape assertions on padded symbols as
[symbol, C comparison, constant]). The entry point (``targets/c.py``) refuses extents
beyond the bound, copies padded arguments into bound-shaped staging buffers in the
workspace and copies the valid part of padded results out.
"""
from __future__ import annotations

import dataclasses
import itertools
from typing import Dict, FrozenSet, List, Optional, Tuple

import numpy as np

from ...dialects import stablehlo as shlo
from ...dialects.func import func_type, is_declaration
from ...ir import types as T
from ...ir.attributes import (ArrayAttr, DenseArrayAttr, DenseElementsAttr, DictAttr,
                              IntegerAttr, StringAttr, TypeAttr)
from ...dialects import linalg as L
from ...ir.affine import AffineMap
from ...ir.core import BlockArgument, Builder, Operation, Value
from ...ir.diagnostics import CompileError
from ..abi.wrap_entry_points import is_public
from ..common.linalg_generalize_named_ops import generalize
from ..pass_base import Pass, PassContext, functions, register_pass
from .dynamic_dims_analysis import OUT_OF_BOUNDS, PAYLOAD, SHAPE_OPERANDS, analyse, shape_constant

#: Most bounded dimensions of one function tried in every combination.
_MAX_CANDIDATES = 8

_BOUND_DIRECTIONS = {"<=": 0, "<": -1}

_BOUNDS_PREFIX = "#stablehlo.bounds<"


def dimension_names(f: Operation) -> Dict[Tuple[int, int], List[str]]:
    """Per dynamic argument dimension (argument, dimension) of ``f``, the names
    ``--dim-bound`` accepts for it: its JAX dimension variable, if any, and
    ``input<I>_dim<D>``."""
    out: Dict[Tuple[int, int], List[str]] = {}
    for i, a in enumerate(f.body.args):
        for d, x in enumerate(getattr(a.type, "shape", None) or ()):
            if x is None:
                out[(i, d)] = [f"input{i}_dim{d}"]
    named = f.attributes.get("ireec.dimension_names")
    for name, where in (named.as_dict().items() if named is not None else ()):
        key = tuple(int(x) for x in where.value)
        if key in out:
            out[key].insert(0, name)
    return out


def type_bounds(t: T.Type) -> List[Optional[int]]:
    """Per dimension of ``t``, the bound its ``#stablehlo.bounds<...>`` encoding gives (None:
    ``?`` or no such encoding). StableHLO spec, "bounded dynamism": one entry per dimension,
    an integer only where the dimension is dynamic."""
    enc = getattr(t, "encoding", None)
    rank = len(getattr(t, "shape", None) or ())
    text = str(enc) if enc is not None else ""
    if not (text.startswith(_BOUNDS_PREFIX) and text.endswith(">")):
        return [None] * rank
    items = [x.strip() for x in text[len(_BOUNDS_PREFIX):-1].split(",")]
    return [int(x) if x.isdigit() else None for x in items][:rank] + [None] * max(0, rank - len(items))


def _bounds(f: Operation, user: Dict[str, int]) -> Dict[Tuple[int, int], int]:
    """The bound of each dynamic argument dimension of ``f`` that has one: the user's
    (by any of its names), the argument type's ``#stablehlo.bounds`` or the program's JAX
    assertions ``dim <= N``; the smallest where several apply."""
    out: Dict[Tuple[int, int], int] = {}
    names = dimension_names(f)
    for key, ns in names.items():
        given = [user[n] for n in ns if n in user]
        typed = type_bounds(f.body.args[key[0]].type)[key[1]]
        if typed is not None:
            given.append(typed)
        if given:
            out[key] = min(given)
    try:
        st, _ = analyse(f, frozenset(names))
    except CompileError as e:
        st = getattr(e, "partial_state", None)
        if st is None:
            return out
    for s, cmp, k in st.checks:
        if cmp in _BOUND_DIRECTIONS:
            for sym, origin in enumerate(st.origin):
                if st.find(sym) == st.find(s) and origin in names:
                    out[origin] = min(out.get(origin, k), k + _BOUND_DIRECTIONS[cmp])
    return out


def _try(f: Operation, padded: FrozenSet[Tuple[int, int]]):
    """(state, None) when ``f`` compiles with ``padded`` padded, else (None, the error). A
    dimension an op forces equal to a padded one is padded too (it shares the bound)."""
    while True:
        try:
            st, _ = analyse(f, padded)
        except CompileError as e:
            return None, e
        if not st.mixed:
            return st, None
        more = padded | {st.origin[s] for pair in st.mixed for s in pair}
        if more == padded:
            a, b = st.mixed[0]
            return None, CompileError(
                f"dimension {st.origin[a][1]} of argument #{st.origin[a][0]} and dimension "
                f"{st.origin[b][1]} of argument #{st.origin[b][0]} must be equal, but only one "
                f"of them can be padded to a bound", f.loc)
        padded = frozenset(more)


def _hint(e: CompileError, names: Dict[Tuple[int, int], List[str]],
          bounds: Dict[Tuple[int, int], int]) -> CompileError:
    """``e`` with the flag that may lift it named: padding a dimension to a bound."""
    open_dims = [ns[0] for key, ns in names.items() if key not in bounds]
    if not open_dims:
        return e
    msg = (f"{e.message}; with an upper bound ireec compiles a dynamic dimension padded to it "
           f"instead: --dim-bound {open_dims[0]}=N" + (f" (dynamic dimensions: {', '.join(open_dims)})"
                                                        if len(open_dims) > 1 else ""))
    return CompileError(msg, e.loc, notes=getattr(e, "notes", None))


def _choose(f: Operation, bounds: Dict[Tuple[int, int], int],
            names: Dict[Tuple[int, int], List[str]]):
    """The analysis state of the smallest padded set that compiles, or None when the slice
    map alone handles ``f``; CompileError when nothing does."""
    st, first = _try(f, frozenset())
    if first is None:
        return None
    if not bounds:
        raise _hint(first, names, bounds)
    cands = sorted(bounds)[:_MAX_CANDIDATES]
    last = first
    for k in range(1, len(cands) + 1):
        for subset in itertools.combinations(cands, k):
            st, err = _try(f, frozenset(subset))
            if err is None:
                return st
            last = err
    # Dimensions without a bound: the mapping's own error says what needs one. Every
    # dimension bounded: what padding them all still cannot compile.
    raise _hint(first if set(names) - set(bounds) else last, names, bounds)


def _broadcast_like(b: Builder, v: Value, like: Value, dims) -> Value:
    """``v`` broadcast to ``like``'s shape (element type kept); dynamic dimensions of
    ``like`` are read with ``get_dimension_size`` (JAX's spelling, which the slice map
    follows)."""
    lt: T.TensorType = like.type
    t = T.TensorType(lt.shape, v.type.element_type)
    attrs = {"broadcast_dimensions": DenseArrayAttr(T.i64, tuple(dims))}
    if None not in lt.shape:
        return b.create("stablehlo.broadcast_in_dim", [v], [t], attrs).result
    i32x1 = T.TensorType((1,), T.i32)
    parts = []
    for d, x in enumerate(lt.shape):
        if x is None:
            n = b.create("stablehlo.get_dimension_size", [like], [T.TensorType((), T.i32)],
                         {"dimension": IntegerAttr(d, T.i64)}).result
            parts.append(b.create("stablehlo.reshape", [n], [i32x1]).result)
        else:
            parts.append(b.create("stablehlo.constant", [], [i32x1], {
                "value": DenseElementsAttr(np.array([x], np.int32), i32x1)}).result)
    shape = b.create("stablehlo.concatenate", parts, [T.TensorType((len(parts),), T.i32)],
                     {"dimension": IntegerAttr(0, T.i64)}).result
    return b.create("stablehlo.dynamic_broadcast_in_dim", [v, shape], [t], attrs).result


def _mask(b: Builder, v: Value, dim: int, extent: Value, fill: Optional[Value], constant: int = 0) -> Value:
    """``select(iota(dim) < extent, v, fill)`` in ``v``'s type (``fill``: a rank-0 value of
    its element type; None: ``constant``, 0 or -1). The comparison is built on a tensor of
    size 1 in every other dimension and broadcast."""
    t: T.TensorType = v.type
    if fill is None:
        st = T.TensorType((), t.element_type)
        value = np.full((), constant, dtype=np.bool_ if t.element_type == T.i1 else np.float64)
        fill = b.create("stablehlo.constant", [], [st], {"value": DenseElementsAttr(value, st)}).result
    small = tuple(x if d == dim else 1 for d, x in enumerate(t.shape))
    it = T.TensorType(small, T.i32)
    iota = b.create("stablehlo.iota", [], [it], {"iota_dimension": IntegerAttr(dim, T.i64)}).result
    ext = b.create("stablehlo.broadcast_in_dim", [extent], [it],
                   {"broadcast_dimensions": DenseArrayAttr(T.i64, ())}).result
    keep = b.create("stablehlo.compare", [iota, ext], [T.TensorType(small, T.i1)], {
        "comparison_direction": shlo.enum_attr("comparison_direction", "LT")}).result
    keep = _broadcast_like(b, keep, v, range(len(small)))
    filled = _broadcast_like(b, fill, v, ())
    return b.create("stablehlo.select", [keep, v, filled], [t]).result


def _extent_value(b: Builder, extent: Value, k: int, t: T.Type) -> Value:
    """``k * extent`` in type ``t`` (a rank-0 or one-element tensor, or an integer/index
    scalar): what a dimension size used as data (a mean's divisor) reads at run time."""
    if isinstance(t, T.TensorType):
        et = t.element_type
        v = extent
        if et != T.i32:
            v = b.create("stablehlo.convert", [v], [T.TensorType((), et)]).result
        if k != 1:
            kt = T.TensorType((), et)
            c = b.create("stablehlo.constant", [], [kt], {"value": DenseElementsAttr(np.array(k), kt)}).result
            v = b.create("stablehlo.multiply", [v, c], [kt]).result
        if t.shape != ():
            v = b.create("stablehlo.reshape", [v], [t]).result
        return v
    v = b.create("tensor.extract", [extent], [T.i32]).result
    if isinstance(t, T.IndexType):
        v = b.create("arith.index_cast", [v], [T.index]).result
    elif t != T.i32:
        v = b.create("arith.extsi", [v], [t]).result
    if k != 1:
        v = b.create("arith.muli", [v, b.create("arith.constant", [], [t], {"value": IntegerAttr(k, t)}).result],
                     [t]).result
    return v


def _mask_payload(op: Operation, loop: int, extent: Value) -> Operation:
    """``op`` (a linalg structured op reducing over padded loop ``loop``) as a
    ``linalg.generic`` that also reads ``extent`` (rank 0) and yields its accumulators
    unchanged where ``linalg.index loop >= extent``: any reduction payload, no identity
    needed. Returns the new op."""
    g = generalize(op)
    nin = len(L.inputs(g))
    maps = L.indexing_maps(g)
    n = len(L.iterator_types(g))
    region = g.regions.pop(0)
    block = region.blocks[0]
    arg = BlockArgument(T.i32, block, nin)
    block.args.insert(nin, arg)
    for k, a in enumerate(block.args):
        a.index = k
    yield_op = block.terminator
    b = Builder.before(yield_op)
    idx = b.create("linalg.index", [], [T.index], {"dim": IntegerAttr(loop, T.i64)}).result
    ext = b.create("arith.index_cast", [arg], [T.index]).result
    inside = b.create("arith.cmpi", [idx, ext], [T.i1], {"predicate": IntegerAttr(2, T.i64)}).result  # slt
    outs = block.args[nin + 1:]
    yield_op.set_operands([b.create("arith.select", [inside, y, acc], [y.type]).result
                           for y, acc in zip(yield_op.operands, outs)])
    new = L.build_generic(list(L.inputs(g)) + [extent], L.outputs(g),
                          maps[:nin] + [AffineMap(n, 0, ())] + maps[nin:], L.iterator_types(g),
                          region, result_types=g.result_types, loc=g.loc)
    g.parent.insert_before(g, new)
    g.replace_with(new.results)
    return new


def _with_bounds(t: T.Type, dims: Dict[int, int]) -> T.Type:
    """``t`` with dims ``dims`` static at their bounds; a ``#stablehlo.bounds`` encoding is
    dropped once no dimension it bounds stays dynamic."""
    shape = tuple(dims.get(d, x) for d, x in enumerate(t.shape))
    enc = getattr(t, "encoding", None)
    if str(enc).startswith(_BOUNDS_PREFIX):
        left = [b for b, x in zip(type_bounds(t), shape) if x is None]
        enc = enc if any(b is not None for b in left) else None
    return dataclasses.replace(t, shape=shape, encoding=enc)


def _pairs(dims: Dict[int, int]) -> DenseArrayAttr:
    return DenseArrayAttr(T.i64, tuple(x for d in sorted(dims) for x in (d, dims[d])))


def pad_function(f: Operation, user_bounds: Dict[str, int]) -> None:
    """Pad the dynamic dimensions of public function ``f`` that need it (module docstring)."""
    names = dimension_names(f)
    if not names:
        return
    bounds = _bounds(f, user_bounds)
    st = _choose(f, bounds, names)
    if st is None:
        return
    roots: List[int] = []
    for s in range(len(st.origin)):
        if st.is_padded(s) and st.find(s) not in roots:
            roots.append(st.find(s))
    num = {r: k for k, r in enumerate(roots)}
    members = {r: [st.origin[s] for s in range(len(st.origin)) if st.find(s) == r] for r in roots}
    if any(not any(o in bounds for o in members[r]) for r in roots):
        r = next(r for r in roots if not any(o in bounds for o in members[r]))
        raise CompileError(f"dimension {st.origin[r][1]} of argument #{st.origin[r][0]} must be padded "
                           f"but has no upper bound: --dim-bound {names[st.origin[r]][0]}=N", f.loc)
    bound = {r: min(bounds[o] for o in members[r] if o in bounds) for r in roots}
    for r in roots:
        if bound[r] < 1:
            raise CompileError(f"the upper bound of {names[st.origin[r]][0]} is {bound[r]} (from "
                               f"--dim-bound or a shape assertion): a padded dimension needs a bound "
                               f"of at least 1", f.loc)

    def padded_dims(v: Value) -> Dict[int, int]:
        return {d: st.find(s) for d, s in st.dims.get(v, {}).items() if st.is_padded(s)}

    extent_args: Dict[int, Value] = {}

    def extent(r: int) -> Value:
        if r not in extent_args:
            extent_args[r] = f.body.add_arg(T.TensorType((), T.i32))
        return extent_args[r]

    arg_pads = [padded_dims(a) for a in f.body.args]
    rets = [op for op in f.walk() if op.name == "func.return" and op.parent_op is f]
    res_pads = [padded_dims(v) for v in (rets[0].operands if rets else [])]
    for v, dims in list(st.dims.items()):
        pd = {d: bound[st.find(s)] for d, s in dims.items() if st.is_padded(s)}
        if pd:
            v.type = _with_bounds(v.type, pd)
    masked: Dict[Operation, Operation] = {}  # linalg op -> its generic with the extent input
    for op, i, d, s, fill in st.masks:
        if fill == PAYLOAD:
            op = masked.get(op, op)
            masked[op] = _mask_payload(op, d, extent(st.find(s)))
            continue
        b = Builder.before(op)
        fill_v = op.operands[fill] if isinstance(fill, int) else None
        op.set_operand(i, _mask(b, op.operands[i], d, extent(st.find(s)), fill_v,
                                -1 if fill == OUT_OF_BOUNDS else 0))
    _drop_size_operands(f, st)
    _fold_shape_operands(f, st, bound)
    for op, i in st.data_uses:
        k, s = st.shape[op.operands[i]][0]
        op.set_operand(i, _extent_value(Builder.before(op), extent(st.find(s)), k, op.operands[i].type))
    ft = func_type(f)
    results = [v.type for v in rets[0].operands] if rets else list(ft.results)
    f.attributes["function_type"] = TypeAttr(T.FunctionType(tuple(a.type for a in f.body.args),
                                                             tuple(results)))
    if "arg_attrs" in f.attributes:
        attrs = list(f.attributes["arg_attrs"].value)
        f.attributes["arg_attrs"] = ArrayAttr(tuple(attrs + [DictAttr(())] * (len(f.body.args) - len(attrs))))
    f.attributes["ireec.padded_dims"] = DictAttr((
        ("symbols", ArrayAttr(tuple(DenseArrayAttr(T.i64, (*st.origin[r], bound[r])) for r in roots))),
        ("args", ArrayAttr(tuple(_pairs({d: num[r] for d, r in p.items()}) for p in arg_pads)
                           + tuple(_pairs({}) for _ in extent_args))),
        ("results", ArrayAttr(tuple(_pairs({d: num[r] for d, r in p.items()}) for p in res_pads))),
        ("extents", DenseArrayAttr(T.i64, tuple(extent_args[r].index if r in extent_args else -1
                                                for r in roots))),
        ("staging", DenseArrayAttr(T.i64, tuple(
            _slice_bytes(v.type) if p else 0
            for v, p in zip(list(f.body.args) + list(rets[0].operands if rets else []),
                            arg_pads + [{}] * len(extent_args) + res_pads)))),
        ("checks", ArrayAttr(tuple(ArrayAttr((IntegerAttr(num[st.find(s)], T.i64), StringAttr(c),
                                              IntegerAttr(k, T.i64)))
                                   for s, c, k in st.checks if st.is_padded(s)))),
    ))


def _slice_bytes(t: T.TensorType) -> int:
    """Bytes of one slice of ``t`` at its bounds (a dimension still dynamic is a mapped one:
    1 per slice)."""
    n = 1
    for x in t.shape:
        n *= 1 if x is None else x
    return n * T.storage_bytes(t.element_type)


def _fold_shape_operands(f: Operation, st, bound: Dict[int, int]) -> None:
    """Shape operands of dynamic StableHLO ops whose entries are constants or padded symbols
    become constants with each padded symbol at its bound (those of mapped symbols are
    ireec-map-dynamic-dims' to fold)."""
    for op in list(f.walk()):
        for i in SHAPE_OPERANDS.get(op.name, ()):
            v = op.operands[i]
            entries = []
            for e in st.entries(op, v):
                if e is not None and e[1] is not None and st.is_padded(e[1]):
                    e = (e[0] * bound[st.find(e[1])], None)
                entries.append(e)
            if all(e is not None and e[1] is None for e in entries):
                c = shape_constant(Builder.before(op), v, entries)
                if c is not None:
                    op.set_operand(i, c)


def _drop_size_operands(f: Operation, st) -> None:
    """``tensor.empty`` keeps a size operand per dimension still dynamic in its result."""
    for op in f.walk():
        if op.name == "tensor.empty" and op.results[0] in st.dims:
            shape = op.results[0].type.shape
            old_dyn = [d for d in range(len(shape)) if shape[d] is None or d in st.dims[op.results[0]]]
            op.set_operands([v for d, v in zip(old_dyn, op.operands) if shape[d] is None])


@register_pass
class PadDynamicDimsToBoundsPass(Pass):
    """See the module docstring."""

    name = "ireec-pad-dynamic-dims-to-bounds"

    def run(self, module: Operation, ctx: PassContext) -> None:
        user = dict(ctx.options.get("dim_bounds") or {})
        public = [f for f in functions(module)
                  if f.name == "func.func" and is_public(f) and not is_declaration(f)]
        known = {n for f in public for ns in dimension_names(f).values() for n in ns}
        unknown = sorted(set(user) - known)
        if unknown:
            raise CompileError(f"--dim-bound {unknown[0]}: no public function has a dynamic "
                               f"dimension of that name (names: {', '.join(sorted(known)) or 'none'})",
                               module.loc)
        for f in public:
            pad_function(f, user)

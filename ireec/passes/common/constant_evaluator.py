"""Evaluate tensor ops on constant operands with numpy, as the generated C would compute them.

The evaluator behind :mod:`ireec.passes.flow.consteval_jit_globals` (IREE's
``iree-consteval-jit-globals`` compiles constant expressions into a module and runs it with
the runtime; ireec evaluates them with numpy instead). It covers

* linalg structured ops (``linalg.generic`` and the named ops, which carry a payload region
  and upstream indexing maps): every operand is viewed over the iteration domain through its
  indexing map (a transpose/broadcast view for projected permutations, a gather for other
  affine maps), the scalar payload is interpreted on whole arrays, reduction dims are stepped
  in lexicographic order exactly like the C loop nest (so reductions sum in the C's order);
* tensor reshapes (``collapse_shape``, ``expand_shape``, ``reshape``, ``cast``), static
  ``extract_slice`` / ``insert_slice`` and ``pad`` with a constant padding value.

Numerics follow :mod:`ireec.emitc.arith_to_c`: f32 arithmetic in float32, f16/bf16 ops rounded
to their type after each op (numpy's float16 and ml_dtypes' bfloat16 compute each op in
float32 and round), signless integers wrap (two's complement), integer division never traps
(a zero divisor, or -1 under the most negative dividend, divides by 1), shifts past the width
give the C template's result, i1 is the C's 0/1 byte (so ``maxsi``/``cmpi slt`` on i1 order
false before true, as the C does). Element types without an exact numpy model (sub-byte integers,
8-bit and smaller floats, complex) and ops outside :data:`SCALAR_OPS` are not evaluated: the
evaluator raises :class:`Unsupported` and the op is left to run. ``math.fma`` is computed in
float64 and rounded once more (C's ``fmaf`` rounds once; the two differ only in rare ties).

Values are numpy arrays in the *evaluation dtype* of their element type (:func:`eval_dtype`);
a splat is a zero-strided ``np.broadcast_to`` view and results computed only from splats stay
splats (the payload is then evaluated once, on 0-d arrays).
"""
from __future__ import annotations

import math
from typing import Callable, Dict, List, Optional, Sequence

import ml_dtypes
import numpy as np

from ...dialects import linalg as L
from ...dialects.tensor import K_DYNAMIC
from ...ir import types as T
from ...ir.affine import AffineBinary, AffineConst, AffineDim, AffineExpr, AffineMap, AffineSymbol, eval_expr
from ...ir.attributes import DenseElementsAttr, DenseResourceAttr, FloatAttr, IntegerAttr
from ...ir.core import Operation, Value

#: Most elements an evaluated result (or the iteration domain of a structured op) may have:
#: 1 GiB of f32, a transposed 16k x 16k weight (real exports transpose every linear layer's
#: weight; left to run, a 100 MB one is copied on every call). The work of heavier payloads
#: is bounded by MAX_SCALAR_WORK.
MAX_DOMAIN_ELEMENTS = 1 << 28
#: Most scalar operations (domain elements x payload ops) one evaluation may perform: about
#: a second of numpy time on this class of machine.
MAX_SCALAR_WORK = 1 << 28
#: Most steps of the sequential reduction loop (each one numpy call per payload op).
MAX_REDUCTION_STEPS = 1 << 14


class Unsupported(Exception):
    """The op (or one of its payload ops or types) is outside what the evaluator models."""


# ------------------------------------------------------------------------------ types
_FLOATS = {"f16": np.dtype(np.float16), "f32": np.dtype(np.float32), "f64": np.dtype(np.float64),
           "bf16": np.dtype(ml_dtypes.bfloat16)}


def eval_dtype(t: T.Type) -> np.dtype:
    """numpy dtype used to compute on scalars of type ``t``: the storage dtype of
    :func:`ireec.ir.types.numpy_dtype`, except bf16 (ml_dtypes.bfloat16 instead of its bit
    pattern). Raises :class:`Unsupported` for sub-byte integers, small floats and complex."""
    if isinstance(t, T.FloatType):
        if t.name in _FLOATS:
            return _FLOATS[t.name]
        raise Unsupported(f"element type {t}")
    if isinstance(t, T.IndexType):
        return np.dtype(np.int64)
    if isinstance(t, T.IntegerType) and t.width in (1, 8, 16, 32, 64):
        return T.numpy_dtype(t)
    raise Unsupported(f"element type {t}")


def accumulator_dtype(t: T.Type) -> np.dtype:
    """numpy dtype a reduction into elements of type ``t`` accumulates in: float32 for the
    16-bit floats (f16, bf16), whose own spacing would stop a long sum (4096 x 0.001 in f16
    stalls at 4: beyond it an addend is below half a unit in the last place), as IREE's
    vectorised partial sums and the kernels' f32 accumulators
    (``iree-llvmcpu-reassociate-fp-reductions``) do not; :func:`eval_dtype` otherwise."""
    dt = eval_dtype(t)
    return np.dtype(np.float32) if isinstance(t, T.FloatType) and t.name in ("f16", "bf16") else dt


def element_type(t: T.Type) -> T.Type:
    """The element type of a shaped type, ``t`` itself for a scalar."""
    return t.element_type if isinstance(t, T.ShapedType) else t


def _unsigned(a: np.ndarray) -> np.ndarray:
    """The same bits seen as unsigned (booleans stay booleans)."""
    if a.dtype.kind == "i":
        return a.view(np.dtype(f"u{a.dtype.itemsize}"))
    return a


def to_attr(array: np.ndarray, type: T.TensorType) -> DenseElementsAttr:
    """A dense attribute of ``type`` holding ``array`` (evaluation dtype): a splat attribute
    when every element is equal (one element stored), bf16 stored as its bit pattern."""
    a = np.asarray(array)
    if a.dtype == _FLOATS["bf16"]:
        a = a.view(np.uint16)
    a = a.astype(T.numpy_dtype(type.element_type), copy=False)
    if a.size > 1 and (all(s == 0 for s in a.strides) or _all_equal(a)):
        return DenseElementsAttr.splat(a.reshape(-1)[0], type)
    return DenseElementsAttr(a, type)


def _all_equal(a: np.ndarray) -> bool:
    flat = np.ascontiguousarray(a).reshape(-1)
    if flat.dtype == np.bool_:
        return bool(np.all(flat == flat[0]))
    b = flat.view(np.uint8).reshape(flat.size, -1)
    return bool(np.all(b == b[0]))


def is_splat(a: np.ndarray) -> bool:
    """Whether ``a`` is a lazily held splat (zero strides) or a 0-d/1-element array."""
    return a.size <= 1 or all(s == 0 for s in a.strides)


def attr_array(attr, type: T.Type, resources: Dict[str, bytes]) -> Optional[np.ndarray]:
    """The value of constant attribute ``attr`` in its evaluation dtype (splats stay
    zero-strided views, resource blobs are read in place), or None when it is not a
    readable tensor/scalar constant."""
    if isinstance(attr, DenseElementsAttr):
        dt = eval_dtype(attr.type.element_type)
        a = attr.array
        if dt == _FLOATS["bf16"]:
            a = a.view(dt) if not is_splat(a) or a.size <= 1 else np.broadcast_to(
                a.reshape(-1)[:1].view(dt).reshape(()), a.shape)
        return a
    if isinstance(attr, DenseResourceAttr):
        blob = resources.get(attr.name)
        t = attr.type
        if blob is None or not isinstance(t, T.TensorType) or not t.has_static_shape:
            return None
        dt = eval_dtype(t.element_type)
        data = blob[4:]  # the first 4 bytes of a blob are its alignment
        if len(data) != t.num_elements * dt.itemsize:
            return None
        return np.frombuffer(data, dtype=dt).reshape(t.shape)
    if isinstance(attr, (IntegerAttr, FloatAttr)) and not isinstance(type, T.ShapedType):
        return np.array(attr.value).astype(eval_dtype(type))
    return None


# ----------------------------------------------------------------------- scalar ops
def _int_div(kind: str):
    """Integer division with C's truncation and arith_to_c's never-trapping divisor."""
    def run(op, a, b):
        unsigned = kind.endswith("ui")
        if a.dtype == np.bool_:
            return a  # i1: the divisor is 1 (0 replaced by 1)
        if unsigned:
            ua, ub = _unsigned(a), _unsigned(b)
            ub = np.where(ub == 0, ub.dtype.type(1), ub)
            q, r = ua // ub, ua % ub
            res = {"divui": q, "remui": r, "ceildivui": q + (r != 0)}[kind]
            return res.astype(ua.dtype).view(a.dtype)
        lo = np.iinfo(a.dtype).min
        b = np.where((b == 0) | ((a == lo) & (b == -1)), b.dtype.type(1), b)
        r = np.fmod(a, b)
        q = (a - r) // b
        if kind == "divsi":
            return q
        if kind == "remsi":
            return r
        adjust = (r != 0) & ((a < 0) != (b < 0))
        if kind == "floordivsi":
            return q - adjust
        return q + ((r != 0) & ((a < 0) == (b < 0)))  # ceildivsi
    return run


def _shift(kind: str):
    """Shifts as arith_to_c writes them: a count of the width or more gives 0 (shli, shrui)
    or shifts by width - 1 (shrsi)."""
    def run(op, a, b):
        if a.dtype == np.bool_:
            raise Unsupported("shift of i1")
        w = a.dtype.itemsize * 8
        ua, cnt = _unsigned(a), b.astype(np.int64)
        big = cnt >= w
        s = np.clip(cnt, 0, w - 1).astype(ua.dtype)
        if kind == "shli":
            return np.where(big, ua.dtype.type(0), ua << s).astype(ua.dtype).view(a.dtype)
        if kind == "shrui":
            return np.where(big, ua.dtype.type(0), ua >> s).astype(ua.dtype).view(a.dtype)
        return a >> s.astype(a.dtype)
    return run


def _bool_aware(int_fn, bool_fn):
    def run(op, a, b):
        return bool_fn(a, b) if a.dtype == np.bool_ else int_fn(a, b)
    return run


def _c_round(op, a):
    """C round(): halves away from zero (computed in float64, exact for f16/bf16/f32)."""
    x = a.astype(np.float64)
    return np.copysign(np.floor(np.abs(x) + 0.5), x)


_CMPF = {
    0: lambda a, b: np.zeros(np.broadcast(a, b).shape, np.bool_),
    1: lambda a, b: a == b, 2: lambda a, b: a > b, 3: lambda a, b: a >= b,
    4: lambda a, b: a < b, 5: lambda a, b: a <= b, 6: lambda a, b: (a < b) | (a > b),
    7: lambda a, b: (a == a) & (b == b), 8: lambda a, b: ~((a < b) | (a > b)),
    9: lambda a, b: ~(a <= b), 10: lambda a, b: ~(a < b), 11: lambda a, b: ~(a >= b),
    12: lambda a, b: ~(a > b), 13: lambda a, b: a != b, 14: lambda a, b: (a != a) | (b != b),
    15: lambda a, b: np.ones(np.broadcast(a, b).shape, np.bool_),
}
_CMPI = {
    0: lambda a, b: a == b, 1: lambda a, b: a != b, 2: lambda a, b: a < b,
    3: lambda a, b: a <= b, 4: lambda a, b: a > b, 5: lambda a, b: a >= b,
    6: lambda a, b: _unsigned(a) < _unsigned(b), 7: lambda a, b: _unsigned(a) <= _unsigned(b),
    8: lambda a, b: _unsigned(a) > _unsigned(b), 9: lambda a, b: _unsigned(a) >= _unsigned(b),
}


def _cmp(table):
    def run(op, a, b):
        return table[op.attributes["predicate"].value](a, b)
    return run


def _cast(kind: str):
    def run(op, a):
        rt = op.results[0].type
        dt = eval_dtype(rt)
        st = op.operands[0].type
        if dt == np.bool_:
            return (a != 0) if isinstance(st, T.FloatType) else (a.astype(np.int64) & 1).astype(np.bool_)
        if kind == "extsi" and a.dtype == np.bool_:
            return -(a.astype(dt))
        if kind in ("extui", "uitofp", "index_castui"):
            return _unsigned(a).astype(dt)
        if kind == "fptoui":
            return a.astype(np.dtype(f"u{dt.itemsize}") if dt.kind == "i" else dt).astype(dt)
        if kind == "bitcast":
            if a.dtype.itemsize != dt.itemsize or a.dtype == np.bool_ or dt == np.bool_:
                raise Unsupported("arith.bitcast of this width")
            return np.ascontiguousarray(a).view(dt)
        return a.astype(dt)
    return run


def _unary(fn):
    return lambda op, a: fn(a)


def _binary(fn):
    return lambda op, a, b: fn(a, b)


#: Scalar arith/math ops the payload interpreter knows: {op name: fn(op, *operand arrays)}.
#: Each result is then converted to the op's result type (so f16/bf16 round after every op).
SCALAR_OPS: Dict[str, Callable] = {
    "arith.addf": _binary(np.add), "arith.subf": _binary(np.subtract),
    "arith.mulf": _binary(np.multiply), "arith.divf": _binary(np.divide),
    "arith.remf": _binary(np.fmod), "arith.negf": _unary(np.negative),
    "arith.maximumf": _binary(np.maximum), "arith.minimumf": _binary(np.minimum),
    "arith.maxnumf": _binary(np.fmax), "arith.minnumf": _binary(np.fmin),
    "arith.addi": _bool_aware(np.add, np.logical_xor), "arith.subi": _bool_aware(np.subtract, np.logical_xor),
    "arith.muli": _bool_aware(np.multiply, np.logical_and),
    "arith.andi": _binary(np.bitwise_and), "arith.ori": _binary(np.bitwise_or),
    "arith.xori": _binary(np.bitwise_xor),
    "arith.maxsi": _binary(np.maximum), "arith.minsi": _binary(np.minimum),
    "arith.maxui": lambda op, a, b: np.where(_unsigned(a) > _unsigned(b), a, b),
    "arith.minui": lambda op, a, b: np.where(_unsigned(a) < _unsigned(b), a, b),
    "arith.divsi": _int_div("divsi"), "arith.remsi": _int_div("remsi"),
    "arith.divui": _int_div("divui"), "arith.remui": _int_div("remui"),
    "arith.floordivsi": _int_div("floordivsi"), "arith.ceildivsi": _int_div("ceildivsi"),
    "arith.ceildivui": _int_div("ceildivui"),
    "arith.shli": _shift("shli"), "arith.shrsi": _shift("shrsi"), "arith.shrui": _shift("shrui"),
    "arith.cmpf": _cmp(_CMPF), "arith.cmpi": _cmp(_CMPI),
    "arith.select": lambda op, c, a, b: np.where(c, a, b),
    "math.fma": lambda op, a, b, c: (a.astype(np.float64) * b + c) if a.dtype != np.float64 else a * b + c,
    "math.absf": _unary(np.abs), "math.absi": _unary(np.abs),
    "math.exp": _unary(np.exp), "math.exp2": _unary(np.exp2), "math.expm1": _unary(np.expm1),
    "math.log": _unary(np.log), "math.log2": _unary(np.log2), "math.log10": _unary(np.log10),
    "math.log1p": _unary(np.log1p), "math.sqrt": _unary(np.sqrt),
    "math.rsqrt": lambda op, a: np.divide(a.dtype.type(1), np.sqrt(a)),
    "math.cbrt": _unary(np.cbrt), "math.sin": _unary(np.sin), "math.cos": _unary(np.cos),
    "math.tan": _unary(np.tan), "math.tanh": _unary(np.tanh), "math.sinh": _unary(np.sinh),
    "math.cosh": _unary(np.cosh), "math.asin": _unary(np.arcsin), "math.acos": _unary(np.arccos),
    "math.atan": _unary(np.arctan), "math.asinh": _unary(np.arcsinh),
    "math.acosh": _unary(np.arccosh), "math.atanh": _unary(np.arctanh),
    "math.floor": _unary(np.floor), "math.ceil": _unary(np.ceil), "math.round": _c_round,
    "math.trunc": _unary(np.trunc), "math.roundeven": _unary(np.rint),
    "math.powf": _binary(np.power), "math.atan2": _binary(np.arctan2),
    "math.copysign": _binary(np.copysign),
    "math.isnan": _unary(np.isnan), "math.isinf": _unary(np.isinf),
    "math.isfinite": _unary(np.isfinite),
}
SCALAR_OPS.update({f"arith.{k}": _cast(k) for k in (
    "extf", "truncf", "extsi", "extui", "trunci", "sitofp", "uitofp", "fptosi", "fptoui",
    "index_cast", "index_castui", "bitcast")})


def eval_scalar_op(op: Operation, args: Sequence[np.ndarray], dtype: Optional[np.dtype] = None) -> np.ndarray:
    """Apply scalar arith/math ``op`` elementwise to ``args`` (evaluation dtypes, broadcasting)
    and return the result in the evaluation dtype of its result type (``dtype`` instead when
    given: a reduction's wider accumulator). Unsupported on an op outside :data:`SCALAR_OPS`."""
    fn = SCALAR_OPS.get(op.name)
    if fn is None or len(op.results) != 1:
        raise Unsupported(f"payload op '{op.name}'")
    dt = dtype if dtype is not None else eval_dtype(op.results[0].type)
    with np.errstate(all="ignore"):
        r = np.asarray(fn(op, *args))
        if r.dtype != dt:
            r = r.astype(dt)
    return r


# ----------------------------------------------------------------- structured ops
def _affine_eval(e: AffineExpr, grids: Sequence):
    """``e`` over numpy index grids (MLIR's floordiv/ceildiv/mod semantics, which numpy's
    ``//`` and ``%`` share: :func:`ireec.ir.affine.eval_expr` works on arrays as on ints)."""
    if any(isinstance(x, AffineSymbol) for x in _affine_leaves(e)):
        raise Unsupported("affine map with symbols")
    return eval_expr(e, grids)


def _affine_leaves(e: AffineExpr):
    if isinstance(e, AffineBinary):
        yield from _affine_leaves(e.lhs)
        yield from _affine_leaves(e.rhs)
    else:
        yield e


def _view(arr: np.ndarray, m: AffineMap, order: Sequence[int], ranges: Sequence[int]) -> np.ndarray:
    """``arr`` seen over the loop dims ``order`` (axis i of the result is loop dim order[i]):
    element [i...] is arr[m(i...)]. Projected permutations give a broadcast view, other maps
    a gather."""
    shape = [ranges[d] for d in order]
    if arr.ndim == 0 or not m.results:
        if arr.size != 1:
            raise Unsupported("indexing map does not match the operand's rank")
        return np.broadcast_to(arr.reshape(()), shape)
    if arr.ndim != len(m.results):
        raise Unsupported("indexing map does not match the operand's rank")
    if m.is_projected_permutation():
        for r, n in zip(m.results, arr.shape):
            if (isinstance(r, AffineDim) and ranges[r.pos] != n) or (isinstance(r, AffineConst) and n < 1):
                raise Unsupported("operand shape disagrees with the iteration domain")
        a = arr[tuple(0 if isinstance(r, AffineConst) else slice(None) for r in m.results)]
        dims = [r.pos for r in m.results if isinstance(r, AffineDim)]
        a = a.transpose(sorted(range(len(dims)), key=lambda i: order.index(dims[i])))
        present = sorted(dims, key=order.index)
        a = a.reshape([ranges[d] if d in present else 1 for d in order])
        return np.broadcast_to(a, shape)
    grids = [None] * len(ranges)
    for axis, d in enumerate(order):
        g = [1] * len(order)
        g[axis] = ranges[d]
        grids[d] = np.arange(ranges[d]).reshape(g)
    idx = [np.asarray(_affine_eval(r, grids)) for r in m.results]
    for i, ix in zip(idx, arr.shape):
        if i.size and (i.min() < 0 or i.max() >= ix):
            raise Unsupported("indexing map reads out of bounds")
    return arr[tuple(np.broadcast_to(i, shape) for i in idx)]


#: Combining ops whose result a reduction keeps in its accumulator dtype (no rounding to a
#: 16-bit float per step), as the kernels' ``iree-llvmcpu-reassociate-fp-reductions`` does.
ACCUMULATING_OPS = ("arith.addf", "arith.mulf")


def _accumulating(block, n_in: int) -> Dict[Operation, np.dtype]:
    """{payload op: accumulator dtype} of the ops of ``block`` that combine an output's block
    argument into the value yielded for it, for outputs of 16-bit float types."""
    out = {}
    yields = [o for o in block.ops if o.name == "linalg.yield"]
    for arg, v in zip(block.args[n_in:], yields[0].operands if yields else ()):
        op = v.owner
        dt = accumulator_dtype(arg.type)
        if (isinstance(op, Operation) and op.name in ACCUMULATING_OPS and arg in op.operands
                and dt != eval_dtype(arg.type)):
            out[op] = dt
    return out


def _eval_payload(block, env: Dict[Value, np.ndarray], consts: Callable[[Value], np.ndarray],
                  wide: Optional[Dict[Operation, np.dtype]] = None) -> List[np.ndarray]:
    """Interpret the payload ``block`` with block arguments bound in ``env``; values defined
    outside come from ``consts``; the ops of ``wide`` compute in the dtype it gives them.
    Returns the yielded arrays."""
    for op in block.ops:
        if op.name == "linalg.yield":
            return [env[v] if v in env else consts(v) for v in op.operands]
        if op.name == "arith.constant":
            a = attr_array(op.attributes.get("value"), op.results[0].type, {})
            if a is None or isinstance(op.results[0].type, T.ShapedType):
                raise Unsupported("tensor constant in a payload")
            env[op.results[0]] = a
            continue
        if op.name == "linalg.index":
            env[op.results[0]] = env[("index", op.attributes["dim"].value)]
            continue
        if op.name == "tensor.extract":  # a gather from a constant tensor the payload captures
            src, *idx = [env[v] if v in env else consts(v) for v in op.operands]
            if src is None or src.ndim != len(idx):
                raise Unsupported("tensor.extract of a non-constant tensor")
            idx = [np.asarray(i, np.int64) for i in idx]
            if any(i.size and (i.min() < 0 or i.max() >= n) for i, n in zip(idx, src.shape)):
                raise Unsupported("tensor.extract out of bounds")
            env[op.results[0]] = np.asarray(src)[tuple(np.broadcast_arrays(*idx))] if idx else np.asarray(src)[()]
            continue
        if op.regions:
            raise Unsupported(f"payload op '{op.name}' with regions")
        if any(isinstance(v.type, T.ShapedType) for v in op.operands):
            raise Unsupported(f"payload op '{op.name}' on a tensor")
        args = [env[v] if v in env else consts(v) for v in op.operands]
        env[op.results[0]] = eval_scalar_op(op, args, (wide or {}).get(op))
    raise Unsupported("payload without linalg.yield")


def eval_structured(op: Operation, operands: Sequence[Optional[np.ndarray]],
                    consts: Callable[[Value], np.ndarray]) -> List[np.ndarray]:
    """Results of linalg structured ``op`` on constant operands (arrays in evaluation dtypes,
    in operand order; an output whose block argument is never read may be None when its
    indexing map writes every element). ``consts`` gives scalar values captured by the
    payload from outside. Raises :class:`Unsupported` beyond the limits or the modelled ops."""
    maps, iters = L.indexing_maps(op), L.iterator_types(op)
    ranges = L.loop_ranges(op)
    if any(r is None for r in ranges) or len(maps) != len(op.operands):
        raise Unsupported("dynamic iteration domain")
    n_in = len(L.inputs(op))
    block = L.payload(op)
    outs_t = [v.type for v in L.outputs(op)]
    par = [d for d, it in enumerate(iters) if it == L.PARALLEL]
    red = [d for d, it in enumerate(iters) if it != L.PARALLEL]
    domain = math.prod(ranges)
    n_body = max(1, len(block.ops))
    if domain > MAX_DOMAIN_ELEMENTS or domain * n_body > MAX_SCALAR_WORK:
        raise Unsupported("iteration domain too large")
    steps = math.prod(ranges[d] for d in red)
    if red and steps > MAX_REDUCTION_STEPS:
        raise Unsupported("too many reduction steps")
    uses_index = any(o.name == "linalg.index" for o in block.ops)
    all_splat = all(a is None or is_splat(a) for a in operands)
    covers = all(len(m.results) == m.num_dims and m.is_projected_permutation()
                 and all(isinstance(e, AffineDim) for e in m.results) for m in maps[n_in:])
    if all_splat and covers and not red and not uses_index:
        # Splats in, splat out: evaluate the payload once.
        env = {a: (x.reshape(-1)[:1].reshape(()) if x is not None and x.size else None)
               for a, x in zip(block.args, operands)}
        ys = _eval_payload(block, env, consts)
        return [np.broadcast_to(y.astype(eval_dtype(t.element_type)).reshape(()), t.shape)
                for y, t in zip(ys, outs_t)]
    order = par + red
    pshape = [ranges[d] for d in par]
    views = [None if a is None else _view(a, m, order, ranges) for a, m in zip(operands[:n_in], maps)]
    accs = []
    for a, m, t in zip(operands[n_in:], maps[n_in:], outs_t):
        if any(isinstance(r, AffineDim) and r.pos in red for r in m.results):
            raise Unsupported("output indexed by a reduction dim")
        accs.append(None if a is None else np.array(_view(a, m, par, ranges)))
    # Reductions accumulate 16-bit floats in float32, rounded once at the end.
    combining = _accumulating(block, n_in) if red else {}
    wide = [accumulator_dtype(t.element_type) if red and any(a in o.operands for o in combining) else
            eval_dtype(t.element_type) for t, a in zip(outs_t, block.args[n_in:])]
    accs = [None if a is None else a.astype(w) for a, w in zip(accs, wide)]
    index_grids = {}
    for axis, d in enumerate(par):
        g = [1] * len(par)
        g[axis] = ranges[d]
        index_grids[d] = np.arange(ranges[d], dtype=np.int64).reshape(g)
    out_args = block.args[n_in:]
    for r in (np.ndindex(*[ranges[d] for d in red]) if red else [()]):
        env = {}
        for arg, v in zip(block.args[:n_in], views):
            env[arg] = v[(Ellipsis,) + tuple(r)] if r else v
        for arg, acc in zip(out_args, accs):
            if acc is None and arg.uses:
                raise Unsupported("output read before it is written")
            env[arg] = acc
        for d in par:
            env[("index", d)] = index_grids[d]
        for d, i in zip(red, r):
            env[("index", d)] = np.array(i, np.int64)
        ys = _eval_payload(block, env, consts, combining)
        accs = [np.broadcast_to(y, pshape).astype(w) for y, w in zip(ys, wide)]
    return [_write_output(acc.astype(eval_dtype(t.element_type)), a, m, t, ranges, par)
            for acc, a, m, t in zip(accs, operands[n_in:], maps[n_in:], outs_t)]


def _write_output(acc: np.ndarray, init: Optional[np.ndarray], m: AffineMap, t: T.ShapedType,
                  ranges: Sequence[int], par: Sequence[int]) -> np.ndarray:
    """The result of type ``t`` whose indexing map ``m`` writes ``acc`` (the values over the
    parallel dims ``par`` of the iteration domain ``ranges``, in that order) into the output
    ``init``. Raises :class:`Unsupported` when the map does not fit ``t`` or writes out of
    bounds, or when it leaves elements of an init that was never read (None) unwritten."""
    if m.is_projected_permutation() and all(isinstance(e, AffineDim) for e in m.results) \
            and len(m.results) == len(par):
        # A permutation of the parallel dims: the result is a transpose of the domain.
        if [ranges[e.pos] for e in m.results] != list(t.shape):
            raise Unsupported("output shape disagrees with the iteration domain")
        axes = [par.index(e.pos) for e in m.results]
        return np.ascontiguousarray(acc.transpose(axes)).reshape(t.shape)
    if init is None:
        raise Unsupported("output map does not write every element of an unread init")
    out = np.array(init)
    grids = [None] * len(ranges)
    for axis, d in enumerate(par):
        g = [1] * len(par)
        g[axis] = ranges[d]
        grids[d] = np.arange(ranges[d]).reshape(g)
    idx = [np.asarray(_affine_eval(e, grids)) for e in m.results]
    if out.ndim != len(idx) or any(i.size and (i.min() < 0 or i.max() >= n) for i, n in zip(idx, out.shape)):
        raise Unsupported("indexing map writes out of bounds")
    pshape = [ranges[d] for d in par]
    out[tuple(np.broadcast_to(i, pshape) for i in idx)] = acc
    return out


# ----------------------------------------------------------------------- tensor ops
def _static_list(op: Operation, name: str) -> List[int]:
    vals = list(op.attributes[name].value)
    if any(v == K_DYNAMIC for v in vals):
        raise Unsupported("dynamic slice")
    return vals


def _check_slice(shape, offs, sizes, strides) -> None:
    """Unsupported unless the static slice lies inside ``shape``."""
    if not (len(shape) == len(offs) == len(sizes) == len(strides)) or any(
            o < 0 or n < 0 or st < 1 or (n and o + (n - 1) * st >= d)
            for d, o, n, st in zip(shape, offs, sizes, strides)):
        raise Unsupported("slice out of bounds")


def _reshape(op, args):
    t = op.results[0].type
    if not (isinstance(t, T.TensorType) and t.has_static_shape):
        raise Unsupported("dynamic reshape")
    a = args[0]
    if a.size != t.num_elements:
        raise Unsupported("reshape changes the element count")
    if is_splat(a):
        return [np.broadcast_to(a.reshape(-1)[:1].reshape(()), t.shape)]
    return [a.reshape(t.shape)]


def _extract_slice(op, args):
    offs, sizes, strides = (_static_list(op, n) for n in ("static_offsets", "static_sizes", "static_strides"))
    a = args[0]
    _check_slice(a.shape, offs, sizes, strides)
    sl = a[tuple(slice(o, o + s * st, st) if s else slice(o, o) for o, s, st in zip(offs, sizes, strides))]
    return [sl.reshape(op.results[0].type.shape)]


def _insert_slice(op, args):
    offs, sizes, strides = (_static_list(op, n) for n in ("static_offsets", "static_sizes", "static_strides"))
    src, dest = args[0], np.array(args[1])
    _check_slice(dest.shape, offs, sizes, strides)
    if src.size != math.prod(sizes):
        raise Unsupported("insert_slice source does not fill the slice")
    dest[tuple(slice(o, o + s * st, st) for o, s, st in zip(offs, sizes, strides))] = src.reshape(sizes)
    return [dest]


def _pad(op, args, consts):
    low, high = _static_list(op, "static_low"), _static_list(op, "static_high")
    block = op.regions[0].blocks[0]
    y = block.ops[-1]
    if y.name != "tensor.yield" or len(block.ops) != 1 and any(
            o.name != "arith.constant" for o in block.ops[:-1]):
        raise Unsupported("tensor.pad with a computed padding value")
    pv = y.operands[0]
    own = pv.owner
    if isinstance(own, Operation) and own.parent is block:
        val = attr_array(own.attributes.get("value"), pv.type, {})
    else:
        val = consts(pv)
    if val is None or any(v < 0 for v in low + high):
        raise Unsupported("tensor.pad")
    a = args[0]
    shape = op.results[0].type.shape
    if len(shape) != a.ndim or any(lo + n + hi != d for lo, n, hi, d in zip(low, a.shape, high, shape)):
        raise Unsupported("tensor.pad result shape")
    out = np.full(shape, val, dtype=a.dtype)
    out[tuple(slice(lo, lo + n) for lo, n in zip(low, a.shape))] = a
    return [out]


#: Tensor ops evaluated on constant operands: {op name: fn(op, operand arrays, consts)}.
TENSOR_OPS: Dict[str, Callable] = {
    "tensor.collapse_shape": lambda op, args, c: _reshape(op, args),
    "tensor.expand_shape": lambda op, args, c: _reshape(op, args[:1]),
    "tensor.reshape": lambda op, args, c: _reshape(op, args[:1]),
    "tensor.cast": lambda op, args, c: _reshape(op, args),
    "tensor.extract_slice": lambda op, args, c: _extract_slice(op, args),
    "tensor.insert_slice": lambda op, args, c: _insert_slice(op, args),
    "tensor.pad": _pad,
}


def evaluate(op: Operation, operands: Sequence[Optional[np.ndarray]],
             consts: Callable[[Value], np.ndarray]) -> List[np.ndarray]:
    """Results of ``op`` (a structured linalg op or one of :data:`TENSOR_OPS`) on constant
    ``operands`` (see :func:`eval_structured`); :class:`Unsupported` when not modelled."""
    for r in op.results:
        t = r.type
        if not (isinstance(t, T.TensorType) and t.has_static_shape):
            raise Unsupported("result is not a static tensor")
        eval_dtype(t.element_type)
        if t.num_elements > MAX_DOMAIN_ELEMENTS:
            raise Unsupported("result too large")
        if t.num_elements == 0:
            raise Unsupported("empty result")  # left to run: nothing to compute
    if any(a is not None and a.size == 0 for a in operands):
        raise Unsupported("empty operand")
    if L.is_linalg_structured(op):
        return eval_structured(op, operands, consts)
    fn = TENSOR_OPS.get(op.name)
    if fn is None:
        raise Unsupported(f"op '{op.name}'")
    return fn(op, operands, consts)


__all__ = ["Unsupported", "eval_dtype", "attr_array", "to_attr", "eval_scalar_op", "eval_structured",
           "evaluate", "SCALAR_OPS", "TENSOR_OPS", "MAX_DOMAIN_ELEMENTS", "is_splat", "element_type"]

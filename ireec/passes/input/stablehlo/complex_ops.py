"""StableHLO → linalg patterns: complex numbers (complex, real, imag, fft and the
elementwise and data-movement ops on complex tensors).

The backend stores no complex element types, so complex tensors are decomposed: every
complex value of a function is carried as a pair of real tensors (real part, imaginary
part) and every op that touches one is rewritten on the pair (the usual
"complex-to-standard" expansion, with the formulas of the StableHLO spec /
C99 Annex G written out as scalar arith/math ops):

* ``stablehlo.complex(re, im)`` is the pair itself; ``real``/``imag`` pick a part
  (``real`` of a float tensor is itself, ``imag`` of one is zeros);
* elementwise ops (add, subtract, multiply, divide, negate, exponential, log, sqrt, sine,
  cosine, abs, compare EQ/NE, convert) become one ``linalg.generic`` with two results;
* data movement ops (reshape, transpose, broadcast_in_dim, slice, concatenate, reverse,
  pad, select, dynamic_slice, dynamic_update_slice, gather, torch_index_select, copy-like)
  are applied to each part with the ordinary real lowering;
* ``stablehlo.fft`` (FFT, IFFT, RFFT, IRFFT over the last dimension, ``fft_length`` of one
  entry) is a direct DFT: one ``linalg.generic`` per transform with a reduction over the
  input samples, O(N²) per row, angles ``2π((k·n) mod N)/N`` and sums in f64, rounded to the
  element type at the end. IRFFT uses the Hermitian symmetry of its input
  (weights 1 for k = 0 and k = N/2, 2 otherwise).

The first complex-related op the conversion meets decomposes its whole function (ops
created for the pair are already lowered); complex values that reach a function boundary,
a check op, or an op without a rule are reported with CompileError at that op.
"""
from __future__ import annotations

import math
from typing import Dict, List, Optional, Tuple

import numpy as np

from ....dialects import linalg
from ....dialects import stablehlo as shlo
from ....dialects.arith import CMPF_PREDICATES
from ....ir import types as T
from ....ir.affine import AffineMap
from ....ir.attributes import DenseElementsAttr, FloatAttr, IntegerAttr
from ....ir.core import Builder, Operation, Value
from ....ir.diagnostics import CompileError
from ._indexing import Payload, empty, map_of, static_shape, tensor_of
from .data_movement import PATTERNS as _DATA_MOVEMENT_PATTERNS
from .elementwise import PATTERNS as _ELEMENTWISE_PATTERNS
from .gather_scatter import PATTERNS as _GATHER_SCATTER_PATTERNS

Pair = Tuple[Value, Value]

_DATA_MOVEMENT = (
    "stablehlo.reshape", "stablehlo.transpose", "stablehlo.broadcast_in_dim",
    "stablehlo.broadcast", "stablehlo.slice", "stablehlo.concatenate", "stablehlo.reverse",
    "stablehlo.pad", "stablehlo.select", "stablehlo.dynamic_slice",
    "stablehlo.dynamic_update_slice", "stablehlo.gather", "stablehlo.torch_index_select",
    "tensor.cast", "tensor.expand_shape", "tensor.collapse_shape", "tensor.extract_slice",
)
_ELEMENTWISE = ("stablehlo.add", "stablehlo.subtract", "stablehlo.multiply", "stablehlo.divide",
                "stablehlo.negate", "stablehlo.exponential", "stablehlo.log", "stablehlo.sqrt",
                "stablehlo.sine", "stablehlo.cosine", "stablehlo.abs", "stablehlo.compare",
                "stablehlo.convert")
# The ordinary (real) lowering of each data-movement op, applied to each part of a pair;
# the tensor ops have none (their clone on the part is the lowering).
_PART_PATTERNS = {n: f for table in (_ELEMENTWISE_PATTERNS, _DATA_MOVEMENT_PATTERNS,
                                     _GATHER_SCATTER_PATTERNS)
                  for n, f in table.items() if n in _DATA_MOVEMENT}


def _is_complex(t: T.Type) -> bool:
    return isinstance(T.element_type(t), T.ComplexType)


def _part_type(t: T.Type) -> T.Type:
    """The real type holding one part of complex (tensor) type ``t``."""
    et = T.element_type(t)
    if isinstance(t, T.TensorType):
        return T.TensorType(t.shape, et.element_type)
    return et.element_type


def _float_et(v: Value) -> T.FloatType:
    return T.element_type(v.type)


# ------------------------------------------------------------------ scalar formulas
class _C:
    """Scalar complex arithmetic on (re, im) pairs of one float type."""

    def __init__(self, sb, t: T.FloatType):
        self.sb, self.t = sb, t

    def op(self, name, *args):
        return self.sb.op(name, list(args), self.t)

    def add(self, a, b):
        return self.op("arith.addf", a, b)

    def sub(self, a, b):
        return self.op("arith.subf", a, b)

    def mul(self, a, b):
        return self.op("arith.mulf", a, b)

    def div(self, a, b):
        return self.op("arith.divf", a, b)

    def const(self, x: float):
        return self.sb.constant(FloatAttr(x, self.t))


def _complex_scalar(op: Operation, sb, args: List[Value], parts: List[bool], t: T.FloatType
                    ) -> List[Value]:
    """Scalar (re, im) (or one real/i1 value) of complex elementwise ``op``; ``args`` hold
    (re, im) for complex operands (``parts`` True) and the value for real ones."""
    c = _C(sb, t)
    vals: List[Tuple[Value, Value]] = []
    k = 0
    for is_c in parts:
        if is_c:
            vals.append((args[k], args[k + 1]))
            k += 2
        else:
            vals.append((args[k], None))
            k += 1
    name = op.name
    if name in ("stablehlo.add", "stablehlo.subtract"):
        f = c.add if name.endswith("add") else c.sub
        (ar, ai), (br, bi) = vals
        return [f(ar, br), f(ai, bi)]
    if name == "stablehlo.multiply":
        (ar, ai), (br, bi) = vals
        return [c.sub(c.mul(ar, br), c.mul(ai, bi)), c.add(c.mul(ar, bi), c.mul(ai, br))]
    if name == "stablehlo.divide":
        (ar, ai), (br, bi) = vals
        d = c.add(c.mul(br, br), c.mul(bi, bi))
        return [c.div(c.add(c.mul(ar, br), c.mul(ai, bi)), d),
                c.div(c.sub(c.mul(ai, br), c.mul(ar, bi)), d)]
    (ar, ai) = vals[0]
    if name == "stablehlo.negate":
        return [c.op("arith.negf", ar), c.op("arith.negf", ai)]
    if name == "stablehlo.exponential":
        e = c.op("math.exp", ar)
        return [c.mul(e, c.op("math.cos", ai)), c.mul(e, c.op("math.sin", ai))]
    if name == "stablehlo.sine":
        return [c.mul(c.op("math.sin", ar), c.op("math.cosh", ai)),
                c.mul(c.op("math.cos", ar), c.op("math.sinh", ai))]
    if name == "stablehlo.cosine":
        return [c.mul(c.op("math.cos", ar), c.op("math.cosh", ai)),
                c.op("arith.negf", c.mul(c.op("math.sin", ar), c.op("math.sinh", ai)))]
    modulus = c.op("math.sqrt", c.add(c.mul(ar, ar), c.mul(ai, ai)))
    if name == "stablehlo.abs":
        return [modulus]
    if name == "stablehlo.log":
        return [c.op("math.log", modulus), c.op("math.atan2", ai, ar)]
    if name == "stablehlo.sqrt":  # principal root: sqrt((|z|+re)/2) + i*sign(im)*sqrt((|z|-re)/2)
        half = c.const(0.5)
        re = c.op("math.sqrt", c.mul(c.add(modulus, ar), half))
        im = c.op("math.sqrt", c.mul(c.sub(modulus, ar), half))
        return [re, c.op("math.copysign", im, ai)]
    if name == "stablehlo.compare":
        d = shlo.comparison_direction(op)
        if d not in ("EQ", "NE"):
            raise CompileError(f"complex compare {d} is not defined", op.loc)
        (br, bi) = vals[1]
        pred = IntegerAttr(CMPF_PREDICATES.index("oeq" if d == "EQ" else "une"), T.i64)
        x = sb.op("arith.cmpf", [ar, br], T.i1, {"predicate": pred})
        y = sb.op("arith.cmpf", [ai, bi], T.i1, {"predicate": pred})
        return [sb.op("arith.andi" if d == "EQ" else "arith.ori", [x, y], T.i1)]
    raise CompileError(f"'{name}' on complex values is not supported", op.loc)


# ------------------------------------------------------------------- decomposition
class _Decomposer:
    """Rewrites every complex-typed op of one function on (re, im) pairs."""

    def __init__(self, func: Operation):
        self.func = func
        self.env: Dict[Value, Pair] = {}
        self.done: List[Operation] = []

    def pair(self, v: Value, user: Operation) -> Pair:
        if v not in self.env:
            d = v.owner if isinstance(v.owner, Operation) else None
            if d is not None and d.name in ("arith.constant", "stablehlo.constant"):
                self._constant(d)
            else:
                raise CompileError(f"'{user.name}': complex value from "
                                   f"{'a block argument' if d is None else repr(d.name)} "
                                   "cannot be decomposed into real and imaginary parts", user.loc)
        return self.env[v]

    def _constant(self, op: Operation) -> None:
        attr = op.attributes["value"]
        if not isinstance(attr, DenseElementsAttr):
            raise CompileError("complex constant must be a dense literal", op.loc)
        pt = _part_type(op.results[0].type)
        b = Builder.before(op)
        arr = np.asarray(attr.array)
        parts = []
        for a in (arr.real, arr.imag):
            da = DenseElementsAttr(np.ascontiguousarray(a), pt)
            parts.append(b.create("arith.constant", [], [pt], {"value": da}).results[0])
        self.env[op.results[0]] = (parts[0], parts[1])
        self.done.append(op)

    def run(self) -> None:
        for op in list(self.func.walk()):
            if op is self.func or op in self.done:
                continue
            touches = any(_is_complex(v.type) for v in list(op.operands) + list(op.results))
            if not touches:
                continue
            self.rewrite(op)
        for op in reversed(self.done):
            for r in op.results:
                if r.uses:
                    user = r.uses[0][0]
                    raise CompileError(f"complex values cannot reach '{user.name}' (the backend "
                                       "has no complex element types)", user.loc)
            op.erase()

    # --------------------------------------------------------------------------------
    def rewrite(self, op: Operation) -> None:
        name = op.name
        b = Builder.before(op)
        if name in ("arith.constant", "stablehlo.constant"):
            self._constant(op)
            return
        if name == "stablehlo.complex":
            self.env[op.results[0]] = (op.operands[0], op.operands[1])
        elif name in ("stablehlo.real", "stablehlo.imag"):
            re, im = self.pair(op.operands[0], op)
            op.results[0].replace_all_uses_with(re if name.endswith("real") else im)
        elif name == "stablehlo.fft":
            self._fft(op, b)
        elif name in _ELEMENTWISE:
            self._elementwise(op, b)
        elif name in _DATA_MOVEMENT:
            self._per_part(op, b)
        else:
            raise CompileError(f"'{name}' on complex values is not supported", op.loc)
        self.done.append(op)

    def _per_part(self, op: Operation, b: Builder) -> None:
        """Apply data-movement ``op`` to each part with the ordinary lowering."""
        outs: List[List[Value]] = []
        for k in range(2):
            operands = [self.pair(v, op)[k] if _is_complex(v.type) else v for v in op.operands]
            rtypes = [_part_type(t) if _is_complex(t) else t for t in op.result_types]
            clone = Operation(op.name, operands, rtypes, dict(op.attributes), loc=op.loc)
            b.insert(clone)
            lower = _PART_PATTERNS.get(op.name)
            if lower is None:
                outs.append(list(clone.results))
                continue
            new = lower(clone, Builder.before(clone))
            new = list(new)
            clone.replace_with(new)
            outs.append(new)
        for i, r in enumerate(op.results):
            self.env[r] = (outs[0][i], outs[1][i])

    def _elementwise(self, op: Operation, b: Builder) -> None:
        rt = op.results[0].type
        shape = static_shape(op.results[0], op, "the result")
        if op.name == "stablehlo.convert":
            self._convert(op, b)
            return
        ins, parts = [], []
        ft: Optional[T.FloatType] = None
        for v in op.operands:
            if static_shape(v, op, "the operand") != tuple(shape):
                raise CompileError(f"'{op.name}' on complex tensors of different shapes", op.loc)
            if _is_complex(v.type):
                re, im = self.pair(v, op)
                ins += [re, im]
                parts.append(True)
                ft = _float_et(re)
            else:
                ins.append(v)
                parts.append(False)
        rank = len(shape)
        if _is_complex(rt):
            outs = [empty(b, tensor_of(shape, ft)), empty(b, tensor_of(shape, ft))]
        else:
            outs = [empty(b, tensor_of(shape, T.element_type(rt)))]
        ident = AffineMap.identity(rank)
        g = linalg.build_generic(ins, outs, [ident] * (len(ins) + len(outs)), ["parallel"] * rank,
                                 lambda sb, a: _complex_scalar(op, sb, a[:len(ins)], parts, ft),
                                 builder=b)
        if _is_complex(rt):
            self.env[op.results[0]] = (g.results[0], g.results[1])
        else:
            op.results[0].replace_all_uses_with(g.results[0])

    def _convert(self, op: Operation, b: Builder) -> None:
        src, rt = op.operands[0], op.results[0].type
        shape = static_shape(op.results[0], op, "the result")
        rank = len(shape)
        ident = AffineMap.identity(rank)

        def cast(v: Value, et: T.Type) -> Value:
            if T.element_type(v.type) == et:
                return v
            o = empty(b, tensor_of(shape, et))
            return linalg.build_generic([v], [o], [ident, ident], ["parallel"] * rank,
                                        lambda sb, a: [sb.cast(a[0], et)], builder=b).results[0]

        if _is_complex(src.type) and _is_complex(rt):
            ft = T.element_type(rt).element_type
            re, im = self.pair(src, op)
            self.env[op.results[0]] = (cast(re, ft), cast(im, ft))
        elif _is_complex(rt):  # real → complex: imaginary part zero
            ft = T.element_type(rt).element_type
            zero = b.create("arith.constant", [], [tensor_of(shape, ft)], {
                "value": DenseElementsAttr(np.zeros(shape, T.numpy_dtype(ft)), tensor_of(shape, ft))}).results[0]
            self.env[op.results[0]] = (cast(src, ft), zero)
        else:  # complex → real: the real part
            re, _ = self.pair(src, op)
            op.results[0].replace_all_uses_with(cast(re, T.element_type(rt)))

    # ----------------------------------------------------------------------------- fft
    def _fft(self, op: Operation, b: Builder) -> None:
        """``stablehlo.fft`` as a direct DFT over the last dimension (see the module doc):
        one ``linalg.generic`` summing in f64 into zero-filled accumulators, rounded to the
        element type after. CompileError for a transform over several dimensions, an
        unknown ``fft_type``, or a last operand dimension that ``fft_length`` does not give."""
        kind = shlo.fft_type(op)
        lengths = shlo.i64_list(op.attributes.get("fft_length"))
        if len(lengths) != 1:
            raise CompileError(f"'stablehlo.fft' over {len(lengths)} dimensions is not supported "
                               "(one-dimensional transforms only)", op.loc)
        n_len = lengths[0]
        x = op.operands[0]
        in_shape = static_shape(x, op, "the operand")
        out_shape = static_shape(op.results[0], op, "the result")
        if _is_complex(x.type):
            xr, xi = self.pair(x, op)
            ins = [xr, xi]
            ft = _float_et(xr)
        else:
            ins = [x]
            ft = T.element_type(x.type)
        rank = len(out_shape)
        m = in_shape[-1]  # samples summed over
        loops = rank + 1  # batch..., k (output position), n (input position)
        kk, nn = rank - 1, rank
        in_map = map_of(loops, list(range(rank - 1)) + [nn])
        out_map = map_of(loops, range(rank))
        body = _dft_payload(kind, n_len, len(ins), kk, nn)
        if kind not in ("FFT", "IFFT", "RFFT", "IRFFT"):
            raise CompileError(f"'stablehlo.fft' type {kind} is not supported", op.loc)
        expected_m = n_len // 2 + 1 if kind == "IRFFT" else n_len
        if m != expected_m:
            raise CompileError(f"'stablehlo.fft' {kind}: last operand dim {m}, expected {expected_m}", op.loc)
        n_out = 1 if kind == "IRFFT" else 2
        accs = _zero_f64_tensors(b, out_shape, n_out, op.loc)
        iters = ["parallel"] * rank + ["reduction"]
        g = linalg.build_generic(ins, accs, [in_map] * len(ins) + [out_map] * n_out, iters, body, builder=b)
        res = _rounded(b, g.results, out_shape, ft)
        if kind == "IRFFT":
            op.results[0].replace_all_uses_with(res[0])
        else:
            self.env[op.results[0]] = (res[0], res[1])


def _dft_payload(kind: str, n_len: int, n_ins: int, kk: int, nn: int):
    """The scalar body of a DFT of length ``n_len``: loop ``kk`` is the output position k,
    loop ``nn`` the input sample n; the ``n_ins`` inputs are the sample (RFFT) or its real
    and imaginary parts, the rest the f64 accumulators. Adds ``x[n] e^{∓2πi((k·n) mod N)/N}``
    (scaled by 1/N for IFFT, by the Hermitian weight 1/N or 2/N for IRFFT's real part)."""
    two_pi_over_n = 2.0 * math.pi / n_len
    inv_n = 1.0 / n_len

    def body(sb, a):
        p = Payload(sb)
        k, n = p.loop(kk), p.loop(nn)
        prod = sb.op("arith.remui", [p.mul(k, n), p.const(n_len)], T.index)
        ang = sb.op("arith.mulf", [sb.op("arith.uitofp", [sb.op("arith.index_cast", [prod], T.i64)], T.f64),
                                   sb.constant(FloatAttr(two_pi_over_n, T.f64))], T.f64)
        cs, sn = sb.op("math.cos", [ang], T.f64), sb.op("math.sin", [ang], T.f64)
        vals = [sb.cast(v, T.f64) for v in a[:n_ins]]
        accs = a[n_ins:]

        def f(name, u, v):
            return sb.op(name, [u, v], T.f64)

        if kind == "RFFT":
            (xv,) = vals
            return [f("arith.addf", accs[0], f("arith.mulf", xv, cs)),
                    f("arith.subf", accs[1], f("arith.mulf", xv, sn))]
        xr_, xi_ = vals
        if kind == "FFT":  # e^{-i theta}
            re = f("arith.addf", f("arith.mulf", xr_, cs), f("arith.mulf", xi_, sn))
            im = f("arith.subf", f("arith.mulf", xi_, cs), f("arith.mulf", xr_, sn))
            return [f("arith.addf", accs[0], re), f("arith.addf", accs[1], im)]
        re = f("arith.subf", f("arith.mulf", xr_, cs), f("arith.mulf", xi_, sn))
        im = f("arith.addf", f("arith.mulf", xi_, cs), f("arith.mulf", xr_, sn))
        scale = sb.constant(FloatAttr(inv_n, T.f64))
        if kind == "IFFT":
            return [f("arith.addf", accs[0], f("arith.mulf", re, scale)),
                    f("arith.addf", accs[1], f("arith.mulf", im, scale))]
        # IRFFT: Hermitian weights (1 at k = 0 and k = N/2, else 2) on the real part only.
        edge = p.or_(p.cmp("eq", n, p.const(0)),
                     p.cmp("eq", p.mul(n, p.const(2)), p.const(n_len)))
        w = sb.op("arith.select", [edge, sb.constant(FloatAttr(inv_n, T.f64)),
                                   sb.constant(FloatAttr(2.0 * inv_n, T.f64))], T.f64)
        return [f("arith.addf", accs[0], f("arith.mulf", re, w))]

    return body


def _zero_f64_tensors(b: Builder, shape, count: int, loc) -> List[Value]:
    """``count`` f64 tensors of static ``shape``, each a ``linalg.fill`` of one 0.0 constant."""
    zero = b.create("arith.constant", [], [T.f64], {"value": FloatAttr(0.0, T.f64)}).results[0]
    out = []
    for _ in range(count):
        e = empty(b, tensor_of(shape, T.f64))
        out.append(b.create("linalg.fill", [zero, e], [e.type], {
            "operandSegmentSizes": linalg.segment_sizes(1, 1)},
            regions=[linalg.build_named_region("fill", [T.f64], [e.type], {}, loc)]).results[0])
    return out


def _rounded(b: Builder, values, shape, ft: T.Type) -> List[Value]:
    """``values`` (f64 tensors of static ``shape``) cast to element type ``ft``, each by one
    elementwise ``linalg.generic`` (unchanged where ``ft`` is f64)."""
    rank = len(shape)
    ident = AffineMap.identity(rank)
    res = []
    for r in values:
        if ft == T.f64:
            res.append(r)
            continue
        o = empty(b, tensor_of(shape, ft))
        res.append(linalg.build_generic([r], [o], [ident, ident], ["parallel"] * rank,
                                        lambda sb, a: [sb.cast(a[0], ft)], builder=b).results[0])
    return res


def _enclosing_func(op: Operation) -> Operation:
    f = op.ancestor("func.func")
    if f is None:
        raise CompileError(f"'{op.name}' outside a function", op.loc)
    return f


def lower_complex_family(op: Operation, b: Builder) -> Optional[List[Value]]:
    """Entry for ``stablehlo.complex`` / ``real`` / ``imag`` / ``fft``: real-typed
    ``real``/``imag`` are handled directly; otherwise the enclosing function's complex
    values are decomposed (this op included, so nothing is returned)."""
    if op.name in ("stablehlo.real", "stablehlo.imag") and not _is_complex(op.operands[0].type):
        x = op.operands[0]
        if op.name.endswith("real"):
            return [x]
        shape = static_shape(x, op, "the operand")
        et = T.element_type(x.type)
        return [b.create("arith.constant", [], [x.type], {
            "value": DenseElementsAttr(np.zeros(shape, T.numpy_dtype(et)), x.type)}).results[0]]
    if op.name == "stablehlo.fft" and not _is_complex(op.operands[0].type) \
            and not _is_complex(op.results[0].type):
        raise CompileError("'stablehlo.fft' without complex values", op.loc)
    _Decomposer(_enclosing_func(op)).run()
    return None


PATTERNS = {
    "stablehlo.complex": lower_complex_family,
    "stablehlo.real": lower_complex_family,
    "stablehlo.imag": lower_complex_family,
    "stablehlo.fft": lower_complex_family,
}

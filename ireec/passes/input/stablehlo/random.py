"""StableHLO → linalg patterns: rng (UNIFORM, NORMAL) and rng_bit_generator (PHILOX, THREE_FRY).

Both are stateless functions of the element position, computed in one
``linalg.generic`` over the result:

* ``stablehlo.rng`` UNIFORM follows IREE's ``RngUniformConversion`` (so results equal
  IREE's, which the e2e tests check): a 32-bit linear congruential hash of the indices,
  ``x = 0; for each dim d: x = (x + i_d) * 1103515245 + 12345`` (wrapping), then
  ``min + uitofp(x) * ((max - min) * 2.3283064e-10)`` (2^-32). NORMAL follows IREE's ``ExpandRngNormal`` (StableHLO preprocessing), so results equal
  IREE's: a stateless Box–Muller transform whose uniforms are drawn at compile time from
  ``std::mt19937`` seeded with 0 through ``std::uniform_real_distribution<double>(0, 1)``
  (libstdc++'s ``generate_canonical``: two 32-bit draws ``(g0 + g1 * 2^32) / 2^64``),
  rounded to f32, redrawing pairs while ``u1 <= FLT_EPSILON``. For ``N`` results (rounded up
  to even, ``H = N / 2``) pair ``i`` gives ``m_i = sqrt(-2 log u1)``, and the flattened
  result is ``mu + sigma * m_i * cos(2 pi u2)`` at ``i`` and ``mu + sigma * m_i *
  sin(2 pi u2)`` at ``H + i``. numpy's legacy ``RandomState(seed)`` is the same MT19937
  with the same integer seeding, so it supplies the raw draws.
* ``stablehlo.rng_bit_generator`` PHILOX / DEFAULT is Philox-4x32-10 (Salmon et al.,
  "Parallel random numbers: as easy as 1, 2, 3", SC 2011) with XLA's/IREE's layout: the
  key is state words 0 and 1, the 64-bit counter base comes from the state (for
  ``tensor<4xi32>``: ``s[3] | s[2] << 32``; for ``tensor<2xi64>``: ``s[1]``), counter
  ``n`` produces output words ``4n .. 4n+3`` of the flattened result (32-bit results;
  64-bit results pair them as ``w0 | w1 << 32`` and ``w2 | w3 << 32``). The new state
  adds the number of counters used, stored back as IREE does (``s[2]`` low word, ``s[3]``
  high word; ``s[1]`` for 2xi64).
* THREE_FRY is Threefry-2x32 with 20 rounds (same paper; XLA's ``ThreeFry2x32``: rotations
  13 15 26 6 17 29 16 24, key schedule ``k0, k1, k0 ^ k1 ^ 0x1BD11BDA`` injected every 4
  rounds with the injection count added to word 1), same key and counter base as PHILOX.
  Counter ``n`` gives two words. 64-bit results: element ``n`` is ``w0 | w1 << 32`` of
  counter ``n``. Narrower results follow XLA's (and IREE's) split: the first even
  dimension ``h`` of the result (else the largest one) is halved (rounded up); counter
  ``n`` is the row-major position in that halved shape, and its two words fill positions
  ``2i`` and ``2i + 1`` along ``h`` (the surplus of an odd extent is dropped). Checked
  against the Random123 known-answer vector and against XLA's values in IREE's e2e test.
"""
from __future__ import annotations

import math
from typing import List

import numpy as np

from ....dialects import linalg
from ....dialects import stablehlo as shlo
from ....ir import types as T
from ....ir.affine import AffineMap
from ....ir.attributes import DenseElementsAttr, FloatAttr
from ....ir.core import Builder, Operation, Value
from ....ir.diagnostics import CompileError
from ._indexing import Payload, cast_to, empty, static_shape, tensor_of

_LCG_MUL = 1103515245
_LCG_INC = 12345
_TWO_POW_M32 = 2.3283064e-10  # the constant IREE uses (2^-32 rounded)


def _lcg_hash(p: Payload, rank: int) -> Value:
    """IREE's per-element i32 hash of the loop indices."""
    sb = p.sb
    x = p.const(0, T.i32)
    for d in range(rank):
        i = sb.op("arith.index_cast", [p.loop(d)], T.i32)
        x = sb.op("arith.addi", [i, x], T.i32)
        x = sb.op("arith.muli", [x, p.const(_LCG_MUL, T.i32)], T.i32)
        x = sb.op("arith.addi", [x, p.const(_LCG_INC, T.i32)], T.i32)
    return x


def lower_rng(op: Operation, b: Builder) -> List[Value]:
    """``stablehlo.rng`` (float results): UNIFORM in [a, b) and NORMAL with mean a and
    standard deviation b, both as IREE computes them (see the module docstring)."""
    a, bb = op.operands[0], op.operands[1]
    rt = op.results[0].type
    shape = static_shape(op.results[0], op, "the result")
    et = rt.element_type
    if not isinstance(et, T.FloatType):
        raise CompileError(f"'stablehlo.rng' with element type {et} is not supported (float only)", op.loc)
    for v in (a, bb):
        if not isinstance(v.type, T.TensorType) or v.type.shape != ():
            raise CompileError("'stablehlo.rng': a and b must be rank-0 tensors", op.loc)
    dist = shlo.rng_distribution(op)
    rank = len(shape)
    if dist == "NORMAL":
        return [cast_to(b, _rng_normal(op, b, a, bb, shape, et), rt)]

    def body(sb, args):
        p = Payload(sb)
        lo, hi = args[0], args[1]
        x = _lcg_hash(p, rank)
        if dist == "UNIFORM":
            scale = sb.op("arith.mulf", [sb.op("arith.subf", [hi, lo], et),
                                         sb.constant(FloatAttr(_TWO_POW_M32, et))], et)
            u = sb.op("arith.uitofp", [x], et)
            return [sb.op("arith.addf", [sb.op("arith.mulf", [u, scale], et), lo], et)]
        raise CompileError(f"'stablehlo.rng' distribution {dist} is not supported", op.loc)

    init = empty(b, tensor_of(shape, et))
    scalar = AffineMap(rank, 0, ())
    g = linalg.build_generic([a, bb], [init], [scalar, scalar, AffineMap.identity(rank)],
                             ["parallel"] * rank, body, builder=b)
    return [cast_to(b, g.results[0], rt)]


def normal_tables(n: int):
    """(magnitude, trigonometric factor) f32 arrays of length ``n``: the compile-time part of
    IREE's ``ExpandRngNormal`` (module docstring), element ``k`` of the result being
    ``mu + sigma * mag[k] * trig[k]``."""
    h = (n + (n & 1)) // 2
    raw = np.random.RandomState(0)
    eps = np.finfo(np.float32).eps

    def uniforms(k):  # k pairs (u1, u2), f32
        g = raw.randint(0, 2 ** 32, size=(k, 2, 2), dtype=np.uint32).astype(np.float64)
        u = ((g[:, :, 0] + g[:, :, 1] * 2.0 ** 32) / 2.0 ** 64).astype(np.float32)
        return u[:, 0], u[:, 1]

    u1s, u2s = uniforms(h)
    if np.any(u1s <= eps):  # pairs are redrawn in sequence: replay from the first rejection
        first = int(np.argmax(u1s <= eps))
        raw = np.random.RandomState(0)
        u1s[first:], u2s[first:] = 0, 0
        uniforms(first)
        for i in range(first, h):
            while u1s[i] <= eps:
                a, c = uniforms(1)
                u1s[i], u2s[i] = a[0], c[0]
    mags = (-2.0 * np.log(u1s.astype(np.float32))).astype(np.float32)
    angle = np.float32(2.0 * math.pi) * u2s
    mag = np.sqrt(mags)
    return (np.concatenate([mag, mag])[:n], np.concatenate([np.cos(angle), np.sin(angle)])[:n])


def _rng_normal(op: Operation, b: Builder, mu: Value, sigma: Value, shape, et) -> Value:
    n = 1
    for d in shape:
        n *= d
    if n > 1 << 24:
        raise CompileError(f"'stablehlo.rng' NORMAL with {n} elements is too large for its "
                           "compile-time tables (at most 2^24)", op.loc)
    mag, trig = normal_tables(n)
    tt = tensor_of(shape, et)
    dt = T.numpy_dtype(et)

    def table(a):
        return b.create("arith.constant", [], [tt],
                        {"value": DenseElementsAttr(a.astype(dt).reshape(shape), tt)}).results[0]

    rank = len(shape)

    def body(sb, args):
        m = sb.op("arith.mulf", [args[1], args[2]], et)
        return [sb.op("arith.addf", [sb.op("arith.mulf", [m, args[3]], et), args[0]], et)]

    scalar = AffineMap(rank, 0, ())
    ident = AffineMap.identity(rank)
    g = linalg.build_generic([mu, sigma, table(mag), table(trig)], [empty(b, tt)],
                             [scalar, scalar, ident, ident, ident], ["parallel"] * rank, body, builder=b)
    return g.results[0]


# ------------------------------------------------------------------------ Philox
_PHILOX_M0, _PHILOX_M1 = 0xD2511F53, 0xCD9E8D57
_PHILOX_W0, _PHILOX_W1 = 0x9E3779B9, 0xBB67AE85


def _signless(p: Payload, v: Value) -> Value:
    """``v`` reinterpreted as the signless integer of its width."""
    t = v.type
    if isinstance(t, T.IntegerType) and t.signedness:
        return p.sb.op("arith.bitcast", [v], T.IntegerType(t.width))
    return v


def _mulhilo(p: Payload, a: Value, m: int):
    sb = p.sb
    prod = sb.op("arith.muli", [sb.op("arith.extui", [a], T.i64), p.const(m, T.i64)], T.i64)
    hi = sb.op("arith.trunci", [sb.op("arith.shrui", [prod, p.const(32, T.i64)], T.i64)], T.i32)
    lo = sb.op("arith.trunci", [prod], T.i32)
    return hi, lo


def philox4x32(p: Payload, k0: Value, k1: Value, counter: Value) -> List[Value]:
    """The four i32 output words of Philox-4x32-10 for i64 ``counter`` and key
    (``k0``, ``k1``): counter words (low, high, k0, k1) as XLA initialises them."""
    sb = p.sb
    x0 = sb.op("arith.trunci", [counter], T.i32)
    x1 = sb.op("arith.trunci", [sb.op("arith.shrui", [counter, p.const(32, T.i64)], T.i64)], T.i32)
    x = [x0, x1, k0, k1]
    for _ in range(10):
        hi0, lo0 = _mulhilo(p, x[0], _PHILOX_M0)
        hi1, lo1 = _mulhilo(p, x[2], _PHILOX_M1)
        y0 = sb.op("arith.xori", [sb.op("arith.xori", [hi1, x[1]], T.i32), k0], T.i32)
        y2 = sb.op("arith.xori", [sb.op("arith.xori", [hi0, x[3]], T.i32), k1], T.i32)
        x = [y0, lo1, y2, lo0]
        k0 = sb.op("arith.addi", [k0, p.const(_PHILOX_W0, T.i32)], T.i32)
        k1 = sb.op("arith.addi", [k1, p.const(_PHILOX_W1, T.i32)], T.i32)
    return x


def _fuse(p: Payload, lo: Value, hi: Value) -> Value:
    sb = p.sb
    h = sb.op("arith.shli", [sb.op("arith.extui", [hi], T.i64), p.const(32, T.i64)], T.i64)
    return sb.op("arith.ori", [sb.op("arith.extui", [lo], T.i64), h], T.i64)


def _key_and_base(p: Payload, state: Value, kind: str):
    """(k0, k1, base counter i64) from the state tensor (``kind`` '4x32' or '2x64')."""
    sb = p.sb
    if kind == "4x32":
        w = [_signless(p, p.extract(state, [p.const(i)])) for i in range(4)]
        return w[0], w[1], _fuse(p, w[3], w[2])
    s0 = _signless(p, p.extract(state, [p.const(0)]))
    s1 = _signless(p, p.extract(state, [p.const(1)]))
    k0 = sb.op("arith.trunci", [s0], T.i32)
    k1 = sb.op("arith.trunci", [sb.op("arith.shrui", [s0, p.const(32, T.i64)], T.i64)], T.i32)
    return k0, k1, s1


_TF_ROTATIONS = (13, 15, 26, 6, 17, 29, 16, 24)
_TF_PARITY = 0x1BD11BDA


def threefry2x32(p: Payload, k0: Value, k1: Value, counter: Value) -> List[Value]:
    """The two i32 output words of Threefry-2x32-20 for i64 ``counter`` (words: low, high)
    and key (``k0``, ``k1``); see the module docstring for the schedule."""
    sb = p.sb

    def add(a, c):
        return sb.op("arith.addi", [a, c], T.i32)

    def rotl(v, r):
        return sb.op("arith.ori", [sb.op("arith.shli", [v, p.const(r, T.i32)], T.i32),
                                   sb.op("arith.shrui", [v, p.const(32 - r, T.i32)], T.i32)], T.i32)

    k2 = sb.op("arith.xori", [sb.op("arith.xori", [k0, k1], T.i32), p.const(_TF_PARITY, T.i32)], T.i32)
    ks = (k0, k1, k2)
    x0 = add(sb.op("arith.trunci", [counter], T.i32), k0)
    x1 = add(sb.op("arith.trunci", [sb.op("arith.shrui", [counter, p.const(32, T.i64)], T.i64)], T.i32), k1)
    for i in range(5):
        for j in range(4):
            x0 = add(x0, x1)
            x1 = sb.op("arith.xori", [rotl(x1, _TF_ROTATIONS[(4 * i) % 8 + j]), x0], T.i32)
        x0 = add(x0, ks[(i + 1) % 3])
        x1 = add(add(x1, ks[(i + 2) % 3]), p.const(i + 1, T.i32))
    return [x0, x1]


def _threefry_split(shape) -> tuple:
    """(halved dimension, counters used) of XLA's layout for results of 32 bits or less."""
    if not shape:
        return None, 1
    h = next((i for i, d in enumerate(shape) if d % 2 == 0), max(range(len(shape)), key=lambda i: (shape[i], -i)))
    n = 1
    for i, d in enumerate(shape):
        n *= (d + 1) // 2 if i == h else d
    return h, n


def _philox_words(p, k0, k1, base, flat, et, shape):
    per = 2 if et.width == 64 else 4
    ctr = p.sb.op("arith.index_cast", [p.sb.op("arith.divui", [flat, p.const(per)], T.index)], T.i64)
    which = p.sb.op("arith.remui", [flat, p.const(per)], T.index)
    words = philox4x32(p, k0, k1, p.sb.op("arith.addi", [ctr, base], T.i64))
    if per == 2:
        words = [_fuse(p, words[0], words[1]), _fuse(p, words[2], words[3])]
    return words, which


def _threefry_words(p, k0, k1, base, flat, et, shape):
    sb = p.sb
    if et.width == 64:
        w = threefry2x32(p, k0, k1, sb.op("arith.addi", [sb.op("arith.index_cast", [flat], T.i64), base], T.i64))
        return [_fuse(p, w[0], w[1])], p.const(0)
    h, _ = _threefry_split(shape)
    if h is None:
        return threefry2x32(p, k0, k1, base), p.const(0)
    # Position in the shape whose dimension h is halved (rounded up).
    pos = p.const(0)
    for d, n in enumerate(shape):
        i = p.loop(d)
        if d == h:
            i = sb.op("arith.divui", [i, p.const(2)], T.index)
            n = (n + 1) // 2
        pos = p.add(p.mul(pos, p.const(n)), i)
    ctr = sb.op("arith.addi", [sb.op("arith.index_cast", [pos], T.i64), base], T.i64)
    return threefry2x32(p, k0, k1, ctr), sb.op("arith.remui", [p.loop(h), p.const(2)], T.index)


def _count(alg: str, et: T.IntegerType, shape) -> int:
    n = 1
    for d in shape:
        n *= d
    if alg == "THREE_FRY":
        return n if et.width == 64 else _threefry_split(shape)[1]
    per = 2 if et.width == 64 else 4
    return (n + per - 1) // per


_WORDS = {"PHILOX": _philox_words, "DEFAULT": _philox_words, "THREE_FRY": _threefry_words}


def lower_rng_bit_generator(op: Operation, b: Builder) -> List[Value]:
    """``stablehlo.rng_bit_generator`` with PHILOX/DEFAULT or THREE_FRY (see the module
    docstring); state ``tensor<4x(u)i32>`` or ``tensor<2x(u)i64>``, 8- to 64-bit integer
    or float results (their bits; other element types: CompileError at the op)."""
    state = op.operands[0]
    alg = shlo.rng_algorithm(op)
    words_of = _WORDS.get(alg)
    if words_of is None:
        raise CompileError(f"'stablehlo.rng_bit_generator' algorithm {alg} is not supported", op.loc)
    s_shape = static_shape(state, op, "the state")
    s_et = state.type.element_type
    if s_shape == (4,) and isinstance(s_et, T.IntegerType) and s_et.width == 32:
        kind = "4x32"
    elif s_shape == (2,) and isinstance(s_et, T.IntegerType) and s_et.width == 64:
        kind = "2x64"
    else:
        raise CompileError(f"'stablehlo.rng_bit_generator' state {state.type} is not supported "
                           "(tensor<4xi32> or tensor<2xi64>)", op.loc)
    out_t = op.results[1].type
    shape = static_shape(op.results[1], op, "the result")
    out_et = out_t.element_type
    # Float results are the bits of the integer of their width (IREE's RngBitcastFloat).
    et = T.IntegerType(out_et.width) if isinstance(out_et, T.FloatType) else out_et
    if not isinstance(et, T.IntegerType) or et.width not in (8, 16, 32, 64):
        raise CompileError(f"'stablehlo.rng_bit_generator' result {out_t} is not supported "
                           "(8- to 64-bit integers or floats)", op.loc)
    count = _count(alg, et, shape)
    rank = len(shape)

    def body(sb, args):
        p = Payload(sb)
        flat = p.const(0)
        stride = 1
        for d in reversed(range(rank)):
            flat = p.add(flat, p.mul(p.loop(d), p.const(stride)))
            stride *= shape[d]
        k0, k1, base = _key_and_base(p, state, kind)
        words, which = words_of(p, k0, k1, base, flat, et, shape)
        v = words[-1]
        for i in reversed(range(len(words) - 1)):
            v = p.select(p.cmp("eq", which, p.const(i)), words[i], v)
        sl = T.IntegerType(et.width)
        if v.type != sl:
            v = sb.op("arith.trunci", [v], sl)
        if sl != out_et:
            v = sb.op("arith.bitcast", [v], out_et)
        return [v]

    init = empty(b, tensor_of(shape, out_et))
    g = linalg.build_generic([], [init], [AffineMap.identity(rank)], ["parallel"] * rank, body, builder=b)

    def state_body(sb, args):
        p = Payload(sb)
        _, _, base = _key_and_base(p, state, kind)
        new = sb.op("arith.addi", [base, p.const(count, T.i64)], T.i64)
        i = p.loop(0)
        old = _signless(p, args[0])
        if kind == "2x64":
            v = p.select(p.cmp("eq", i, p.const(1)), new, old)
        else:
            lo = sb.op("arith.trunci", [new], T.i32)
            hi = sb.op("arith.trunci", [sb.op("arith.shrui", [new, p.const(32, T.i64)], T.i64)], T.i32)
            v = p.select(p.cmp("eq", i, p.const(2)), lo, p.select(p.cmp("eq", i, p.const(3)), hi, old))
        return [sb.op("arith.bitcast", [v], s_et) if v.type != s_et else v]

    ident = AffineMap.identity(1)
    s_init = empty(b, tensor_of(s_shape, s_et))
    ns = linalg.build_generic([state], [s_init], [ident, ident], ["parallel"], state_body, builder=b)
    return [cast_to(b, ns.results[0], op.results[0].type), cast_to(b, g.results[0], out_t)]


PATTERNS = {
    "stablehlo.rng": lower_rng,
    "stablehlo.rng_bit_generator": lower_rng_bit_generator,
}

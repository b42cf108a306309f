"""Contractions lowered to a micro-kernel call: recognition and lowering configuration.

Mirrors IREE's CPU micro-kernel path (``iree-llvmcpu-select-lowering-strategy`` choosing a
``ukernel`` for data-tiled contractions, then ``iree-codegen-cpu-lower-to-ukernels`` replacing
the op by ``iree_codegen.ukernel.generic "iree_uk_mmt4d"``): an f32 contraction of the shape

    C[b.., i, j] += A[b.., i, k] * B[b.., k, j]     (any order of each operand's dims; A or B
                                                     may lack batch dims b)

— a ``linalg.generic`` (matmul, batch_matmul, matmul with transposed A or B, dot_general
after generalisation) with one reduction dim ``k``, a body ``out + a * b`` and every operand
indexed by plain dims, batch dims in all three — calls ``ireec_uk_sgemm`` of
``runtime_c/ireec_ukernel.h`` on each workgroup's ``MT x NT`` output tile. The micro-kernel
packs A and B panels (transposes are strides of the packing) into the workgroup's ``work``
array and runs a register-blocked tile chosen for the CPU at run time (8x32 on AVX-512,
6x16 on AVX2, 4x8 otherwise); see the header for the loop structure.

Convolutions (NHWC input, HWCF filter, any strides and dilations: ``linalg.conv_2d_nhwc_hwcf``
after generalisation) take the same micro-kernel as an implicit GEMM: per batch element,
output row and filter tap, ``C[n, oh, ow.., f..] += In[n, oh*s + kh, (ow*s + kw).., c] *
W[kh, kw, c, f..]`` is an sgemm with rows ``ow`` (A's row stride ``s * C``), columns ``f`` and
reduction ``c``.

Packing buffers: the ``work`` array is a local array of the workgroup function (stack), as
IREE's CPU backend keeps its packed tiles in stack allocations: kernels stay allocation-free
and reentrant, each OpenMP thread has its own, and no per-dispatch scratch has to be carved
out of the workspace arena. It holds ``work_floats(MC, NC, KC)`` floats (about 360 KiB with
the defaults below, much less for small problems, whose blocking is cut to the problem);
the compile report's stack bound counts it, and ``--max-stack-bytes`` halves the blocking
until it fits half the budget (:func:`blocking`). Threads need the stack: glibc's default
thread stack (8 MiB, ``ulimit -s``; ``OMP_STACKSIZE`` for OpenMP workers) is ample.

The configuration is recorded on the root op, visible at ``--compile-to=hal``::

    lowering_config = #iree_codegen.lowering_config<tile_sizes = [[MT, NT, 0], [MC, NC, KC]]>
    iree_codegen.ukernel = #iree_codegen.ukernel_descriptor<"ireec_uk_sgemm", memref>

(workgroup tile per loop; then the micro-kernel's cache blocking of i, j, k).

Depthwise convolutions (:func:`match_dwconv`: ``out[.., c, y, x] += image[.., c, s*y + d*ty,
s*x + d*tx] * filter[c, ty, tx]`` in any layout) call ``ireec_uk_dwconv`` on each workgroup's
tile, with ``iree_codegen.ukernel = #iree_codegen.ukernel_descriptor<"ireec_uk_dwconv",
memref>`` on the root and the tiles chosen for it as for any kernel.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import List, Optional, Sequence

from ...dialects import linalg as L
from ...ir import types as T
from ...ir.affine import AffineBinary, AffineConst, AffineDim, AffineExpr, AffineMap
from .memref_utils import generic_maps, loop_order, pointer_strides

#: The micro-kernel function (runtime_c/ireec_ukernel.h).
SGEMM = "ireec_uk_sgemm"

#: Cache blocking of the micro-kernel (elements), after GotoBLAS/BLIS: ``KC`` rows of a B
#: panel (KC x 32 f32 = 32 KiB, within the 48 KiB L1d per core of the AMD EPYC this was
#: measured on, lscpu), ``MC`` rows of
#: the packed A block (MC x KC x 4 = 64 KiB, in the 1 MiB L2) and ``NC`` columns of the
#: packed B block (KC x NC x 4 = 256 KiB, in L2). Measured on 1024^3 / 512^3 / 2048^3 with
#: gcc 12 -O3 (2 threads, AVX-512): KC 256 vs 384/512, MC 64 vs 96/128/192 and NC 256 vs 128
#: were the best or within noise; NC 128 lost 7 % at 1024^3. Measured again at 2048^3 on one
#: thread once B was packed row by row (the header's ``ireec_uk_sgemm_pack_b``; CPU time,
#: interleaved runs, median of 5): 72.2 ms here, NC 512 (with 512-column tiles) 74.4 ms,
#: KC 512 71.1 ms (1.5 %, for a B panel over L1 and a 720 KiB work array: not taken), A packed
#: instead of read in place 78.8 ms. Large sizes lost to the packing's speed, not to this
#: blocking: 2048^3 now runs at the efficiency of 1024^3 (the same 236 GFLOP/s, 82 % of the
#: one-thread FMA peak of ``benchmarks/peak.py`` on the loaded machine).
MC, NC, KC = 64, 256, 256

#: Workgroup tile (rows, columns) of the output: each workgroup packs its own B block once
#: per KC step and reuses it for all its rows, so tiles are tall (512 x 256: 1024^3 gives 8
#: workgroups for the OpenMP threads; measured against 256 x 256 on the AMD EPYC above,
#: 2 threads: 1024^3 4.8 vs 5.6 ms, 2048^3 46.6 vs 51.3 ms, 4096x1024x1024 equal). On
#: targets whose workgroups run concurrently (``Target.concurrent_workgroups``: openmp) a
#: dim is cut into nearly equal parts, at least two (e.g. an 8 x 256 MLP layer: two 8 x 128
#: tiles), with an even workgroup count. Taller tiles pack each B block fewer times, but at
#: 2048^3 on one thread 512, 1024 and 2048 rows took 72.2, 72.5 and 73.3 ms (B's packing is
#: 5 % of the time; a taller tile's C leaves L2): kept.
WORKGROUP_TILE = (512, 256)

#: Bytes of stack ``ireec_uk_sgemm`` itself takes besides the caller's ``work`` array: its
#: edge tile (IREEC_UK_SGEMM_MAX_MR x IREEC_UK_SGEMM_MAX_NR floats = 1 KiB) and frames.
#: Measured with gcc 12 ``-O3 -fstack-usage`` on x86-64 (the deepest chain: ireec_uk_sgemm
#: 1392 B + its AVX-512 8x32 tile kernel 1096 B = 2488 B), with headroom for other compilers.
UKERNEL_STACK_BYTES = 3072

#: ``IREEC_UK_SGEMM_MAX_MR`` / ``IREEC_UK_SGEMM_MAX_NR`` of the header.
MAX_MR, MAX_NR = 8, 32


@dataclass
class SgemmMatch:
    """Loop dims of a matched contraction: ``i`` (rows of C), ``j`` (columns), ``k``
    (the reduction the micro-kernel runs), ``batch`` (other parallel dims, looped around the
    call) and ``taps`` (other reduction dims, e.g. a convolution's filter window, looped
    around the call outside-in in the plain loop nest's order, so each output element still
    sees its products in that nest's order). ``a_coeff``: how many elements of A's indexed
    dim one step of ``i`` moves (a convolution's stride; 1 for matmuls)."""

    i: int
    j: int
    k: int
    batch: List[int]
    taps: List[int] = field(default_factory=list)
    a_coeff: int = 1
    #: A is the generic's second input and B its first (``C[n, f, hw] += In[n, c, hw] *
    #: W[f, c]``: the operand indexed by ``i`` comes second); products are commutative.
    swapped: bool = False


#: Smallest reduction (``K``) and output tile (``M * N``) for which a convolution calls the
#: micro-kernel once per filter tap; below, packing costs more than the products (LeNet's
#: first layer has K = 1 input channel).
CONV_MIN_K, CONV_MIN_MN = 16, 64


def work_floats(mc: int, nc: int, kc: int) -> int:
    """Floats of the ``work`` array for blocking ``mc x nc x kc`` (the header's
    ``IREEC_UK_SGEMM_WORK_FLOATS``: packed B and A blocks rounded to whole panels, plus
    64-byte alignment)."""
    return kc * (nc + MAX_NR) + kc * (mc + MAX_MR) + 32


def _plain_dims(m, shape=None) -> Optional[List[int]]:
    """The dims of map ``m`` when every result is a distinct dim; with the operand's
    ``shape``, a constant 0 at a dim of size 1 is allowed too and skipped (a 1x1 filter's
    window indices after the window loops are dropped)."""
    dims = []
    for k, e in enumerate(m.results):
        if isinstance(e, AffineDim):
            dims.append(e.pos)
        elif not (shape is not None and isinstance(e, AffineConst) and e.value == 0 and shape[k] == 1):
            return None
    return dims if len(set(dims)) == len(dims) else None


def _is_f32(v) -> bool:
    t = v.type
    return isinstance(t, T.ShapedType) and isinstance(t.element_type, T.FloatType) and t.element_type.name == "f32"


def _multiply_accumulate(op) -> bool:
    """Whether the body of generic ``op`` (args a, b, out) is ``yield out + a * b``."""
    ops = list(op.body.ops)
    if len(ops) != 3 or [o.name for o in ops] != ["arith.mulf", "arith.addf", "linalg.yield"]:
        return False
    if len(op.body.args) != 3:
        return False  # e.g. out + a * b with a third input the body ignores
    a, b, out = op.body.args
    mul, add, yld = ops
    if set(mul.operands) != {a, b} or (mul.operands[0] is mul.operands[1]):
        return False
    if set(add.operands) != {mul.results[0], out} or yld.operands[0] is not add.results[0]:
        return False
    return True


def linear_coefficients(e: AffineExpr) -> Optional[dict]:
    """``{dim: coefficient}`` of an affine expression that is a sum of dims times constants
    (``d1 * 2 + d4``), or None for anything else (constants, mod, floordiv...)."""
    if isinstance(e, AffineDim):
        return {e.pos: 1}
    if isinstance(e, AffineBinary) and e.kind == "+":
        lhs, rhs = linear_coefficients(e.lhs), linear_coefficients(e.rhs)
        if lhs is None or rhs is None:
            return None
        for d, c in rhs.items():
            lhs[d] = lhs.get(d, 0) + c
        return lhs
    if isinstance(e, AffineBinary) and e.kind == "*":
        for x, y in ((e.lhs, e.rhs), (e.rhs, e.lhs)):
            if isinstance(y, AffineConst):
                inner = linear_coefficients(x)
                return None if inner is None else {d: c * y.value for d, c in inner.items()}
    return None


def loop_stride(m: AffineMap, strides, d: int) -> Optional[int]:
    """Elements one step of loop ``d`` moves through an operand indexed by map ``m`` whose
    dims have element ``strides`` (None: a dynamic stride)."""
    total = 0
    for e, x in zip(m.results, strides):
        coeff = linear_coefficients(e) or {}
        if coeff.get(d):
            if not isinstance(x, int):
                return None
            total += coeff[d] * x
    return total


def match_sgemm(op, order: Optional[Sequence[int]] = None) -> Optional[SgemmMatch]:
    """The dims of ``op`` when it is an f32 contraction the micro-kernel computes (see the
    module docstring), else None. Works on tensors and memrefs.

    Matmul forms: every operand indexed by plain dims (or 0 at a dim of size 1), the batch
    dims in C and in any of A and B (batch_matmul; a shared weight matrix); A (indexed by
    ``i``) may be either input (``swapped``). Forms
    with taps (convolutions, ``C[b.., i, j] += A[.., s*i + t.., k] * B[t.., k, j]``): C
    indexed by plain dims ending in ``i, j``; B by plain dims (``k``, ``j`` and taps); each of
    A's indices a sum of dims times constants, ``i`` in one index only, ``k`` alone in one
    index; ``k`` must be the innermost reduction of ``order`` (the plain nest's loop order,
    when given) and ``K`` and ``M * N`` at least :data:`CONV_MIN_K` / :data:`CONV_MIN_MN`."""
    if op.name != "linalg.generic":
        return None
    ins, outs = L.inputs(op), L.outputs(op)
    if len(ins) != 2 or len(outs) != 1 or not all(_is_f32(v) for v in ins + outs):
        return None
    if any(getattr(v.type, "rank", 0) < 2 for v in ins + outs):
        return None
    if not _multiply_accumulate(op):
        return None
    its = L.iterator_types(op)
    red = [d for d, it in enumerate(its) if it == L.REDUCTION]
    maps = L.indexing_maps(op)
    da, db, dc = (_plain_dims(m, getattr(v.type, "shape", None)) for m, v in zip(maps, op.operands))
    if dc is None or len(dc) < 2 or any(d in red for d in dc):
        return None
    i, j = dc[-2], dc[-1]
    batch = dc[:-2]
    if len(red) == 1 and da is not None and db is not None:
        k = red[0]
        # Batch dims index C; A and B may each lack some (an operand shared across them,
        # e.g. the weights of a dense layer applied to [batch, sequence, features]).
        for x, y, swapped in ((da, db, False), (db, da, True)):
            if {i, k} <= set(x) <= set(batch) | {i, k} and {k, j} <= set(y) <= set(batch) | {k, j}:
                return SgemmMatch(i=i, j=j, k=k, batch=list(batch), swapped=swapped)
        return None
    # Taps: B's dims are k, j and the taps; A's indices are linear in the dims.
    if db is None or j not in db or i in db or any(d in batch for d in db):
        return None
    coeffs = [linear_coefficients(e) for e in maps[0].results]
    if any(c is None for c in coeffs):
        return None
    singles = [next(iter(c)) for c in coeffs if len(c) == 1 and next(iter(c.values())) == 1]
    ks = [d for d in red if d in db and d in singles and sum(d in c for c in coeffs) == 1]
    if len(ks) != 1:
        return None
    k = ks[0]
    taps = [d for d in red if d != k]
    if set(db) != {k, j} | set(taps) or any(j in c for c in coeffs):
        return None
    with_i = [c for c in coeffs if i in c]
    if len(with_i) != 1 or with_i[0][i] <= 0:
        return None
    if order is not None and [d for d in order if d in red][-1] != k:
        return None
    ranges = L.loop_ranges(op)
    if any(r is None for r in ranges) or ranges[k] < CONV_MIN_K or ranges[i] * ranges[j] < CONV_MIN_MN:
        return None
    if order is not None:
        taps = [d for d in order if d in taps]
    return SgemmMatch(i=i, j=j, k=k, batch=list(batch), taps=taps, a_coeff=with_i[0][i])


def sgemm_plan(op):
    """``(match, (a, b, c), (a_map, b_map, c_map), strides)`` when memref generic ``op``
    (marked ``ireec.ukernel_blocking``) can call ``ireec_uk_sgemm``: a matched contraction
    whose C is neither A nor B, no operand a kernel-local constant, and static element
    strides ``(a_m, a_k, b_k, b_n, ldc)`` with C's rows contiguous; else None."""
    maps = generic_maps(op)
    match = match_sgemm(op, loop_order(op, maps[0].num_dims))
    if match is None:
        return None
    a, bm, c = op.operands[:3]
    a_map, b_map, c_map = maps[:3]
    if match.swapped:  # the operand indexed by i is the second input
        a, bm, a_map, b_map = bm, a, b_map, a_map
    if c is a or c is bm:
        return None  # the micro-kernel reads A and B while it writes C
    st = pointer_strides((a, bm, c))
    if st is None:
        return None
    sa, sb, sc = st

    strides = (loop_stride(a_map, sa, match.i), loop_stride(a_map, sa, match.k),
               loop_stride(b_map, sb, match.k), loop_stride(b_map, sb, match.j),
               loop_stride(c_map, sc, match.i))
    if any(x is None for x in strides) or loop_stride(c_map, sc, match.j) != 1:
        return None
    return match, (a, bm, c), (a_map, b_map, c_map), strides


def workgroup_tile(extent: int, tile: int, split: bool = True) -> int:
    """Workgroup tile along a dim of ``extent`` elements: ``tile`` (the whole extent when
    smaller); with ``split`` (workgroups run concurrently), ``extent`` cut into
    ``ceil(extent / tile)`` but at least two nearly equal parts (:func:`split_tile`), so
    threads get equal shares and two threads share small problems, but the whole extent when
    it is 16 or less."""
    if not split:
        return min(extent, tile)
    if extent <= 16:
        return extent
    return split_tile(extent, max(2, -(-extent // tile)))


def split_tile(extent: int, parts: int) -> int:
    """The tile that cuts ``extent`` into ``parts`` nearly equal workgroups (rounded up to a
    multiple of 8 elements, whole register tiles on every ISA; at most ``extent``)."""
    t = -(-extent // parts)
    return min(extent, -(-t // 8) * 8)


def blocking(m: int, n: int, k: int, max_work_bytes: Optional[int] = None) -> Sequence[int]:
    """``(MC, NC, KC)`` for a workgroup tile of ``m x n`` with reduction ``k``: the constants
    above, no larger than the problem, halved (KC, then NC, then MC) while the work array
    exceeds ``max_work_bytes`` (half of ``--max-stack-bytes``)."""
    mc, nc, kc = min(MC, m), min(NC, n), min(KC, k)
    while max_work_bytes is not None and 4 * work_floats(mc, nc, kc) > max_work_bytes:
        if kc > 16:
            kc //= 2
        elif nc > 32:
            nc //= 2
        elif mc > 8:
            mc //= 2
        else:
            break
    return mc, nc, kc


#: The depthwise-convolution micro-kernel (runtime_c/ireec_ukernel.h).
DWCONV = "ireec_uk_dwconv"

#: Bytes of stack ``ireec_uk_dwconv`` takes: its frame and those of the narrower kernels it
#: hands short rows to (gcc 12 -O3 -fstack-usage, x86-64: 832 for the AVX-512 kernel, 1856
#: for the AVX2 one, 376 for the 4-lane one; the scalar loops and the entry's parameter
#: block), rounded up.
DWCONV_STACK_BYTES = 4096


@dataclass
class DwconvMatch:
    """Loop dims of a matched depthwise convolution (:func:`match_dwconv`): ``c`` the channel
    dim (in the image, the filter and the output), ``y``/``x`` the output's spatial dims and
    ``ty``/``tx`` the filter taps paired with them in the image's indices (``y`` and ``ty``
    None for a one-dimensional window; ``ty`` comes before ``tx`` in the loop nest), ``batch``
    the other parallel dims of range > 1 (looped around the call) and ``image`` / ``filter``
    the generic's input positions."""

    c: int
    y: Optional[int]
    x: int
    ty: Optional[int]
    tx: int
    batch: List[int]
    image: int
    filter: int


def _linear_indices(m, shape) -> Optional[List[dict]]:
    """``{dim: coefficient}`` per result of map ``m`` (:func:`linear_coefficients`), a
    constant 0 at a dim of size 1 of ``shape`` being ``{}``; None when any result is not
    linear."""
    out = []
    for k, e in enumerate(m.results):
        if isinstance(e, AffineConst) and e.value == 0 and shape is not None and shape[k] == 1:
            out.append({})
            continue
        c = linear_coefficients(e)
        if c is None:
            return None
        out.append(c)
    return out


def match_dwconv(op, order: Sequence[int]) -> Optional[DwconvMatch]:
    """The dims of ``op`` when it is an f32 depthwise convolution the ``ireec_uk_dwconv``
    micro-kernel computes, else None. Works on tensors and memrefs; ``order`` is the plain
    loop nest's order (:func:`.memref_utils.loop_order`).

    The form (``linalg.depthwise_conv_2d_nchw_chw`` / ``_nhwc_hwc`` / ``_nhwc_hwcm`` / 1-d
    ones after generalisation, a grouped ``stablehlo.convolution`` with one input channel per
    group): a ``linalg.generic`` with static ranges, body ``out + image * filter``, output and
    filter indexed by plain dims (or 0 at a dim of size 1); every image index a sum of dims
    times constants. Dims of range 1 are ignored. The reduction dims (the taps, one or two)
    each appear in the filter and in one image index, together with exactly one parallel
    output dim not in the filter (``image[.., s*y + d*ty, ..]``); one parallel dim ``c`` is
    alone in an image index and in the filter and the output; the other parallel dims are
    batch dims. Bodies other than multiply-accumulate (pooling) are not matched."""
    if op.name != "linalg.generic" or not _multiply_accumulate(op):
        return None
    ins, outs = L.inputs(op), L.outputs(op)
    if len(ins) != 2 or len(outs) != 1 or not all(_is_f32(v) for v in ins + outs):
        return None
    ranges = L.loop_ranges(op)
    if any(r is None for r in ranges):
        return None
    its = L.iterator_types(op)
    maps = L.indexing_maps(op)
    shape = [getattr(v.type, "shape", None) for v in op.operands]
    do = _plain_dims(maps[2], shape[2])
    if do is None or any(its[d] == L.REDUCTION for d in do):
        return None
    big = {d for d, r in enumerate(ranges) if r > 1}
    taps = [d for d in order if its[d] == L.REDUCTION and d in big]
    if not 1 <= len(taps) <= 2:
        return None
    for f in (0, 1):
        img = 1 - f
        df = _plain_dims(maps[f], shape[f])
        coeffs = _linear_indices(maps[img], shape[img])
        if df is None or coeffs is None or any(t not in df for t in taps):
            continue
        pairs = []
        for t in taps:
            with_t = [c for c in coeffs if t in c]
            if len(with_t) != 1 or with_t[0][t] <= 0:
                break
            others = [d for d in with_t[0] if d != t]
            if len(others) != 1 or its[others[0]] == L.REDUCTION or others[0] not in do or others[0] in df:
                break
            p = others[0]
            if with_t[0][p] <= 0 or sum(p in c for c in coeffs) != 1:
                break
            pairs.append(p)
        if len(pairs) != len(taps) or len(set(pairs)) != len(pairs):
            continue
        chans = [d for d in df if its[d] != L.REDUCTION and d in do
                 and any(c == {d: 1} for c in coeffs) and sum(d in c for c in coeffs) == 1]
        wide = [d for d in chans if d in big]
        if len(wide) > 1 or not chans:
            continue
        c = wide[0] if wide else chans[0]
        batch = [d for d in order if its[d] != L.REDUCTION and d in big and d != c and d not in pairs]
        y, ty = (pairs[0], taps[0]) if len(taps) == 2 else (None, None)
        return DwconvMatch(c=c, y=y, x=pairs[-1], ty=ty, tx=taps[-1], batch=batch, image=img, filter=f)
    return None

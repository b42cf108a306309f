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
reduction ``c``. The lowering strategy takes that form only where :mod:`.im2col` (one GEMM
over the whole window) cannot chunk the window within the stack budget.

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

Integer contractions (:func:`match_igemm`): the same matmul forms on 8-bit operands with an
i32 accumulator, ``C += ext(A) * ext(B)`` (``linalg.matmul`` / ``batch_matmul`` on i8 → i32,
``arith.extsi`` or ``arith.extui``) and ``C += (ext(A) - a_zp) * (ext(B) - b_zp)``
(``linalg.quantized_matmul`` / ``quantized_batch_matmul``, zero points scalar i32 inputs of
the generic or values defined above it), call ``ireec_uk_igemm`` of
``runtime_c/ireec_ukernel_igemm.h`` on each workgroup's tile, with the zero points as
arguments (exact int32 results: VNNI ``vpdpbusd`` with a +128 bias on B, AVX2 ``vpmaddwd``
on 16-bit pairs, SMLAD on a Cortex-M4; see the header), marked
``iree_codegen.ukernel = #iree_codegen.ukernel_descriptor<"ireec_uk_igemm", memref>`` and
blocked by :data:`IGEMM_MC`, :data:`IGEMM_NC`, :data:`IGEMM_KC`, on targets whose
``ukernels`` name it (:func:`target_has`).

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
from ...ir.core import Operation
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
#: 1520 B + its AVX-512 12x32 tile kernel 1608 B = 3128 B), with headroom for other compilers.
UKERNEL_STACK_BYTES = 3584

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


def _matmul_match(da: List[int], db: List[int], dc: List[int], k: int) -> Optional[SgemmMatch]:
    """The matmul form of a contraction whose inputs are indexed by the plain dims ``da``,
    ``db``, its output by ``dc`` (rows, columns last) and whose one reduction dim is ``k``:
    batch dims index C; A and B may each lack some (an operand shared across them, e.g. the
    weights of a dense layer applied to [batch, sequence, features])."""
    i, j = dc[-2], dc[-1]
    batch = dc[:-2]
    for x, y, swapped in ((da, db, False), (db, da, True)):
        if {i, k} <= set(x) <= set(batch) | {i, k} and {k, j} <= set(y) <= set(batch) | {k, j}:
            return SgemmMatch(i=i, j=j, k=k, batch=list(batch), swapped=swapped)
    return None


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
        return _matmul_match(da, db, dc, red[0])
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
    return _gemm_plan(match, (a, bm, c), (a_map, b_map, c_map))


def _gemm_plan(match, operands, maps):
    """``(match, operands, maps, strides)`` of a matched contraction over memrefs ``operands``
    (A, B, C) with indexing ``maps``: static element strides ``(a_m, a_k, b_k, b_n, ldc)``
    with C's rows contiguous and C neither A nor B (a micro-kernel reads A and B while it
    writes C); else None."""
    a, bm, c = operands
    a_map, b_map, c_map = maps
    if c is a or c is bm:
        return None
    st = pointer_strides((a, bm, c))
    if st is None:
        return None
    sa, sb, sc = st
    strides = (loop_stride(a_map, sa, match.i), loop_stride(a_map, sa, match.k),
               loop_stride(b_map, sb, match.k), loop_stride(b_map, sb, match.j),
               loop_stride(c_map, sc, match.i))
    if any(x is None for x in strides) or loop_stride(c_map, sc, match.j) != 1:
        return None
    return match, operands, maps, strides


#: The integer (int8 x int8 -> int32) micro-kernel (runtime_c/ireec_ukernel_igemm.h).
IGEMM = "ireec_uk_igemm"

#: Cache blocking of ``ireec_uk_igemm`` (elements), after the f32 one: ``KC`` k of a packed
#: B panel (KC x 48 bytes = 24 KiB on AVX-512 VNNI, in the 48 KiB L1d of this project's Xeon,
#: lscpu), ``MC`` rows of A per block (A is read in place: MC x KC = 32 KiB) and ``NC``
#: columns of the packed B block (KC x NC = 128 KiB, in the 2 MiB L2). Measured on 1024^3,
#: one thread, 512 x 256 tiles (gcc 12 -O3, fastest of 15 interleaved runs, machine
#: loaded): KC 256 / 384 / 512 / 1024: 4.31 / 4.06 / 3.82 / 3.70 ms; MC 16 / 32 / 64 / 128:
#: 3.71 / 3.71 / 3.82 / 3.96 ms (KC 1024 spills the B panel out of L1 on narrower tiles and
#: doubles the work array: not taken).
IGEMM_MC, IGEMM_NC, IGEMM_KC = 64, 256, 512

#: ``IREEC_UK_IGEMM_MAX_MR`` / ``IREEC_UK_IGEMM_MAX_NR`` of the header.
IGEMM_MAX_MR, IGEMM_MAX_NR = 8, 48

#: Bytes of stack ``ireec_uk_igemm`` takes besides the caller's ``work`` array: its edge tile
#: (IREEC_UK_IGEMM_MAX_MR x IREEC_UK_IGEMM_MAX_NR int32 = 1.5 KiB), its frame and its
#: kernels' (-O3 -fstack-usage: gcc 12 x86-64 5040 + 72 B, clang 14 2776 + 616 B,
#: arm-none-eabi-gcc 12 Cortex-M4 2048 + 112 B), rounded up.
IGEMM_STACK_BYTES = 6144


def igemm_work_bytes(mc: int, nc: int, kc: int) -> int:
    """Bytes of the ``work`` array of ``ireec_uk_igemm`` for blocking ``mc x nc x kc`` (the
    header's ``IREEC_UK_IGEMM_WORK_BYTES``: packed B and A blocks of up to 2 bytes per element,
    kc rounded up to 4, whole panels, one int32 correction per column and per row, 64-byte
    alignment)."""
    k4 = (kc + 3) // 4 * 4
    return (2 * k4 * (nc + IGEMM_MAX_NR) + 2 * k4 * (mc + IGEMM_MAX_MR)
            + 4 * (nc + IGEMM_MAX_NR) + 4 * (mc + IGEMM_MAX_MR) + 256)


def igemm_blocking(m: int, n: int, k: int, max_work_bytes: Optional[int] = None) -> Sequence[int]:
    """``(MC, NC, KC)`` of ``ireec_uk_igemm`` for a workgroup tile of ``m x n`` with reduction
    ``k``: :data:`IGEMM_MC`, :data:`IGEMM_NC`, :data:`IGEMM_KC`, no larger than the problem,
    halved (KC, then NC, then MC) while the work array exceeds ``max_work_bytes``."""
    return _fit_blocking((min(IGEMM_MC, m), min(IGEMM_NC, n), min(IGEMM_KC, k)), IGEMM_MAX_NR,
                         igemm_work_bytes, max_work_bytes)


def _fit_blocking(blocks: Sequence[int], max_nr: int, work_bytes, max_work_bytes: Optional[int]):
    """``blocks`` = ``(mc, nc, kc)`` halved (KC down to 16, then NC down to ``max_nr``, the
    kernel's widest register tile, then MC down to 8) while ``work_bytes(mc, nc, kc)`` (the
    micro-kernel's work array, bytes) exceeds ``max_work_bytes``; unchanged for None."""
    mc, nc, kc = blocks
    while max_work_bytes is not None and work_bytes(mc, nc, kc) > max_work_bytes:
        if kc > 16:
            kc //= 2
        elif nc > max_nr:
            nc //= 2
        elif mc > 8:
            mc //= 2
        else:
            break
    return mc, nc, kc


def target_has(target, name: str) -> bool:
    """Whether ``target`` (a Target, or None) lets kernels call micro-kernel ``name``: listed
    in its ``ukernels``."""
    return name in (getattr(target, "ukernels", ()) or ())


@dataclass
class IgemmMatch(SgemmMatch):
    """An :class:`SgemmMatch` of an 8-bit integer contraction, with the generic's input
    positions of A (``lhs``, indexed by ``i``) and B (``rhs``), whether each is zero-extended
    (``arith.extui``: uint8) and its zero point (a scalar i32 Value: an input of the generic
    or a value defined above it; None for none)."""

    lhs: int = 0
    rhs: int = 1
    lhs_unsigned: bool = False
    rhs_unsigned: bool = False
    a_zp: Optional[object] = None
    b_zp: Optional[object] = None


def _is_int(t, width: int) -> bool:
    return isinstance(t, T.IntegerType) and t.width == width


def _igemm_factors(op, rank0_zero_points: bool = False) -> Optional[dict]:
    """For a generic whose body is ``yield out + (ext(a) - za) * (ext(b) - zb)`` (each ``- z``
    optional, either order of every commutative operand): ``{input position of a: (unsigned,
    zero point), ...}`` for its two factors, ``ext`` an ``arith.extsi`` / ``arith.extui`` of
    an i8 block argument to i32, a zero point an i32 block argument of a scalar input (given
    as that input; with ``rank0_zero_points`` also of a rank-0 tensor or memref input, a
    zero point the host passes in a buffer) or a value defined outside the body; None for any
    other body."""
    blk = L.payload(op)
    ins = L.inputs(op)
    ops = list(blk.ops)
    if len(L.outputs(op)) != 1 or not ops or ops[-1].name != "linalg.yield" or len(ops[-1].operands) != 1:
        return None
    out_arg = blk.args[len(ins)]
    add = ops[-1].operands[0].owner
    if not isinstance(add, Operation) or add.name != "arith.addi" or add.parent is not blk:
        return None
    others = [v for v in add.operands if v is not out_arg]
    if len(others) != 1 or len(add.operands) != 2:
        return None
    mul = others[0].owner
    if not isinstance(mul, Operation) or mul.name != "arith.muli" or mul.parent is not blk:
        return None
    used = {id(add), id(mul), id(ops[-1])}
    factors = {}
    for x in mul.operands:
        z = None
        f = x.owner
        if isinstance(f, Operation) and f.name == "arith.subi" and f.parent is blk:
            used.add(id(f))
            x, z = f.operands
            if not _is_int(z.type, 32):
                return None
            if z in blk.args:
                pos = blk.args.index(z)
                if pos >= len(ins) or (isinstance(ins[pos].type, T.ShapedType)
                                       and not (rank0_zero_points and ins[pos].type.rank == 0)):
                    return None
                z = ins[pos]
            elif isinstance(z.owner, Operation) and z.owner.parent is blk:
                return None
            f = x.owner
        if not (isinstance(f, Operation) and f.name in ("arith.extsi", "arith.extui") and f.parent is blk):
            return None
        used.add(id(f))
        src = f.operands[0]
        if src not in blk.args or not _is_int(src.type, 8) or not _is_int(f.results[0].type, 32):
            return None
        pos = blk.args.index(src)
        if pos >= len(ins) or pos in factors:
            return None
        factors[pos] = (f.name == "arith.extui", z)
    if len(factors) != 2 or len(used) != len(ops):
        return None
    return factors


def match_igemm(op, order: Optional[Sequence[int]] = None) -> Optional[IgemmMatch]:
    """The dims, operands and zero points of ``op`` when it is an 8-bit integer contraction
    ``ireec_uk_igemm`` computes (module docstring), else None: a ``linalg.generic`` with two
    shaped i8 inputs (the factors of :func:`_igemm_factors`; other inputs scalar zero points),
    an i32 output, one reduction dim and the matmul forms of :func:`match_sgemm` (no filter
    taps). Works on tensors and memrefs; ``order`` is unused (the signature of
    :func:`match_sgemm`)."""
    del order
    if op.name != "linalg.generic":
        return None
    ins, outs = L.inputs(op), L.outputs(op)
    shaped = [k for k, v in enumerate(ins) if isinstance(v.type, T.ShapedType)]
    if len(shaped) != 2 or len(outs) != 1 or not isinstance(outs[0].type, T.ShapedType):
        return None
    if not all(_is_int(ins[k].type.element_type, 8) for k in shaped) or not _is_int(outs[0].type.element_type, 32):
        return None
    if any(getattr(ins[k].type, "rank", 0) < 2 for k in shaped) or outs[0].type.rank < 2:
        return None
    factors = _igemm_factors(op)
    if factors is None or sorted(factors) != shaped:
        return None
    its = L.iterator_types(op)
    red = [d for d, it in enumerate(its) if it == L.REDUCTION]
    maps = L.indexing_maps(op)
    if len(red) != 1 or any(maps[k].results for k in range(len(ins)) if k not in shaped):
        return None
    p, q = shaped
    da, db, dc = (_plain_dims(maps[x], getattr(op.operands[x].type, "shape", None)) for x in (p, q, len(ins)))
    if da is None or db is None or dc is None or len(dc) < 2 or any(d in red for d in dc):
        return None
    m = _matmul_match(da, db, dc, red[0])
    if m is None:
        return None
    lhs, rhs = (q, p) if m.swapped else (p, q)
    return IgemmMatch(i=m.i, j=m.j, k=m.k, batch=m.batch, swapped=m.swapped, lhs=lhs, rhs=rhs,
                      lhs_unsigned=factors[lhs][0], rhs_unsigned=factors[rhs][0],
                      a_zp=factors[lhs][1], b_zp=factors[rhs][1])


def igemm_plan(op):
    """``(match, (a, b, c), (a_map, b_map, c_map), strides)`` when memref generic ``op``
    (marked for ``ireec_uk_igemm``) can call it: a matched contraction (:func:`match_igemm`)
    whose C is neither A nor B, no operand a kernel-local constant, and static element
    strides ``(a_m, a_k, b_k, b_n, ldc)`` with C's rows contiguous; else None."""
    maps = generic_maps(op)
    match = match_igemm(op)
    if match is None:
        return None
    n_in = len(L.inputs(op))
    return _gemm_plan(match, (op.operands[match.lhs], op.operands[match.rhs], op.operands[n_in]),
                      (maps[match.lhs], maps[match.rhs], maps[n_in]))


def ukernel_name(op) -> str:
    """The micro-kernel the lowering strategy chose for ``op`` (its
    ``iree_codegen.ukernel`` descriptor's function; :data:`SGEMM` for a bare
    ``ireec.ukernel_blocking``), '' for none."""
    desc = str(op.attributes.get("iree_codegen.ukernel", ""))
    for name in (IGEMM, DWCONV, SGEMM):
        if f'"{name}"' in desc:
            return name
    return SGEMM if "ireec.ukernel_blocking" in op.attributes else ""


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
    return _fit_blocking((min(MC, m), min(NC, n), min(KC, k)), 32,
                         lambda mc, nc, kc: 4 * work_floats(mc, nc, kc), max_work_bytes)


#: The direct convolution micro-kernel (runtime_c/ireec_ukernel_conv.h, :mod:`.direct_conv`).
CONV = "ireec_uk_conv"

#: Bytes of stack ``ireec_uk_conv`` takes: its offset table (512 int32), the zero-padded copy
#: of a small output's taps (32 x 32 floats) and a register tile's block, and its kernels'
#: frames (-O3 -fstack-usage: gcc 12 x86-64 7600 + 968 B for the AVX-512 8x32 tile,
#: arm-none-eabi-gcc 12 Cortex-M4 7496 B), rounded up.
CONV_STACK_BYTES = 10240

#: The depthwise-convolution micro-kernel (runtime_c/ireec_ukernel.h).
DWCONV = "ireec_uk_dwconv"

#: Bytes of stack ``ireec_uk_dwconv`` takes: its frame and those of the narrower kernels it
#: hands short rows to (gcc 12 -O3 -fstack-usage, x86-64: 1088 for the AVX-512 kernel, 2080
#: for the AVX2 one, 664 for the 4-lane one; the scalar loops and the entry's parameter
#: block: 224 for ``ireec_uk_dwconv_fused``, 464 for ``ireec_uk_dwconv_padded``), and the
#: channels-last buffer of small images before them (8560), rounded up.
DWCONV_STACK_BYTES = 16384


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

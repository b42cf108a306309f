"""Contractions lowered to a micro-kernel call: recognition and lowering configuration.

Mirrors IREE's CPU micro-kernel path (``iree-llvmcpu-select-lowering-strategy`` choosing a
``ukernel`` for data-tiled contractions, then ``iree-codegen-cpu-lower-to-ukernels`` replacing
the op by ``iree_codegen.ukernel.generic "iree_uk_mmt4d"``): an f32 contraction of the shape

    C[b.., i, j] += A[b.., i, k] * B[b.., k, j]     (any order of each operand's dims)

— a ``linalg.generic`` (matmul, batch_matmul, matmul with transposed A or B, dot_general
after generalisation) with one reduction dim ``k``, a body ``out + a * b`` and every operand
indexed by plain dims, batch dims in all three — calls ``ireec_uk_sgemm`` of
``runtime_c/ireec_ukernel.h`` on each workgroup's ``MT x NT`` output tile. The micro-kernel
packs A and B panels (transposes are strides of the packing) into the workgroup's ``work``
array and runs a register-blocked tile chosen for the CPU at run time (8x32 on AVX-512,
6x16 on AVX2, 4x8 otherwise); see the header for the loop structure.

The configuration is recorded on the root op, visible at ``--compile-to=hal``::

    lowering_config = #iree_codegen.lowering_config<tile_sizes = [[MT, NT, 0], [MC, NC, KC]]>
    iree_codegen.ukernel = #iree_codegen.ukernel_descriptor<"ireec_uk_sgemm", memref>

(workgroup tile per loop; then the micro-kernel's cache blocking of i, j, k).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional, Sequence

from ...dialects import linalg as L
from ...ir import types as T
from ...ir.affine import AffineDim

#: The micro-kernel function (runtime_c/ireec_ukernel.h).
SGEMM = "ireec_uk_sgemm"

#: Cache blocking of the micro-kernel (elements), after GotoBLAS/BLIS: ``KC`` rows of a B
#: panel (KC x 32 f32 = 32 KiB, within the 48 KiB L1d per core of the AMD EPYC this was
#: measured on, lscpu), ``MC`` rows of
#: the packed A block (MC x KC x 4 = 64 KiB, in the 1 MiB L2) and ``NC`` columns of the
#: packed B block (KC x NC x 4 = 256 KiB, in L2). Measured on 1024^3 / 512^3 / 2048^3 with
#: gcc 12 -O3 (2 threads, AVX-512): KC 256 vs 384/512, MC 64 vs 96/128/192 and NC 256 vs 128
#: were the best or within noise; NC 128 lost 7 % at 1024^3.
MC, NC, KC = 64, 256, 256

#: Workgroup tile (rows, columns) of the output: each workgroup packs its own B block once
#: per KC step, so tiles are large (256 x 256: 1024^3 gives 16 workgroups for the OpenMP
#: threads; 128 x 256 was 5 % slower). On targets whose workgroups run concurrently
#: (``Target.concurrent_workgroups``: openmp) a dim with fewer than 2 * tile elements is
#: split in two so that two threads get work (e.g. an 8 x 256 MLP layer: two 8 x 128 tiles).
WORKGROUP_TILE = (256, 256)

#: Bytes of stack ``ireec_uk_sgemm`` itself takes besides the caller's ``work`` array: its
#: edge tile (IREEC_UK_SGEMM_MAX_MR x IREEC_UK_SGEMM_MAX_NR floats = 1 KiB) and frames.
UKERNEL_STACK_BYTES = 1024 + 512

#: ``IREEC_UK_SGEMM_MAX_MR`` / ``IREEC_UK_SGEMM_MAX_NR`` of the header.
MAX_MR, MAX_NR = 8, 32


@dataclass
class SgemmMatch:
    """Loop dims of a matched contraction: ``i`` (rows of C), ``j`` (columns), ``k``
    (reduction) and ``batch`` (other parallel dims, present in all operands)."""

    i: int
    j: int
    k: int
    batch: List[int]


def work_floats(mc: int, nc: int, kc: int) -> int:
    """Floats of the ``work`` array for blocking ``mc x nc x kc`` (the header's
    ``IREEC_UK_SGEMM_WORK_FLOATS``: packed B and A blocks rounded to whole panels, plus
    64-byte alignment)."""
    return kc * (nc + MAX_NR) + kc * (mc + MAX_MR) + 32


def _plain_dims(m) -> Optional[List[int]]:
    if not all(isinstance(e, AffineDim) for e in m.results):
        return None
    dims = [e.pos for e in m.results]
    return dims if len(set(dims)) == len(dims) else None


def _is_f32(v) -> bool:
    t = v.type
    return isinstance(t, T.ShapedType) and isinstance(t.element_type, T.FloatType) and t.element_type.name == "f32"


def _multiply_accumulate(op) -> bool:
    """Whether the body of generic ``op`` (args a, b, out) is ``yield out + a * b``."""
    ops = list(op.body.ops)
    if len(ops) != 3 or [o.name for o in ops] != ["arith.mulf", "arith.addf", "linalg.yield"]:
        return False
    a, b, out = op.body.args
    mul, add, yld = ops
    if set(mul.operands) != {a, b} or (mul.operands[0] is mul.operands[1]):
        return False
    if set(add.operands) != {mul.results[0], out} or yld.operands[0] is not add.results[0]:
        return False
    return True


def match_sgemm(op) -> Optional[SgemmMatch]:
    """The dims of ``op`` when it is an f32 contraction the micro-kernel computes (see the
    module docstring), else None. Works on tensors and memrefs."""
    if op.name != "linalg.generic":
        return None
    ins, outs = L.inputs(op), L.outputs(op)
    if len(ins) != 2 or len(outs) != 1 or not all(_is_f32(v) for v in ins + outs):
        return None
    if any(getattr(v.type, "rank", 0) < 2 for v in ins + outs):
        return None
    its = L.iterator_types(op)
    red = [d for d, it in enumerate(its) if it == L.REDUCTION]
    if len(red) != 1:
        return None
    k = red[0]
    maps = L.indexing_maps(op)
    dims = [_plain_dims(m) for m in maps]
    if any(d is None for d in dims):
        return None
    da, db, dc = dims
    if len(dc) < 2 or k in dc:
        return None
    i, j = dc[-2], dc[-1]
    batch = dc[:-2]
    if set(da) != set(batch) | {i, k} or set(db) != set(batch) | {k, j}:
        return None
    if len(da) != len(batch) + 2 or len(db) != len(batch) + 2:
        return None
    if not _multiply_accumulate(op):
        return None
    return SgemmMatch(i=i, j=j, k=k, batch=list(batch))


def workgroup_tile(extent: int, tile: int, split: bool = True) -> int:
    """Workgroup tile along a dim of ``extent`` elements: ``tile`` (the whole extent when
    smaller); with ``split`` (workgroups run concurrently), about half the extent (rounded up
    to a multiple of 8) when it is below ``2 * tile``, so two threads share small problems,
    but the whole extent when it is 16 or less."""
    if not split:
        return min(extent, tile)
    if extent <= 16:
        return extent
    if extent >= 2 * tile:
        return tile
    half = -(-extent // 2)
    return min(extent, -(-half // 8) * 8)


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

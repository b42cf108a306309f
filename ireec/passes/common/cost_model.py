"""Static cost estimates of dispatches: floating-point (and integer) operations per kernel.

The estimate IREE's and TVM's reports use for dense kernels: a structured linalg op executes
its payload once per point of its iteration domain, so it costs
``product(loop ranges) x (scalar ops in its payload)``. A matmul's payload is one multiply
and one add, giving the usual ``2·M·N·K``; an elementwise add costs one operation per output
element. Data movement ops (pad, slices, copies without arithmetic) cost nothing.
"""
from __future__ import annotations

from math import prod
from typing import Dict

from ...dialects import linalg as L
from ...ir.core import Operation

#: Payload ops that are bookkeeping, not arithmetic.
_FREE_OPS = ("linalg.yield", "linalg.index", "arith.constant")


def op_flops(op: Operation) -> int:
    """Operations one structured linalg ``op`` executes: the product of its static loop
    ranges (dynamic ranges count as 1) times the arithmetic ops of its payload (at least 1
    when the payload computes anything, 0 for a pure copy/yield payload)."""
    ranges = L.loop_ranges(op)
    points = prod(r for r in ranges if r is not None) if ranges else 1
    body = L.payload(op)
    work = sum(1 for o in body.ops if o.name not in _FREE_OPS
               and (o.dialect in ("arith", "math", "complex")))
    return points * work


def executable_flops(module: Operation) -> Dict[str, int]:
    """Entry point name → estimated operations of one call of it, for every kernel of the
    ``flow.executable`` ops of ``module`` (kernels still on tensors, as the stream phase
    sees them)."""
    out: Dict[str, int] = {}
    for exe in module.body.ops:
        if exe.name != "flow.executable":
            continue
        for op in exe.walk():
            if op.name == "func.func" and "sym_name" in op.attributes:
                total = 0
                for inner in op.walk():
                    if L.is_linalg_structured(inner):
                        total += op_flops(inner)
                out[op.attributes["sym_name"].value] = total
    return out


#: The sgemm micro-kernel's register tile on AVX-512 (rows, columns): ireec_uk_sgemm's
#: 8 x 32 kernel (runtime_c/ireec_ukernel_sgemm.h), the ISA the layout choices are tuned for.
SGEMM_MR, SGEMM_NR = 8, 32
#: Vector lanes of one register (f32 on AVX-512).
SGEMM_LANES = 16


def sgemm_tile_cost(m: int, n: int, mr: int = SGEMM_MR, nr: int = SGEMM_NR) -> int:
    """Relative time of ``ireec_uk_sgemm`` on an ``m x n`` output per step of its reduction:
    the vector multiply-adds of the register tiles covering it, as the micro-kernel
    decomposes it. Columns: pieces of ``nr``, then one of ``nr/2`` and one of ``nr/4`` (its
    half- and quarter-width kernels), the rest one zero-padded piece (a register each, at
    least one); rows: tiles of ``mr``, then one of ``mr/2`` (its short tiles), the rest
    one-row kernels, which reload every B vector per row (counted as two rows each).
    Example: 96 x 9 (a 96-channel 3x3 image, NCHW) costs 96 x 2 = 192, its transpose
    9 x 96 costs 10 x 6 = 60."""
    full, rest = divmod(n, nr)
    vecs = full * max(1, nr // SGEMM_LANES)
    for piece in (nr // 2, nr // 4):
        if rest >= piece:
            vecs += 1
            rest -= piece
    vecs += 1 if rest else 0
    tiles, left = divmod(m, mr)
    rows = tiles * mr
    if left >= mr // 2:
        rows += mr // 2
        left -= mr // 2
    return vecs * (rows + 2 * left)

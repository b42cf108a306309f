"""The machine's single-precision FMA peak and int8 dot-product (VNNI) peak, measured in the
benchmark's own run.

A small C program (:data:`PEAK_C`) runs 12 independent chains of fused multiply-adds per
thread — enough to cover the FMA latency (4 cycles) times the FMA ports (2) of current x86
cores, so the units never wait — on the widest vectors the compiler targets with
``-march=native``: AVX-512 (16 lanes), else AVX2+FMA (8 lanes), else scalar ``a*b+c``
(which ``-ffp-contract=fast`` turns into an FMA where the ISA has one). It is built with
``cc`` at benchmark time and run on 1 thread and on all threads (OpenMP); each FMA counts
2 floating-point operations. The figures are what "% of peak" in RESULTS.md divides by.

The VNNI peak (:func:`measure_vnni_peak`, :data:`VNNI_C`) is the same loop on ``vpdpbusd``
(``_mm512_dpbusd_epi32``: per int32 lane, four u8 x s8 products added to the lane), the
instruction of ireec's int8 GEMM micro-kernel (runtime_c/ireec_ukernel_igemm.h): 12
independent accumulator chains (its latency, 5 cycles on Intel's Sapphire Rapids, times its
2 ports), on 512-bit vectors with AVX-512 VNNI, else 256-bit ones with AVX-VNNI
(``_mm256_dpbusd_avx_epi32``); each instruction counts 2 x 4 x lanes integer operations
(128 on AVX-512), a multiply-add counting 2 as for floats. Without either the peak has an
``error``.
"""
from __future__ import annotations

import os
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Sequence

#: The timing driver both programs end with (after their ``chains`` and the macros ``ISA``,
#: ``TOTAL_T``: the type of the checksum ``chains`` returns, ``CHAIN_ARG(t)``: thread ``t``'s
#: seed, ``OPS_PER_ITERATION``: operations per iteration of ``chains``, a multiply-add
#: counting 2): ``THREADS ITERATIONS`` runs ``chains`` on every thread, three times, and prints
#: ``<isa> <G operations/s of the fastest run> <checksum>``.
TIMING_MAIN = r"""
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 1;
  long iterations = argc > 2 ? atol(argv[2]) : 100000000L;
  TOTAL_T total = 0;
  double best = 0.0;
  for (int rep = 0; rep < 3; ++rep) {  /* the fastest of 3: the least disturbed */
    double t0 = now();
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads) reduction(+:total) schedule(static, 1)
#endif
    for (int t = 0; t < threads; ++t) total += chains(iterations, CHAIN_ARG(t));
    double seconds = now() - t0;
    double rate = OPS_PER_ITERATION * (double)iterations * threads / seconds * 1e-9;
    if (rate > best) best = rate;
  }
  printf("%s %.3f %g\n", ISA, best, (double)total);
  return 0;
}
"""


#: The measuring program: ``peak THREADS ITERATIONS`` prints ``<isa> <GFLOP/s>``.
PEAK_C = r"""
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
#include <immintrin.h>
#endif

#if defined(__AVX512F__)
#define ISA "avx512"
#define LANES 16
typedef __m512 vec;
#define SPLAT(x) _mm512_set1_ps(x)
#define FMA(a, b, c) _mm512_fmadd_ps(a, b, c)
static float sum(vec v) { return _mm512_reduce_add_ps(v); }
#elif defined(__AVX2__) && defined(__FMA__)
#define ISA "avx2-fma"
#define LANES 8
typedef __m256 vec;
#define SPLAT(x) _mm256_set1_ps(x)
#define FMA(a, b, c) _mm256_fmadd_ps(a, b, c)
static float sum(vec v) { float t[8]; _mm256_storeu_ps(t, v); return t[0] + t[1] + t[2] + t[3] + t[4] + t[5] + t[6] + t[7]; }
#else
#define ISA "scalar"
#define LANES 1
typedef float vec;
#define SPLAT(x) (x)
#define FMA(a, b, c) ((a) * (b) + (c))
static float sum(vec v) { return v; }
#endif

/* 12 independent chains a_i = a_i * m + c: 12 FMAs in flight per iteration. */
static float chains(long iterations, float seed) {
  vec a0 = SPLAT(seed), a1 = SPLAT(seed + 1), a2 = SPLAT(seed + 2), a3 = SPLAT(seed + 3);
  vec a4 = SPLAT(seed + 4), a5 = SPLAT(seed + 5), a6 = SPLAT(seed + 6), a7 = SPLAT(seed + 7);
  vec a8 = SPLAT(seed + 8), a9 = SPLAT(seed + 9), a10 = SPLAT(seed + 10), a11 = SPLAT(seed + 11);
  const vec m = SPLAT(0.999999f), c = SPLAT(1e-7f);
  for (long i = 0; i < iterations; ++i) {
    a0 = FMA(a0, m, c); a1 = FMA(a1, m, c); a2 = FMA(a2, m, c); a3 = FMA(a3, m, c);
    a4 = FMA(a4, m, c); a5 = FMA(a5, m, c); a6 = FMA(a6, m, c); a7 = FMA(a7, m, c);
    a8 = FMA(a8, m, c); a9 = FMA(a9, m, c); a10 = FMA(a10, m, c); a11 = FMA(a11, m, c);
  }
  return sum(a0) + sum(a1) + sum(a2) + sum(a3) + sum(a4) + sum(a5) + sum(a6) + sum(a7) +
         sum(a8) + sum(a9) + sum(a10) + sum(a11);
}

#define TOTAL_T float
#define CHAIN_ARG(t) ((float)(t))
#define OPS_PER_ITERATION (2.0 * 12.0 * LANES)
""" + TIMING_MAIN


#: The VNNI measuring program: ``vnni_peak THREADS ITERATIONS`` prints ``<isa> <GOP/s>``.
VNNI_C = r"""
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <immintrin.h>

#if defined(__AVX512F__) && defined(__AVX512VNNI__)
#define ISA "avx512-vnni"
#define LANES 16
typedef __m512i vec;
#define SPLAT8(x) _mm512_set1_epi8(x)
#define SPLAT32(x) _mm512_set1_epi32(x)
#define DP(acc, u, s) _mm512_dpbusd_epi32(acc, u, s)
#define ADD(a, b) _mm512_add_epi32(a, b)
static int sum(vec v) { return _mm512_reduce_add_epi32(v); }
#elif defined(__AVXVNNI__)
#define ISA "avx-vnni"
#define LANES 8
typedef __m256i vec;
#define SPLAT8(x) _mm256_set1_epi8(x)
#define SPLAT32(x) _mm256_set1_epi32(x)
#define DP(acc, u, s) _mm256_dpbusd_avx_epi32(acc, u, s)
#define ADD(a, b) _mm256_add_epi32(a, b)
static int sum(vec v) { int t[8]; _mm256_storeu_si256((__m256i *)t, v); return t[0] + t[1] + t[2] + t[3] + t[4] + t[5] + t[6] + t[7]; }
#else
#error "no VNNI"
#endif

/* 12 independent chains a_i += u . s (u8 x s8, 4 per lane): 12 vpdpbusd in flight. */
static int chains(long iterations, int seed) {
  vec a0 = SPLAT32(seed), a1 = SPLAT32(seed + 1), a2 = SPLAT32(seed + 2), a3 = SPLAT32(seed + 3);
  vec a4 = SPLAT32(seed + 4), a5 = SPLAT32(seed + 5), a6 = SPLAT32(seed + 6), a7 = SPLAT32(seed + 7);
  vec a8 = SPLAT32(seed + 8), a9 = SPLAT32(seed + 9), a10 = SPLAT32(seed + 10), a11 = SPLAT32(seed + 11);
  vec u = SPLAT8(3), s = SPLAT8(-2);
  for (long i = 0; i < iterations; ++i) {
    __asm__ volatile("" : "+x"(u), "+x"(s)); /* operands unknown: no hoisting or folding */
    a0 = DP(a0, u, s); a1 = DP(a1, u, s); a2 = DP(a2, u, s); a3 = DP(a3, u, s);
    a4 = DP(a4, u, s); a5 = DP(a5, u, s); a6 = DP(a6, u, s); a7 = DP(a7, u, s);
    a8 = DP(a8, u, s); a9 = DP(a9, u, s); a10 = DP(a10, u, s); a11 = DP(a11, u, s);
  }
  return sum(ADD(ADD(ADD(a0, a1), ADD(a2, a3)), ADD(ADD(a4, a5), ADD(a6, a7)))) +
         sum(ADD(ADD(a8, a9), ADD(a10, a11)));
}

#define TOTAL_T int
#define CHAIN_ARG(t) (t)
#define OPS_PER_ITERATION (2.0 * 4.0 * LANES * 12.0)
""" + TIMING_MAIN


@dataclass
class Peak:
    """Measured FMA peak: ``isa`` (avx512, avx2-fma or scalar), GFLOP/s on one thread and
    on ``threads`` threads; ``error`` says why there is no figure."""

    isa: str = ""
    one_thread: Optional[float] = None
    all_threads: Optional[float] = None
    threads: int = 1
    error: Optional[str] = None

    def for_threads(self, n: int) -> Optional[float]:
        """The peak that ``n`` threads can reach (1 → one thread, else all threads)."""
        return self.one_thread if n <= 1 else self.all_threads


def measure_peak(threads: Optional[int] = None, iterations: int = 50_000_000,
                 cc: Optional[str] = None) -> Peak:
    """Build :data:`PEAK_C` with ``cc -O2 -march=native -fopenmp`` and run it on 1 and on
    ``threads`` (default: ``OMP_NUM_THREADS`` or the CPU count) threads. Never raises: a
    missing compiler or a failing run gives a Peak with ``error`` set."""
    threads = threads or int(os.environ.get("OMP_NUM_THREADS") or os.cpu_count() or 1)
    cc = cc or os.environ.get("CC", "cc")
    return _run_peak_program(PEAK_C, "peak", threads, iterations, cc, "peak program failed",
                             ("-ffp-contract=fast",))


def _run_peak_program(source: str, name: str, threads: int, iterations: int, cc: str,
                      error: str, flags: Sequence[str] = ()) -> Peak:
    """Build ``source`` with ``cc -O2 -march=native <flags> -fopenmp`` and run it on 1 and on
    ``threads`` threads (it prints ``<isa> <rate> <checksum>``); a Peak, with ``error``
    (prefixed by ``error``) when it cannot be built or run."""
    with tempfile.TemporaryDirectory(prefix=f"ireec-{name}-") as d:
        src, exe = Path(d) / f"{name}.c", Path(d) / name
        src.write_text(source)
        try:
            subprocess.run([cc, "-O2", "-march=native", *flags, "-fopenmp", str(src), "-o", str(exe)],
                           check=True, capture_output=True, text=True, timeout=120)
            out = {}
            for n in sorted({1, threads}):
                proc = subprocess.run([str(exe), str(n), str(iterations)], check=True,
                                      capture_output=True, text=True, timeout=300)
                isa, rate, _ = proc.stdout.split()
                out[n] = (isa, float(rate))
        except (OSError, subprocess.SubprocessError, ValueError) as e:
            err = getattr(e, "stderr", None) or str(e)
            return Peak(threads=threads, error=f"{error}: {str(err).strip()[:200]}")
    return Peak(isa=out[1][0], one_thread=out[1][1], all_threads=out[threads][1], threads=threads)


def measure_vnni_peak(threads: Optional[int] = None, iterations: int = 50_000_000,
                      cc: Optional[str] = None) -> Peak:
    """The int8 dot-product peak in GOP/s (:data:`VNNI_C`, module docstring) on 1 and on
    ``threads`` (default: ``OMP_NUM_THREADS`` or the CPU count) threads. Never raises: a CPU
    without AVX-512 VNNI or AVX-VNNI, a missing compiler or a failing run gives a Peak with
    ``error`` set."""
    threads = threads or int(os.environ.get("OMP_NUM_THREADS") or os.cpu_count() or 1)
    return _run_peak_program(VNNI_C, "vnni-peak", threads, iterations, cc or os.environ.get("CC", "cc"),
                             "VNNI peak program failed (no AVX-512 VNNI or AVX-VNNI?)")


if __name__ == "__main__":
    print(measure_peak())
    print(measure_vnni_peak())

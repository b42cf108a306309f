/* ireec_ukernel_igemm.h — the int8 GEMM micro-kernel family, ireec_uk_igemm (common part:
 * ireec_ukernel_common.h; included through ireec_ukernel.h).
 *
 * ireec_uk_igemm: C[M x N] (+)= sum over k < K of (A[m, k] - a_zp) * (B[k, n] - b_zp), A and B
 * 8-bit integers (signed, or unsigned with IREEC_UK_FLAG_LHS_UNSIGNED /
 * IREEC_UK_FLAG_RHS_UNSIGNED), C and the zero points int32, any strides: linalg.matmul /
 * batch_matmul on i8 with an i32 accumulator, and linalg.quantized_matmul (MLIR's
 * `(ext(a) - a_zp) * (ext(b) - b_zp)` summed in i32). Results are exact: every sum is the
 * one the plain loop nest computes in two's-complement int32 arithmetic (wrapping, never
 * saturating), whatever the order, since integer addition is associative modulo 2^32.
 *
 * The loop structure is ireec_uk_sgemm's (GotoBLAS/BLIS: K. Goto, R. van de Geijn, ACM TOMS
 * 34(3), 2008; F. Van Zee, R. van de Geijn, ACM TOMS 41(3), 2015): B packed per kc x nc
 * block into nr-wide panels, register tiles of mr x nr. The inner product instruction reads
 * several k at once, so the packed panels group k: B's panel holds, for each group of KG
 * consecutive k, the KG values of each of its nr columns next to each other (IREE's mmt4d
 * data tiling for i8, the "K0 = 4" tiles of its VNNI micro-kernels), and a row of A gives
 * KG values at once (one 32-bit broadcast):
 *
 *   AVX-512 VNNI:  vpdpbusd (_mm512_dpbusd_epi32), KG = 4: each int32 lane adds four
 *                  u8 x s8 products. Its first operand is unsigned, so B is packed as
 *                  u8 = b + 128 (the "+128" trick of oneDNN/FBGEMM: sum a * (b + 128) =
 *                  sum a * b + 128 * sum a), and A, signed, is the broadcast operand, read
 *                  in place (no packing: rows contiguous in k); 8 x 48 tile (24 zmm
 *                  accumulators: 3 B vectors, 8 broadcasts and 24 vpdpbusd per 4 k).
 *   AVX-VNNI:      the same on 256-bit vectors (_mm256_dpbusd_avx_epi32), 6 x 16 tile.
 *   AVX2:          vpmaddwd (_mm256_madd_epi16) on sign-extended 16-bit pairs, KG = 2: two
 *                  exact products per lane (vpmaddubsw, which sums u8 x s8 pairs into a
 *                  saturating int16, could overflow for s8 x s8 and is not used); A packed
 *                  as int16; 6 x 16 tile.
 *   portable C:    the same 16-bit pairs, KG = 2, on scalars, 4 x 4 tile: on a Cortex-M4
 *                  (arm-none-eabi-gcc -mcpu=cortex-m4, __ARM_FEATURE_DSP) each pair is one
 *                  SMLAD (__smlad: two 16 x 16 products added to a 32-bit accumulator),
 *                  2 x 4 tile (eight accumulators in core registers).
 *
 * Zero points and the bias: with a' = a - alpha the value the kernel multiplies for a
 * (alpha = 0, or 128 for an unsigned A on VNNI: packed as a - 128, signed) and b' = b + beta
 * the one for b (beta = 128 for a signed B on VNNI, else 0),
 *
 *   sum (a - az)(b - bz) = sum a'b' - q * sum a' + p * sum b' - K * p * q,
 *                          p = alpha - az, q = beta + bz
 *
 * (all modulo 2^32). Per kc block, the row sums of A (sum a', computed where A is packed,
 * or with vpdpbusd against ones when it is read in place, used when q != 0) and the column
 * sums of the packed B (sum b', computed once per packed block the same way, when p != 0: a
 * nonzero A zero point, or u8 A on VNNI) give one int32 correction per row and one per
 * column, which the register tile starts from:
 * acc = C (or 0) + (p * colsum - kc * p * q) - q * rowsum. Nothing else depends on the zero
 * points: a quantized matmul runs as fast as a plain one.
 *
 * Measured on this project's Xeon (Sapphire Rapids class, AVX-512 VNNI, gcc 12 -O3, one
 * thread, 1024^3 in 512 x 256 tiles, fastest of interleaved runs on the shared machine):
 * 3.7 ms, 580 GOP/s, about 90 % of benchmarks/peak.py's vpdpbusd peak; keeping the 24
 * accumulators in named variables rather than an array took it from 275 to 470 GOP/s (GCC
 * kept the array in memory), summing A's rows with vpdpbusd instead of a scalar loop from
 * 470 to 560.
 *
 * Which kernels run is decided as for ireec_uk_sgemm: on x86-64 with GCC/Clang at run time
 * (__builtin_cpu_supports; CPUID leaf 7.1 for AVX-VNNI) unless the file is compiled for a CPU
 * that has them (-march) or IREEC_NO_TARGET_CLONES is defined (then what -march gives);
 * IREEC_UK_IGEMM_FORCE_ISA (0 portable, 1 AVX2, 2 AVX-VNNI, 3 AVX-512 VNNI) fixes it for
 * tests. Rows left over by the register tile go through the 4-, 2- and 1-row kernels;
 * columns through narrower kernels (nr / 3, 2 nr / 3 on AVX-512) and, past a whole vector,
 * a copy of the tile. Nothing is allocated and no state is kept: calls from several threads
 * at once are safe. */
#ifndef IREEC_UKERNEL_IGEMM_H_
#define IREEC_UKERNEL_IGEMM_H_

#include "ireec_ukernel_common.h"

/* Flags of ireec_uk_igemm besides IREEC_UK_FLAG_ACCUMULATE: A's (B's) elements are uint8_t
 * (MLIR's arith.extui of i8 / ui8 operands), else int8_t. */
#define IREEC_UK_FLAG_LHS_UNSIGNED 128
#define IREEC_UK_FLAG_RHS_UNSIGNED 256

/* Largest register tile of any kernel below (rows, columns). */
#define IREEC_UK_IGEMM_MAX_MR 8
#define IREEC_UK_IGEMM_MAX_NR 48
/* Bytes of the `work` buffer ireec_uk_igemm needs for blocking sizes mc, nc, kc: a packed
 * kc x nc block of B and an mc x kc block of A (kc rounded up to a multiple of 4, whole
 * panels, up to 2 bytes per element), a correction per column and per row, and room to align
 * each to 64 bytes. */
#define IREEC_UK_IGEMM_WORK_BYTES(mc, nc, kc)                                              \
  (2 * (((kc) + 3) / 4 * 4) * ((nc) + IREEC_UK_IGEMM_MAX_NR)                               \
   + 2 * (((kc) + 3) / 4 * 4) * ((mc) + IREEC_UK_IGEMM_MAX_MR)                             \
   + 4 * ((nc) + IREEC_UK_IGEMM_MAX_NR) + 4 * ((mc) + IREEC_UK_IGEMM_MAX_MR) + 256)

/* ireec_uk_igemm: `static inline`, or external with IREEC_UKERNEL_PREBUILT or
 * IREEC_UKERNEL_LIBRARY_IGEMM (see ireec_ukernel_common.h). */
#if defined(IREEC_UKERNEL_PREBUILT) || defined(IREEC_UKERNEL_LIBRARY_IGEMM)
#define IREEC_UK_IGEMM_API IREEC_UK_EXTERN
#else
#define IREEC_UK_IGEMM_API static inline
#endif

#if defined(IREEC_UKERNEL_PREBUILT)
IREEC_UK_IGEMM_API void ireec_uk_igemm(int64_t M, int64_t N, int64_t K, const void *A,
                                       int64_t a_m, int64_t a_k, const void *B, int64_t b_k,
                                       int64_t b_n, int32_t *C, int64_t ldc, int32_t a_zp,
                                       int32_t b_zp, int64_t mc, int64_t nc, int64_t kc,
                                       void *work, int flags);
#else

#if defined(IREEC_UK_X86)
#include <immintrin.h>
/* AVX-VNNI intrinsics (_mm256_dpbusd_avx_epi32): GCC 11, Clang 12. */
#if (!defined(__clang__) && __GNUC__ >= 11) || (defined(__clang__) && __clang_major__ >= 12)
#define IREEC_UK_IGEMM_AVXVNNI 1
#include <cpuid.h>
#endif
#endif
#if defined(__GNUC__) && defined(__ARM_FEATURE_DSP) && defined(__ARM_FEATURE_SIMD32)
#include <arm_acle.h>
#define IREEC_UK_IGEMM_SMLAD 1
#endif

/* A register tile kernel: c[r*ldc + j] for r < MR, j < NV * lanes starts from
 * (accumulate ? c : 0) + colc[j] - rowc[r] and adds, for each of the kg groups of KG k, the
 * products of row r of a (a + r*lda elements: int8 on VNNI, int16 otherwise; KG values per
 * group, read as one 32-bit word) with the packed panel b (per group, NV * lanes columns of
 * KG values each). */
typedef void (*ireec_uk_igemm_tile_fn)(int64_t kg, const void *a, int64_t lda, const void *b,
                                       int32_t *c, int64_t ldc, int accumulate,
                                       const int32_t *colc, const int32_t *rowc);

#if defined(IREEC_UK_X86)
/* IREEC_UK_IGEMM_KERNEL(name, attributes, MR, NV): an MR x (NV * lanes) register tile, MR <= 8,
 * NV <= 3, on the vector operations IREEC_UK_IGEMM_VT (type), _W (lanes), _KG, _ES (bytes of
 * a packed element), _LOAD, _STORE, _SET1 (broadcast of an int32), _ADD, _SUB and _STEP(acc,
 * b, a) (the KG products of each lane added: vpdpbusd, or vpmaddwd + vpaddd) defined where it
 * is instantiated. The accumulators are named variables x<row><vector> (an array of them was
 * kept in memory by GCC 12: scalar replacement gives up past 1 KiB), the rows and vectors past
 * MR and NV dead code. */
#define IREEC_UK_IGEMM_ROWS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)
#define IREEC_UK_IGEMM_INIT(r)                                                             \
  if ((r) < mr_) {                                                                         \
    const IREEC_UK_IGEMM_VT rr_ = IREEC_UK_IGEMM_SET1(rowc[r]);                            \
    x##r##0 = IREEC_UK_IGEMM_SUB(                                                          \
        IREEC_UK_IGEMM_ADD(accumulate ? IREEC_UK_IGEMM_LOAD(c + (r) * ldc) : zero_, c0_), rr_); \
    if (nv_ > 1)                                                                           \
      x##r##1 = IREEC_UK_IGEMM_SUB(IREEC_UK_IGEMM_ADD(                                     \
          accumulate ? IREEC_UK_IGEMM_LOAD(c + (r) * ldc + IREEC_UK_IGEMM_W) : zero_, c1_), rr_); \
    if (nv_ > 2)                                                                           \
      x##r##2 = IREEC_UK_IGEMM_SUB(IREEC_UK_IGEMM_ADD(                                     \
          accumulate ? IREEC_UK_IGEMM_LOAD(c + (r) * ldc + 2 * IREEC_UK_IGEMM_W) : zero_, c2_), rr_); \
  }
#define IREEC_UK_IGEMM_MAC(r)                                                              \
  if ((r) < mr_) {                                                                         \
    int32_t s_;                                                                            \
    IREEC_UK_IGEMM_VT av_;                                                                 \
    memcpy(&s_, a + ((r) * lda + g * IREEC_UK_IGEMM_KG) * IREEC_UK_IGEMM_ES, 4);           \
    av_ = IREEC_UK_IGEMM_SET1(s_);                                                         \
    x##r##0 = IREEC_UK_IGEMM_STEP(x##r##0, b0_, av_);                                      \
    if (nv_ > 1) x##r##1 = IREEC_UK_IGEMM_STEP(x##r##1, b1_, av_);                         \
    if (nv_ > 2) x##r##2 = IREEC_UK_IGEMM_STEP(x##r##2, b2_, av_);                         \
  }
#define IREEC_UK_IGEMM_STORE_ROW(r)                                                        \
  if ((r) < mr_) {                                                                         \
    IREEC_UK_IGEMM_STORE(c + (r) * ldc, x##r##0);                                          \
    if (nv_ > 1) IREEC_UK_IGEMM_STORE(c + (r) * ldc + IREEC_UK_IGEMM_W, x##r##1);          \
    if (nv_ > 2) IREEC_UK_IGEMM_STORE(c + (r) * ldc + 2 * IREEC_UK_IGEMM_W, x##r##2);      \
  }
#define IREEC_UK_IGEMM_KERNEL(NAME, ATTRS, MR, NV)                                         \
  ATTRS __attribute__((unused)) static void NAME(int64_t kg, const void *a_, int64_t lda,  \
                                                 const void *b_, int32_t *c, int64_t ldc,  \
                                                 int accumulate, const int32_t *colc,      \
                                                 const int32_t *rowc) {                    \
    enum { mr_ = MR, nv_ = NV };                                                           \
    enum { step_ = NV * IREEC_UK_IGEMM_W * IREEC_UK_IGEMM_KG * IREEC_UK_IGEMM_ES };         \
    const unsigned char *a = (const unsigned char *)a_;                                    \
    const unsigned char *b = (const unsigned char *)b_;                                    \
    const IREEC_UK_IGEMM_VT zero_ = IREEC_UK_IGEMM_ZERO;                                    \
    const IREEC_UK_IGEMM_VT c0_ = IREEC_UK_IGEMM_LOAD(colc);                               \
    const IREEC_UK_IGEMM_VT c1_ = nv_ > 1 ? IREEC_UK_IGEMM_LOAD(colc + IREEC_UK_IGEMM_W) : zero_; \
    const IREEC_UK_IGEMM_VT c2_ = nv_ > 2 ? IREEC_UK_IGEMM_LOAD(colc + 2 * IREEC_UK_IGEMM_W) : zero_; \
    IREEC_UK_IGEMM_VT x00 = zero_, x01 = zero_, x02 = zero_, x10 = zero_, x11 = zero_;     \
    IREEC_UK_IGEMM_VT x12 = zero_, x20 = zero_, x21 = zero_, x22 = zero_, x30 = zero_;     \
    IREEC_UK_IGEMM_VT x31 = zero_, x32 = zero_, x40 = zero_, x41 = zero_, x42 = zero_;     \
    IREEC_UK_IGEMM_VT x50 = zero_, x51 = zero_, x52 = zero_, x60 = zero_, x61 = zero_;     \
    IREEC_UK_IGEMM_VT x62 = zero_, x70 = zero_, x71 = zero_, x72 = zero_;                  \
    int64_t g;                                                                             \
    IREEC_UK_IGEMM_ROWS(IREEC_UK_IGEMM_INIT)                                               \
    for (g = 0; g < kg; ++g) {                                                             \
      const unsigned char *bg_ = b + g * step_;                                            \
      const IREEC_UK_IGEMM_VT b0_ = IREEC_UK_IGEMM_LOAD(bg_);                              \
      const IREEC_UK_IGEMM_VT b1_ =                                                        \
          nv_ > 1 ? IREEC_UK_IGEMM_LOAD(bg_ + IREEC_UK_IGEMM_W * IREEC_UK_IGEMM_KG * IREEC_UK_IGEMM_ES) : zero_; \
      const IREEC_UK_IGEMM_VT b2_ =                                                        \
          nv_ > 2 ? IREEC_UK_IGEMM_LOAD(bg_ + 2 * IREEC_UK_IGEMM_W * IREEC_UK_IGEMM_KG * IREEC_UK_IGEMM_ES) : zero_; \
      IREEC_UK_IGEMM_ROWS(IREEC_UK_IGEMM_MAC)                                              \
    }                                                                                      \
    IREEC_UK_IGEMM_ROWS(IREEC_UK_IGEMM_STORE_ROW)                                          \
  }

/* AVX-512 VNNI: 16 int32 lanes, vpdpbusd on u8 (B, packed) x s8 (A, broadcast). */
#define IREEC_UK_IGEMM_VT __m512i
#define IREEC_UK_IGEMM_W 16
#define IREEC_UK_IGEMM_KG 4
#define IREEC_UK_IGEMM_ES 1
#define IREEC_UK_IGEMM_ZERO _mm512_setzero_si512()
#define IREEC_UK_IGEMM_LOAD(p) _mm512_loadu_si512((const void *)(p))
#define IREEC_UK_IGEMM_STORE(p, x) _mm512_storeu_si512((void *)(p), (x))
#define IREEC_UK_IGEMM_SET1(x) _mm512_set1_epi32(x)
#define IREEC_UK_IGEMM_ADD(x, y) _mm512_add_epi32((x), (y))
#define IREEC_UK_IGEMM_SUB(x, y) _mm512_sub_epi32((x), (y))
#define IREEC_UK_IGEMM_STEP(acc, b, a) _mm512_dpbusd_epi32((acc), (b), (a))
#define IREEC_UK_IGEMM_512(MR, NV)                                                         \
  IREEC_UK_IGEMM_KERNEL(ireec_uk_igemm_vnni512_##MR##x##NV,                                \
                        __attribute__((target("avx512f,avx512vnni,avx2"))), MR, NV)
IREEC_UK_IGEMM_512(8, 3)
IREEC_UK_IGEMM_512(8, 2)
IREEC_UK_IGEMM_512(8, 1)
IREEC_UK_IGEMM_512(4, 3)
IREEC_UK_IGEMM_512(4, 2)
IREEC_UK_IGEMM_512(4, 1)
IREEC_UK_IGEMM_512(2, 3)
IREEC_UK_IGEMM_512(2, 2)
IREEC_UK_IGEMM_512(2, 1)
IREEC_UK_IGEMM_512(1, 3)
IREEC_UK_IGEMM_512(1, 2)
IREEC_UK_IGEMM_512(1, 1)
#undef IREEC_UK_IGEMM_VT
#undef IREEC_UK_IGEMM_W
#undef IREEC_UK_IGEMM_KG
#undef IREEC_UK_IGEMM_ES
#undef IREEC_UK_IGEMM_ZERO
#undef IREEC_UK_IGEMM_LOAD
#undef IREEC_UK_IGEMM_STORE
#undef IREEC_UK_IGEMM_SET1
#undef IREEC_UK_IGEMM_ADD
#undef IREEC_UK_IGEMM_SUB
#undef IREEC_UK_IGEMM_STEP

/* 256-bit vectors: AVX2 (vpmaddwd on int16 pairs, KG 2) and AVX-VNNI (vpdpbusd, KG 4). */
#define IREEC_UK_IGEMM_VT __m256i
#define IREEC_UK_IGEMM_W 8
#define IREEC_UK_IGEMM_ZERO _mm256_setzero_si256()
#define IREEC_UK_IGEMM_LOAD(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define IREEC_UK_IGEMM_STORE(p, x) _mm256_storeu_si256((__m256i *)(void *)(p), (x))
#define IREEC_UK_IGEMM_SET1(x) _mm256_set1_epi32(x)
#define IREEC_UK_IGEMM_ADD(x, y) _mm256_add_epi32((x), (y))
#define IREEC_UK_IGEMM_SUB(x, y) _mm256_sub_epi32((x), (y))
#define IREEC_UK_IGEMM_KG 2
#define IREEC_UK_IGEMM_ES 2
#define IREEC_UK_IGEMM_STEP(acc, b, a) _mm256_add_epi32((acc), _mm256_madd_epi16((b), (a)))
#define IREEC_UK_IGEMM_AVX2(MR, NV)                                                        \
  IREEC_UK_IGEMM_KERNEL(ireec_uk_igemm_avx2_##MR##x##NV, __attribute__((target("avx2"))), MR, NV)
IREEC_UK_IGEMM_AVX2(6, 2)
IREEC_UK_IGEMM_AVX2(6, 1)
IREEC_UK_IGEMM_AVX2(4, 2)
IREEC_UK_IGEMM_AVX2(4, 1)
IREEC_UK_IGEMM_AVX2(2, 2)
IREEC_UK_IGEMM_AVX2(2, 1)
IREEC_UK_IGEMM_AVX2(1, 2)
IREEC_UK_IGEMM_AVX2(1, 1)
#undef IREEC_UK_IGEMM_KG
#undef IREEC_UK_IGEMM_ES
#undef IREEC_UK_IGEMM_STEP
#if defined(IREEC_UK_IGEMM_AVXVNNI)
#define IREEC_UK_IGEMM_KG 4
#define IREEC_UK_IGEMM_ES 1
#define IREEC_UK_IGEMM_STEP(acc, b, a) _mm256_dpbusd_avx_epi32((acc), (b), (a))
#define IREEC_UK_IGEMM_AVXVNNI_TILE(MR, NV)                                                \
  IREEC_UK_IGEMM_KERNEL(ireec_uk_igemm_avxvnni_##MR##x##NV,                                \
                        __attribute__((target("avx2,avxvnni"))), MR, NV)
IREEC_UK_IGEMM_AVXVNNI_TILE(6, 2)
IREEC_UK_IGEMM_AVXVNNI_TILE(6, 1)
IREEC_UK_IGEMM_AVXVNNI_TILE(4, 2)
IREEC_UK_IGEMM_AVXVNNI_TILE(4, 1)
IREEC_UK_IGEMM_AVXVNNI_TILE(2, 2)
IREEC_UK_IGEMM_AVXVNNI_TILE(2, 1)
IREEC_UK_IGEMM_AVXVNNI_TILE(1, 2)
IREEC_UK_IGEMM_AVXVNNI_TILE(1, 1)
#undef IREEC_UK_IGEMM_KG
#undef IREEC_UK_IGEMM_ES
#undef IREEC_UK_IGEMM_STEP
#endif
#undef IREEC_UK_IGEMM_VT
#undef IREEC_UK_IGEMM_W
#undef IREEC_UK_IGEMM_ZERO
#undef IREEC_UK_IGEMM_LOAD
#undef IREEC_UK_IGEMM_STORE
#undef IREEC_UK_IGEMM_SET1
#undef IREEC_UK_IGEMM_ADD
#undef IREEC_UK_IGEMM_SUB
#endif /* IREEC_UK_X86 */

/* The portable kernels: 16-bit pairs (KG = 2) on scalars, 4 (or 2 with SMLAD) columns. The
 * accumulators are uint32_t (wrapping adds, as the int32 sums of the loop nest). */
#if defined(IREEC_UK_IGEMM_SMLAD)
/* Two 16 x 16 products of the halves of x and y added to acc (SMLAD). */
#define IREEC_UK_IGEMM_DOT2(acc, x, y) ((uint32_t)__smlad((x), (y), (int32_t)(acc)))
#else
#define IREEC_UK_IGEMM_DOT2(acc, x, y)                                                     \
  ((acc) + (uint32_t)((int32_t)(int16_t)((x) & 0xffff) * (int16_t)((y) & 0xffff)           \
                      + (int32_t)(int16_t)((uint32_t)(x) >> 16) * (int16_t)((uint32_t)(y) >> 16)))
#endif
#define IREEC_UK_IGEMM_PORTABLE_TILE(MR)                                                   \
  __attribute__((unused)) static void ireec_uk_igemm_portable_##MR(                          \
      int64_t kg, const void *a_, int64_t lda, const void *b_, int32_t *c, int64_t ldc,    \
      int accumulate, const int32_t *colc, const int32_t *rowc) {                          \
    const int16_t *a = (const int16_t *)a_;                                                \
    const int16_t *b = (const int16_t *)b_;                                                \
    uint32_t acc[MR][4];                                                                   \
    int r, j, g;                                                                           \
    const int ng = (int)kg; /* a kc block's groups: 32-bit counters on 32-bit cores */      \
    for (r = 0; r < MR; ++r)                                                               \
      for (j = 0; j < 4; ++j)                                                              \
        acc[r][j] = (accumulate ? (uint32_t)c[r * ldc + j] : 0u) + (uint32_t)colc[j]       \
                    - (uint32_t)rowc[r];                                                   \
    for (g = 0; g < ng; ++g) {                                                             \
      int32_t bw[4];                                                                       \
      memcpy(bw, b + g * 8, sizeof(bw));                                                   \
      for (r = 0; r < MR; ++r) {                                                           \
        int32_t aw;                                                                        \
        memcpy(&aw, a + r * lda + 2 * g, sizeof(aw));                                      \
        for (j = 0; j < 4; ++j) acc[r][j] = IREEC_UK_IGEMM_DOT2(acc[r][j], aw, bw[j]);     \
      }                                                                                    \
    }                                                                                      \
    for (r = 0; r < MR; ++r)                                                               \
      for (j = 0; j < 4; ++j) c[r * ldc + j] = (int32_t)acc[r][j];                         \
  }
IREEC_UK_IGEMM_PORTABLE_TILE(4)
IREEC_UK_IGEMM_PORTABLE_TILE(2)
IREEC_UK_IGEMM_PORTABLE_TILE(1)

/* Sums of the mcur rows of kcur int8 values at a (row stride a_m, contiguous in k), modulo
 * 2^32 (exact: |sum| <= 128 * kcur). */
typedef void (*ireec_uk_igemm_row_sums_fn)(int64_t mcur, int64_t kcur, const int8_t *a,
                                           int64_t a_m, uint32_t *rsum);
static void ireec_uk_igemm_row_sums(int64_t mcur, int64_t kcur, const int8_t *a, int64_t a_m,
                                    uint32_t *rsum) {
  int64_t i, k;
  for (i = 0; i < mcur; ++i) {
    uint32_t s = 0;
    const int8_t *row = a + i * a_m;
    for (k = 0; k < kcur; ++k) s += (uint32_t)(int32_t)row[k];
    rsum[i] = s;
  }
}
#if defined(IREEC_UK_X86)
/* The same with vpdpbusd against a vector of ones (64 bytes of a row per instruction), four
 * rows at a time: the VNNI path reads A in place and needs these sums for every kc block (a
 * scalar, SSE2-vectorized loop took a fifth of a 1024^3 product). */
__attribute__((target("avx512f,avx512vnni,avx2"), unused)) static void ireec_uk_igemm_row_sums_512(
    int64_t mcur, int64_t kcur, const int8_t *a, int64_t a_m, uint32_t *rsum) {
  const __m512i ones = _mm512_set1_epi8(1);
  const int64_t kv = kcur - kcur % 64;
  int64_t i, k;
  for (i = 0; i + 4 <= mcur; i += 4) {
    const int8_t *r0 = a + i * a_m, *r1 = r0 + a_m, *r2 = r1 + a_m, *r3 = r2 + a_m;
    __m512i s0 = _mm512_setzero_si512(), s1 = s0, s2 = s0, s3 = s0;
    for (k = 0; k < kv; k += 64) {
      s0 = _mm512_dpbusd_epi32(s0, ones, _mm512_loadu_si512((const void *)(r0 + k)));
      s1 = _mm512_dpbusd_epi32(s1, ones, _mm512_loadu_si512((const void *)(r1 + k)));
      s2 = _mm512_dpbusd_epi32(s2, ones, _mm512_loadu_si512((const void *)(r2 + k)));
      s3 = _mm512_dpbusd_epi32(s3, ones, _mm512_loadu_si512((const void *)(r3 + k)));
    }
    rsum[i] = (uint32_t)_mm512_reduce_add_epi32(s0);
    rsum[i + 1] = (uint32_t)_mm512_reduce_add_epi32(s1);
    rsum[i + 2] = (uint32_t)_mm512_reduce_add_epi32(s2);
    rsum[i + 3] = (uint32_t)_mm512_reduce_add_epi32(s3);
    for (k = kv; k < kcur; ++k) {
      rsum[i] += (uint32_t)(int32_t)r0[k];
      rsum[i + 1] += (uint32_t)(int32_t)r1[k];
      rsum[i + 2] += (uint32_t)(int32_t)r2[k];
      rsum[i + 3] += (uint32_t)(int32_t)r3[k];
    }
  }
  if (i < mcur) ireec_uk_igemm_row_sums(mcur - i, kcur, a + i * a_m, a_m, rsum + i);
}
#if defined(IREEC_UK_IGEMM_AVXVNNI)
__attribute__((target("avx2,avxvnni"), unused)) static void ireec_uk_igemm_row_sums_avxvnni(
    int64_t mcur, int64_t kcur, const int8_t *a, int64_t a_m, uint32_t *rsum) {
  const __m256i ones = _mm256_set1_epi8(1);
  const int64_t kv = kcur - kcur % 32;
  int64_t i, k;
  for (i = 0; i < mcur; ++i) {
    const int8_t *row = a + i * a_m;
    __m256i s = _mm256_setzero_si256();
    __m128i h;
    for (k = 0; k < kv; k += 32)
      s = _mm256_dpbusd_avx_epi32(s, ones, _mm256_loadu_si256((const __m256i *)(const void *)(row + k)));
    h = _mm_add_epi32(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1));
    h = _mm_add_epi32(h, _mm_shuffle_epi32(h, 0x4e));
    h = _mm_add_epi32(h, _mm_shuffle_epi32(h, 0xb1));
    rsum[i] = (uint32_t)_mm_cvtsi128_si32(h);
    for (k = kv; k < kcur; ++k) rsum[i] += (uint32_t)(int32_t)row[k];
  }
}
#endif
#endif

/* Column sums of a packed panel of B (ireec_uk_igemm_pack_b): sums[j] for j < pw, the pw
 * columns' values over `groups` groups, modulo 2^32. Portable: KG = 4 (u8) or 2 (int16),
 * groups outermost so that the columns vectorize. */
typedef void (*ireec_uk_igemm_col_sums_fn)(int64_t groups, int64_t pw, const unsigned char *panel,
                                           uint32_t *sums);
static void ireec_uk_igemm_col_sums4(int64_t groups, int64_t pw, const unsigned char *panel,
                                     uint32_t *sums) {
  int64_t g, j;
  for (j = 0; j < pw; ++j) sums[j] = 0;
  for (g = 0; g < groups; ++g) {
    const unsigned char *row = panel + g * pw * 4;
    for (j = 0; j < pw; ++j)
      sums[j] += (uint32_t)row[4 * j] + row[4 * j + 1] + row[4 * j + 2] + row[4 * j + 3];
  }
}
static void ireec_uk_igemm_col_sums2(int64_t groups, int64_t pw, const unsigned char *panel,
                                     uint32_t *sums) {
  const int16_t *p = (const int16_t *)(const void *)panel;
  int64_t g, j;
  for (j = 0; j < pw; ++j) sums[j] = 0;
  for (g = 0; g < groups; ++g) {
    const int16_t *row = p + g * pw * 2;
    for (j = 0; j < pw; ++j) sums[j] += (uint32_t)((int32_t)row[2 * j] + row[2 * j + 1]);
  }
}
#if defined(IREEC_UK_X86)
/* The same on VNNI (pw a multiple of the lanes): vpdpbusd of each group's packed bytes
 * (u8) against ones, 16 columns per instruction; two chains. Without it, a nonzero zero point
 * of A cost a fifth of a 1024^3 product. */
__attribute__((target("avx512f,avx512vnni,avx2"), unused)) static void ireec_uk_igemm_col_sums_512(
    int64_t groups, int64_t pw, const unsigned char *panel, uint32_t *sums) {
  const __m512i ones = _mm512_set1_epi8(1);
  int64_t g, j;
  for (j = 0; j < pw; j += 16) {
    __m512i s0 = _mm512_setzero_si512(), s1 = s0;
    for (g = 0; g + 2 <= groups; g += 2) {
      s0 = _mm512_dpbusd_epi32(s0, _mm512_loadu_si512((const void *)(panel + (g * pw + j) * 4)), ones);
      s1 = _mm512_dpbusd_epi32(s1, _mm512_loadu_si512((const void *)(panel + ((g + 1) * pw + j) * 4)), ones);
    }
    if (g < groups)
      s0 = _mm512_dpbusd_epi32(s0, _mm512_loadu_si512((const void *)(panel + (g * pw + j) * 4)), ones);
    _mm512_storeu_si512((void *)(sums + j), _mm512_add_epi32(s0, s1));
  }
}
#if defined(IREEC_UK_IGEMM_AVXVNNI)
__attribute__((target("avx2,avxvnni"), unused)) static void ireec_uk_igemm_col_sums_avxvnni(
    int64_t groups, int64_t pw, const unsigned char *panel, uint32_t *sums) {
  const __m256i ones = _mm256_set1_epi8(1);
  int64_t g, j;
  for (j = 0; j < pw; j += 8) {
    __m256i s0 = _mm256_setzero_si256();
    for (g = 0; g < groups; ++g)
      s0 = _mm256_dpbusd_avx_epi32(s0, _mm256_loadu_si256((const __m256i *)(const void *)(panel + (g * pw + j) * 4)),
                                   ones);
    _mm256_storeu_si256((__m256i *)(void *)(sums + j), s0);
  }
}
#endif
#endif

/* The kernels of one ISA: register tile mr x nr, vector lanes w (nr / w kernels by width),
 * KG k per group, es bytes per packed element, whether B is packed as u8 = b + 128 (VNNI);
 * tile[i][nv - 1] the kernel of rows[i] rows and nv vectors (rows: mr, then 4, 2, 1). */
typedef struct {
  int isa, mr, nr, w, kg, es, biased;
  int rows[4];
  ireec_uk_igemm_tile_fn tile[4][3];
  ireec_uk_igemm_row_sums_fn row_sums; /* of an A read in place (VNNI) */
  ireec_uk_igemm_col_sums_fn col_sums; /* of a packed panel of B */
} ireec_uk_igemm_isa_t;

#define IREEC_UK_IGEMM_ISA_PORTABLE 0
#define IREEC_UK_IGEMM_ISA_AVX2 1
#define IREEC_UK_IGEMM_ISA_AVXVNNI 2
#define IREEC_UK_IGEMM_ISA_AVX512VNNI 3

/* Which kernels this CPU runs (see the top of this file). */
static inline int ireec_uk_igemm_cpu(void) {
#if defined(IREEC_UK_IGEMM_FORCE_ISA)
  return IREEC_UK_IGEMM_FORCE_ISA;
#elif defined(IREEC_UK_X86)
#if defined(__AVX512F__) && defined(__AVX512VNNI__)
  return IREEC_UK_IGEMM_ISA_AVX512VNNI;
#elif defined(__AVXVNNI__) && defined(IREEC_UK_IGEMM_AVXVNNI)
  return IREEC_UK_IGEMM_ISA_AVXVNNI;
#elif defined(IREEC_NO_TARGET_CLONES)
#if defined(__AVX2__)
  return IREEC_UK_IGEMM_ISA_AVX2;
#else
  return IREEC_UK_IGEMM_ISA_PORTABLE;
#endif
#else
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vnni"))
    return IREEC_UK_IGEMM_ISA_AVX512VNNI;
  if (!__builtin_cpu_supports("avx2")) return IREEC_UK_IGEMM_ISA_PORTABLE;
#if defined(IREEC_UK_IGEMM_AVXVNNI)
  {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (__get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx) && (eax & (1u << 4)))
      return IREEC_UK_IGEMM_ISA_AVXVNNI;
  }
#endif
  return IREEC_UK_IGEMM_ISA_AVX2;
#endif
#else
  return IREEC_UK_IGEMM_ISA_PORTABLE;
#endif
}

static void ireec_uk_igemm_select(ireec_uk_igemm_isa_t *isa) {
  int cpu = ireec_uk_igemm_cpu();
  memset(isa, 0, sizeof(*isa));
  isa->row_sums = ireec_uk_igemm_row_sums;
  isa->col_sums = ireec_uk_igemm_col_sums4;
#if defined(IREEC_UK_X86)
  if (cpu == IREEC_UK_IGEMM_ISA_AVX512VNNI) {
    static const ireec_uk_igemm_tile_fn t[4][3] = {
        {ireec_uk_igemm_vnni512_8x1, ireec_uk_igemm_vnni512_8x2, ireec_uk_igemm_vnni512_8x3},
        {ireec_uk_igemm_vnni512_4x1, ireec_uk_igemm_vnni512_4x2, ireec_uk_igemm_vnni512_4x3},
        {ireec_uk_igemm_vnni512_2x1, ireec_uk_igemm_vnni512_2x2, ireec_uk_igemm_vnni512_2x3},
        {ireec_uk_igemm_vnni512_1x1, ireec_uk_igemm_vnni512_1x2, ireec_uk_igemm_vnni512_1x3}};
    isa->isa = cpu; isa->mr = 8; isa->nr = 48; isa->w = 16; isa->kg = 4; isa->es = 1; isa->biased = 1;
    isa->rows[0] = 8; isa->rows[1] = 4; isa->rows[2] = 2; isa->rows[3] = 1;
    memcpy(isa->tile, t, sizeof(t));
    isa->row_sums = ireec_uk_igemm_row_sums_512;
    isa->col_sums = ireec_uk_igemm_col_sums_512;
    return;
  }
#if defined(IREEC_UK_IGEMM_AVXVNNI)
  if (cpu == IREEC_UK_IGEMM_ISA_AVXVNNI) {
    static const ireec_uk_igemm_tile_fn t[4][3] = {
        {ireec_uk_igemm_avxvnni_6x1, ireec_uk_igemm_avxvnni_6x2, NULL},
        {ireec_uk_igemm_avxvnni_4x1, ireec_uk_igemm_avxvnni_4x2, NULL},
        {ireec_uk_igemm_avxvnni_2x1, ireec_uk_igemm_avxvnni_2x2, NULL},
        {ireec_uk_igemm_avxvnni_1x1, ireec_uk_igemm_avxvnni_1x2, NULL}};
    isa->isa = cpu; isa->mr = 6; isa->nr = 16; isa->w = 8; isa->kg = 4; isa->es = 1; isa->biased = 1;
    isa->rows[0] = 6; isa->rows[1] = 4; isa->rows[2] = 2; isa->rows[3] = 1;
    memcpy(isa->tile, t, sizeof(t));
    isa->row_sums = ireec_uk_igemm_row_sums_avxvnni;
    isa->col_sums = ireec_uk_igemm_col_sums_avxvnni;
    return;
  }
#endif
  if (cpu == IREEC_UK_IGEMM_ISA_AVX2 || cpu == IREEC_UK_IGEMM_ISA_AVXVNNI) {
    static const ireec_uk_igemm_tile_fn t[4][3] = {
        {ireec_uk_igemm_avx2_6x1, ireec_uk_igemm_avx2_6x2, NULL},
        {ireec_uk_igemm_avx2_4x1, ireec_uk_igemm_avx2_4x2, NULL},
        {ireec_uk_igemm_avx2_2x1, ireec_uk_igemm_avx2_2x2, NULL},
        {ireec_uk_igemm_avx2_1x1, ireec_uk_igemm_avx2_1x2, NULL}};
    isa->isa = IREEC_UK_IGEMM_ISA_AVX2; isa->mr = 6; isa->nr = 16; isa->w = 8; isa->kg = 2; isa->es = 2;
    isa->col_sums = ireec_uk_igemm_col_sums2;
    isa->rows[0] = 6; isa->rows[1] = 4; isa->rows[2] = 2; isa->rows[3] = 1;
    memcpy(isa->tile, t, sizeof(t));
    return;
  }
#else
  (void)cpu;
#endif
  isa->isa = IREEC_UK_IGEMM_ISA_PORTABLE; isa->nr = 4; isa->w = 4; isa->kg = 2; isa->es = 2;
  isa->col_sums = ireec_uk_igemm_col_sums2;
#if defined(IREEC_UK_IGEMM_SMLAD)
  isa->mr = 2;
  isa->rows[0] = 2; isa->rows[1] = 2; isa->rows[2] = 2; isa->rows[3] = 1;
  isa->tile[0][0] = isa->tile[1][0] = isa->tile[2][0] = ireec_uk_igemm_portable_2;
#else
  isa->mr = 4;
  isa->rows[0] = 4; isa->rows[1] = 4; isa->rows[2] = 2; isa->rows[3] = 1;
  isa->tile[0][0] = isa->tile[1][0] = ireec_uk_igemm_portable_4;
  isa->tile[2][0] = ireec_uk_igemm_portable_2;
#endif
  isa->tile[3][0] = ireec_uk_igemm_portable_1;
}

/* Element (k, j) of B (strides b_k, b_n) as the kernels multiply it: for KG = 4 (VNNI) the
 * u8 byte b + 128 (signed B) or b (unsigned B), for KG = 2 the int16 value. */
#define IREEC_UK_IGEMM_B(b, off, uns) ((uns) ? (int32_t)((const uint8_t *)(b))[off] : (int32_t)((const int8_t *)(b))[off])

/* Packs the kcur x ncur block of B at b (strides b_k, b_n, in elements = bytes) into panels
 * of nr columns, the last one ceil(its width / w) * w wide: panel p at
 * bp + p * nr * kgr * es bytes (kgr = kcur rounded up to a multiple of kg), group g of it at
 * g * pw * kg * es: per column, its kg values (k = kg*g ... kg*g + kg-1), zero past kcur and
 * ncur. VNNI (kg 4): u8 bytes, b xor 0x80 for a signed B (= b + 128), b for an unsigned one;
 * a row-major B (b_n == 1) goes 16 columns of 4 rows at a time through two rounds of byte
 * and 16-bit interleaves (SSE2), a transposed one (b_k == 1) 4 bytes per column at a time.
 * Else (kg 2): int16 values. */
static void ireec_uk_igemm_pack_b(const ireec_uk_igemm_isa_t *isa, int64_t kcur, int64_t ncur,
                                  const void *b, int64_t b_k, int64_t b_n, int uns,
                                  unsigned char *bp) {
  const int nr = isa->nr, w = isa->w, kg = isa->kg;
  const int64_t kgr = (kcur + kg - 1) / kg * kg, groups = kgr / kg;
  const unsigned char *src = (const unsigned char *)b;
  int64_t jr, g, j;
  for (jr = 0; jr < ncur; jr += nr) {
    const int64_t wc = ncur - jr < nr ? ncur - jr : nr;
    const int64_t pw = (wc + w - 1) / w * w;
    if (kg == 4) {
      const unsigned char flip = uns ? 0 : 0x80;
      unsigned char *panel = bp + jr * kgr;
      for (g = 0; g < groups; ++g) {
        const int64_t k0 = 4 * g;
        unsigned char *dst = panel + g * pw * 4;
        j = 0;
#if defined(IREEC_UK_X86)
        if (b_n == 1 && k0 + 4 <= kcur) {
          const __m128i x80 = _mm_set1_epi8((char)flip);
          const unsigned char *s0 = src + k0 * b_k + jr;
          for (; j + 16 <= wc; j += 16) {
            const __m128i r0 = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)(s0 + j)), x80);
            const __m128i r1 = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)(s0 + b_k + j)), x80);
            const __m128i r2 = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)(s0 + 2 * b_k + j)), x80);
            const __m128i r3 = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)(s0 + 3 * b_k + j)), x80);
            const __m128i t0 = _mm_unpacklo_epi8(r0, r1), t1 = _mm_unpackhi_epi8(r0, r1);
            const __m128i t2 = _mm_unpacklo_epi8(r2, r3), t3 = _mm_unpackhi_epi8(r2, r3);
            _mm_storeu_si128((__m128i *)(void *)(dst + 4 * j), _mm_unpacklo_epi16(t0, t2));
            _mm_storeu_si128((__m128i *)(void *)(dst + 4 * j + 16), _mm_unpackhi_epi16(t0, t2));
            _mm_storeu_si128((__m128i *)(void *)(dst + 4 * j + 32), _mm_unpacklo_epi16(t1, t3));
            _mm_storeu_si128((__m128i *)(void *)(dst + 4 * j + 48), _mm_unpackhi_epi16(t1, t3));
          }
        }
#endif
        if (b_k == 1 && k0 + 4 <= kcur) {
          const uint32_t x = uns ? 0u : 0x80808080u;
          for (; j < wc; ++j) {
            uint32_t v;
            memcpy(&v, src + k0 + (jr + j) * b_n, 4);
            v ^= x;
            memcpy(dst + 4 * j, &v, 4);
          }
        }
        for (; j < pw; ++j) {
          int t;
          for (t = 0; t < 4; ++t)
            dst[4 * j + t] = (j < wc && k0 + t < kcur)
                                 ? (unsigned char)(src[(k0 + t) * b_k + (jr + j) * b_n] ^ flip)
                                 : 0;
        }
      }
    } else {
      int16_t *panel = (int16_t *)(void *)(bp + jr * kgr * 2);
      for (g = 0; g < groups; ++g) {
        const int64_t k0 = 2 * g;
        int16_t *dst = panel + g * pw * 2;
        for (j = 0; j < pw; ++j) {
          dst[2 * j] = (int16_t)(j < wc ? IREEC_UK_IGEMM_B(b, k0 * b_k + (jr + j) * b_n, uns) : 0);
          dst[2 * j + 1] = (int16_t)(j < wc && k0 + 1 < kcur
                                         ? IREEC_UK_IGEMM_B(b, (k0 + 1) * b_k + (jr + j) * b_n, uns)
                                         : 0);
        }
      }
    }
  }
}

/* colc[j] for the ncur columns of a block packed by ireec_uk_igemm_pack_b: p * (sum of the
 * packed values of column j) - kcur * p * q, modulo 2^32 (see the top of this file); the
 * sums per panel by the ISA's col_sums. */
static void ireec_uk_igemm_col_corrections(const ireec_uk_igemm_isa_t *isa, int64_t kcur,
                                           int64_t ncur, const unsigned char *bp, uint32_t p,
                                           uint32_t q, int32_t *colc) {
  const int nr = isa->nr, w = isa->w, kg = isa->kg;
  const int64_t kgr = (kcur + kg - 1) / kg * kg, groups = kgr / kg;
  int64_t jr, j;
  for (jr = 0; jr < ncur; jr += nr) {
    const int64_t wc = ncur - jr < nr ? ncur - jr : nr;
    const int64_t pw = (wc + w - 1) / w * w;
    uint32_t *sums = (uint32_t *)(void *)(colc + jr);
    if (p == 0) {
      for (j = 0; j < pw; ++j) colc[jr + j] = 0;
      continue;
    }
    isa->col_sums(groups, pw, bp + jr * kgr * isa->es, sums);
    for (j = 0; j < pw; ++j) sums[j] = p * sums[j] - (uint32_t)kcur * p * q;
  }
}

/* The mcur x kcur block of A at a (strides a_m, a_k) as the kernels read it, row-major with
 * row stride kgr (kcur rounded up to kg, zero-padded): VNNI int8 (a xor 0x80 = a - 128 for
 * an unsigned A), else int16. rsum[i] gets the sum of row i's values as stored. */
static void ireec_uk_igemm_pack_a(const ireec_uk_igemm_isa_t *isa, int64_t mcur, int64_t kcur,
                                  const void *a, int64_t a_m, int64_t a_k, int uns,
                                  unsigned char *ap, uint32_t *rsum) {
  const int64_t kgr = (kcur + isa->kg - 1) / isa->kg * isa->kg;
  int64_t i, k;
  for (i = 0; i < mcur; ++i) {
    uint32_t s = 0;
    if (isa->kg == 4) {
      int8_t *dst = (int8_t *)(void *)(ap + i * kgr);
      for (k = 0; k < kcur; ++k) {
        const int64_t off = i * a_m + k * a_k;
        const int32_t v = uns ? (int32_t)((const uint8_t *)a)[off] - 128 : (int32_t)((const int8_t *)a)[off];
        dst[k] = (int8_t)v;
        s += (uint32_t)v;
      }
      for (; k < kgr; ++k) dst[k] = 0;
    } else {
      int16_t *dst = (int16_t *)(void *)(ap + i * kgr * 2);
      for (k = 0; k < kcur; ++k) {
        const int64_t off = i * a_m + k * a_k;
        const int32_t v = uns ? (int32_t)((const uint8_t *)a)[off] : (int32_t)((const int8_t *)a)[off];
        dst[k] = (int16_t)v;
        s += (uint32_t)v;
      }
      for (; k < kgr; ++k) dst[k] = 0;
    }
    rsum[i] = s;
  }
}

static inline unsigned char *ireec_uk_igemm_align64(unsigned char *p) {
  return (unsigned char *)(((uintptr_t)p + 63) & ~(uintptr_t)63);
}

/* ireec_uk_igemm: C[i*ldc + j] (+)= sum over k < K of (A[i*a_m + k*a_k] - a_zp) *
 * (B[k*b_k + j*b_n] - b_zp) for i < M, j < N, in int32 modulo 2^32 (see the top of this
 * file); `+=` with IREEC_UK_FLAG_ACCUMULATE in `flags`, else `=` (C's initial contents are
 * never read). A and B hold int8_t, or uint8_t with IREEC_UK_FLAG_LHS_UNSIGNED /
 * IREEC_UK_FLAG_RHS_UNSIGNED. Blocked by mc x nc x kc (elements; kc is used as a multiple
 * of 4); `work` holds IREEC_UK_IGEMM_WORK_BYTES(mc, nc, kc) bytes. Sizes and strides are in
 * elements (bytes for A and B). */
IREEC_UK_IGEMM_API void ireec_uk_igemm(int64_t M, int64_t N, int64_t K, const void *A,
                                       int64_t a_m, int64_t a_k, const void *B, int64_t b_k,
                                       int64_t b_n, int32_t *C, int64_t ldc, int32_t a_zp,
                                       int32_t b_zp, int64_t mc, int64_t nc, int64_t kc,
                                       void *work, int flags) {
  ireec_uk_igemm_isa_t isa;
  int32_t edge[IREEC_UK_IGEMM_MAX_MR * IREEC_UK_IGEMM_MAX_NR];
  const int a_uns = (flags & IREEC_UK_FLAG_LHS_UNSIGNED) != 0;
  const int b_uns = (flags & IREEC_UK_FLAG_RHS_UNSIGNED) != 0;
  int mr, nr, w, kg, es;
  uint32_t p, q;
  unsigned char *bp, *colc_bytes, *ap, *rowc_bytes;
  int32_t *colc, *rowc;
  int64_t jc, pc, ic, jr, ir, i, j;
  if (M <= 0 || N <= 0) return;
  if (K <= 0) {  /* empty sums */
    if (!(flags & IREEC_UK_FLAG_ACCUMULATE))
      for (i = 0; i < M; ++i)
        for (j = 0; j < N; ++j) C[i * ldc + j] = 0;
    return;
  }
  ireec_uk_igemm_select(&isa);
  mr = isa.mr;
  nr = isa.nr;
  w = isa.w;
  kg = isa.kg;
  es = isa.es;
  /* The values multiplied are a - alpha and b + beta: p = alpha - a_zp, q = beta + b_zp. */
  p = (uint32_t)(isa.biased && a_uns ? 128 : 0) - (uint32_t)a_zp;
  q = (uint32_t)(isa.biased && !b_uns ? 128 : 0) + (uint32_t)b_zp;
  mc = mc < M ? mc : M;
  nc = nc < N ? nc : N;
  kc = kc < K ? kc : K;
  mc = mc >= mr ? mc - mc % mr : mc;
  nc = nc >= nr ? nc - nc % nr : nc;
  kc = kc >= 4 ? kc - kc % 4 : kc;
  {
    const int64_t kgr = (kc + 3) / 4 * 4;
    const int64_t ncp = (nc + nr - 1) / nr * nr;
    bp = ireec_uk_igemm_align64((unsigned char *)work);
    colc_bytes = ireec_uk_igemm_align64(bp + kgr * ncp * es);
    ap = ireec_uk_igemm_align64(colc_bytes + 4 * ncp);
    rowc_bytes = ireec_uk_igemm_align64(ap + kgr * mc * es);
    colc = (int32_t *)(void *)colc_bytes;
    rowc = (int32_t *)(void *)rowc_bytes;
  }
  for (jc = 0; jc < N; jc += nc) {
    const int64_t ncur = N - jc < nc ? N - jc : nc;
    for (pc = 0; pc < K; pc += kc) {
      const int64_t kcur = K - pc < kc ? K - pc : kc;
      const int64_t kgr = (kcur + kg - 1) / kg * kg, groups = kgr / kg;
      /* The first k block starts from C (accumulating) or zero, the later ones from C. */
      const int acc = pc > 0 || (flags & IREEC_UK_FLAG_ACCUMULATE);
      ireec_uk_igemm_pack_b(&isa, kcur, ncur, (const unsigned char *)B + pc * b_k + jc * b_n, b_k, b_n,
                            b_uns, bp);
      ireec_uk_igemm_col_corrections(&isa, kcur, ncur, bp, p, q, colc);
      for (ic = 0; ic < M; ic += mc) {
        const int64_t mcur = M - ic < mc ? M - ic : mc;
        /* VNNI reads a signed A in place (rows contiguous in k, whole groups of 4); else A
         * is packed (int16 pairs, an unsigned A biased to int8, a transposed A, a k tail). */
        const int direct = kg == 4 && !a_uns && a_k == 1 && kcur % 4 == 0;
        const unsigned char *ablk = direct ? (const unsigned char *)A + ic * a_m + pc : ap;
        const int64_t lda = direct ? a_m : kgr;
        uint32_t *rsum = (uint32_t *)(void *)rowc;
        if (direct) {
          if (q != 0) isa.row_sums(mcur, kcur, (const int8_t *)(const void *)ablk, a_m, rsum);
        } else {
          ireec_uk_igemm_pack_a(&isa, mcur, kcur, (const unsigned char *)A + ic * a_m + pc * a_k, a_m, a_k,
                                a_uns, ap, rsum);
        }
        for (i = 0; i < mcur; ++i) rowc[i] = q != 0 ? (int32_t)(q * rsum[i]) : 0;
        for (jr = 0; jr < ncur; jr += nr) {
          const int64_t wc = ncur - jr < nr ? ncur - jr : nr;
          const int nv = (int)((wc + w - 1) / w);
          const int64_t pw = (int64_t)nv * w;
          const unsigned char *b = bp + jr * kgr * es;
          for (ir = 0; ir < mcur; ir += mr) {
            const int64_t h = mcur - ir < mr ? mcur - ir : mr;
            /* Straight into C when the columns are whole vectors, else through a copy. */
            const int copy = pw != wc;
            int32_t *c = copy ? edge : C + (ic + ir) * ldc + jc + jr;
            const int64_t ldt = copy ? pw : ldc;
            int64_t r0 = 0;
            if (copy && acc)
              for (i = 0; i < h; ++i)
                for (j = 0; j < wc; ++j) edge[i * pw + j] = C[(ic + ir + i) * ldc + jc + jr + j];
            while (r0 < h) {
              int piece = 0;
              while (isa.rows[piece] > h - r0) ++piece;
              isa.tile[piece][nv - 1](groups, ablk + (ir + r0) * lda * es, lda, b, c + r0 * ldt, ldt, acc,
                                      colc + jr, rowc + ir + r0);
              r0 += isa.rows[piece];
            }
            if (copy)
              for (i = 0; i < h; ++i)
                for (j = 0; j < wc; ++j) C[(ic + ir + i) * ldc + jc + jr + j] = edge[i * pw + j];
          }
        }
      }
    }
  }
}

#endif /* IREEC_UKERNEL_PREBUILT */

#endif /* IREEC_UKERNEL_IGEMM_H_ */

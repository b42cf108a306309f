/* ireec_ukernel_sgemm.h — the sgemm micro-kernel family (common part: ireec_ukernel_common.h;
 * included through ireec_ukernel.h).
 *
 * ireec_uk_sgemm: C[M x N] += A[M x K] * B[K x N], f32, any strides (transposed operands are
 * read through their strides by the packing, not by separate code paths). The structure is
 * GotoBLAS/BLIS's (K. Goto, R. van de Geijn, "Anatomy of high-performance matrix
 * multiplication", ACM TOMS 34(3), 2008; F. Van Zee, R. van de Geijn, "BLIS", ACM TOMS 41(3),
 * 2015), as IREE's iree_uk_mmt4d applies it to data-tiled operands:
 *
 *   for jc < N step nc:            B[:, jc..] column block
 *     for pc < K step kc:          pack B[pc.., jc..] (kc x nc) into nr-wide panels
 *       for ic < M step mc:        A[ic.., pc..] (mc x kc) in place or packed
 *         for jr < nc step nr:     one B panel (kc x nr, stays in L1)
 *           for ir < mc step mr:   micro-kernel: C[mr x nr] += A panel * B panel
 *
 * The blocking sizes mc, nc, kc are the caller's (the compiler's lowering config records
 * them); the packed panels live in the caller's `work` buffer of
 * IREEC_UK_SGEMM_WORK_FLOATS(mc, nc, kc) floats, so the micro-kernel allocates nothing.
 * Operands are packed only where reading them in place is slower: A is read in place when its
 * rows are contiguous in k (a_k == 1; the micro-kernel broadcasts each A element from memory,
 * so mr row streams cost no more than one packed panel, and packing would copy the whole
 * A block once per kc step), else (a transposed A) packed into a row-major mc x kc block;
 * B is read in place when its rows are contiguous (b_n == 1) and its kc x nc block spans at
 * most IREEC_UK_SGEMM_DIRECT_B_BYTES (few pages, L2-resident: an implicit-GEMM convolution's
 * filter tap, the small matrices of attention), else packed into nr-wide panels. Measured on
 * AVX-512 (AMD EPYC, gcc 12 -O3), against packing both: a 3x3 conv 56x56x64 -> 64 1.79 ->
 * 0.92 ms, 128x64x64 6.6 -> 4.0 us, 512^3 1.18 -> 1.06 ms, 2048^3 118 -> 83 ms; faster on
 * the AVX2 and SSE2 kernels too. A block column of width nr/2 (N = 16 on AVX-512, a
 * convolution with 16 output channels) runs a half-width kernel (mr x nr/2) instead of a
 * zero-padded full tile through a copy: resnet-style 3x3 conv 8x8x16 -> 16, 14 -> 2.1 us.
 * B is packed row by row (each source row read once, in order, prefetched a few rows ahead)
 * with fixed-size copies of whole panel rows: packing panel by panel with a variable-size
 * memcpy per panel row (compiled to `rep movsq`) took a quarter of 2048^3 on one thread
 * (perf: 23 % in the packing against 75 % in the 8 x 32 kernel; now 5 % against 87 %).
 * With the faster packing of transposed operands below, ireec's matmul_2048 (medians of
 * interleaved runs, machine load 1.5): c 90.2 -> 72.6 ms, openmp (2 threads) 47.4 -> 37.8 ms;
 * 1024^3 10.3 -> 9.1 / 5.2 -> 4.6 ms, 512^3 1.11 -> 1.05 / 0.59 -> 0.56 ms, 256^3 and 128^3
 * unchanged.
 * The micro-kernel (register tile mr x nr) is chosen for the CPU the code runs on:
 * 8 x 32 with 16-lane vectors on AVX-512, 6 x 16 with 8 lanes on AVX2+FMA, 4 x 8 with
 * 4 lanes otherwise (SSE2, NEON, ...; the register counts of those ISAs: 32, 16, 16 vector
 * registers), 4 x 4 scalars without vector extensions. On x86-64 with GCC/Clang the choice is
 * made at run time (__builtin_cpu_supports) unless the file is compiled for a CPU that has
 * AVX-512 or AVX2 (-march=native: then that kernel is called directly) or
 * IREEC_NO_TARGET_CLONES is defined (baseline only). Rows left over by the register tile
 * go through a kernel of exactly that many rows where the ISA has one (AVX-512: 2..7 rows,
 * and 9..12 rows that take the last register tile's 8 with them), else a tile of mr/2 rows
 * and one-row kernels (a matrix-vector product computes one row, not mr). A 3x3 image's 9
 * pixels by 96 channels by 864 (a ResNet convolution) took 20.2 us as 8 rows + one row and
 * 15.5 us as one 9-row tile; 25 pixels by 48 by 432, 15.9 -> 13.1 us (gcc 12, AVX-512, one
 * thread, the dispatch alone). With few rows (IREEC_UK_SGEMM_DIRECT_B_ROWS) B's full-width
 * panels are read in place, unpacked.
 *
 * Every C element sees its products in the order k = 0, 1, ..., K-1 added to its initial
 * value (the accumulators are loaded from C, or start at +0.0 when the caller's zero fill
 * was dropped: the same sums), as in the plain loop nest; under
 * -ffp-contract=off the results are therefore bit-identical to it, and with contraction
 * each step is one fused multiply-add. */
#ifndef IREEC_UKERNEL_SGEMM_H_
#define IREEC_UKERNEL_SGEMM_H_

#include "ireec_ukernel_common.h"

/* Largest register tile of any micro-kernel below (rows, columns). */
#define IREEC_UK_SGEMM_MAX_MR 8
#define IREEC_UK_SGEMM_MAX_NR 32
/* Most rows of the kernels of exactly r rows (ireec_uk_sgemm_isa_t.rows): a register tile
 * and the half tile of rows a block leaves below it, computed as one taller tile. */
#define IREEC_UK_SGEMM_MAX_ROWS (IREEC_UK_SGEMM_MAX_MR + IREEC_UK_SGEMM_MAX_MR / 2)
/* Floats of the `work` buffer ireec_uk_sgemm needs for blocking sizes mc, nc, kc: a packed
 * kc x nc block of B and an mc x kc block of A, each rounded up to whole panels, plus room
 * to align them to 64 bytes. */
#define IREEC_UK_SGEMM_WORK_FLOATS(mc, nc, kc)                                             \
  ((kc) * ((nc) + IREEC_UK_SGEMM_MAX_NR) + (kc) * ((mc) + IREEC_UK_SGEMM_MAX_MR) + 32)

/* ireec_uk_sgemm_fused: `static inline`, or external with IREEC_UKERNEL_PREBUILT or
 * IREEC_UKERNEL_LIBRARY_SGEMM (see ireec_ukernel_common.h). */
#if defined(IREEC_UKERNEL_PREBUILT) || defined(IREEC_UKERNEL_LIBRARY_SGEMM)
#define IREEC_UK_SGEMM_API IREEC_UK_EXTERN
#else
#define IREEC_UK_SGEMM_API static inline
#endif

#if defined(IREEC_UKERNEL_PREBUILT)
IREEC_UK_SGEMM_API void ireec_uk_sgemm_fused(int64_t M, int64_t N, int64_t K, const float *A,
                                  int64_t a_m, int64_t a_k, const float *B, int64_t b_k,
                                  int64_t b_n, float *C, int64_t ldc, int64_t mc,
                                  int64_t nc, int64_t kc, float *work, int flags,
                                  const float *bias, int64_t bias_i, int64_t bias_j,
                                  float lo, float hi);
#else


/* A micro-kernel: C[mr x nr] (row stride ldc) += sum over k < kc of a[r*lda + k] * b[k*ldb + c],
 * a A itself (rows contiguous in k) or a packed row-major block (lda = kc), b a packed panel
 * (ldb = nr) or B itself. The sums start from C with accumulate = 1; from zero with 0, and
 * from the bias of `ep` (ep->bias[r*bias_i + c*bias_j]) with 2, C then only written (`=`
 * instead of `+=`); with an epilogue in `ep` (not NULL, epilogue flags set) the tile goes
 * through it on its way to C. */
typedef void (*ireec_uk_sgemm_tile_fn)(int64_t kc, const float *a, int64_t lda, const float *b,
                                       int64_t ldb, float *c, int64_t ldc, int accumulate,
                                       const ireec_uk_epilogue_t *ep);
/* A one-row kernel for the rows of a partial register tile (fewer than mr rows left, e.g. a
 * matrix-vector product): c[0 .. nr) += sum over k < kc of a[k*lda] * b[k*ldb + c], started
 * and finished as the tile kernel's row 0. */
typedef void (*ireec_uk_sgemm_row_fn)(int64_t kc, const float *a, int64_t lda, const float *b,
                                      int64_t ldb, float *c, int accumulate,
                                      const ireec_uk_epilogue_t *ep);
/* The kernels for one ISA and their register tile. */
typedef struct {
  int mr, nr;
  ireec_uk_sgemm_tile_fn tile;
  ireec_uk_sgemm_row_fn row;
  /* The same for half a register tile's width (mr x nr/2, 1 x nr/2), for a B block whose
   * width is nr/2 (a narrow matrix, an implicit-GEMM convolution with few output channels):
   * no work on zero padding, B read in place. NULL where there is none. */
  ireec_uk_sgemm_tile_fn half;
  ireec_uk_sgemm_row_fn half_row;
  /* And for a quarter (mr x nr/4): the columns a block's last half-width piece leaves (an
   * output of 24 channels is 16 + 8 on AVX-512, not 16 + a zero-padded copy of 16). */
  ireec_uk_sgemm_tile_fn quarter;
  ireec_uk_sgemm_row_fn quarter_row;
  /* Tiles of mr/2 rows (full, half and quarter width) for the rows a block leaves below a
   * whole register tile (an output of 12 channels is 8 + 4 rows, a 3x3 image's 9 pixels
   * 8 + 1): at least mr/2 of them go through one of these rather than a one-row kernel
   * each, which loads every B vector again per row. NULL where there are none. */
  ireec_uk_sgemm_tile_fn short_tile, short_half, short_quarter;
  /* Kernels of exactly r rows (rows[0][r] full width, rows[1][r] half), for the rows a block
   * leaves: a 3x3 image's 9 pixels are one 9-row tile instead of 8 rows and the one-row
   * kernel, whose two accumulators wait on each other's FMA latency (half the time of the
   * 8-row tile for an eighth of its work); 2..7 rows one tile instead of a short tile and
   * one-row kernels, each loading B again. NULL entries (or rows NULL) where there is none:
   * then register tiles, a short tile and one-row kernels. */
  const ireec_uk_sgemm_tile_fn (*rows)[IREEC_UK_SGEMM_MAX_ROWS + 1];
} ireec_uk_sgemm_isa_t;

#if defined(IREEC_UK_VECTOR) || defined(IREEC_UK_X86)
/* IREEC_UK_EPILOGUE_CASES(CALL, NAME): CALL(F, NAME) for the epilogue flags F that the tile kernels
 * compile a copy of their body for (F a constant there: no flag tests, accumulators stay in
 * registers): none, and the bias and relu / relu6 forms torch-mlir and StableHLO lower to
 * (cmpf + select: CLAMP_LO | CLAMP_HI; arith.maximumf / minimumf: with LO_KEEPS_NAN), with
 * the bias added (JAX; torch-mlir's convolution + bias + relu6, MobileNetV2's 1x1
 * convolutions: that copy took a 48 x 1024 x 8 one from 20.2 to 17.6 us, the generic
 * copy keeping its accumulators in memory) or started from (torch-mlir). Each copy costs compile time: only the
 * AVX-512 and AVX2 tiles that most of the work goes through have them (8x32, 8x16, 6x16;
 * with them 4x8 too, a module took 0.45 s more to compile with GCC 12). */
#define IREEC_UK_EPILOGUE_CASES(CALL, NAME)                                                \
  CALL(0, NAME)                                                                            \
  CALL(IREEC_UK_FLAG_BIAS, NAME)                                                           \
  CALL(IREEC_UK_FLAG_CLAMP_LO | IREEC_UK_FLAG_CLAMP_HI, NAME)                              \
  CALL(IREEC_UK_FLAG_CLAMP_LO | IREEC_UK_FLAG_LO_KEEPS_NAN | IREEC_UK_FLAG_CLAMP_HI, NAME) \
  CALL(IREEC_UK_FLAG_BIAS | IREEC_UK_FLAG_CLAMP_LO | IREEC_UK_FLAG_CLAMP_HI, NAME)          \
  CALL(IREEC_UK_FLAG_BIAS | IREEC_UK_FLAG_CLAMP_LO | IREEC_UK_FLAG_LO_KEEPS_NAN, NAME)     \
  CALL(IREEC_UK_FLAG_BIAS | IREEC_UK_FLAG_CLAMP_LO | IREEC_UK_FLAG_LO_KEEPS_NAN | IREEC_UK_FLAG_CLAMP_HI, NAME)
/* No copies but the generic one (the narrower tiles: fewer calls, less code to compile). */
#define IREEC_UK_NO_EPILOGUE_CASES(CALL, NAME)
/* One case of a tile kernel's switch over its epilogue flags (see IREEC_UK_SGEMM_TILE). */
#define IREEC_UK_TILE_CASE(F, NAME)                                                        \
  case (F): NAME##_body(kc, a, lda, b, ldb, c, ldc, accumulate, ep, (F)); return;
/* IREEC_UK_SGEMM_TILE(name, attributes, vector type, lanes, MR, NV, cases): a micro-kernel
 * with an MR x (NV * lanes) register tile, with copies of its body for the epilogues `cases`
 * lists (IREEC_UK_EPILOGUE_CASES or IREEC_UK_NO_EPILOGUE_CASES). The constant loops are unrolled by the compiler and the
 * accumulators kept in vector registers; `acc += b * a` contracts into FMA unless
 * -ffp-contract=off. */
#define IREEC_UK_SGEMM_TILE(NAME, ATTRS, VT, W, MR, NV, CASES)                             \
  IREEC_UK_SGEMM_TILE_BODY(NAME, ATTRS, VT, W, MR, NV)                                     \
  /* Copies of the body: the common epilogues (IREEC_UK_EPILOGUE_CASES) with their flags as \
   * constants, the rest testing them, in a function of their own; and, in the kernel     \
   * itself, one without an epilogue, compiled as if there were none (laid out as without \
   * the others: a plain 3x3 convolution lost 2% when they shared its function). */       \
  ATTRS __attribute__((noinline, unused)) static void NAME##_ep(                            \
      int64_t kc, const float *a, int64_t lda, const float *b, int64_t ldb, float *c,      \
      int64_t ldc, int accumulate, const ireec_uk_epilogue_t *ep) {                        \
    switch (ep->flags & IREEC_UK_FLAG_EPILOGUE) {                                          \
      CASES(IREEC_UK_TILE_CASE, NAME)                                                      \
      default: NAME##_body(kc, a, lda, b, ldb, c, ldc, accumulate, ep, ep->flags);         \
    }                                                                                      \
  }                                                                                        \
  ATTRS __attribute__((unused)) static void NAME(int64_t kc, const float *a, int64_t lda,  \
                         const float *b, int64_t ldb, float *c, int64_t ldc, int accumulate, \
                         const ireec_uk_epilogue_t *ep) {                                  \
    if (ep == NULL) NAME##_body(kc, a, lda, b, ldb, c, ldc, accumulate, NULL, 0);          \
    else NAME##_ep(kc, a, lda, b, ldb, c, ldc, accumulate, ep);                            \
  }
/* IREEC_UK_SGEMM_TILE_LEAN(name, attributes, vector type, lanes, MR, NV): the same kernel as
 * one copy of its body, testing `ep` and its flags after the k loop (half the compile time:
 * for the kernels of few calls, ireec_uk_sgemm_isa_t.rows). */
#define IREEC_UK_SGEMM_TILE_LEAN(NAME, ATTRS, VT, W, MR, NV)                               \
  IREEC_UK_SGEMM_TILE_BODY(NAME, ATTRS, VT, W, MR, NV)                                     \
  ATTRS __attribute__((unused)) static void NAME(int64_t kc, const float *a, int64_t lda,  \
                         const float *b, int64_t ldb, float *c, int64_t ldc, int accumulate, \
                         const ireec_uk_epilogue_t *ep) {                                  \
    NAME##_body(kc, a, lda, b, ldb, c, ldc, accumulate, ep, ep != NULL ? ep->flags : 0);   \
  }
/* The body of IREEC_UK_SGEMM_TILE(_LEAN): ep_flags the epilogue's flags (0: none). */
#define IREEC_UK_SGEMM_TILE_BODY(NAME, ATTRS, VT, W, MR, NV)                               \
  ATTRS __attribute__((always_inline, unused)) static inline void NAME##_body(             \
      int64_t kc, const float *a, int64_t lda, const float *b, int64_t ldb, float *c,      \
      int64_t ldc, int accumulate, const ireec_uk_epilogue_t *ep, const int ep_flags) {    \
    VT acc[MR][NV];                                                                        \
    int r, v;                                                                              \
    int64_t k;                                                                             \
    IREEC_UK_UNROLL for (r = 0; r < MR; ++r)                                               \
      IREEC_UK_UNROLL for (v = 0; v < NV; ++v) {                                           \
        if (ep != NULL && accumulate == 2) {                                               \
          if (ep->bias_j) memcpy(&acc[r][v], ep->bias + r * ep->bias_i + v * W, sizeof(VT)); \
          else IREEC_UK_SPLAT(VT, W, acc[r][v], ep->bias[r * ep->bias_i])                  \
        } else if (accumulate) {                                                           \
          memcpy(&acc[r][v], c + r * ldc + v * W, sizeof(VT));                             \
        } else {                                                                           \
          acc[r][v] = (VT){0};                                                             \
        }                                                                                  \
      }                                                                                    \
    for (k = 0; k < kc; ++k) {                                                             \
      VT bv[NV];                                                                           \
      IREEC_UK_UNROLL for (v = 0; v < NV; ++v) memcpy(&bv[v], b + k * ldb + v * W, sizeof(VT)); \
      IREEC_UK_UNROLL for (r = 0; r < MR; ++r) {                                           \
        const float s = a[r * lda + k];                                                    \
        IREEC_UK_UNROLL for (v = 0; v < NV; ++v) acc[r][v] += bv[v] * s;                   \
      }                                                                                    \
    }                                                                                      \
    if (ep != NULL && (ep_flags & IREEC_UK_FLAG_EPILOGUE)) {                               \
      IREEC_UK_EPILOGUE_SETUP(VT, W, ep)                                                   \
      IREEC_UK_EPILOGUE_N(VT, &acc[0][0], MR * NV, ep_flags,                               \
                          ep->bias + (n_ / NV) * ep->bias_i + (n_ % NV) * W * ep->bias_j)  \
    }                                                                                      \
    IREEC_UK_UNROLL for (r = 0; r < MR; ++r)                                               \
      IREEC_UK_UNROLL for (v = 0; v < NV; ++v) memcpy(c + r * ldc + v * W, &acc[r][v], sizeof(VT)); \
  }
/* IREEC_UK_SGEMM_ROW(name, attributes, vector type, lanes, NV): the one-row kernel of a
 * 1 x (NV * lanes) tile. */
#define IREEC_UK_SGEMM_ROW(NAME, ATTRS, VT, W, NV)                                         \
  ATTRS __attribute__((always_inline, unused)) static inline void NAME##_body(             \
      int64_t kc, const float *a, int64_t lda, const float *b, int64_t ldb, float *c,      \
      int accumulate, const ireec_uk_epilogue_t *ep) {                                     \
    VT acc[NV];                                                                            \
    int v;                                                                                 \
    int64_t k;                                                                             \
    for (v = 0; v < NV; ++v) {                                                             \
      if (ep != NULL && accumulate == 2) {                                                 \
        if (ep->bias_j) memcpy(&acc[v], ep->bias + v * W, sizeof(VT));                     \
        else IREEC_UK_SPLAT(VT, W, acc[v], ep->bias[0])                                    \
      } else if (accumulate) {                                                             \
        memcpy(&acc[v], c + v * W, sizeof(VT));                                            \
      } else {                                                                             \
        acc[v] = (VT){0};                                                                  \
      }                                                                                    \
    }                                                                                      \
    for (k = 0; k < kc; ++k) {                                                             \
      const float s = a[k * lda];                                                          \
      for (v = 0; v < NV; ++v) {                                                           \
        VT bv;                                                                             \
        memcpy(&bv, b + k * ldb + v * W, sizeof(VT));                                      \
        acc[v] += bv * s;                                                                  \
      }                                                                                    \
    }                                                                                      \
    if (ep != NULL && (ep->flags & IREEC_UK_FLAG_EPILOGUE)) {                              \
      IREEC_UK_EPILOGUE_SETUP(VT, W, ep)                                                   \
      IREEC_UK_EPILOGUE_N(VT, acc, NV, ep->flags, ep->bias + n_ * W * ep->bias_j)         \
    }                                                                                      \
    for (v = 0; v < NV; ++v) memcpy(c + v * W, &acc[v], sizeof(VT));                       \
  }                                                                                        \
  ATTRS __attribute__((unused)) static void NAME(int64_t kc, const float *a, int64_t lda,  \
                         const float *b, int64_t ldb, float *c, int accumulate,            \
                         const ireec_uk_epilogue_t *ep) {                                  \
    if (ep == NULL) NAME##_body(kc, a, lda, b, ldb, c, accumulate, NULL);                  \
    else NAME##_body(kc, a, lda, b, ldb, c, accumulate, ep);                               \
  }
IREEC_UK_SGEMM_TILE(ireec_uk_sgemm_tile_4x8, , ireec_uk_v4f, 4, 4, 2, IREEC_UK_NO_EPILOGUE_CASES)
IREEC_UK_SGEMM_ROW(ireec_uk_sgemm_row_8, , ireec_uk_v4f, 4, 2)
IREEC_UK_SGEMM_TILE(ireec_uk_sgemm_tile_4x4, , ireec_uk_v4f, 4, 4, 1, IREEC_UK_NO_EPILOGUE_CASES)
IREEC_UK_SGEMM_ROW(ireec_uk_sgemm_row_4, , ireec_uk_v4f, 4, 1)
#else
/* 4 x 4 scalar accumulators (16 of the 32 single-precision registers of a Cortex-M4F); the
 * names are the vector kernels' (ireec_uk_sgemm_select gives nr = 4 here). */
static void ireec_uk_sgemm_tile_4x8(int64_t kc, const float *a, int64_t lda, const float *b,
                                    int64_t ldb, float *c, int64_t ldc, int accumulate,
                                    const ireec_uk_epilogue_t *ep) {
  float acc[4][4];
  int r, j;
  int64_t k;
  for (r = 0; r < 4; ++r)
    for (j = 0; j < 4; ++j)
      acc[r][j] = accumulate == 1 ? c[r * ldc + j]
                  : accumulate == 0 ? 0.0f : ep->bias[r * ep->bias_i + j * ep->bias_j];
  for (k = 0; k < kc; ++k)
    for (r = 0; r < 4; ++r)
      for (j = 0; j < 4; ++j) acc[r][j] += a[r * lda + k] * b[k * ldb + j];
  for (r = 0; r < 4; ++r)
    for (j = 0; j < 4; ++j) c[r * ldc + j] = acc[r][j];
  if (ep != NULL) ireec_uk_epilogue_block(ep, c, ldc, 4, 4);
}
static void ireec_uk_sgemm_row_8(int64_t kc, const float *a, int64_t lda, const float *b,
                                 int64_t ldb, float *c, int accumulate,
                                 const ireec_uk_epilogue_t *ep) {
  float acc[4];
  int j;
  int64_t k;
  for (j = 0; j < 4; ++j) acc[j] = accumulate == 1 ? c[j] : accumulate == 0 ? 0.0f : ep->bias[j * ep->bias_j];
  for (k = 0; k < kc; ++k)
    for (j = 0; j < 4; ++j) acc[j] += a[k * lda] * b[k * ldb + j];
  for (j = 0; j < 4; ++j) c[j] = acc[j];
  if (ep != NULL) ireec_uk_epilogue_block(ep, c, 0, 1, 4);
}
#endif

#if defined(IREEC_UK_X86)
IREEC_UK_SGEMM_TILE(ireec_uk_sgemm_tile_6x16, __attribute__((target("avx2,fma"))), ireec_uk_v8f, 8, 6, 2,
                    IREEC_UK_EPILOGUE_CASES)
IREEC_UK_SGEMM_ROW(ireec_uk_sgemm_row_16, __attribute__((target("avx2,fma"))), ireec_uk_v8f, 8, 2)
IREEC_UK_SGEMM_TILE(ireec_uk_sgemm_tile_6x8, __attribute__((target("avx2,fma"))), ireec_uk_v8f, 8, 6, 1,
                    IREEC_UK_NO_EPILOGUE_CASES)
IREEC_UK_SGEMM_TILE(ireec_uk_sgemm_tile_6x4, __attribute__((target("avx2,fma"))), ireec_uk_v4f, 4, 6, 1,
                    IREEC_UK_NO_EPILOGUE_CASES)
IREEC_UK_SGEMM_ROW(ireec_uk_sgemm_row_8v, __attribute__((target("avx2,fma"))), ireec_uk_v8f, 8, 1)
IREEC_UK_SGEMM_TILE(ireec_uk_sgemm_tile_3x16, __attribute__((target("avx2,fma"))), ireec_uk_v8f, 8, 3, 2,
                    IREEC_UK_NO_EPILOGUE_CASES)
IREEC_UK_SGEMM_TILE(ireec_uk_sgemm_tile_3x8, __attribute__((target("avx2,fma"))), ireec_uk_v8f, 8, 3, 1,
                    IREEC_UK_NO_EPILOGUE_CASES)
IREEC_UK_SGEMM_TILE(ireec_uk_sgemm_tile_3x4, __attribute__((target("avx2,fma"))), ireec_uk_v4f, 4, 3, 1,
                    IREEC_UK_NO_EPILOGUE_CASES)
IREEC_UK_SGEMM_TILE(ireec_uk_sgemm_tile_4x32,
                    __attribute__((target("avx512f,avx512vl,avx2,fma"))), ireec_uk_v16f, 16, 4, 2,
                    IREEC_UK_NO_EPILOGUE_CASES)
IREEC_UK_SGEMM_TILE(ireec_uk_sgemm_tile_4x16,
                    __attribute__((target("avx512f,avx512vl,avx2,fma"))), ireec_uk_v16f, 16, 4, 1,
                    IREEC_UK_NO_EPILOGUE_CASES)
IREEC_UK_SGEMM_TILE(ireec_uk_sgemm_tile_4x8v,
                    __attribute__((target("avx512f,avx512vl,avx2,fma"))), ireec_uk_v8f, 8, 4, 1,
                    IREEC_UK_NO_EPILOGUE_CASES)
IREEC_UK_SGEMM_TILE(ireec_uk_sgemm_tile_8x32,
                    __attribute__((target("avx512f,avx512vl,avx2,fma"))), ireec_uk_v16f, 16, 8, 2,
                    IREEC_UK_EPILOGUE_CASES)
IREEC_UK_SGEMM_ROW(ireec_uk_sgemm_row_32, __attribute__((target("avx512f,avx512vl,avx2,fma"))),
                   ireec_uk_v16f, 16, 2)
IREEC_UK_SGEMM_TILE(ireec_uk_sgemm_tile_8x8, __attribute__((target("avx512f,avx512vl,avx2,fma"))),
                    ireec_uk_v8f, 8, 8, 1, IREEC_UK_NO_EPILOGUE_CASES)
IREEC_UK_SGEMM_TILE(ireec_uk_sgemm_tile_8x16,
                    __attribute__((target("avx512f,avx512vl,avx2,fma"))), ireec_uk_v16f, 16, 8, 1,
                    IREEC_UK_EPILOGUE_CASES)
IREEC_UK_SGEMM_ROW(ireec_uk_sgemm_row_16v, __attribute__((target("avx512f,avx512vl,avx2,fma"))),
                   ireec_uk_v16f, 16, 1)
/* AVX-512 kernels of r rows (ireec_uk_sgemm_isa_t.rows), r x 32 and r x 16: up to 24
 * accumulators, 2 B vectors and a broadcast of the 32 registers. */
#define IREEC_UK_SGEMM_ROWS_512(R)                                                        \
  IREEC_UK_SGEMM_TILE_LEAN(ireec_uk_sgemm_tile_##R##x32_512,                                \
                           __attribute__((target("avx512f,avx512vl,avx2,fma"))), ireec_uk_v16f, 16, R, 2) \
  IREEC_UK_SGEMM_TILE_LEAN(ireec_uk_sgemm_tile_##R##x16_512,                                \
                           __attribute__((target("avx512f,avx512vl,avx2,fma"))), ireec_uk_v16f, 16, R, 1)
IREEC_UK_SGEMM_ROWS_512(2)
IREEC_UK_SGEMM_ROWS_512(3)
IREEC_UK_SGEMM_ROWS_512(5)
IREEC_UK_SGEMM_ROWS_512(6)
IREEC_UK_SGEMM_ROWS_512(7)
IREEC_UK_SGEMM_ROWS_512(9)
IREEC_UK_SGEMM_ROWS_512(10)
IREEC_UK_SGEMM_ROWS_512(11)
IREEC_UK_SGEMM_ROWS_512(12)
/* ireec_uk_sgemm_isa_t.rows of AVX-512 (a table, not a copy in every call's frame). */
#define IREEC_UK_SGEMM_ROWS_TABLE(W)                                                      \
  {NULL, NULL, ireec_uk_sgemm_tile_2x##W##_512, ireec_uk_sgemm_tile_3x##W##_512, NULL,         \
   ireec_uk_sgemm_tile_5x##W##_512, ireec_uk_sgemm_tile_6x##W##_512,                         \
   ireec_uk_sgemm_tile_7x##W##_512, NULL, ireec_uk_sgemm_tile_9x##W##_512,                   \
   ireec_uk_sgemm_tile_10x##W##_512, ireec_uk_sgemm_tile_11x##W##_512,                       \
   ireec_uk_sgemm_tile_12x##W##_512}
static const ireec_uk_sgemm_tile_fn ireec_uk_sgemm_rows_512[2][IREEC_UK_SGEMM_MAX_ROWS + 1] = {
    IREEC_UK_SGEMM_ROWS_TABLE(32), IREEC_UK_SGEMM_ROWS_TABLE(16)};
#endif

/* The kernels for this CPU. Chosen at compile time when the compiler targets AVX-512 or
 * AVX2+FMA (-march), else at run time unless IREEC_NO_TARGET_CLONES is defined (then the
 * baseline kernels). */
static void ireec_uk_sgemm_select(ireec_uk_sgemm_isa_t *isa) {
  isa->rows = NULL;
#if defined(IREEC_UK_VECTOR) || defined(IREEC_UK_X86)
  isa->mr = 4; isa->nr = 8; isa->tile = ireec_uk_sgemm_tile_4x8; isa->row = ireec_uk_sgemm_row_8;
  isa->half = ireec_uk_sgemm_tile_4x4; isa->half_row = ireec_uk_sgemm_row_4;
  isa->quarter = NULL; isa->quarter_row = NULL;
  isa->short_tile = NULL; isa->short_half = NULL; isa->short_quarter = NULL;
#else
  isa->mr = 4; isa->nr = 4; isa->tile = ireec_uk_sgemm_tile_4x8; isa->row = ireec_uk_sgemm_row_8;
  isa->half = NULL; isa->half_row = NULL;
  isa->quarter = NULL; isa->quarter_row = NULL;
  isa->short_tile = NULL; isa->short_half = NULL; isa->short_quarter = NULL;
#endif
#if defined(IREEC_UK_X86)
  switch (ireec_uk_cpu_level()) {
    case 0:
      return;
    case 1:
      isa->mr = 6; isa->nr = 16; isa->tile = ireec_uk_sgemm_tile_6x16; isa->row = ireec_uk_sgemm_row_16;
      isa->half = ireec_uk_sgemm_tile_6x8; isa->half_row = ireec_uk_sgemm_row_8v;
      isa->quarter = ireec_uk_sgemm_tile_6x4; isa->quarter_row = ireec_uk_sgemm_row_4;
      isa->short_tile = ireec_uk_sgemm_tile_3x16; isa->short_half = ireec_uk_sgemm_tile_3x8;
      isa->short_quarter = ireec_uk_sgemm_tile_3x4;
      return;
    default:
      break;
  }
  isa->mr = 8; isa->nr = 32; isa->tile = ireec_uk_sgemm_tile_8x32; isa->row = ireec_uk_sgemm_row_32;
  isa->half = ireec_uk_sgemm_tile_8x16; isa->half_row = ireec_uk_sgemm_row_16v;
  isa->quarter = ireec_uk_sgemm_tile_8x8; isa->quarter_row = ireec_uk_sgemm_row_8v;
  isa->short_tile = ireec_uk_sgemm_tile_4x32; isa->short_half = ireec_uk_sgemm_tile_4x16;
  isa->short_quarter = ireec_uk_sgemm_tile_4x8v;
  isa->rows = ireec_uk_sgemm_rows_512;
#endif
}

/* Rows [0, h) of one piece of C (at c, row stride ldc; A's rows at a, lda apart; B's piece
 * at b): through the kernel of exactly h rows where `rows` (NULL: none) has one, else
 * register tiles of mr rows, a short tile of mr/2 where that many are left and one-row
 * kernels, in turn. tep (NULL without bias and epilogue) holds the bias of row 0 and moves
 * bias_i per row. */
static void ireec_uk_sgemm_rows(int mr, ireec_uk_sgemm_tile_fn tile, ireec_uk_sgemm_tile_fn short_tile,
                                ireec_uk_sgemm_row_fn row, ireec_uk_sgemm_tile_fn const *rows, int64_t h,
                                int64_t kc, const float *a, int64_t lda, const float *b, int64_t ldb,
                                float *c, int64_t ldc, int acc, ireec_uk_epilogue_t *tep,
                                int64_t bias_i) {
  int64_t i = 0, step;
  while (i < h) {
    const int64_t left = h - i;
    if (rows != NULL && left <= IREEC_UK_SGEMM_MAX_ROWS && rows[left] != NULL) {
      rows[left](kc, a + i * lda, lda, b, ldb, c + i * ldc, ldc, acc, tep);
      return;
    }
    if (left >= mr) {
      tile(kc, a + i * lda, lda, b, ldb, c + i * ldc, ldc, acc, tep);
      step = mr;
    } else if (2 * left >= mr && short_tile != NULL) {
      short_tile(kc, a + i * lda, lda, b, ldb, c + i * ldc, ldc, acc, tep);
      step = mr / 2;
    } else {
      row(kc, a + i * lda, 1, b, ldb, c + i * ldc, acc, tep);
      step = 1;
    }
    i += step;
    if (tep != NULL) tep->bias += step * bias_i;
  }
}

/* Rows of C up to which ireec_uk_sgemm reads B's full-width panels in place instead of
 * packing them (when B's rows are contiguous): with so few rows each B element is used at
 * most twice per register tile row, and packing would cost as much as the products. */
#define IREEC_UK_SGEMM_DIRECT_B_ROWS(mr) (2 * (mr))
/* Bytes that a kc x nc block of B may span (kc rows of stride b_k) to be read in place: in
 * L2 and within a few pages, packing it costs more than the strided reads. Measured (see the
 * top of this file): 256 KiB beat 64 KiB and packing at 128^3 .. 512^3. */
#define IREEC_UK_SGEMM_DIRECT_B_BYTES (256 * 1024)

/* Copies n <= nr floats of a row of B (contiguous) into a packed panel row of nr floats,
 * zero-padding the rest, in fixed-size moves only (the compiler's inline moves): a
 * variable-size memcpy of 32..128 bytes became `rep movs`, which took a quarter of 2048^3;
 * a partial row's copy and zero loops became calls to memcpy and memset, 70% of a 1 x 10 x
 * 1280 GEMV. A partial row is zeroed whole, then copied four floats at a time and the last
 * one to three one by one. */
static const float ireec_uk_sgemm_zeros[IREEC_UK_SGEMM_MAX_NR] = {0.0f};
/* dst[0 .. nr) = src[0 .. nr): one fixed-size copy for the register tiles' widths. */
static inline void ireec_uk_sgemm_copy_fixed(float *dst, const float *src, int nr) {
  int j;
  switch (nr) {
    case 32: memcpy(dst, src, 32 * sizeof(float)); return;
    case 16: memcpy(dst, src, 16 * sizeof(float)); return;
    case 8: memcpy(dst, src, 8 * sizeof(float)); return;
    case 4: memcpy(dst, src, 4 * sizeof(float)); return;
    default:
      for (j = 0; j < nr; ++j) dst[j] = src[j];
  }
}
static inline void ireec_uk_sgemm_copy_row(float *dst, const float *src, int64_t n, int nr) {
  int64_t j;
  if (n == nr) {
    ireec_uk_sgemm_copy_fixed(dst, src, nr);
    return;
  }
  /* Zeros copied, not set: GCC made a 128-byte memset `rep stos` (61% of that GEMV). */
  ireec_uk_sgemm_copy_fixed(dst, ireec_uk_sgemm_zeros, nr);
  for (j = 0; j + 4 <= n; j += 4) memcpy(dst + j, src + j, 4 * sizeof(float));
  if (j < n) dst[j] = src[j];
  if (j + 1 < n) dst[j + 1] = src[j + 1];
  if (j + 2 < n) dst[j + 2] = src[j + 2];
}

/* Rows of B ahead of the one being packed whose lines are prefetched (a row-major B). The
 * rows of a wide B are a page or more apart and the hardware prefetchers do not cross pages,
 * so each row would start with demand misses. Measured on the AMD EPYC (Zen 5, gcc 12 -O3,
 * one thread, CPU time of interleaved runs): 2048^3 69.3 ms without, 68.2 / 67.3 / 67.5 /
 * 67.1 ms with 2 / 4 / 8 / 16 rows; 1024^3 9.12 -> 8.89 ms; 512^3 and 256^3 unchanged. */
#ifndef IREEC_UK_SGEMM_PACK_AHEAD
#define IREEC_UK_SGEMM_PACK_AHEAD 8
#endif
/* The row width of a packed panel of w <= nr columns of B: nr / 2 for at most nr / 2
 * columns where the ISA has half-width kernels (narrow), which are all that read it, else nr.
 * A 1 x 10 x 1280 GEMV packs and zeroes 16 floats per row of B instead of 32. */
static inline int64_t ireec_uk_sgemm_panel_width(int64_t w, int nr, int narrow) {
  return narrow && 2 * w <= nr ? nr / 2 : nr;
}

/* Packs the kcur x ncur block of B at b (strides b_k, b_n) into ceil(ncur / nr) panels of
 * kcur x pn floats at bp (panel p at bp + p * kcur * nr, row-major, zero-padded; pn is
 * ireec_uk_sgemm_panel_width of its columns: nr, or nr / 2 for a narrow last one). With
 * skip = 1 (B read in place) full panels are left out, with skip = 2 also a last panel of
 * nr / 2 columns (the half-width kernel reads it in place). A row-major B (b_n == 1) is
 * read row by row, each row once and in order (ncur contiguous floats, prefetched
 * IREEC_UK_SGEMM_PACK_AHEAD rows ahead); the panels are written nr floats at a time. */
static void ireec_uk_sgemm_pack_b(int64_t kcur, int64_t ncur, const float *b, int64_t b_k,
                                  int64_t b_n, int nr, int narrow, int skip, float *bp) {
  int64_t k, jr, j;
  if (b_n != 1) {
    /* Columns of B apart (a transposed B, contiguous in k; never read in place): panel by
     * panel, four columns at a time read along k (four sequential streams, 16 bytes written
     * per k), the columns past w zero. Measured on the AMD EPYC (one thread, B transposed),
     * against the panel's rows gathered one at a time: 2048^3 85.6 -> 76.2 ms, 512^3
     * 1.18 -> 1.10 ms, 128^3 21 -> 19 us. */
    for (jr = 0; jr < ncur; jr += nr) {
      const int64_t w = ncur - jr < nr ? ncur - jr : nr;
      const int64_t pn = ireec_uk_sgemm_panel_width(w, nr, narrow);
      float *panel = bp + jr * kcur;
      for (j = 0; j < pn; j += 4) {
        if (j + 4 <= w) {
          const float *s0 = b + (jr + j) * b_n, *s1 = s0 + b_n, *s2 = s1 + b_n, *s3 = s2 + b_n;
          for (k = 0; k < kcur; ++k) {
            float *dst = panel + k * pn + j;
            dst[0] = s0[k * b_k];
            dst[1] = s1[k * b_k];
            dst[2] = s2[k * b_k];
            dst[3] = s3[k * b_k];
          }
        } else {
          int64_t c;
          for (k = 0; k < kcur; ++k)
            for (c = j; c < j + 4 && c < pn; ++c)
              panel[k * pn + c] = c < w ? b[(jr + c) * b_n + k * b_k] : 0.0f;
        }
      }
    }
    return;
  }
  if (skip) {
    /* B read in place: at most the last panel, when it is partial, is packed (a small
     * problem's call per convolution tap must not pay a loop over B's rows for nothing). */
    const int64_t w = ncur % nr == 0 ? nr : ncur % nr;
    const int64_t pn = ireec_uk_sgemm_panel_width(w, nr, narrow);
    if (w == nr || (skip == 2 && 2 * w == nr)) return;
    for (k = 0; k < kcur; ++k)
      ireec_uk_sgemm_copy_row(bp + (ncur - w) * kcur + k * pn, b + k * b_k + ncur - w, w, (int)pn);
    return;
  }
  for (k = 0; k < kcur; ++k) {
    const float *src = b + k * b_k;
#if defined(__GNUC__)
    if (k + IREEC_UK_SGEMM_PACK_AHEAD < kcur) {
      const float *ahead = src + IREEC_UK_SGEMM_PACK_AHEAD * b_k;
      for (j = 0; j < ncur; j += 16) __builtin_prefetch(ahead + j, 0, 3);
    }
#endif
    for (jr = 0; jr < ncur; jr += nr) {
      const int64_t w = ncur - jr < nr ? ncur - jr : nr;
      const int64_t pn = ireec_uk_sgemm_panel_width(w, nr, narrow);
      ireec_uk_sgemm_copy_row(bp + jr * kcur + k * pn, src + jr, w, (int)pn);
    }
  }
}

/* Packs the mcur x kcur block of A at a (strides a_m, a_k; a_k != 1, e.g. a transposed A)
 * into a row-major block at ap (row stride kcur): four k at a time read along the rows (four
 * sequential streams when a_m == 1), 16 bytes written per row. Measured on the AMD EPYC
 * (one thread, A transposed), against one row of the block at a time (kcur reads a row of
 * A^T apart): 2048^3 132.6 -> 94.1 ms, 512^3 1.64 -> 1.17 ms, 128^3 24 -> 21 us. */
static void ireec_uk_sgemm_pack_a(int64_t mcur, int64_t kcur, const float *a, int64_t a_m,
                                  int64_t a_k, float *ap) {
  int64_t i, k;
  for (k = 0; k + 4 <= kcur; k += 4) {
    const float *s0 = a + k * a_k, *s1 = s0 + a_k, *s2 = s1 + a_k, *s3 = s2 + a_k;
    for (i = 0; i < mcur; ++i) {
      float *dst = ap + i * kcur + k;
      dst[0] = s0[i * a_m];
      dst[1] = s1[i * a_m];
      dst[2] = s2[i * a_m];
      dst[3] = s3[i * a_m];
    }
  }
  for (; k < kcur; ++k)
    for (i = 0; i < mcur; ++i) ap[i * kcur + k] = a[i * a_m + k * a_k];
}

/* ireec_uk_sgemm: C[i*ldc + j] += sum_k A[i*a_m + k*a_k] * B[k*b_k + j*b_n] for i < M, j < N,
 * k < K in that k order (`=` from a zero start without IREEC_UK_FLAG_ACCUMULATE in `flags`,
 * from bias[i*bias_i + j*bias_j] with IREEC_UK_FLAG_BIAS_INIT instead),
 * blocked by mc x nc x kc (see the top of this file); `work` holds
 * IREEC_UK_SGEMM_WORK_FLOATS(mc, nc, kc) floats. Sizes are elements; strides may be any
 * value (a transposed A has a_m = 1). Nothing is allocated and no state is kept, so calls
 * from several threads at once are safe. The epilogue flags of `flags` (IREEC_UK_FLAG_BIAS,
 * _CLAMP_LO, ...: see ireec_uk_epilogue_t) then apply to every finished element
 * C[i*ldc + j] with bias element bias[i*bias_i + j*bias_j] (bias_j 0 or 1) and bounds lo, hi
 * (bias, lo and hi unused without their flags). */
IREEC_UK_SGEMM_API void ireec_uk_sgemm_fused(int64_t M, int64_t N, int64_t K, const float *A,
                                        int64_t a_m, int64_t a_k, const float *B, int64_t b_k,
                                        int64_t b_n, float *C, int64_t ldc, int64_t mc,
                                        int64_t nc, int64_t kc, float *work, int flags,
                                        const float *bias, int64_t bias_i, int64_t bias_j,
                                        float lo, float hi) {
  ireec_uk_sgemm_isa_t isa;
  int mr, nr, direct, direct_a;
  float *bp = (float *)(((uintptr_t)work + 63) & ~(uintptr_t)63);
  float *ap;
  float edge[IREEC_UK_SGEMM_MAX_MR * IREEC_UK_SGEMM_MAX_NR];
  int64_t jc, pc, ic, jr, ir, i, j, h, mcur;
  ireec_uk_epilogue_t ep;
  ep.bias = bias;
  ep.bias_i = bias_i;
  ep.bias_j = bias_j;
  ep.lo = lo;
  ep.hi = hi;
  ep.flags = flags & IREEC_UK_FLAG_EPILOGUE;
  if (M <= 0 || N <= 0 || K <= 0) return;
  ireec_uk_sgemm_select(&isa);
  mr = isa.mr;
  nr = isa.nr;
  /* Whole register tiles per block; blocks no larger than the problem. */
  mc = mc < M ? mc : M;
  nc = nc < N ? nc : N;
  kc = kc < K ? kc : K;
  mc = mc >= mr ? mc - mc % mr : mc;
  nc = nc >= nr ? nc - nc % nr : nc;
  ap = bp + ((kc * ((nc + nr - 1) / nr * nr) + 15) & ~(int64_t)15);
  direct = b_n == 1 && (M <= IREEC_UK_SGEMM_DIRECT_B_ROWS(mr)
                        || b_k * kc * (int64_t)sizeof(float) <= IREEC_UK_SGEMM_DIRECT_B_BYTES);
  direct_a = a_k == 1;
  for (jc = 0; jc < N; jc += nc) {
    const int64_t ncur = N - jc < nc ? N - jc : nc;
    for (pc = 0; pc < K; pc += kc) {
      const int64_t kcur = K - pc < kc ? K - pc : kc;
      /* The first k block starts from C (accumulating: 1), from the bias (2) or from zero
       * (0); the later ones from C. */
      const int acc = pc > 0 || (flags & IREEC_UK_FLAG_ACCUMULATE) ? 1
                      : (flags & IREEC_UK_FLAG_BIAS_INIT) ? 2 : 0;
      /* The epilogue goes with the last k block's tiles. */
      const int last = ep.flags != 0 && pc + kcur >= K;
      /* The tiles need the bias (for their start or their epilogue). */
      const int biased = last || acc == 2;
      /* B[pc.., jc..] into ceil(ncur / nr) panels of kcur x nr, zero-padded (in the direct
       * case only a last panel that neither the full nor the half-width kernel covers). */
      ireec_uk_sgemm_pack_b(kcur, ncur, B + pc * b_k + jc * b_n, b_k, b_n, nr, isa.half != NULL,
                            direct ? (isa.half != NULL ? 2 : 1) : 0, bp);
      for (ic = 0; ic < M; ic += mcur) {
        /* A block of mc rows; the last one takes up to mr/2 rows that would be left below
         * it (one taller tile, see isa.rows; A's packed block has room for them). */
        mcur = M - ic < mc ? M - ic : mc;
        if (M - ic > mcur && 2 * (M - ic - mcur) <= mr) mcur = M - ic;
        /* A[ic.., pc..]: in place (rows contiguous in k), else into a row-major mcur x kcur
         * block. */
        const float *ablk = direct_a ? A + ic * a_m + pc : ap;
        const int64_t lda = direct_a ? a_m : kcur;
        if (!direct_a) ireec_uk_sgemm_pack_a(mcur, kcur, A + ic * a_m + pc * a_k, a_m, a_k, ap);
        for (jr = 0; jr < ncur; jr += nr) {
          const int64_t w = ncur - jr < nr ? ncur - jr : nr;
          /* The panel in pieces of width pw: nr (a full panel), else nr/2 where there is a
           * half-width kernel (a panel of nr/2 + r columns: one half-width piece, then r);
           * columns left over go through a zero-padded copy of one piece. */
          const int half = w < nr && isa.half != NULL;
          const int64_t pw = half ? nr / 2 : nr;
          const ireec_uk_sgemm_tile_fn tile = half ? isa.half : isa.tile;
          const ireec_uk_sgemm_row_fn row = half ? isa.half_row : isa.row;
          const ireec_uk_sgemm_tile_fn short_tile = half ? isa.short_half : isa.short_tile;
          const ireec_uk_sgemm_tile_fn *rows = isa.rows != NULL ? isa.rows[half] : NULL;
          const int in_place = direct && (w == nr || (half && w == pw));
          const float *b = in_place ? B + pc * b_k + jc + jr : bp + jr * kcur;
          const int64_t ldb = in_place ? b_k : ireec_uk_sgemm_panel_width(w, nr, isa.half != NULL);
          for (ir = 0; ir < mcur; ir += h) {
            /* A register tile of rows, or the rows left; a last register tile with at most
             * mr/2 rows below it takes them as one taller tile where there is a kernel of
             * that many rows (isa.rows). */
            const int64_t left = mcur - ir;
            float *c = C + (ic + ir) * ldc + jc + jr;
            int64_t off, i0;
            /* The bias and epilogue of the tile at column off (its bias from there; the
             * epilogue only with the last k block). */
            ireec_uk_epilogue_t tep = ep;
            h = left < mr ? left : mr;
            if (rows != NULL && left > mr && 2 * (left - mr) <= mr && left <= IREEC_UK_SGEMM_MAX_ROWS
                && rows[left] != NULL)
              h = left;
            if (!last) tep.flags = 0;
            for (off = 0; off + pw <= w; off += pw) {
              if (biased) tep.bias = bias + (ic + ir) * bias_i + (jc + jr + off) * bias_j;
              ireec_uk_sgemm_rows(mr, tile, short_tile, row, rows, h, kcur, ablk + ir * lda, lda, b + off, ldb,
                                  c + off, ldc, acc, biased ? &tep : NULL, bias_i);
            }
            /* Quarter-width pieces of what the half-width ones leave (b: the packed panel),
             * when they cover it exactly: a quarter piece costs as many instructions per k as
             * a half-width one, so columns that would still be left after it (10 of a
             * 16-wide piece) take one pass through the padded copy below instead of two
             * (a classifier's 1 x 10 x 1280 GEMV: 9.4 -> 6.3 us). */
            for (; half && isa.quarter != NULL && off + nr / 4 <= w && (w - off) % (nr / 4) == 0;
                 off += nr / 4) {
              if (biased) tep.bias = bias + (ic + ir) * bias_i + (jc + jr + off) * bias_j;
              ireec_uk_sgemm_rows(mr, isa.quarter, isa.short_quarter, isa.quarter_row, NULL, h, kcur,
                                  ablk + ir * lda, lda, b + off, ldb, c + off, ldc, acc,
                                  biased ? &tep : NULL, bias_i);
            }
            /* The last w - off columns (b is a packed, zero-padded panel here) through a
             * pw-wide copy of their valid part, at most mr rows at a time. */
            for (i0 = 0; off < w && i0 < h; i0 += mr) {
              const int64_t wr = w - off, hh = h - i0 < mr ? h - i0 : mr;
              const float *bias0 = bias != NULL ? bias + (ic + ir + i0) * bias_i + (jc + jr + off) * bias_j : NULL;
              float *ce = c + i0 * ldc + off;
              for (i = 0; i < hh; ++i) {
                if (acc == 1) memcpy(edge + i * pw, ce + i * ldc, (size_t)wr * sizeof(float));
                if (acc == 2)
                  for (j = 0; j < wr; ++j) edge[i * pw + j] = bias0[i * bias_i + j * bias_j];
                for (j = acc ? wr : 0; j < pw; ++j) edge[i * pw + j] = 0.0f;
              }
              ireec_uk_sgemm_rows(mr, tile, short_tile, row, rows, hh, kcur,
                                  ablk + (ir + i0) * lda, lda, b + off, ldb, edge, pw, 1, NULL, 0);
              /* The epilogue on the valid part only (the bias has no elements past it). */
              if (last) {
                tep.bias = bias0;
                ireec_uk_epilogue_block(&tep, edge, pw, hh, wr);
              }
              for (i = 0; i < hh; ++i) memcpy(ce + i * ldc, edge + i * pw, (size_t)wr * sizeof(float));
            }
          }
        }
      }
    }
  }
}

#endif /* IREEC_UKERNEL_PREBUILT */

/* ireec_uk_sgemm_fused without an epilogue. */
static inline void ireec_uk_sgemm(int64_t M, int64_t N, int64_t K, const float *A, int64_t a_m,
                                  int64_t a_k, const float *B, int64_t b_k, int64_t b_n, float *C,
                                  int64_t ldc, int64_t mc, int64_t nc, int64_t kc, float *work,
                                  int flags) {
  ireec_uk_sgemm_fused(M, N, K, A, a_m, a_k, B, b_k, b_n, C, ldc, mc, nc, kc, work,
                       flags & IREEC_UK_FLAG_ACCUMULATE, NULL, 0, 0, 0.0f, 0.0f);
}

#endif /* IREEC_UKERNEL_SGEMM_H_ */

/* ireec_ukernel.h — micro-kernels the generated kernels call (shipped with every module that
 * uses one; plain C99 with GCC/Clang vector extensions behind a scalar fallback).
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
 * go through one-row kernels (a matrix-vector product computes one row, not mr), and with
 * few rows (IREEC_UK_SGEMM_DIRECT_B_ROWS) B's full-width panels are read in place, unpacked.
 *
 * Every C element sees its products in the order k = 0, 1, ..., K-1 added to its initial
 * value (the accumulators are loaded from C, or start at +0.0 when the caller's zero fill
 * was dropped: the same sums), as in the plain loop nest; under
 * -ffp-contract=off the results are therefore bit-identical to it, and with contraction
 * each step is one fused multiply-add. */
#ifndef IREEC_UKERNEL_H_
#define IREEC_UKERNEL_H_

#include <stdint.h>
#include <string.h>

/* Largest register tile of any micro-kernel below (rows, columns). */
#define IREEC_UK_SGEMM_MAX_MR 8
#define IREEC_UK_SGEMM_MAX_NR 32
/* Floats of the `work` buffer ireec_uk_sgemm needs for blocking sizes mc, nc, kc: a packed
 * kc x nc block of B and an mc x kc block of A, each rounded up to whole panels, plus room
 * to align them to 64 bytes. */
#define IREEC_UK_SGEMM_WORK_FLOATS(mc, nc, kc)                                             \
  ((kc) * ((nc) + IREEC_UK_SGEMM_MAX_NR) + (kc) * ((mc) + IREEC_UK_SGEMM_MAX_MR) + 32)

#if defined(__GNUC__) && (defined(__SSE2__) || defined(__ARM_NEON) || defined(__ALTIVEC__) \
                          || defined(__riscv_vector))
#define IREEC_UK_VECTOR 1
#endif
#if defined(__GNUC__) && defined(__x86_64__)                                               \
    && ((!defined(__clang__) && __GNUC__ >= 6) || (defined(__clang__) && __clang_major__ >= 7))
#define IREEC_UK_X86 1
#endif

/* How the two entry points, ireec_uk_sgemm_fused and ireec_uk_dwconv_fused, are compiled:
 * by default `static inline`, the family in the file that includes this header (what
 * generated sources do, so they stand alone). `ireec build` compiles each family once per
 * compiler and flags into an object of its own (IREEC_UKERNEL_LIBRARY_SGEMM or _DWCONV: that
 * entry point is defined with external, hidden linkage) and has the kernels include only
 * the declarations (IREEC_UKERNEL_PREBUILT), as IREE links its prebuilt micro-kernel
 * bitcode: a family takes seconds to compile at -O3 (hand-vectorized tiles for three ISAs),
 * a module's own kernels a fraction of that. */
#if defined(__GNUC__) && !defined(_WIN32)
#define IREEC_UK_EXTERN __attribute__((visibility("hidden")))
#else
#define IREEC_UK_EXTERN
#endif
#if defined(IREEC_UKERNEL_PREBUILT) || defined(IREEC_UKERNEL_LIBRARY_SGEMM)
#define IREEC_UK_SGEMM_API IREEC_UK_EXTERN
#else
#define IREEC_UK_SGEMM_API static inline
#endif
#if defined(IREEC_UKERNEL_PREBUILT) || defined(IREEC_UKERNEL_LIBRARY_DWCONV)
#define IREEC_UK_DWCONV_API IREEC_UK_EXTERN
#else
#define IREEC_UK_DWCONV_API static inline
#endif

/* Flags of ireec_uk_sgemm (IREE's IREE_UK_FLAG_MMT4D_ACCUMULATE): add the products to C's
 * initial values; without it C is overwritten (its initial contents are never read, as
 * after a zero fill the compiler dropped). */
#define IREEC_UK_FLAG_ACCUMULATE 1
/* The epilogue of ireec_uk_sgemm_fused and ireec_uk_dwconv_fused: an elementwise consumer of
 * the finished sums applied to each register tile before it is stored (the bias and activation "post-ops" of MLAS and
 * oneDNN; IREE reaches the same by fusing the consumer into the contraction's tile loop), in
 * this order, x being one finished element C[i][j]:
 *   IREEC_UK_FLAG_BIAS:            x = x + bias[i*bias_i + j*bias_j]   (bias_j is 0 or 1;
 *                                  a depthwise convolution's bias is per channel)
 *   IREEC_UK_FLAG_CLAMP_LO:        x = x > lo ? x : lo     (a NaN becomes lo: cmpf ogt + select)
 *     with IREEC_UK_FLAG_LO_KEEPS_NAN: a NaN stays NaN     (arith.maximumf, lo not -0.0)
 *   IREEC_UK_FLAG_CLAMP_HI:        x = hi < x ? hi : x     (a NaN stays: arith.minimumf too)
 *     with IREEC_UK_FLAG_HI_REPLACES_NAN: x = x < hi ? x : hi (a NaN becomes hi)
 * Each step rounds as the separate elementwise op would: results are bit-identical to storing
 * C and applying the consumer afterwards. */
#define IREEC_UK_FLAG_BIAS 2
#define IREEC_UK_FLAG_CLAMP_LO 4
#define IREEC_UK_FLAG_LO_KEEPS_NAN 8
#define IREEC_UK_FLAG_CLAMP_HI 16
#define IREEC_UK_FLAG_HI_REPLACES_NAN 32
#define IREEC_UK_FLAG_EPILOGUE 62
/* The sums start from bias[i*bias_i + j*bias_j] (a depthwise convolution's: bias[c*bias_c])
 * instead of zero: the init of a contraction that is its bias broadcast (torch-mlir's linear
 * layers and convolutions), in registers, in the same order as the plain loop nest. */
#define IREEC_UK_FLAG_BIAS_INIT 64
typedef struct {
  const float *bias; /* at the register tile's first element (row 0, column 0) */
  int64_t bias_i, bias_j;
  float lo, hi;
  int flags;
} ireec_uk_epilogue_t;

#if defined(IREEC_UKERNEL_PREBUILT)
IREEC_UK_SGEMM_API void ireec_uk_sgemm_fused(int64_t M, int64_t N, int64_t K, const float *A,
                                  int64_t a_m, int64_t a_k, const float *B, int64_t b_k,
                                  int64_t b_n, float *C, int64_t ldc, int64_t mc,
                                  int64_t nc, int64_t kc, float *work, int flags,
                                  const float *bias, int64_t bias_i, int64_t bias_j,
                                  float lo, float hi);
#else

/* The epilogue on one element x of C whose bias element is b. */
static inline float ireec_uk_epilogue1(const ireec_uk_epilogue_t *ep, float x, float b) {
  const int f = ep->flags;
  if (f & IREEC_UK_FLAG_BIAS) x = x + b;
  if (f & IREEC_UK_FLAG_CLAMP_LO) x = (x > ep->lo || ((f & IREEC_UK_FLAG_LO_KEEPS_NAN) && x != x)) ? x : ep->lo;
  if (f & IREEC_UK_FLAG_CLAMP_HI) {
    if (f & IREEC_UK_FLAG_HI_REPLACES_NAN) x = x < ep->hi ? x : ep->hi;
    else x = ep->hi < x ? ep->hi : x;
  }
  return x;
}

/* The epilogue on the h x w block c (row stride ldc) whose first element's bias is
 * ep->bias[0]. */
static inline void ireec_uk_epilogue_block(const ireec_uk_epilogue_t *ep, float *c,
                                                 int64_t ldc, int64_t h, int64_t w) {
  int64_t i, j;
  for (i = 0; i < h; ++i)
    for (j = 0; j < w; ++j) {
      const float b = (ep->flags & IREEC_UK_FLAG_BIAS) ? ep->bias[i * ep->bias_i + j * ep->bias_j] : 0.0f;
      c[i * ldc + j] = ireec_uk_epilogue1(ep, c[i * ldc + j], b);
    }
}

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
} ireec_uk_sgemm_isa_t;

#if defined(IREEC_UK_VECTOR) || defined(IREEC_UK_X86)
/* IREEC_UK_SPLAT(VT, W, X, S): X = S in every lane: S - (+0.0) is S itself for every S, -0.0
 * included (unlike `(VT){0} + S`, which turns -0.0 into +0.0), so it compiles to a broadcast. */
#define IREEC_UK_SPLAT(VT, W, X, S) { (X) = (S) - (VT){0}; }
/* IREEC_UK_EPILOGUE_SETUP(VT, W, EP): for epilogue EP (not NULL), the vector type of its
 * comparison masks (ep_vi) and lo, hi in every lane (ep_lo, ep_hi). */
#define IREEC_UK_EPILOGUE_SETUP(VT, W, EP)                                                 \
  typedef int32_t ep_vi __attribute__((vector_size(sizeof(VT))));                          \
  VT ep_lo, ep_hi;                                                                         \
  int ep_l;                                                                                \
  for (ep_l = 0; ep_l < W; ++ep_l) {                                                       \
    ep_lo[ep_l] = (EP)->lo;                                                                \
    ep_hi[ep_l] = (EP)->hi;                                                                \
  }
/* IREEC_UK_EPILOGUE_N(VT, X, N, FLAGS, BP): the epilogue (see ireec_uk_epilogue1) with
 * flags FLAGS on the N vectors X[0 .. N), the bias elements of X[n_] starting at BP (an
 * expression of n_: a vector of them when ep->bias_j is 1, one for all lanes when 0). Each
 * flag is tested once for all N vectors (a compile-time constant in the kernels' common
 * cases), so each step is a straight run of vector operations on registers; selects go
 * through masks, as the scalar `?:` (no min/max instructions, whose NaN and signed-zero
 * rules differ). */
#define IREEC_UK_EPILOGUE_N(VT, X, N, FLAGS, BP)                                           \
  {                                                                                        \
    const int f_ = (FLAGS);                                                                \
    int n_;                                                                                \
    if (f_ & IREEC_UK_FLAG_BIAS) {                                                         \
      if (ep->bias_j) {                                                                    \
        for (n_ = 0; n_ < (N); ++n_) {                                                     \
          VT b_;                                                                           \
          memcpy(&b_, (BP), sizeof(VT));                                                   \
          (X)[n_] = (X)[n_] + b_;                                                          \
        }                                                                                  \
      } else {                                                                             \
        for (n_ = 0; n_ < (N); ++n_) (X)[n_] = (X)[n_] + *(BP);                            \
      }                                                                                    \
    }                                                                                      \
    if (f_ & IREEC_UK_FLAG_CLAMP_LO) {                                                     \
      /* x > lo, or with a NaN kept: !(x <= lo), true for NaNs (one compare). */           \
      if (f_ & IREEC_UK_FLAG_LO_KEEPS_NAN)                                                 \
        for (n_ = 0; n_ < (N); ++n_) {                                                     \
          const ep_vi m_ = ~(ep_vi)((X)[n_] <= ep_lo);                                     \
          (X)[n_] = (VT)(((ep_vi)(X)[n_] & m_) | ((ep_vi)ep_lo & ~m_));                    \
        }                                                                                  \
      else                                                                                 \
        for (n_ = 0; n_ < (N); ++n_) {                                                     \
          const ep_vi m_ = (ep_vi)((X)[n_] > ep_lo);                                       \
          (X)[n_] = (VT)(((ep_vi)(X)[n_] & m_) | ((ep_vi)ep_lo & ~m_));                    \
        }                                                                                  \
    }                                                                                      \
    if (f_ & IREEC_UK_FLAG_CLAMP_HI) {                                                     \
      if (f_ & IREEC_UK_FLAG_HI_REPLACES_NAN)                                              \
        for (n_ = 0; n_ < (N); ++n_) {                                                     \
          const ep_vi m_ = (ep_vi)((X)[n_] < ep_hi);                                       \
          (X)[n_] = (VT)(((ep_vi)(X)[n_] & m_) | ((ep_vi)ep_hi & ~m_));                    \
        }                                                                                  \
      else                                                                                 \
        for (n_ = 0; n_ < (N); ++n_) {                                                     \
          const ep_vi m_ = (ep_vi)(ep_hi < (X)[n_]);                                       \
          (X)[n_] = (VT)(((ep_vi)ep_hi & m_) | ((ep_vi)(X)[n_] & ~m_));                    \
        }                                                                                  \
    }                                                                                      \
  }
/* IREEC_UK_EPILOGUE_CASES(CALL, NAME): CALL(F, NAME) for the epilogue flags F that the tile kernels
 * compile a copy of their body for (F a constant there: no flag tests, accumulators stay in
 * registers): none, and the bias and relu / relu6 forms torch-mlir and StableHLO lower to
 * (cmpf + select: CLAMP_LO | CLAMP_HI; arith.maximumf / minimumf: with LO_KEEPS_NAN), with
 * the bias added (JAX) or started from (torch-mlir). Each copy costs compile time: only the
 * AVX-512 and AVX2 tiles that most of the work goes through have them (8x32, 8x16, 6x16;
 * with them 4x8 too, a module took 0.45 s more to compile with GCC 12). */
#define IREEC_UK_EPILOGUE_CASES(CALL, NAME)                                                \
  CALL(0, NAME)                                                                            \
  CALL(IREEC_UK_FLAG_BIAS, NAME)                                                           \
  CALL(IREEC_UK_FLAG_CLAMP_LO | IREEC_UK_FLAG_CLAMP_HI, NAME)                              \
  CALL(IREEC_UK_FLAG_CLAMP_LO | IREEC_UK_FLAG_LO_KEEPS_NAN | IREEC_UK_FLAG_CLAMP_HI, NAME) \
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
  ATTRS __attribute__((always_inline, unused)) static inline void NAME##_body(             \
      int64_t kc, const float *a, int64_t lda, const float *b, int64_t ldb, float *c,      \
      int64_t ldc, int accumulate, const ireec_uk_epilogue_t *ep, const int ep_flags) {    \
    VT acc[MR][NV];                                                                        \
    int r, v;                                                                              \
    int64_t k;                                                                             \
    for (r = 0; r < MR; ++r)                                                               \
      for (v = 0; v < NV; ++v) {                                                           \
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
      for (v = 0; v < NV; ++v) memcpy(&bv[v], b + k * ldb + v * W, sizeof(VT));            \
      for (r = 0; r < MR; ++r) {                                                           \
        const float s = a[r * lda + k];                                                    \
        for (v = 0; v < NV; ++v) acc[r][v] += bv[v] * s;                                   \
      }                                                                                    \
    }                                                                                      \
    if (ep != NULL && (ep_flags & IREEC_UK_FLAG_EPILOGUE)) {                               \
      IREEC_UK_EPILOGUE_SETUP(VT, W, ep)                                                   \
      IREEC_UK_EPILOGUE_N(VT, &acc[0][0], MR * NV, ep_flags,                               \
                          ep->bias + (n_ / NV) * ep->bias_i + (n_ % NV) * W * ep->bias_j)  \
    }                                                                                      \
    for (r = 0; r < MR; ++r)                                                               \
      for (v = 0; v < NV; ++v) memcpy(c + r * ldc + v * W, &acc[r][v], sizeof(VT));        \
  }                                                                                        \
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
typedef float ireec_uk_v4f __attribute__((vector_size(16)));
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
typedef float ireec_uk_v8f __attribute__((vector_size(32)));
typedef float ireec_uk_v16f __attribute__((vector_size(64)));
IREEC_UK_SGEMM_TILE(ireec_uk_sgemm_tile_6x16, __attribute__((target("avx2,fma"))), ireec_uk_v8f, 8, 6, 2,
                    IREEC_UK_EPILOGUE_CASES)
IREEC_UK_SGEMM_ROW(ireec_uk_sgemm_row_16, __attribute__((target("avx2,fma"))), ireec_uk_v8f, 8, 2)
IREEC_UK_SGEMM_TILE(ireec_uk_sgemm_tile_6x8, __attribute__((target("avx2,fma"))), ireec_uk_v8f, 8, 6, 1,
                    IREEC_UK_NO_EPILOGUE_CASES)
IREEC_UK_SGEMM_TILE(ireec_uk_sgemm_tile_6x4, __attribute__((target("avx2,fma"))), ireec_uk_v4f, 4, 6, 1,
                    IREEC_UK_NO_EPILOGUE_CASES)
IREEC_UK_SGEMM_ROW(ireec_uk_sgemm_row_8v, __attribute__((target("avx2,fma"))), ireec_uk_v8f, 8, 1)
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
#endif

/* The kernels for this CPU. Chosen at compile time when the compiler targets AVX-512 or
 * AVX2+FMA (-march), else at run time unless IREEC_NO_TARGET_CLONES is defined (then the
 * baseline kernels). */
static void ireec_uk_sgemm_select(ireec_uk_sgemm_isa_t *isa) {
#if defined(IREEC_UK_VECTOR) || defined(IREEC_UK_X86)
  isa->mr = 4; isa->nr = 8; isa->tile = ireec_uk_sgemm_tile_4x8; isa->row = ireec_uk_sgemm_row_8;
  isa->half = ireec_uk_sgemm_tile_4x4; isa->half_row = ireec_uk_sgemm_row_4;
  isa->quarter = NULL; isa->quarter_row = NULL;
#else
  isa->mr = 4; isa->nr = 4; isa->tile = ireec_uk_sgemm_tile_4x8; isa->row = ireec_uk_sgemm_row_8;
  isa->half = NULL; isa->half_row = NULL;
  isa->quarter = NULL; isa->quarter_row = NULL;
#endif
#if defined(IREEC_UK_X86)
#if !defined(__AVX512F__) && !defined(IREEC_NO_TARGET_CLONES)
  if (!__builtin_cpu_supports("avx512f")) {
#if !defined(__AVX2__) || !defined(__FMA__)
    if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) return;
#endif
    isa->mr = 6; isa->nr = 16; isa->tile = ireec_uk_sgemm_tile_6x16; isa->row = ireec_uk_sgemm_row_16;
    isa->half = ireec_uk_sgemm_tile_6x8; isa->half_row = ireec_uk_sgemm_row_8v;
    isa->quarter = ireec_uk_sgemm_tile_6x4; isa->quarter_row = ireec_uk_sgemm_row_4;
    return;
  }
#elif !defined(__AVX512F__)
#if defined(__AVX2__) && defined(__FMA__)
  isa->mr = 6; isa->nr = 16; isa->tile = ireec_uk_sgemm_tile_6x16; isa->row = ireec_uk_sgemm_row_16;
  isa->half = ireec_uk_sgemm_tile_6x8; isa->half_row = ireec_uk_sgemm_row_8v;
  isa->quarter = ireec_uk_sgemm_tile_6x4; isa->quarter_row = ireec_uk_sgemm_row_4;
#endif
  return;
#endif
  isa->mr = 8; isa->nr = 32; isa->tile = ireec_uk_sgemm_tile_8x32; isa->row = ireec_uk_sgemm_row_32;
  isa->half = ireec_uk_sgemm_tile_8x16; isa->half_row = ireec_uk_sgemm_row_16v;
  isa->quarter = ireec_uk_sgemm_tile_8x8; isa->quarter_row = ireec_uk_sgemm_row_8v;
#endif
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
 * zero-padding the rest: whole rows as one fixed-size copy (the compiler's inline moves; a
 * variable-size memcpy of 32..128 bytes became `rep movs`, which took a quarter of 2048^3). */
static inline void ireec_uk_sgemm_copy_row(float *dst, const float *src, int64_t n, int nr) {
  int64_t j;
  if (n == nr) {
    switch (nr) {
      case 32: memcpy(dst, src, 32 * sizeof(float)); return;
      case 16: memcpy(dst, src, 16 * sizeof(float)); return;
      case 8: memcpy(dst, src, 8 * sizeof(float)); return;
      case 4: memcpy(dst, src, 4 * sizeof(float)); return;
      default: break;
    }
  }
  for (j = 0; j < n; ++j) dst[j] = src[j];
  for (; j < nr; ++j) dst[j] = 0.0f;
}

/* Rows of B ahead of the one being packed whose lines are prefetched (a row-major B). The
 * rows of a wide B are a page or more apart and the hardware prefetchers do not cross pages,
 * so each row would start with demand misses. Measured on the AMD EPYC (Zen 5, gcc 12 -O3,
 * one thread, CPU time of interleaved runs): 2048^3 69.3 ms without, 68.2 / 67.3 / 67.5 /
 * 67.1 ms with 2 / 4 / 8 / 16 rows; 1024^3 9.12 -> 8.89 ms; 512^3 and 256^3 unchanged. */
#ifndef IREEC_UK_SGEMM_PACK_AHEAD
#define IREEC_UK_SGEMM_PACK_AHEAD 8
#endif
/* Packs the kcur x ncur block of B at b (strides b_k, b_n) into ceil(ncur / nr) panels of
 * kcur x nr floats at bp (panel p at bp + p * kcur * nr, row-major, zero-padded). With
 * skip = 1 (B read in place) full panels are left out, with skip = 2 also a last panel of
 * nr / 2 columns (the half-width kernel reads it in place). A row-major B (b_n == 1) is
 * read row by row, each row once and in order (ncur contiguous floats, prefetched
 * IREEC_UK_SGEMM_PACK_AHEAD rows ahead); the panels are written nr floats at a time. */
static void ireec_uk_sgemm_pack_b(int64_t kcur, int64_t ncur, const float *b, int64_t b_k,
                                  int64_t b_n, int nr, int skip, float *bp) {
  int64_t k, jr, j;
  if (b_n != 1) {
    /* Columns of B apart (a transposed B, contiguous in k; never read in place): panel by
     * panel, four columns at a time read along k (four sequential streams, 16 bytes written
     * per k), the columns past w zero. Measured on the AMD EPYC (one thread, B transposed),
     * against the panel's rows gathered one at a time: 2048^3 85.6 -> 76.2 ms, 512^3
     * 1.18 -> 1.10 ms, 128^3 21 -> 19 us. */
    for (jr = 0; jr < ncur; jr += nr) {
      const int64_t w = ncur - jr < nr ? ncur - jr : nr;
      float *panel = bp + jr * kcur;
      for (j = 0; j < nr; j += 4) {
        if (j + 4 <= w) {
          const float *s0 = b + (jr + j) * b_n, *s1 = s0 + b_n, *s2 = s1 + b_n, *s3 = s2 + b_n;
          for (k = 0; k < kcur; ++k) {
            float *dst = panel + k * nr + j;
            dst[0] = s0[k * b_k];
            dst[1] = s1[k * b_k];
            dst[2] = s2[k * b_k];
            dst[3] = s3[k * b_k];
          }
        } else {
          int64_t c;
          for (k = 0; k < kcur; ++k)
            for (c = j; c < j + 4 && c < nr; ++c)
              panel[k * nr + c] = c < w ? b[(jr + c) * b_n + k * b_k] : 0.0f;
        }
      }
    }
    return;
  }
  if (skip) {
    /* B read in place: at most the last panel, when it is partial, is packed (a small
     * problem's call per convolution tap must not pay a loop over B's rows for nothing). */
    const int64_t w = ncur % nr == 0 ? nr : ncur % nr;
    if (w == nr || (skip == 2 && 2 * w == nr)) return;
    for (k = 0; k < kcur; ++k)
      ireec_uk_sgemm_copy_row(bp + (ncur - w) * kcur + k * nr, b + k * b_k + ncur - w, w, nr);
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
      ireec_uk_sgemm_copy_row(bp + jr * kcur + k * nr, src + jr, w, nr);
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
  int64_t jc, pc, ic, jr, ir, i, j;
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
      ireec_uk_sgemm_pack_b(kcur, ncur, B + pc * b_k + jc * b_n, b_k, b_n, nr,
                            direct ? (isa.half != NULL ? 2 : 1) : 0, bp);
      for (ic = 0; ic < M; ic += mc) {
        const int64_t mcur = M - ic < mc ? M - ic : mc;
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
          const int in_place = direct && (w == nr || (half && w == pw));
          const float *b = in_place ? B + pc * b_k + jc + jr : bp + jr * kcur;
          const int64_t ldb = in_place ? b_k : nr;
          for (ir = 0; ir < mcur; ir += mr) {
            const int64_t h = mcur - ir < mr ? mcur - ir : mr;
            float *c = C + (ic + ir) * ldc + jc + jr;
            int64_t off;
            /* The bias and epilogue of the tile at column off (its bias from there; the
             * epilogue only with the last k block). */
            ireec_uk_epilogue_t tep = ep;
            if (!last) tep.flags = 0;
            for (off = 0; off + pw <= w; off += pw) {
              if (biased) tep.bias = bias + (ic + ir) * bias_i + (jc + jr + off) * bias_j;
              if (h == mr) {
                tile(kcur, ablk + ir * lda, lda, b + off, ldb, c + off, ldc, acc, biased ? &tep : NULL);
                continue;
              }
              /* Fewer rows than a register tile: row by row. */
              for (i = 0; i < h; ++i) {
                row(kcur, ablk + (ir + i) * lda, 1, b + off, ldb, c + i * ldc + off, acc, biased ? &tep : NULL);
                tep.bias += bias_i;
              }
            }
            /* Quarter-width pieces of what the half-width ones leave (b: the packed panel). */
            for (; half && isa.quarter != NULL && off + nr / 4 <= w; off += nr / 4) {
              if (biased) tep.bias = bias + (ic + ir) * bias_i + (jc + jr + off) * bias_j;
              if (h == mr) {
                isa.quarter(kcur, ablk + ir * lda, lda, b + off, ldb, c + off, ldc, acc, biased ? &tep : NULL);
                continue;
              }
              for (i = 0; i < h; ++i) {
                isa.quarter_row(kcur, ablk + (ir + i) * lda, 1, b + off, ldb, c + i * ldc + off, acc,
                                biased ? &tep : NULL);
                tep.bias += bias_i;
              }
            }
            if (off < w) {
              /* The last w - off columns (b is a packed, zero-padded panel here) through a
               * pw-wide copy of their valid part. */
              const int64_t wr = w - off;
              const float *bias0 = bias != NULL ? bias + (ic + ir) * bias_i + (jc + jr + off) * bias_j : NULL;
              for (i = 0; i < h; ++i) {
                if (acc == 1) memcpy(edge + i * pw, c + i * ldc + off, (size_t)wr * sizeof(float));
                if (acc == 2)
                  for (j = 0; j < wr; ++j) edge[i * pw + j] = bias0[i * bias_i + j * bias_j];
                for (j = acc ? wr : 0; j < pw; ++j) edge[i * pw + j] = 0.0f;
              }
              if (h == mr) {
                tile(kcur, ablk + ir * lda, lda, b + off, ldb, edge, pw, 1, NULL);
              } else {
                for (i = 0; i < h; ++i) row(kcur, ablk + (ir + i) * lda, 1, b + off, ldb, edge + i * pw, 1, NULL);
              }
              /* The epilogue on the valid part only (the bias has no elements past it). */
              if (last) {
                tep.bias = bias0;
                ireec_uk_epilogue_block(&tep, edge, pw, h, wr);
              }
              for (i = 0; i < h; ++i) memcpy(c + i * ldc + off, edge + i * pw, (size_t)wr * sizeof(float));
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

#if defined(IREEC_UKERNEL_PREBUILT)
/* ireec_uk_dwconv_fused: see ireec_ukernel.h built without IREEC_UKERNEL_PREBUILT. */
IREEC_UK_DWCONV_API void ireec_uk_dwconv_fused(int64_t C, int64_t OH, int64_t OW, int64_t KH,
                                         int64_t KW, const float *in, int64_t in_c, int64_t in_y,
                                         int64_t in_x, int64_t in_ty, int64_t in_tx,
                                         const float *w, int64_t w_c, int64_t w_ty, int64_t w_tx,
                                         float *out, int64_t out_c, int64_t out_y, int64_t out_x,
                                         int flags, const float *bias, int64_t bias_c, float lo,
                                         float hi);
#else
/* ireec_uk_dwconv: a depthwise convolution over one workgroup tile, f32,
 *
 *   out[c, y, x] += sum over ty < KH, tx < KW of in[c, y, x, ty, tx] * w[c, ty, tx]
 *
 * for c < C (channels), y < OH, x < OW (output pixels), every operand addressed through its
 * element strides: in at c*in_c + y*in_y + x*in_x + ty*in_ty + tx*in_tx (a convolution with
 * strides sy, sx and dilations dy, dx over a row-major image has in_y = sy * row, in_ty =
 * dy * row, in_x = sx * col, in_tx = dx * col), w at c*w_c + ty*w_ty + tx*w_tx, out at
 * c*out_c + y*out_y + x*out_x. Layouts (NCHW, NHWC, ...) are strides, not code paths; the
 * work is vectorized along whichever dim is contiguous:
 *
 *   - output rows (out_x == 1, e.g. NCHW): W output pixels of a row in one vector, four rows
 *     at a time (four independent FMA chains), each tap one vector load of the image row
 *     (in_x == 1), two loads and a shuffle taking the even elements (in_x == 2, stride 2:
 *     no element past the last one needed is read), or a gather (other strides);
 *   - channels (in_c == w_c == out_c == 1, e.g. NHWC with an HWC filter): two vectors of W
 *     channels of four output pixels of a row (of a column when rows are shorter than four
 *     and columns longer) at a time (eight FMA chains), each tap's filter vectors loaded
 *     once for the four pixels;
 *   - rows or channel counts shorter than W, and the columns or channels whole vectors
 *     leave over, go to the kernel of the next narrower vectors (16 -> 8 -> 4 lanes), then
 *     to scalar loops, as does any other layout.
 *
 * Measured on the AMD EPYC (AVX-512, gcc 12 -O3, one 1x64x34x34 -> 1x64x16x16 3x3 stride-2
 * NCHW convolution alone, best of 30 x 1000 calls, machine loaded): 4.8-6.0 us against
 * 10.8-12.3 us for the loop nest (kw innermost, scalar); AVX2 9.7 against 13.4 us, the 4-lane
 * kernel on par (12.2 / 12.5 us). Rows per block: 2, 3, 4, 6, 8 gave 6.6, 5.95, 5.9, 6.8,
 * 6.7 us (stride 1: 4.5, 3.9, 3.8, 4.3, 4.2 us); sharing one pair of loads between the even
 * and odd taps of stride 2 (two shuffles of the same registers) was slower (6.5 us). NHWC
 * (64 channels): 5.0 us against 5.3 us for the loop nest (channels innermost, which GCC
 * vectorizes too), 4.5 us for one 16 x 16 tile.
 *
 * Each output element sees its taps in the order (ty, tx) = (0, 0), (0, 1), ... added to its
 * initial value, as in the plain loop nest (ty outside tx): bit-identical to it under
 * -ffp-contract=off. W is 16 on AVX-512, 8 on AVX2+FMA, 4 otherwise (SSE2, NEON...), chosen
 * as for ireec_uk_sgemm (at run time on x86-64 unless -march gives AVX-512/AVX2 or
 * IREEC_NO_TARGET_CLONES is defined); without vector extensions only the scalar loops. Nothing
 * is allocated: calls from several threads at once are safe. */
typedef struct {
  int64_t C, OH, OW, KH, KW;
  const float *in;
  int64_t in_c, in_y, in_x, in_ty, in_tx;
  const float *w;
  int64_t w_c, w_ty, w_tx;
  float *out;
  int64_t out_c, out_y, out_x;
  /* IREEC_UK_FLAG_ACCUMULATE (else the sums start from zero, or from the bias with
   * IREEC_UK_FLAG_BIAS_INIT, and out is only written) and the epilogue's flags, its
   * per-channel bias (bias[c * bias_c]) and bounds. */
  int flags;
  const float *bias;
  int64_t bias_c;
  float lo, hi;
} ireec_uk_dwconv_params_t;

/* The epilogue of a depthwise convolution's parameters, its bias a scalar per channel
 * (bias_i = bias_c, bias_j = 0). */
static inline ireec_uk_epilogue_t ireec_uk_dwconv_epilogue(const ireec_uk_dwconv_params_t *p) {
  ireec_uk_epilogue_t e;
  e.bias = p->bias;
  e.bias_i = p->bias_c;
  e.bias_j = 0;
  e.lo = p->lo;
  e.hi = p->hi;
  e.flags = p->flags & IREEC_UK_FLAG_EPILOGUE;
  return e;
}
typedef void (*ireec_uk_dwconv_fn)(const ireec_uk_dwconv_params_t *p);

/* The scalar loops over channels [c0, c1), rows [y0, y1) and columns [x0, x1). */
static inline void ireec_uk_dwconv_scalar(const ireec_uk_dwconv_params_t *p, int64_t c0,
                                          int64_t c1, int64_t y0, int64_t y1, int64_t x0,
                                          int64_t x1) {
  int64_t c, y, x, ty, tx;
  for (c = c0; c < c1; ++c)
    for (y = y0; y < y1; ++y)
      for (x = x0; x < x1; ++x) {
        const float *in = p->in + c * p->in_c + y * p->in_y + x * p->in_x;
        const float *w = p->w + c * p->w_c;
        float *o = p->out + c * p->out_c + y * p->out_y + x * p->out_x;
        float acc = (p->flags & IREEC_UK_FLAG_ACCUMULATE) ? *o
                    : (p->flags & IREEC_UK_FLAG_BIAS_INIT) ? p->bias[c * p->bias_c] : 0.0f;
        for (ty = 0; ty < p->KH; ++ty)
          for (tx = 0; tx < p->KW; ++tx) acc += in[ty * p->in_ty + tx * p->in_tx] * w[ty * p->w_ty + tx * p->w_tx];
        if (p->flags & IREEC_UK_FLAG_EPILOGUE) {
          const ireec_uk_epilogue_t e = ireec_uk_dwconv_epilogue(p);
          acc = ireec_uk_epilogue1(&e, acc, (e.flags & IREEC_UK_FLAG_BIAS) ? p->bias[c * p->bias_c] : 0.0f);
        }
        *o = acc;
      }
}

static inline void ireec_uk_dwconv_generic(const ireec_uk_dwconv_params_t *p) {
  ireec_uk_dwconv_scalar(p, 0, p->C, 0, p->OH, 0, p->OW);
}

#if defined(IREEC_UK_VECTOR) || defined(IREEC_UK_X86)
/* IREEC_UK_SHUFFLE2(int vector type, a, b, indices...): the lanes of a:b at the indices. */
#if defined(__clang__)
#define IREEC_UK_SHUFFLE2(VI, a, b, ...) __builtin_shufflevector(a, b, __VA_ARGS__)
#else
#define IREEC_UK_SHUFFLE2(VI, a, b, ...) __builtin_shuffle(a, b, (VI){__VA_ARGS__})
#endif

/* IREEC_UK_DWCONV_ROWS(VT, W, LOAD, ROWS): output rows y .. y + ROWS - 1 (a constant, so
 * acc stays in registers) at columns x .. x + W - 1; LOAD(v, s) loads the image vector
 * starting at s. */
#define IREEC_UK_DWCONV_ROWS(VT, W, LOAD, ROWS)                                            \
  {                                                                                        \
    VT acc[ROWS];                                                                          \
    int r;                                                                                 \
    int64_t ty, tx;                                                                        \
    const float *src = in + y * in_y + x * in_x;                                           \
    float *dst = out + y * out_y + x;                                                      \
    for (r = 0; r < ROWS; ++r) {                                                           \
      if (accumulate == 1) memcpy(&acc[r], dst + r * out_y, sizeof(VT));                   \
      else if (accumulate == 0) acc[r] = (VT){0};                                          \
      else IREEC_UK_SPLAT(VT, W, acc[r], e.bias[c * e.bias_i])                             \
    }                                                                                      \
    for (ty = 0; ty < KH; ++ty)                                                            \
      for (tx = 0; tx < KW; ++tx) {                                                        \
        const float wt = w[ty * w_ty + tx * w_tx];                                         \
        const float *s = src + ty * in_ty + tx * in_tx;                                    \
        for (r = 0; r < ROWS; ++r) {                                                       \
          VT v;                                                                            \
          LOAD(v, s + r * in_y);                                                           \
          acc[r] += v * wt;                                                                \
        }                                                                                  \
      }                                                                                    \
    if (ep != NULL)                                                                        \
      IREEC_UK_EPILOGUE_N(VT, acc, ROWS, ep->flags, ep->bias + c * ep->bias_i)             \
    for (r = 0; r < ROWS; ++r) memcpy(dst + r * out_y, &acc[r], sizeof(VT));               \
  }

/* IREEC_UK_DWCONV_PLANES(VT, W, LOAD): every channel's output rows, four at a time, then
 * one at a time, in whole vectors of W columns (the columns past them: scalar loops). */
#define IREEC_UK_DWCONV_PLANES(VT, W, LOAD)                                                \
  for (c = 0; c < C; ++c) {                                                                \
    const float *in = p->in + c * p->in_c;                                                 \
    const float *w = p->w + c * p->w_c;                                                    \
    float *out = p->out + c * p->out_c;                                                    \
    for (y = 0; y + 4 <= OH; y += 4)                                                       \
      for (x = 0; x < xend; x += W) IREEC_UK_DWCONV_ROWS(VT, W, LOAD, 4)                   \
    for (; y < OH; ++y)                                                                    \
      for (x = 0; x < xend; x += W) IREEC_UK_DWCONV_ROWS(VT, W, LOAD, 1)                   \
  }

/* IREEC_UK_DWCONV_CHANNELS(VT, W, NV, NP): NV vectors of channels c .. c + NV * W - 1 of
 * NP output pixels (constants: NV * NP accumulators in registers), pixel j + q of line i
 * (q < NP) at i * oo + (j + q) * po in the output and i * io + (j + q) * pi in the image
 * (lines are rows and pixels columns, or the other way round); each tap's filter vectors
 * are loaded once for the NP pixels. */
#define IREEC_UK_DWCONV_CHANNELS(VT, W, NV, NP)                                            \
  {                                                                                        \
    VT acc[NP][NV];                                                                        \
    int v, q;                                                                              \
    int64_t ty, tx;                                                                        \
    float *o = p->out + i * oo + j * po + c;                                               \
    const float *src = p->in + i * io + j * pi + c;                                        \
    for (q = 0; q < NP; ++q)                                                               \
      for (v = 0; v < NV; ++v) {                                                           \
        if (accumulate == 1) memcpy(&acc[q][v], o + q * po + v * W, sizeof(VT));           \
        else if (accumulate == 0) acc[q][v] = (VT){0};                                     \
        else memcpy(&acc[q][v], e.bias + c + v * W, sizeof(VT));                           \
      }                                                                                    \
    for (ty = 0; ty < KH; ++ty)                                                            \
      for (tx = 0; tx < KW; ++tx) {                                                        \
        const float *s = src + ty * in_ty + tx * in_tx;                                    \
        const float *f = p->w + ty * w_ty + tx * w_tx + c;                                 \
        VT b[NV];                                                                          \
        for (v = 0; v < NV; ++v) memcpy(&b[v], f + v * W, sizeof(VT));                     \
        for (q = 0; q < NP; ++q)                                                           \
          for (v = 0; v < NV; ++v) {                                                       \
            VT a;                                                                          \
            memcpy(&a, s + q * pi + v * W, sizeof(VT));                                    \
            acc[q][v] += a * b[v];                                                         \
          }                                                                                \
      }                                                                                    \
    if (ep != NULL)                                                                        \
      IREEC_UK_EPILOGUE_N(VT, &acc[0][0], NP * NV, ep->flags, ep->bias + c + (n_ % NV) * W) \
    for (q = 0; q < NP; ++q)                                                               \
      for (v = 0; v < NV; ++v) memcpy(o + q * po + v * W, &acc[q][v], sizeof(VT));         \
  }

/* IREEC_UK_DWCONV_PIXELS(VT, W, NV): the channel block c .. c + NV * W - 1 of the np
 * output pixels of line i, four pixels at a time, then one at a time. */
#define IREEC_UK_DWCONV_PIXELS(VT, W, NV)                                                  \
  {                                                                                        \
    int64_t j;                                                                             \
    for (j = 0; j + 4 <= np; j += 4) IREEC_UK_DWCONV_CHANNELS(VT, W, NV, 4)                \
    for (; j < np; ++j) IREEC_UK_DWCONV_CHANNELS(VT, W, NV, 1)                             \
  }

/* A vector of W contiguous image elements. */
#define IREEC_UK_DWCONV_LOAD1(v, s) memcpy(&(v), (s), sizeof(v))
/* IREEC_UK_DWCONV(name, attributes, vector type, lanes, even, narrow): the micro-kernel for
 * W-lane vectors; EVEN(v, s) loads s[0], s[2], ..., s[2W - 2] into v; NARROW is the kernel
 * of narrower vectors (or the scalar one) that takes rows or channel counts shorter than W
 * and the columns or channels that whole W-vectors leave over. */
#define IREEC_UK_DWCONV(NAME, ATTRS, VT, W, EVEN, NARROW)                                  \
  ATTRS __attribute__((unused)) static void NAME(const ireec_uk_dwconv_params_t *p) {      \
    const int64_t C = p->C, OH = p->OH, OW = p->OW, KH = p->KH, KW = p->KW;                \
    const int64_t in_y = p->in_y, in_x = p->in_x, in_ty = p->in_ty, in_tx = p->in_tx;      \
    const int64_t w_ty = p->w_ty, w_tx = p->w_tx, out_y = p->out_y, out_x = p->out_x;      \
    const int chans = p->in_c == 1 && p->w_c == 1 && p->out_c == 1;                        \
    /* Start from out (1), from the bias (2) or from zero (0). */                          \
    const int accumulate = (p->flags & IREEC_UK_FLAG_ACCUMULATE) ? 1                      \
                           : (p->flags & IREEC_UK_FLAG_BIAS_INIT) ? 2 : 0;                 \
    /* The epilogue: a bias scalar per channel along rows, a vector of channels along      \
     * channels (bias_c is 1 there). */                                                    \
    ireec_uk_epilogue_t e = ireec_uk_dwconv_epilogue(p);                                   \
    const ireec_uk_epilogue_t *ep = e.flags ? &e : NULL;                                   \
    IREEC_UK_EPILOGUE_SETUP(VT, W, &e)                                                     \
    int64_t c, y, x;                                                                       \
    if (out_x == 1 && (OW >= W || !chans || C < W)) {                                      \
      const int64_t xend = OW - OW % W;                                                    \
      if (OW < W) {                                                                        \
        NARROW(p);                                                                         \
        return;                                                                            \
      }                                                                                    \
      if (in_x == 1) {                                                                     \
        IREEC_UK_DWCONV_PLANES(VT, W, IREEC_UK_DWCONV_LOAD1)                               \
      } else if (in_x == 2) {                                                              \
        IREEC_UK_DWCONV_PLANES(VT, W, EVEN)                                                \
      } else {                                                                             \
        IREEC_UK_DWCONV_PLANES(VT, W, IREEC_UK_DWCONV_GATHER)                              \
      }                                                                                    \
      if (xend < OW) {                                                                     \
        ireec_uk_dwconv_params_t rest = *p;                                                \
        rest.OW = OW - xend;                                                               \
        rest.in += xend * in_x;                                                            \
        rest.out += xend;                                                                  \
        NARROW(&rest);                                                                     \
      }                                                                                    \
      return;                                                                              \
    }                                                                                      \
    if (chans) {                                                                           \
      const int64_t cend = C - C % W;                                                      \
      e.bias_j = 1;                                                                        \
      /* Pixels blocked along the rows, or along the columns when the rows are short (a    \
       * tile one column wide). */                                                         \
      const int cols = OW < 4 && OH > OW;                                                  \
      const int64_t nl = cols ? OW : OH, np = cols ? OH : OW;                              \
      const int64_t io = cols ? in_x : in_y, pi = cols ? in_y : in_x;                      \
      const int64_t oo = cols ? out_x : out_y, po = cols ? out_y : out_x;                  \
      int64_t i;                                                                           \
      if (C < W) {                                                                         \
        NARROW(p);                                                                         \
        return;                                                                            \
      }                                                                                    \
      for (i = 0; i < nl; ++i) {                                                           \
        for (c = 0; c + 2 * W <= C; c += 2 * W) IREEC_UK_DWCONV_PIXELS(VT, W, 2)           \
        for (; c < cend; c += W) IREEC_UK_DWCONV_PIXELS(VT, W, 1)                          \
      }                                                                                    \
      if (cend < C) {                                                                      \
        ireec_uk_dwconv_params_t rest = *p;                                                \
        rest.C = C - cend;                                                                 \
        rest.in += cend;                                                                   \
        if (rest.bias != NULL) rest.bias += cend * p->bias_c;                              \
        rest.w += cend;                                                                    \
        rest.out += cend;                                                                  \
        NARROW(&rest);                                                                     \
      }                                                                                    \
      return;                                                                              \
    }                                                                                      \
    ireec_uk_dwconv_scalar(p, 0, C, 0, OH, 0, OW);                                         \
  }
/* A vector of W image elements in_x apart (any stride), gathered. */
#define IREEC_UK_DWCONV_GATHER(v, s)                                                       \
  {                                                                                        \
    float g_[sizeof(v) / sizeof(float)];                                                   \
    int l_;                                                                                \
    for (l_ = 0; l_ < (int)(sizeof(v) / sizeof(float)); ++l_) g_[l_] = (s)[l_ * in_x];     \
    memcpy(&(v), g_, sizeof(v));                                                           \
  }

typedef int32_t ireec_uk_v4i __attribute__((vector_size(16)));
/* Even elements of s[0 .. 2W - 1) without reading s[2W - 1]: a = s[0 .. W), b = s[W - 1 ..
 * 2W - 1); s[2j] is a[2j] for j < W/2 and b[2j - W + 1] (lane 2j + 1 of a:b) after. */
static inline ireec_uk_v4f ireec_uk_even_v4f(const float *s) {
  ireec_uk_v4f a, b;
  memcpy(&a, s, sizeof a);
  memcpy(&b, s + 3, sizeof b);
  return IREEC_UK_SHUFFLE2(ireec_uk_v4i, a, b, 0, 2, 5, 7);
}
#define IREEC_UK_EVEN_V4F(v, s) ((v) = ireec_uk_even_v4f(s))
IREEC_UK_DWCONV(ireec_uk_dwconv_4, , ireec_uk_v4f, 4, IREEC_UK_EVEN_V4F, ireec_uk_dwconv_generic)
#endif

#if defined(IREEC_UK_X86)
typedef int32_t ireec_uk_v8i __attribute__((vector_size(32)));
typedef int32_t ireec_uk_v16i __attribute__((vector_size(64)));
__attribute__((target("avx2,fma"))) static inline ireec_uk_v8f ireec_uk_even_v8f(const float *s) {
  ireec_uk_v8f a, b;
  memcpy(&a, s, sizeof a);
  memcpy(&b, s + 7, sizeof b);
  return IREEC_UK_SHUFFLE2(ireec_uk_v8i, a, b, 0, 2, 4, 6, 9, 11, 13, 15);
}
__attribute__((target("avx512f,avx512vl,avx2,fma"))) static inline ireec_uk_v16f ireec_uk_even_v16f(const float *s) {
  ireec_uk_v16f a, b;
  memcpy(&a, s, sizeof a);
  memcpy(&b, s + 15, sizeof b);
  return IREEC_UK_SHUFFLE2(ireec_uk_v16i, a, b, 0, 2, 4, 6, 8, 10, 12, 14, 17, 19, 21, 23, 25, 27, 29, 31);
}
#define IREEC_UK_EVEN_V8F(v, s) ((v) = ireec_uk_even_v8f(s))
#define IREEC_UK_EVEN_V16F(v, s) ((v) = ireec_uk_even_v16f(s))
IREEC_UK_DWCONV(ireec_uk_dwconv_8, __attribute__((target("avx2,fma"))), ireec_uk_v8f, 8, IREEC_UK_EVEN_V8F,
                ireec_uk_dwconv_4)
/* Every AVX-512 CPU has AVX2 and FMA: its narrow rows take the AVX2 kernel. */
IREEC_UK_DWCONV(ireec_uk_dwconv_16, __attribute__((target("avx512f,avx512vl,avx2,fma"))), ireec_uk_v16f, 16,
                IREEC_UK_EVEN_V16F, ireec_uk_dwconv_8)
#endif

/* The depthwise micro-kernel for this CPU (as ireec_uk_sgemm_select chooses). */
static ireec_uk_dwconv_fn ireec_uk_dwconv_select(void) {
#if defined(IREEC_UK_X86)
#if defined(__AVX512F__)
  return ireec_uk_dwconv_16;
#elif defined(__AVX2__) && defined(__FMA__)
  return ireec_uk_dwconv_8;
#elif !defined(IREEC_NO_TARGET_CLONES)
  if (__builtin_cpu_supports("avx512f")) return ireec_uk_dwconv_16;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return ireec_uk_dwconv_8;
#endif
#endif
#if defined(IREEC_UK_VECTOR) || defined(IREEC_UK_X86)
  return ireec_uk_dwconv_4;
#else
  return ireec_uk_dwconv_generic;
#endif
}

/* ireec_uk_dwconv: see above. Sizes are elements; strides may be any value. */
IREEC_UK_DWCONV_API void ireec_uk_dwconv_fused(int64_t C, int64_t OH, int64_t OW, int64_t KH,
                                         int64_t KW, const float *in, int64_t in_c, int64_t in_y,
                                         int64_t in_x, int64_t in_ty, int64_t in_tx,
                                         const float *w, int64_t w_c, int64_t w_ty, int64_t w_tx,
                                         float *out, int64_t out_c, int64_t out_y, int64_t out_x,
                                         int flags, const float *bias, int64_t bias_c, float lo,
                                         float hi) {
  ireec_uk_dwconv_params_t p;
  if (C <= 0 || OH <= 0 || OW <= 0) return;
  p.C = C; p.OH = OH; p.OW = OW; p.KH = KH; p.KW = KW;
  p.in = in; p.in_c = in_c; p.in_y = in_y; p.in_x = in_x; p.in_ty = in_ty; p.in_tx = in_tx;
  p.w = w; p.w_c = w_c; p.w_ty = w_ty; p.w_tx = w_tx;
  p.out = out; p.out_c = out_c; p.out_y = out_y; p.out_x = out_x;
  p.flags = flags; p.bias = bias; p.bias_c = bias_c; p.lo = lo; p.hi = hi;
  ireec_uk_dwconv_select()(&p);
}
#endif /* IREEC_UKERNEL_PREBUILT */

/* ireec_uk_dwconv_fused accumulating onto out, without an epilogue. */
static inline void ireec_uk_dwconv(int64_t C, int64_t OH, int64_t OW, int64_t KH, int64_t KW,
                                   const float *in, int64_t in_c, int64_t in_y, int64_t in_x,
                                   int64_t in_ty, int64_t in_tx, const float *w, int64_t w_c,
                                   int64_t w_ty, int64_t w_tx, float *out, int64_t out_c,
                                   int64_t out_y, int64_t out_x) {
  ireec_uk_dwconv_fused(C, OH, OW, KH, KW, in, in_c, in_y, in_x, in_ty, in_tx, w, w_c, w_ty, w_tx,
                        out, out_c, out_y, out_x, IREEC_UK_FLAG_ACCUMULATE, NULL, 0, 0.0f, 0.0f);
}

#endif /* IREEC_UKERNEL_H_ */

/* ireec_ukernel_common.h — what the CPU micro-kernel families (ireec_ukernel_sgemm.h,
 * ireec_ukernel_dwconv.h, ireec_ukernel_igemm.h) share: the vector-extension detection, how their entry points are
 * compiled (inline or prebuilt), the epilogue flags and struct, and the epilogue code on
 * scalars and on vectors. Plain C99 with GCC/Clang vector extensions behind a scalar
 * fallback; included through ireec_ukernel.h, which every module that calls a micro-kernel
 * ships and includes. */
#ifndef IREEC_UKERNEL_COMMON_H_
#define IREEC_UKERNEL_COMMON_H_

#include <stdint.h>
#include <string.h>

#if defined(__GNUC__) && (defined(__SSE2__) || defined(__ARM_NEON) || defined(__ALTIVEC__) \
                          || defined(__riscv_vector))
#define IREEC_UK_VECTOR 1
#endif
#if defined(__GNUC__) && defined(__x86_64__)                                               \
    && ((!defined(__clang__) && __GNUC__ >= 6) || (defined(__clang__) && __clang_major__ >= 7))
#define IREEC_UK_X86 1
#endif

/* The vector extensions the f32 micro-kernels use on this CPU: 2 AVX-512, 1 AVX2 + FMA, 0
 * neither (their 4-lane or scalar kernels). Fixed at compile time when the compiler targets
 * them (-march: __AVX512F__, or __AVX2__ and __FMA__), else asked at run time
 * (__builtin_cpu_supports) unless IREEC_NO_TARGET_CLONES is defined; 0 off x86-64. Each
 * family's select (sgemm, dwconv, conv) maps it to its own kernels. */
static inline int ireec_uk_cpu_level(void) {
#if defined(IREEC_UK_X86)
#if defined(__AVX512F__)
  return 2;
#elif !defined(IREEC_NO_TARGET_CLONES)
  if (__builtin_cpu_supports("avx512f")) return 2;
#if defined(__AVX2__) && defined(__FMA__)
  return 1;
#else
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? 1 : 0;
#endif
#elif defined(__AVX2__) && defined(__FMA__)
  return 1;
#endif
#endif
  return 0;
}

/* How the entry points, ireec_uk_sgemm_fused, ireec_uk_dwconv_fused and ireec_uk_igemm, are
 * compiled: by default `static inline`, the family in the file that includes this header (what
 * generated sources do, so they stand alone). `ireec build` compiles each family once per
 * compiler and flags into an object of its own (IREEC_UKERNEL_LIBRARY_SGEMM, _DWCONV or
 * _IGEMM: that entry point is defined with external, hidden linkage) and has the kernels
 * include only the declarations (IREEC_UKERNEL_PREBUILT), as IREE links its prebuilt
 * micro-kernel bitcode: a family takes seconds to compile at -O3 (hand-vectorized tiles for
 * three ISAs), a module's own kernels a fraction of that. */
#if defined(__GNUC__) && !defined(_WIN32)
#define IREEC_UK_EXTERN __attribute__((visibility("hidden")))
#else
#define IREEC_UK_EXTERN
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


#if !defined(IREEC_UKERNEL_PREBUILT)
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

#if defined(IREEC_UK_VECTOR) || defined(IREEC_UK_X86)
/* The float vectors of the kernels: 4 lanes (SSE, NEON...), 8 (AVX2), 16 (AVX-512). */
typedef float ireec_uk_v4f __attribute__((vector_size(16)));
/* IREEC_UK_UNROLL: the loop after it unrolled completely (its trip count a constant). The
 * register tiles' loops over their accumulators: otherwise GCC 12 leaves the larger
 * bodies (an epilogue's) rolled, keeps the accumulator array in memory and moves it into
 * registers for the k loop only, a store and a load of every accumulator per tile: a
 * 48 x 1024 x 8 GEMM with bias and clamp 17.6 -> 15.5 us. GCC and clang both read it. */
#define IREEC_UK_UNROLL _Pragma("GCC unroll 64")
/* IREEC_UK_SPLAT(VT, W, X, S): X = S in every lane: S - (+0.0) is S itself for every S, -0.0
 * included (unlike `(VT){0} + S`, which turns -0.0 into +0.0), so it compiles to a broadcast. */
#define IREEC_UK_SPLAT(VT, W, X, S) { (X) = (S) - (VT){0}; }
/* IREEC_UK_EPILOGUE_SETUP(VT, W, EP): for epilogue EP (not NULL), the vector type of its
 * comparison masks (ep_vi) and lo, hi in every lane (ep_lo, ep_hi). */
#define IREEC_UK_EPILOGUE_SETUP(VT, W, EP)                                                 \
  typedef int32_t ep_vi __attribute__((vector_size(sizeof(VT))));                          \
  VT ep_lo, ep_hi;                                                                         \
  IREEC_UK_SPLAT(VT, W, ep_lo, (EP)->lo)                                                   \
  IREEC_UK_SPLAT(VT, W, ep_hi, (EP)->hi)
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
        IREEC_UK_UNROLL for (n_ = 0; n_ < (N); ++n_) {                                     \
          VT b_;                                                                           \
          memcpy(&b_, (BP), sizeof(VT));                                                   \
          (X)[n_] = (X)[n_] + b_;                                                          \
        }                                                                                  \
      } else {                                                                             \
        IREEC_UK_UNROLL for (n_ = 0; n_ < (N); ++n_) (X)[n_] = (X)[n_] + *(BP);            \
      }                                                                                    \
    }                                                                                      \
    if (f_ & IREEC_UK_FLAG_CLAMP_LO) {                                                     \
      /* x > lo, or with a NaN kept: !(x <= lo), true for NaNs (one compare). */           \
      if (f_ & IREEC_UK_FLAG_LO_KEEPS_NAN)                                                 \
        IREEC_UK_UNROLL for (n_ = 0; n_ < (N); ++n_) {                                     \
          const ep_vi m_ = ~(ep_vi)((X)[n_] <= ep_lo);                                     \
          (X)[n_] = (VT)(((ep_vi)(X)[n_] & m_) | ((ep_vi)ep_lo & ~m_));                    \
        }                                                                                  \
      else                                                                                 \
        IREEC_UK_UNROLL for (n_ = 0; n_ < (N); ++n_) {                                     \
          const ep_vi m_ = (ep_vi)((X)[n_] > ep_lo);                                       \
          (X)[n_] = (VT)(((ep_vi)(X)[n_] & m_) | ((ep_vi)ep_lo & ~m_));                    \
        }                                                                                  \
    }                                                                                      \
    if (f_ & IREEC_UK_FLAG_CLAMP_HI) {                                                     \
      if (f_ & IREEC_UK_FLAG_HI_REPLACES_NAN)                                              \
        IREEC_UK_UNROLL for (n_ = 0; n_ < (N); ++n_) {                                     \
          const ep_vi m_ = (ep_vi)((X)[n_] < ep_hi);                                       \
          (X)[n_] = (VT)(((ep_vi)(X)[n_] & m_) | ((ep_vi)ep_hi & ~m_));                    \
        }                                                                                  \
      else                                                                                 \
        IREEC_UK_UNROLL for (n_ = 0; n_ < (N); ++n_) {                                     \
          const ep_vi m_ = (ep_vi)(ep_hi < (X)[n_]);                                       \
          (X)[n_] = (VT)(((ep_vi)ep_hi & m_) | ((ep_vi)(X)[n_] & ~m_));                    \
        }                                                                                  \
    }                                                                                      \
  }
#endif
#if defined(IREEC_UK_X86)
typedef float ireec_uk_v8f __attribute__((vector_size(32)));
typedef float ireec_uk_v16f __attribute__((vector_size(64)));
#endif
#endif /* IREEC_UKERNEL_PREBUILT */

#endif /* IREEC_UKERNEL_COMMON_H_ */

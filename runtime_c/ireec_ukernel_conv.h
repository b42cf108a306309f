/* ireec_ukernel_conv.h — the direct convolution micro-kernel (common part:
 * ireec_ukernel_common.h; included through ireec_ukernel.h).
 *
 * ireec_uk_conv: an f32 convolution whose output pixels run along the image's rows with unit
 * stride (NCHW / FCHW, stride 1, any dilation), computed as a GEMM whose B operand is never
 * built: C[f, p] (+)= sum over k of W[f, k] * B[k, p], with B[k, p] = x[p + off(k)], the
 * image read in place. With the output rows flattened at the image's row pitch (p = i * x_y
 * + j for output row i and column j), every window tap k = (k0, k1, k2) (input channel,
 * filter row, filter column, in the filter's layout order) is one constant offset
 * off(k) = k0 * s0 + k1 * s1 + k2 * s2 from the pixel, so a register tile's B rows are
 * contiguous runs of the image: the im2col copy (K x pixels floats written and read again)
 * disappears, at the price of the x_y - OW columns between two output rows, computed and
 * dropped (2 of 22 on a 20-wide image with a 3x3 window, padded). This is the indirect
 * convolution of XNNPACK (M. Dukhan, "The Indirect Convolution Algorithm", 2019) with one
 * offset per tap instead of one pointer per pixel and tap, which the unit stride allows;
 * ONNX Runtime's MLAS computes NCHW convolutions with few channels the same way
 * (MlasConvDirect / the NCHWc "pointwise" kernels read the input rows in place).
 *
 * Measured (AVX-512, gcc 12 -O3, one thread, the dispatch alone): a ResNet 3x3 convolution
 * 12 -> 12 channels on 20x20, padded: 14.5-16 us by im2col and sgemm, 12 us here; 24 -> 24 on
 * 10x10: 16 -> 13 us; its 7x7 stride-2 stem, 3 -> 12 channels on 86x86, through the image's
 * phases (see below): 75 -> 64 us.
 *
 * The register tile is mr filters x nr flattened pixels (AVX-512: 8 x 32, AVX2+FMA: 4 x 16,
 * other vector ISAs: 4 x 8, scalars: 4 x 4), with tiles of mr/2 and one filter for the rows
 * left; each tile is computed into a stack block and its valid columns copied out (the
 * flattened pixels of one tile span several output rows). The last tile ends at the last
 * pixel, so its taps stay within the image; only an output smaller than one tile goes
 * through a zero-padded copy of its B rows. Every output
 * element sees its products in the order k = 0 .. K-1 added to its initial value (or to +0.0
 * without IREEC_UK_FLAG_ACCUMULATE), as in the plain loop nest. */
#ifndef IREEC_UKERNEL_CONV_H_
#define IREEC_UKERNEL_CONV_H_

#include "ireec_ukernel_common.h"

#if defined(IREEC_UKERNEL_PREBUILT) || defined(IREEC_UKERNEL_LIBRARY_CONV)
#define IREEC_UK_CONV_API IREEC_UK_EXTERN
#else
#define IREEC_UK_CONV_API static inline
#endif

/* ireec_uk_conv(F, OH, OW, R0, R1, R2, S0, S1, S2, s0, s1, s2, P0, P1, P2, w, w_f, x, x_y,
 *               x_end, o, o_f, o_y, flags):
 *   o[f*o_f + i*o_y + j] (+)= sum over k0 < R0, k1 < R1, k2 < R2 of
 *       w[f*w_f + (k0*R1 + k1)*R2 + k2] * x[i*x_y + j + off0(k0) + off1(k1) + off2(k2)]
 * with offd(k) = (k / Sd) * sd + (k % Sd) * Pd (Sd >= 1; Sd = 1: k * sd), for f < F, i < OH,
 * j < OW (OW <= x_y), every x index < x_end; all offsets >= 0 and, like x_end, below 2^31.
 * A convolution of stride S reads its image split into S x S phases (phase (a, b) holding the
 * pixels (S*y + a, S*x + b) at (y, x), P apart): a filter tap k along a strided dim is then
 * phase k % S, offset k / S within it, and the output's pixels are again contiguous.
 * flags: IREEC_UK_FLAG_ACCUMULATE (else o is overwritten, never read). Sizes in elements;
 * nothing is allocated (a few KiB of stack). */
#if defined(IREEC_UKERNEL_PREBUILT)
IREEC_UK_CONV_API void ireec_uk_conv(int64_t F, int64_t OH, int64_t OW, int64_t R0, int64_t R1,
                                     int64_t R2, int64_t S0, int64_t S1, int64_t S2, int64_t s0,
                                     int64_t s1, int64_t s2, int64_t P0, int64_t P1, int64_t P2,
                                     const float *w, int64_t w_f, const float *x, int64_t x_y,
                                     int64_t x_end, float *o, int64_t o_f, int64_t o_y,
                                     int flags);
#else

#if !defined(IREEC_UK_UNROLL)
#if defined(__GNUC__)
#define IREEC_UK_UNROLL _Pragma("GCC unroll 64")
#else
#define IREEC_UK_UNROLL
#endif
#endif

/* Taps per block of the offset table (a block's partial sums go through the output). */
#define IREEC_UK_CONV_KC 512
/* Taps per block of the zero-padded copy of a small output's B rows. */
#define IREEC_UK_CONV_TAIL_KC 32
#define IREEC_UK_CONV_MAX_MR 8
#define IREEC_UK_CONV_MAX_NR 32

/* A tile kernel: t[r*nr + c] = (acc ? t[r*nr + c] : 0) + sum over k < kc of
 * a[r*lda + k] * b[off[k] + c], for r < MR, c < nr. */
typedef void (*ireec_uk_conv_tile_fn)(int64_t kc, const float *a, int64_t lda, const float *b,
                                      const int32_t *off, float *t, int acc);

/* IREEC_UK_CONV_TILE(name, attributes, vector type, lanes, MR, NV): the tile kernel of an
 * MR x (NV * lanes) register tile (the vector type may be `float`, lanes 1). */
#define IREEC_UK_CONV_TILE(NAME, ATTRS, VT, W, MR, NV)                                     \
  ATTRS __attribute__((unused)) static void NAME(int64_t kc, const float *a, int64_t lda,  \
                                                 const float *b, const int32_t *off,       \
                                                 float *t, int acc) {                      \
    VT accv[MR][NV];                                                                       \
    int r, v;                                                                              \
    int64_t k;                                                                             \
    IREEC_UK_UNROLL for (r = 0; r < MR; ++r)                                               \
      IREEC_UK_UNROLL for (v = 0; v < NV; ++v) {                                           \
        if (acc) memcpy(&accv[r][v], t + (r * NV + v) * W, sizeof(VT));                    \
        else memset(&accv[r][v], 0, sizeof(VT));                                           \
      }                                                                                    \
    for (k = 0; k < kc; ++k) {                                                             \
      VT bv[NV];                                                                           \
      const float *bk = b + off[k];                                                        \
      IREEC_UK_UNROLL for (v = 0; v < NV; ++v) memcpy(&bv[v], bk + v * W, sizeof(VT));     \
      IREEC_UK_UNROLL for (r = 0; r < MR; ++r) {                                           \
        const float s = a[r * lda + k];                                                    \
        IREEC_UK_UNROLL for (v = 0; v < NV; ++v) accv[r][v] += bv[v] * s;                  \
      }                                                                                    \
    }                                                                                      \
    IREEC_UK_UNROLL for (r = 0; r < MR; ++r)                                               \
      IREEC_UK_UNROLL for (v = 0; v < NV; ++v) memcpy(t + (r * NV + v) * W, &accv[r][v], sizeof(VT)); \
  }

/* The kernels of one ISA: tiles of mr, mr/2 and 1 rows, nr pixels wide. */
typedef struct {
  int mr, nr;
  ireec_uk_conv_tile_fn tile, half, row;
} ireec_uk_conv_isa_t;

#if defined(IREEC_UK_VECTOR) || defined(IREEC_UK_X86)
IREEC_UK_CONV_TILE(ireec_uk_conv_tile_4x8, , ireec_uk_v4f, 4, 4, 2)
IREEC_UK_CONV_TILE(ireec_uk_conv_tile_2x8, , ireec_uk_v4f, 4, 2, 2)
IREEC_UK_CONV_TILE(ireec_uk_conv_tile_1x8, , ireec_uk_v4f, 4, 1, 2)
#else
IREEC_UK_CONV_TILE(ireec_uk_conv_tile_4x8, , float, 1, 4, 4)
IREEC_UK_CONV_TILE(ireec_uk_conv_tile_2x8, , float, 1, 2, 4)
IREEC_UK_CONV_TILE(ireec_uk_conv_tile_1x8, , float, 1, 1, 4)
#endif
#if defined(IREEC_UK_X86)
IREEC_UK_CONV_TILE(ireec_uk_conv_tile_4x16, __attribute__((target("avx2,fma"))), ireec_uk_v8f, 8, 4, 2)
IREEC_UK_CONV_TILE(ireec_uk_conv_tile_2x16, __attribute__((target("avx2,fma"))), ireec_uk_v8f, 8, 2, 2)
IREEC_UK_CONV_TILE(ireec_uk_conv_tile_1x16, __attribute__((target("avx2,fma"))), ireec_uk_v8f, 8, 1, 2)
IREEC_UK_CONV_TILE(ireec_uk_conv_tile_8x32, __attribute__((target("avx512f,avx512vl,avx2,fma"))),
                   ireec_uk_v16f, 16, 8, 2)
IREEC_UK_CONV_TILE(ireec_uk_conv_tile_4x32, __attribute__((target("avx512f,avx512vl,avx2,fma"))),
                   ireec_uk_v16f, 16, 4, 2)
IREEC_UK_CONV_TILE(ireec_uk_conv_tile_1x32, __attribute__((target("avx512f,avx512vl,avx2,fma"))),
                   ireec_uk_v16f, 16, 1, 2)
#endif

/* The kernels for this CPU: chosen as ireec_uk_sgemm_select chooses its own (compile time
 * under -march, else at run time unless IREEC_NO_TARGET_CLONES). */
static void ireec_uk_conv_select(ireec_uk_conv_isa_t *isa) {
#if defined(IREEC_UK_VECTOR) || defined(IREEC_UK_X86)
  isa->mr = 4; isa->nr = 8;
#else
  isa->mr = 4; isa->nr = 4;
#endif
  isa->tile = ireec_uk_conv_tile_4x8; isa->half = ireec_uk_conv_tile_2x8; isa->row = ireec_uk_conv_tile_1x8;
#if defined(IREEC_UK_X86)
  switch (ireec_uk_cpu_level()) {
    case 0:
      return;
    case 1:
      isa->mr = 4; isa->nr = 16;
      isa->tile = ireec_uk_conv_tile_4x16; isa->half = ireec_uk_conv_tile_2x16; isa->row = ireec_uk_conv_tile_1x16;
      return;
    default:
      break;
  }
  isa->mr = 8; isa->nr = 32;
  isa->tile = ireec_uk_conv_tile_8x32; isa->half = ireec_uk_conv_tile_4x32; isa->row = ireec_uk_conv_tile_1x32;
#endif
}

/* The flattened pixels [lo, hi) of tile t (h filters x nr pixels from n0) to or from o: the
 * pixels of each output row they span, columns j < OW only (to_o 0: the rest of t zeroed). */
static inline void ireec_uk_conv_copy(float *t, int nr, int64_t h, int64_t n0, int64_t lo,
                                      int64_t hi, int64_t OW, int64_t x_y, float *o, int64_t o_f,
                                      int64_t o_y, int to_o) {
  int64_t i = lo / x_y, j = lo - i * x_y, p = lo - n0, r;
  const int64_t end = hi - n0;
  if (!to_o) memset(t, 0, (size_t)(h * nr) * sizeof(float));
  while (p < end) {
    int64_t len = OW - j;
    if (len > end - p) len = end - p;
    if (len > 0)
      for (r = 0; r < h; ++r) {
        float *op = o + r * o_f + i * o_y + j, *tp = t + r * nr + p;
        int64_t c;
        /* Element loops (vectorized by the compiler), not memcpy calls of a variable size:
         * most tiles span two output rows, two short copies per row of the tile. */
        if (to_o) for (c = 0; c < len; ++c) op[c] = tp[c];
        else for (c = 0; c < len; ++c) tp[c] = op[c];
      }
    p += x_y - j;
    j = 0;
    ++i;
  }
}

IREEC_UK_CONV_API void ireec_uk_conv(int64_t F, int64_t OH, int64_t OW, int64_t R0, int64_t R1,
                                     int64_t R2, int64_t S0, int64_t S1, int64_t S2, int64_t s0,
                                     int64_t s1, int64_t s2, int64_t P0, int64_t P1, int64_t P2,
                                     const float *w, int64_t w_f, const float *x, int64_t x_y,
                                     int64_t x_end, float *o, int64_t o_f, int64_t o_y,
                                     int flags) {
  ireec_uk_conv_isa_t isa;
  int32_t off[IREEC_UK_CONV_KC];
  int32_t tail_off[IREEC_UK_CONV_TAIL_KC];
  float tail[IREEC_UK_CONV_TAIL_KC * IREEC_UK_CONV_MAX_NR];
  float t[IREEC_UK_CONV_MAX_MR * IREEC_UK_CONV_MAX_NR];
  const int64_t K = R0 * R1 * R2;
  const int64_t n_end = OH > 0 ? (OH - 1) * x_y + OW : 0; /* flattened pixels to compute */
  int64_t k0, n0, f0, kt, k, j;
  if (F <= 0 || n_end <= 0 || OW <= 0) return;
  ireec_uk_conv_select(&isa);
  for (k = 0; k < IREEC_UK_CONV_TAIL_KC; ++k) tail_off[k] = (int32_t)(k * isa.nr);
  if (K == 0) {
    if (!(flags & IREEC_UK_FLAG_ACCUMULATE))
      for (f0 = 0; f0 < F; ++f0)
        for (n0 = 0; n0 < OH; ++n0) memset(o + f0 * o_f + n0 * o_y, 0, (size_t)OW * sizeof(float));
    return;
  }
  for (k0 = 0; k0 < K; k0 += IREEC_UK_CONV_KC) {
    const int64_t kc = K - k0 < IREEC_UK_CONV_KC ? K - k0 : IREEC_UK_CONV_KC;
    const int acc = k0 > 0 || (flags & IREEC_UK_FLAG_ACCUMULATE);
    int32_t off_max = 0;
    /* The tap's index along each window dim (t) as t / S (q) and t % S (r), counted up
     * from the block's first tap: no division per tap (the prebuilt kernel sees R, S at
     * run time, where a division per tap and dim took 2 us of a 14 us convolution). */
    int64_t t0 = k0 / (R1 * R2), t1 = (k0 / R2) % R1, t2 = k0 % R2;
    int64_t q0 = t0 / S0, r0 = t0 % S0, q1 = t1 / S1, r1 = t1 % S1, q2 = t2 / S2, r2 = t2 % S2;
    for (k = 0; k < kc; ++k) {
      off[k] = (int32_t)(q0 * s0 + r0 * P0 + q1 * s1 + r1 * P1 + q2 * s2 + r2 * P2);
      if (off[k] > off_max) off_max = off[k];
      if (++r2 == S2) { r2 = 0; ++q2; }
      if (++t2 < R2) continue;
      t2 = q2 = r2 = 0;
      if (++r1 == S1) { r1 = 0; ++q1; }
      if (++t1 < R1) continue;
      t1 = q1 = r1 = 0;
      if (++r0 == S0) { r0 = 0; ++q0; }
    }
    for (n0 = 0; n0 < n_end; n0 += isa.nr) {
      const int64_t hi = n_end - n0 < isa.nr ? n_end : n0 + isa.nr;
      /* The tile's first pixel: the last tile ends at n_end (overlapping the one before it,
       * whose pixels it does not copy out) so that its taps stay below x_end; where even
       * that reads past x_end (an output smaller than a tile), a zero-padded copy. */
      const int64_t tn = hi - n0 < isa.nr && n_end >= isa.nr ? n_end - isa.nr : n0;
      const int in_place = tn + isa.nr + off_max <= x_end;
      for (f0 = 0; f0 < F;) {
        const int64_t left = F - f0;
        const int h = left >= isa.mr ? isa.mr : 2 * left >= isa.mr ? isa.mr / 2 : 1;
        const ireec_uk_conv_tile_fn tile = h == isa.mr ? isa.tile : h == 1 ? isa.row : isa.half;
        const float *a = w + f0 * w_f + k0;
        float *of = o + f0 * o_f;
        if (acc) ireec_uk_conv_copy(t, isa.nr, h, tn, n0, hi, OW, x_y, of, o_f, o_y, 0);
        if (in_place) {
          tile(kc, a, w_f, x + tn, off, t, acc);
        } else {
          for (kt = 0; kt < kc; kt += IREEC_UK_CONV_TAIL_KC) {
            const int64_t kn = kc - kt < IREEC_UK_CONV_TAIL_KC ? kc - kt : IREEC_UK_CONV_TAIL_KC;
            for (k = 0; k < kn; ++k) {
              const int64_t base = tn + off[kt + k];
              for (j = 0; j < isa.nr; ++j)
                tail[k * isa.nr + j] = base + j < x_end ? x[base + j] : 0.0f;
            }
            tile(kn, a + kt, w_f, tail, tail_off, t, acc || kt > 0);
          }
        }
        ireec_uk_conv_copy(t, isa.nr, h, tn, n0, hi, OW, x_y, of, o_f, o_y, 1);
        f0 += h;
      }
    }
  }
}

#endif /* IREEC_UKERNEL_PREBUILT */

#endif /* IREEC_UKERNEL_CONV_H_ */

/* ireec_ukernel_dwconv.h — the depthwise-convolution micro-kernel family, ireec_uk_dwconv
 * (described below; common part: ireec_ukernel_common.h; included through ireec_ukernel.h). */
#ifndef IREEC_UKERNEL_DWCONV_H_
#define IREEC_UKERNEL_DWCONV_H_

#include "ireec_ukernel_common.h"

/* ireec_uk_dwconv_fused: `static inline`, or external with IREEC_UKERNEL_PREBUILT or
 * IREEC_UKERNEL_LIBRARY_DWCONV (see ireec_ukernel_common.h). */
#if defined(IREEC_UKERNEL_PREBUILT) || defined(IREEC_UKERNEL_LIBRARY_DWCONV)
#define IREEC_UK_DWCONV_API IREEC_UK_EXTERN
#else
#define IREEC_UK_DWCONV_API static inline
#endif

#if defined(IREEC_UKERNEL_PREBUILT)
/* ireec_uk_dwconv_fused: see this header built without IREEC_UKERNEL_PREBUILT. */
IREEC_UK_DWCONV_API void ireec_uk_dwconv_fused(int64_t C, int64_t OH, int64_t OW, int64_t KH,
                                         int64_t KW, const float *in, int64_t in_c, int64_t in_y,
                                         int64_t in_x, int64_t in_ty, int64_t in_tx,
                                         const float *w, int64_t w_c, int64_t w_ty, int64_t w_tx,
                                         float *out, int64_t out_c, int64_t out_y, int64_t out_x,
                                         int flags, const float *bias, int64_t bias_c, float lo,
                                         float hi);
/* ireec_uk_dwconv_padded: see this header built without IREEC_UKERNEL_PREBUILT. */
IREEC_UK_DWCONV_API void ireec_uk_dwconv_padded(int64_t C, int64_t OH, int64_t OW, int64_t KH,
                                          int64_t KW, const float *in, int64_t in_c, int64_t in_y,
                                          int64_t in_x, int64_t in_ty, int64_t in_tx,
                                          const float *w, int64_t w_c, int64_t w_ty, int64_t w_tx,
                                          float *out, int64_t out_c, int64_t out_y, int64_t out_x,
                                          int flags, const float *bias, int64_t bias_c, float lo,
                                          float hi, int64_t IH, int64_t IW, int64_t SY, int64_t SX,
                                          int64_t DY, int64_t DX, int64_t PT, int64_t PL,
                                          int64_t row, int64_t col);
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
    /* The remainder loop starts at jq, not where the first loop left j: GCC 12 at -O2    \
     * could not bound j then and warned of j * po overflowing                             \
     * (-Waggressive-loop-optimizations, an error under -Werror). */                       \
    const int64_t jq = np - np % 4;                                                        \
    int64_t j;                                                                             \
    for (j = 0; j < jq; j += 4) IREEC_UK_DWCONV_CHANNELS(VT, W, NV, 4)                     \
    for (j = jq; j < np; ++j) IREEC_UK_DWCONV_CHANNELS(VT, W, NV, 1)                       \
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
/* The 4-lane kernel again with FMA, for the rows of four columns that the AVX2 and AVX-512
 * kernels leave (a 4x4 NCHW image): the baseline one multiplies and adds apart and clamps
 * with and/andnot/or (192 channels of a 4x4 image, 3x3 taps: 5.6-6.0 -> 5.1 us, the dispatch
 * with its padding copy, gcc 12, one thread). */
IREEC_UK_DWCONV(ireec_uk_dwconv_4v, __attribute__((target("avx2,fma"))), ireec_uk_v4f, 4, IREEC_UK_EVEN_V4F,
                ireec_uk_dwconv_generic)
IREEC_UK_DWCONV(ireec_uk_dwconv_8, __attribute__((target("avx2,fma"))), ireec_uk_v8f, 8, IREEC_UK_EVEN_V8F,
                ireec_uk_dwconv_4v)
/* Every AVX-512 CPU has AVX2 and FMA: its narrow rows take the AVX2 kernel. */
IREEC_UK_DWCONV(ireec_uk_dwconv_16, __attribute__((target("avx512f,avx512vl,avx2,fma"))), ireec_uk_v16f, 16,
                IREEC_UK_EVEN_V16F, ireec_uk_dwconv_8)
#endif

/* The depthwise micro-kernel for this CPU (as ireec_uk_sgemm_select chooses). */
static ireec_uk_dwconv_fn ireec_uk_dwconv_select(void) {
#if defined(IREEC_UK_X86)
  switch (ireec_uk_cpu_level()) {
    case 2:
      return ireec_uk_dwconv_16;
    case 1:
      return ireec_uk_dwconv_8;
    default:
      break;
  }
#endif
#if defined(IREEC_UK_VECTOR) || defined(IREEC_UK_X86)
  return ireec_uk_dwconv_4;
#else
  return ireec_uk_dwconv_generic;
#endif
}

#if defined(IREEC_UK_X86)
#include <immintrin.h>
/* dst[c * dst_c] = src[c * src_c] for the first 16 * floor(n / 16) c, one side contiguous
 * (src_c or dst_c is 1): the other side's 16 elements move by one AVX-512 gather or scatter
 * (int32 indices: the stride below 2^26 in magnitude; else nothing is moved). Returns how
 * many elements it moved. The transposes of ireec_uk_dwconv_small_image, which element by
 * element took most of its time: MobileNetV2's 480 channels of a 2x2 image, the dispatch
 * with its padding copy, 8.4 -> 5.6 us (gcc 12, one thread, the minimum of 40 rounds). */
__attribute__((target("avx512f"))) static int64_t ireec_uk_strided_copy_512(float *dst, int64_t dst_c,
                                                                         const float *src,
                                                                         int64_t src_c, int64_t n) {
  const int64_t st = src_c == 1 ? dst_c : src_c;
  int64_t c = 0;
  if ((src_c == 1 || dst_c == 1) && st > -(1 << 26) && st < (1 << 26)) {
    const __m512i idx = _mm512_mullo_epi32(
        _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
        _mm512_set1_epi32((int32_t)st));
    if (dst_c == 1)
      for (; c + 16 <= n; c += 16) _mm512_storeu_ps(dst + c, _mm512_i32gather_ps(idx, src + c * src_c, 4));
    else
      for (; c + 16 <= n; c += 16) _mm512_i32scatter_ps(dst + c * dst_c, idx, _mm512_loadu_ps(src + c), 4);
  }
  return c;
}
#endif

#if defined(IREEC_UK_VECTOR) || defined(IREEC_UK_X86)
/* Small images with the channels apart (NCHW feature maps of 2x2 .. 3x3 pixels, as the last
 * stages of a MobileNet have): rows shorter than four leave the row kernels to the scalar
 * loops (240 channels of a 2x2 output took 18.4 us), so blocks of channels are repacked
 * channels-last into one stack buffer of IREEC_UK_DWCONV_CL_FLOATS floats (each channel's
 * input span, its taps and its output tile; as many channels per block as fit, a multiple
 * of 16), computed by the channel kernel and stored back: 18.4 -> 4.6-5.7 us for those 240
 * channels (gcc 12, AVX-512, one thread, noisy machine). Taken when at least 16 channels
 * fit, every stride is non-negative and the output is at most IREEC_UK_DWCONV_CL_PIXELS
 * pixels; returns 0 (nothing done) otherwise. */
#define IREEC_UK_DWCONV_CL_FLOATS 2048
#define IREEC_UK_DWCONV_CL_PIXELS 16
/* dst[c * dst_c] = src[c * src_c] for c < n: ireec_uk_strided_copy_512 where the kernel is
 * the AVX-512 one (wide), the rest element by element. */
static void ireec_uk_dwconv_strided_copy(int wide, float *dst, int64_t dst_c, const float *src,
                                         int64_t src_c, int64_t n) {
  int64_t c = 0;
#if defined(IREEC_UK_X86)
  if (wide) c = ireec_uk_strided_copy_512(dst, dst_c, src, src_c, n);
#endif
  (void)wide;
  for (; c < n; ++c) dst[c * dst_c] = src[c * src_c];
}

static int ireec_uk_dwconv_small_image(const ireec_uk_dwconv_params_t *p, ireec_uk_dwconv_fn fn) {
  float buf[IREEC_UK_DWCONV_CL_FLOATS];
  const int64_t span = (p->OH - 1) * p->in_y + (p->OW - 1) * p->in_x + (p->KH - 1) * p->in_ty
                       + (p->KW - 1) * p->in_tx + 1;
  const int64_t taps = p->KH * p->KW, pixels = p->OH * p->OW;
  int64_t block, c0, i, ty, tx, y, x;
  int wide = 0;
  if (p->OW >= 4 || p->in_c == 1 || p->out_c == 1 || p->C < 8 || pixels > IREEC_UK_DWCONV_CL_PIXELS)
    return 0;
  if (p->in_y < 0 || p->in_x < 0 || p->in_ty < 0 || p->in_tx < 0)
    return 0;
  block = IREEC_UK_DWCONV_CL_FLOATS / (span + taps + pixels) / 16 * 16;
  if (block < 16) return 0;
#if defined(IREEC_UK_X86)
  wide = fn == ireec_uk_dwconv_16;
#endif
  for (c0 = 0; c0 < p->C; c0 += block) {
    const int64_t cb = p->C - c0 < block ? p->C - c0 : block;
    float *inb = buf, *wb = buf + span * cb, *ob = wb + taps * cb;
    ireec_uk_dwconv_params_t q = *p;
    /* Channels innermost: the buffer is written in order, the sources read a few lines at a
     * time (channel by channel outermost took 8.4 us for 240 channels, most of the call). */
    for (i = 0; i < span; ++i)
      ireec_uk_dwconv_strided_copy(wide, inb + i * cb, 1, p->in + c0 * p->in_c + i, p->in_c, cb);
    for (ty = 0; ty < p->KH; ++ty)
      for (tx = 0; tx < p->KW; ++tx)
        ireec_uk_dwconv_strided_copy(wide, wb + (ty * p->KW + tx) * cb, 1,
                                     p->w + c0 * p->w_c + ty * p->w_ty + tx * p->w_tx, p->w_c, cb);
    if (p->flags & IREEC_UK_FLAG_ACCUMULATE)
      for (y = 0; y < p->OH; ++y)
        for (x = 0; x < p->OW; ++x)
          ireec_uk_dwconv_strided_copy(wide, ob + (y * p->OW + x) * cb, 1,
                                       p->out + c0 * p->out_c + y * p->out_y + x * p->out_x, p->out_c, cb);
    q.C = cb;
    q.in = inb; q.in_c = 1; q.in_y = p->in_y * cb; q.in_x = p->in_x * cb;
    q.in_ty = p->in_ty * cb; q.in_tx = p->in_tx * cb;
    q.w = wb; q.w_c = 1; q.w_ty = p->KW * cb; q.w_tx = cb;
    q.out = ob; q.out_c = 1; q.out_y = p->OW * cb; q.out_x = cb;
    if (p->bias != NULL) q.bias = p->bias + c0 * p->bias_c;
    fn(&q);
    for (y = 0; y < p->OH; ++y)
      for (x = 0; x < p->OW; ++x)
        ireec_uk_dwconv_strided_copy(wide, p->out + c0 * p->out_c + y * p->out_y + x * p->out_x, p->out_c,
                                     ob + (y * p->OW + x) * cb, 1, cb);
  }
  return 1;
}
#endif

/* The micro-kernel for this CPU on p, small channels-apart images repacked first. */
static inline void ireec_uk_dwconv_run(const ireec_uk_dwconv_params_t *p) {
  const ireec_uk_dwconv_fn fn = ireec_uk_dwconv_select();
#if defined(IREEC_UK_VECTOR) || defined(IREEC_UK_X86)
  if (p->KH > 0 && p->KW > 0 && ireec_uk_dwconv_small_image(p, fn)) return;
#endif
  fn(p);
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
  ireec_uk_dwconv_run(&p);
}

/* The taps [*lo, *hi) of a window of K taps D apart whose first tap reads image index s (it
 * may be negative) that fall inside an image dim of N elements. */
static inline void ireec_uk_dwconv_inside(int64_t s, int64_t K, int64_t D, int64_t N, int64_t *lo,
                                          int64_t *hi) {
  int64_t a = s < 0 ? (-s + D - 1) / D : 0, b = N - 1 - s < 0 ? 0 : (N - 1 - s) / D + 1;
  if (a > K) a = K;
  if (b > K) b = K;
  *lo = a;
  *hi = b < a ? a : b;
}

/* Output pixels y, x .. x + n - 1 of p (one row) with the taps [ty0, ty1) x [tx0, tx1) of the
 * window, the others outside the image (ireec_uk_dwconv_padded's geometry). */
static void ireec_uk_dwconv_part(const ireec_uk_dwconv_params_t *p, int64_t y, int64_t x, int64_t n,
                                 int64_t ty0, int64_t ty1, int64_t tx0, int64_t tx1, int64_t SY,
                                 int64_t SX, int64_t DY, int64_t DX, int64_t PT, int64_t PL,
                                 int64_t row, int64_t col) {
  ireec_uk_dwconv_params_t q = *p;
  q.OH = 1;
  q.OW = n;
  q.KH = ty1 - ty0;
  q.KW = tx1 - tx0;
  q.out = p->out + y * p->out_y + x * p->out_x;
  if (q.KH > 0 && q.KW > 0) {
    q.in = p->in + (y * SY + ty0 * DY - PT) * row + (x * SX + tx0 * DX - PL) * col;
    q.w = p->w + ty0 * p->w_ty + tx0 * p->w_tx;
  } else {
    q.KH = q.KW = 0; /* padding only: the start value and the epilogue */
  }
  ireec_uk_dwconv_run(&q);
}

/* ireec_uk_dwconv_fused over the image padded by zeros, the padding not materialized: in is the
 * unpadded image (its tile's first channel, row 0, column 0), IH x IW elements of row and col
 * elements apart; output pixel (y, x) of the tile reads at tap (ty, tx) image row
 * y * SY + ty * DY - PT, column x * SX + tx * DX - PL (PT, PL: the padding before the tile,
 * negative for a workgroup's tile that starts inside the image; in_y = SY * row, in_ty = DY * row, in_x = SX * col,
 * in_tx = DX * col, as for the fused form), and a tap outside the image adds nothing, where
 * a padding element would add +0 * w (the same sum, but for the sign of a zero sum and an
 * infinite or NaN weight). The interior pixels, whose taps are all inside, are one call of
 * the fused form on the image in place; the others are runs of a border row's interior
 * columns and single border-column pixels, each one call with the taps inside (padded
 * depthwise convolutions of channels-last images: XNNPACK reads its padding from a zero
 * buffer through the indirection buffer, this skips those taps). Nothing is allocated. */
IREEC_UK_DWCONV_API void ireec_uk_dwconv_padded(int64_t C, int64_t OH, int64_t OW, int64_t KH,
                                          int64_t KW, const float *in, int64_t in_c, int64_t in_y,
                                          int64_t in_x, int64_t in_ty, int64_t in_tx,
                                          const float *w, int64_t w_c, int64_t w_ty, int64_t w_tx,
                                          float *out, int64_t out_c, int64_t out_y, int64_t out_x,
                                          int flags, const float *bias, int64_t bias_c, float lo,
                                          float hi, int64_t IH, int64_t IW, int64_t SY, int64_t SX,
                                          int64_t DY, int64_t DX, int64_t PT, int64_t PL,
                                          int64_t row, int64_t col) {
  ireec_uk_dwconv_params_t p;
  int64_t y0, y1, x0, x1, y, x, ty0, ty1, tx0, tx1, t;
  if (C <= 0 || OH <= 0 || OW <= 0) return;
  p.C = C; p.OH = OH; p.OW = OW; p.KH = KH; p.KW = KW;
  p.in = in; p.in_c = in_c; p.in_y = in_y; p.in_x = in_x; p.in_ty = in_ty; p.in_tx = in_tx;
  p.w = w; p.w_c = w_c; p.w_ty = w_ty; p.w_tx = w_tx;
  p.out = out; p.out_c = out_c; p.out_y = out_y; p.out_x = out_x;
  p.flags = flags; p.bias = bias; p.bias_c = bias_c; p.lo = lo; p.hi = hi;
  /* The interior: rows [y0, y1), columns [x0, x1) (the first tap at or past the padding, the
   * last before the image's end). */
  y0 = PT <= 0 ? 0 : (PT + SY - 1) / SY; /* PT, PL < 0: the tile starts inside the image */
  t = IH - 1 + PT - (KH - 1) * DY;
  y1 = t < 0 ? 0 : t / SY + 1;
  x0 = PL <= 0 ? 0 : (PL + SX - 1) / SX;
  t = IW - 1 + PL - (KW - 1) * DX;
  x1 = t < 0 ? 0 : t / SX + 1;
  if (y1 > OH) y1 = OH;
  if (x1 > OW) x1 = OW;
  if (y0 > y1) y0 = y1;
  if (x0 > x1) x0 = x1;
  if (y0 < y1 && x0 < x1) {
    ireec_uk_dwconv_params_t q = p;
    q.OH = y1 - y0;
    q.OW = x1 - x0;
    q.in = in + (y0 * SY - PT) * row + (x0 * SX - PL) * col;
    q.out = out + y0 * out_y + x0 * out_x;
    ireec_uk_dwconv_run(&q);
  }
  for (y = 0; y < OH; ++y) {
    const int inner = y >= y0 && y < y1;
    ireec_uk_dwconv_inside(y * SY - PT, KH, DY, IH, &ty0, &ty1);
    if (!inner && x0 < x1)
      ireec_uk_dwconv_part(&p, y, x0, x1 - x0, ty0, ty1, 0, KW, SY, SX, DY, DX, PT, PL, row, col);
    for (x = 0; x < OW; ++x) {
      if (x == x0 && x0 < x1) {
        x = x1 - 1;
        continue;
      }
      ireec_uk_dwconv_inside(x * SX - PL, KW, DX, IW, &tx0, &tx1);
      ireec_uk_dwconv_part(&p, y, x, 1, ty0, ty1, tx0, tx1, SY, SX, DY, DX, PT, PL, row, col);
    }
  }
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

#endif /* IREEC_UKERNEL_DWCONV_H_ */

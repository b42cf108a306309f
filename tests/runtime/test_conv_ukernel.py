"""``ireec_uk_conv`` (runtime_c/ireec_ukernel_conv.h) called from C against the plain loop
nest: every filter count from 1 to 13 and 24 (register tiles of 8 / 4 rows, half tiles and
one-row kernels), 1, 3 and 130 input channels (130 x 3 x 3 = 1170 taps: two blocks of the
offset table), windows 1x1 to 3x5 with dilations 1 and 2, strides 2 and 3 through the image's
phases (windows 1x1 to 7x7, image sizes not multiples of the stride), images from smaller than one
register tile (the zero-padded copy) to several tiles per row, the image ending exactly at
its last tap (x_end, no slack), an output row stride wider than the output, and with and
without IREEC_UK_FLAG_ACCUMULATE. Compiled with ``-ffp-contract=off``, every element must
equal the sequential sum in tap order (the header's promise) and no element between the
output's rows or after them be written; on the CPU's own kernels, on AVX2 chosen at compile
time and on the baseline ones (``IREEC_NO_TARGET_CLONES``)."""
from __future__ import annotations

import platform

import pytest

from .c_harness import run_c_harness

HARNESS = r"""
#include <stdio.h>
#include <stdlib.h>
#include "ireec_ukernel.h"
static float X[1 << 17], W[1 << 15], O[1 << 16], R[1 << 16];
static int check(int F, int C, int Hp, int Wp, int KH, int KW, int d, int acc) {
  const int OH = Hp - d * (KH - 1), OW = Wp - d * (KW - 1), oy = OW + 3, of = OH * oy + 5;
  const int xn = C * Hp * Wp, total = F * of + 64;
  int f, i, j, c, kh, kw, bad = 0;
  unsigned s = (unsigned)(F * 131 + C * 17 + Hp);
  float *x = X + (1 << 17) - xn; /* the image ends at the end of the array */
  for (i = 0; i < xn; i++) { s = s * 1103515245u + 12345u; x[i] = (float)((int)(s >> 16) % 17 - 8) * 0.125f; }
  for (i = 0; i < F * C * KH * KW; i++) { s = s * 1103515245u + 12345u; W[i] = (float)((int)(s >> 16) % 13 - 6) * 0.25f; }
  for (i = 0; i < total; i++) O[i] = R[i] = (float)(i % 5) * 0.5f;
  for (f = 0; f < F; f++)
    for (i = 0; i < OH; i++)
      for (j = 0; j < OW; j++) {
        float a = acc ? R[f * of + i * oy + j] : 0.0f;
        for (c = 0; c < C; c++)
          for (kh = 0; kh < KH; kh++)
            for (kw = 0; kw < KW; kw++)
              a += W[((f * C + c) * KH + kh) * KW + kw] * x[c * Hp * Wp + (i + d * kh) * Wp + j + d * kw];
        R[f * of + i * oy + j] = a;
      }
  ireec_uk_conv(F, OH, OW, C, KH, KW, 1, 1, 1, Hp * Wp, d * Wp, d, 0, 0, 0, W, C * KH * KW, x, Wp,
                xn, O, of, oy, acc ? IREEC_UK_FLAG_ACCUMULATE : 0);
  for (i = 0; i < total; i++)
    if (O[i] != R[i]) {
      printf("F=%d C=%d image %dx%d window %dx%d d=%d acc=%d at %d: %g, want %g\n", F, C, Hp, Wp,
             KH, KW, d, acc, i, O[i], R[i]);
      bad = 1;
      break;
    }
  return bad;
}
/* A convolution of stride S on an H x Wd image through its S x S phases
 * (ph[c][a][b][y][x] = img[c][S*y + a][S*x + b], zero past the image). */
static int check_strided(int F, int C, int H, int Wd, int KH, int KW, int S, int acc) {
  const int OH = (H - KH) / S + 1, OW = (Wd - KW) / S + 1, Hs = (H + S - 1) / S, Ws = (Wd + S - 1) / S;
  const int oy = OW + 1, of = OH * oy + 3, pn = C * S * S * Hs * Ws, total = F * of + 64;
  int f, i, j, c, a, b, kh, kw, bad = 0;
  unsigned s = (unsigned)(F * 7 + C * 3 + H + S);
  float *img = malloc(sizeof(float) * C * H * Wd), *ph = X + (1 << 17) - pn;
  for (i = 0; i < C * H * Wd; i++) { s = s * 1103515245u + 12345u; img[i] = (float)((int)(s >> 16) % 17 - 8) * 0.125f; }
  for (i = 0; i < F * C * KH * KW; i++) { s = s * 1103515245u + 12345u; W[i] = (float)((int)(s >> 16) % 13 - 6) * 0.25f; }
  for (c = 0; c < C; c++) for (a = 0; a < S; a++) for (b = 0; b < S; b++)
    for (i = 0; i < Hs; i++) for (j = 0; j < Ws; j++)
      ph[(((c * S + a) * S + b) * Hs + i) * Ws + j] =
          S * i + a < H && S * j + b < Wd ? img[(c * H + S * i + a) * Wd + S * j + b] : 0.0f;
  for (i = 0; i < total; i++) O[i] = R[i] = (float)(i % 3) * 0.5f;
  for (f = 0; f < F; f++)
    for (i = 0; i < OH; i++)
      for (j = 0; j < OW; j++) {
        float v = acc ? R[f * of + i * oy + j] : 0.0f;
        for (c = 0; c < C; c++)
          for (kh = 0; kh < KH; kh++)
            for (kw = 0; kw < KW; kw++)
              v += W[((f * C + c) * KH + kh) * KW + kw] * img[(c * H + S * i + kh) * Wd + S * j + kw];
        R[f * of + i * oy + j] = v;
      }
  ireec_uk_conv(F, OH, OW, C, KH, KW, 1, S, S, S * S * Hs * Ws, Ws, 1, 0, S * Hs * Ws, Hs * Ws,
                W, C * KH * KW, ph, Ws, pn, O, of, oy, acc ? IREEC_UK_FLAG_ACCUMULATE : 0);
  for (i = 0; i < total; i++)
    if (O[i] != R[i]) {
      printf("strided F=%d C=%d image %dx%d window %dx%d S=%d acc=%d at %d: %g, want %g\n", F, C, H,
             Wd, KH, KW, S, acc, i, O[i], R[i]);
      bad = 1;
      break;
    }
  free(img);
  return bad;
}
int main(void) {
  static const int Fs[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 24};
  static const int Hs[][2] = {{3, 4}, {6, 7}, {12, 13}, {22, 22}, {9, 40}};
  static const int Ks[][2] = {{1, 1}, {3, 3}, {2, 3}, {3, 5}};
  long cases = 0, fails = 0;
  int fi, c, hi, ki, d, acc;
  for (fi = 0; fi < 14; fi++) for (c = 1; c <= 3; c += 2) for (hi = 0; hi < 5; hi++)
  for (ki = 0; ki < 4; ki++) for (d = 1; d <= 2; d++) for (acc = 0; acc < 2; acc++) {
    const int Hp = Hs[hi][0], Wp = Hs[hi][1], KH = Ks[ki][0], KW = Ks[ki][1];
    if (Hp - d * (KH - 1) < 1 || Wp - d * (KW - 1) < 1) continue;
    cases++;
    fails += check(Fs[fi], c, Hp, Wp, KH, KW, d, acc);
  }
  for (acc = 0; acc < 2; acc++) { /* 1170 taps: two blocks of the offset table */
    cases += 2;
    fails += check(5, 130, 7, 9, 3, 3, 1, acc) + check(13, 130, 3, 3, 3, 3, 1, acc);
  }
  for (fi = 0; fi < 14; fi += 3) for (hi = 0; hi < 5; hi++) for (acc = 0; acc < 2; acc++) {
    static const int Ss[][3] = {{7, 7, 2}, {3, 3, 2}, {1, 1, 2}, {3, 3, 3}, {2, 2, 2}};
    const int H = Hs[hi][0] + 6, Wd = Hs[hi][1] + 7;
    for (ki = 0; ki < 5; ki++) {
      cases++;
      fails += check_strided(Fs[fi], 3, H, Wd, Ss[ki][0], Ss[ki][1], Ss[ki][2], acc);
    }
  }
  printf("%ld cases, %ld failed\n", cases, fails);
  return fails != 0;
}
"""


@pytest.mark.parametrize("flags", [[], ["-mavx2", "-mfma", "-DIREEC_NO_TARGET_CLONES"],
                                   ["-DIREEC_NO_TARGET_CLONES"]], ids=["cpu", "avx2", "baseline"])
def test_direct_convolution_matches_the_sequential_sum(tmp_path, flags):
    if flags and flags[0] == "-mavx2" and platform.machine() not in ("x86_64", "AMD64"):
        pytest.skip("AVX2 is an x86-64 extension")
    run_c_harness(tmp_path, HARNESS, flags)

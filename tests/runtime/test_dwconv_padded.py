"""ireec_uk_dwconv_padded (runtime_c/ireec_ukernel_dwconv.h) against the plain loop nest on
the padded image, in C: depthwise convolutions of an image padded with zeros that the kernel
never materializes.

Every case runs the kernel on the unpadded image and the loop nest (taps in (ty, tx) order,
``-ffp-contract=off``) on a zero-padded copy, and compares every output element exactly
(``!=`` on floats: a padding tap adds +0 * w there and nothing in the kernel, the same value).
The cases cover channels-last images (the tile's channels a slice of more: in_c = 1, the
row and column strides of the whole image) and channels-apart ones (NCHW); channel counts
around the vector widths; images of 1x1 .. 7x6; windows 1x1 .. 3x5; strides 1..3; dilations 1
and 2; low and high padding from none to wider than the window (outputs whose every tap is
padding); accumulating, starting from zero, or from a bias with a clamp. Guard elements around
the output must stay untouched. Built for the CPU's own kernels and for the baseline ones.
"""
from __future__ import annotations

import platform

import pytest

from tests.runtime.c_harness import run_c_harness

HARNESS = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ireec_ukernel.h"

static unsigned seed = 12345u;
static float rnd(void) {
  seed = seed * 1103515245u + 12345u;
  return (float)((int)((seed >> 8) % 2001u) - 1000) / 256.0f;
}

#define GUARD 16
static float img[4096], pad[16384], wts[1024], bias[64];
static float out[2 * GUARD + 16384], ref[2 * GUARD + 16384], snap[2 * GUARD + 16384];

/* One case: Ct channels in the image, the tile's C of them from channel c0; NHWC when nhwc. */
static int run_case(int nhwc, int Ct, int c0, int C, int IH, int IW, int KH, int KW, int SY,
                    int SX, int DY, int DX, int PT, int PB, int PL, int PR, int mode, int tiled) {
  const int PH = IH + PT + PB, PW = IW + PL + PR;
  const int OH = (PH - (KH - 1) * DY - 1) / SY + 1, OW = (PW - (KW - 1) * DX - 1) / SX + 1;
  int c, y, x, ty, tx, bad = 0;
  long i;
  /* element strides: image [c, y, x] / padded [c, y, x], filter [ty, tx, c], output [c, y, x] */
  const long ic = nhwc ? 1 : (long)IH * IW, iy = nhwc ? (long)IW * Ct : IW, ix = nhwc ? Ct : 1;
  const long pc = nhwc ? 1 : (long)PH * PW, py = nhwc ? (long)PW * Ct : PW, px = nhwc ? Ct : 1;
  const long oc = nhwc ? 1 : (long)OH * OW, oy = nhwc ? (long)OW * C : OW, ox = nhwc ? C : 1;
  const int flags = mode == 0 ? IREEC_UK_FLAG_ACCUMULATE
                    : mode == 1 ? 0
                    : IREEC_UK_FLAG_BIAS_INIT | IREEC_UK_FLAG_BIAS | IREEC_UK_FLAG_CLAMP_LO | IREEC_UK_FLAG_CLAMP_HI;
  if (PH - (KH - 1) * DY - 1 < 0 || PW - (KW - 1) * DX - 1 < 0) return -1; /* no output */
  for (i = 0; i < (long)Ct * IH * IW; ++i) img[i] = rnd();
  for (i = 0; i < (long)KH * KW * C; ++i) wts[i] = rnd();
  for (i = 0; i < C; ++i) bias[i] = rnd();
  for (i = 0; i < (long)Ct * PH * PW; ++i) pad[i] = 0.0f;
  for (c = 0; c < Ct; ++c)
    for (y = 0; y < IH; ++y)
      for (x = 0; x < IW; ++x) pad[c * pc + (y + PT) * py + (x + PL) * px] = img[c * ic + y * iy + x * ix];
  for (i = 0; i < 2 * GUARD + (long)C * OH * OW; ++i) out[i] = ref[i] = rnd();
  for (c = 0; c < C; ++c)
    for (y = 0; y < OH; ++y)
      for (x = 0; x < OW; ++x) {
        float *r = ref + GUARD + c * oc + y * oy + x * ox;
        float acc = mode == 0 ? *r : mode == 1 ? 0.0f : bias[c];
        for (ty = 0; ty < KH; ++ty)
          for (tx = 0; tx < KW; ++tx)
            acc += pad[(c0 + c) * pc + (y * SY + ty * DY) * py + (x * SX + tx * DX) * px] *
                   wts[(ty * KW + tx) * C + c];
        if (mode == 2) {
          acc += bias[c];
          acc = acc < -1.0f ? -1.0f : acc;
          acc = acc > 6.0f ? 6.0f : acc;
        }
        *r = acc;
      }
  /* The whole output in one call, or in workgroup tiles of TH x TW pixels, each with the
   * padding before it (negative inside the image). */
  {
    const int TH = tiled ? 2 : OH, TW = tiled ? 3 : OW;
    int y0, x0;
    const long n = 2 * GUARD + (long)C * OH * OW;
    for (y0 = 0; y0 < OH; y0 += TH)
      for (x0 = 0; x0 < OW; x0 += TW) {
        const int th = OH - y0 < TH ? OH - y0 : TH, tw = OW - x0 < TW ? OW - x0 : TW;
        memcpy(snap, out, n * sizeof(float));
        ireec_uk_dwconv_padded(C, th, tw, KH, KW, img + c0 * ic, ic, SY * iy, SX * ix, DY * iy, DX * ix, wts, 1,
                               (long)KW * C, C, out + GUARD + y0 * oy + x0 * ox, oc, oy, ox, flags, bias, 1, -1.0f,
                               6.0f, IH, IW, SY, SX, DY, DX, PT - y0 * SY, PL - x0 * SX, iy, ix);
        /* nothing outside the tile written */
        for (c = 0; c < C; ++c)
          for (y = 0; y < OH; ++y)
            for (x = 0; x < OW; ++x)
              if (y >= y0 && y < y0 + th && x >= x0 && x < x0 + tw)
                snap[GUARD + c * oc + y * oy + x * ox] = out[GUARD + c * oc + y * oy + x * ox];
        if (memcmp(snap, out, n * sizeof(float)) != 0 && bad++ < 1)
          printf("tile %d,%d wrote outside itself\n", y0, x0);
      }
  }
  for (i = 0; i < 2 * GUARD + (long)C * OH * OW; ++i)
    if (out[i] != ref[i]) {
      if (bad++ < 1)
        printf("mismatch nhwc=%d Ct=%d c0=%d C=%d %dx%d k%dx%d s%d,%d d%d,%d pad %d,%d,%d,%d mode %d tiled %d at %ld: %g vs %g\n",
               nhwc, Ct, c0, C, IH, IW, KH, KW, SY, SX, DY, DX, PT, PB, PL, PR, mode, tiled, i, out[i], ref[i]);
    }
  return bad != 0;
}

int main(void) {
  static const int chans[][3] = {{1, 0, 1}, {5, 0, 5}, {16, 0, 16}, {40, 8, 19}, {48, 16, 32}};
  static const int sizes[][2] = {{1, 1}, {2, 2}, {3, 4}, {5, 5}, {7, 6}};
  static const int windows[][2] = {{1, 1}, {3, 3}, {2, 3}, {3, 5}};
  int cases = 0, failed = 0, skipped = 0, nhwc, a, b, k, s, d, p, mode, r;
  for (nhwc = 0; nhwc < 2; ++nhwc)
    for (a = 0; a < 5; ++a)
      for (b = 0; b < 5; ++b)
        for (k = 0; k < 4; ++k)
          for (s = 1; s <= 3; ++s)
            for (d = 1; d <= 2; ++d)
              for (p = 0; p < 5; ++p) {
                /* low / high padding: none, one, the window's reach, asymmetric, past it */
                static const int pads[][4] = {{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {1, 0, 2, 1}, {4, 3, 5, 4}};
                mode = (a + b + k + s + d + p) % 3;
                r = run_case(nhwc, chans[a][0], chans[a][1], chans[a][2], sizes[b][0], sizes[b][1],
                                   windows[k][0], windows[k][1], s, (s % 3) + 1, d, 3 - d, pads[p][0],
                                   pads[p][1], pads[p][2], pads[p][3], mode, (a + k + p) % 2);
                if (r < 0) skipped++;
                else cases++, failed += r;
              }
  printf("%d cases (%d shapes without output left out), %d failed\n", cases, skipped, failed);
  return failed != 0;
}
"""


@pytest.mark.parametrize("flags", [[], ["-mavx2", "-mfma", "-DIREEC_NO_TARGET_CLONES"],
                                   ["-DIREEC_NO_TARGET_CLONES"]], ids=["cpu", "avx2", "baseline"])
def test_padded_dwconv_matches_the_padded_loop_nest(tmp_path, flags):
    if flags and flags[0] == "-mavx2" and platform.machine() not in ("x86_64", "AMD64"):
        pytest.skip("AVX2 is an x86-64 extension")
    out = run_c_harness(tmp_path, HARNESS, flags)
    assert "4560 cases (1440 shapes without output left out), 0 failed" in out, out

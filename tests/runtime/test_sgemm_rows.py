"""``ireec_uk_sgemm_fused`` (runtime_c/ireec_ukernel_sgemm.h) called from C on every row
count from 1 to 64 (register tiles, the kernels of exactly r rows and the taller tiles that
take a block's last rows, short tiles, one-row kernels), column counts that take the full,
half- and quarter-width kernels and the zero-padded edge, small and large blocking, A and B
plain or transposed, and each start and epilogue (zero, accumulate, bias added with
relu6, bias start with relu): compiled with ``-ffp-contract=off``, every element must equal
the sequential sum in k order (the header's promise) and nothing past C be written, on the CPU's own kernels and on the
baseline ones (``IREEC_NO_TARGET_CLONES``)."""
from __future__ import annotations

import pytest

from .c_harness import run_c_harness

HARNESS = r"""
#include <stdio.h>
#include <stdint.h>
#include "ireec_ukernel.h"
static float A[64 * 300], B[300 * 200], C[64 * 200], R[64 * 200], W[1 << 20], bias[256];
int main(void) {
  long fails = 0, cases = 0;
  int i, j, k, mi, ni, ki, mode, blk, ta;
  unsigned s = 1;
  for (i = 0; i < 64 * 300; i++) { s = s * 1103515245u + 12345u; A[i] = (float)((int)(s >> 16) % 17 - 8) * 0.125f; }
  for (i = 0; i < 300 * 200; i++) { s = s * 1103515245u + 12345u; B[i] = (float)((int)(s >> 16) % 13 - 6) * 0.25f; }
  for (i = 0; i < 256; i++) bias[i] = (float)(i % 9 - 4) * 0.5f;
  {
    static const int Ns[] = {1, 5, 8, 12, 16, 17, 24, 32, 40, 48, 96, 130};
    static const int Ks[] = {1, 7, 129, 300};
    for (mi = 1; mi <= 64; mi++) for (ni = 0; ni < 12; ni++) for (ki = 0; ki < 4; ki++)
    for (mode = 0; mode < 4; mode++) for (blk = 0; blk < 2; blk++) for (ta = 0; ta < 2; ta++) {
      const int M = mi, N = Ns[ni], K = Ks[ki];
      const int flags = mode == 0 ? 0 : mode == 1 ? IREEC_UK_FLAG_ACCUMULATE
                        : mode == 2 ? (IREEC_UK_FLAG_BIAS | IREEC_UK_FLAG_CLAMP_LO | IREEC_UK_FLAG_CLAMP_HI)
                        : (IREEC_UK_FLAG_BIAS_INIT | IREEC_UK_FLAG_CLAMP_LO);
      const int64_t bias_i = mode == 3 ? 1 : 0, bias_j = mode == 3 ? 0 : 1;
      if ((ki == 3 || ni == 11) && (mi % 7 != 1 || mode != 2)) continue; /* fewer long cases */
      for (i = 0; i < M * N; i++) C[i] = R[i] = (float)(i % 5) * 0.5f;
      for (i = M * N; i < 64 * 200; i++) C[i] = -99.0f; /* nothing past C may be written */
      for (i = 0; i < M; i++)
        for (j = 0; j < N; j++) {
          float acc = (flags & IREEC_UK_FLAG_ACCUMULATE) ? R[i * N + j]
                      : (flags & IREEC_UK_FLAG_BIAS_INIT) ? bias[i * bias_i + j * bias_j] : 0.0f;
          for (k = 0; k < K; k++) acc += (ta ? A[k * M + i] : A[i * K + k]) * (ta ? B[j * K + k] : B[k * N + j]);
          if (mode == 2) { acc += bias[i * bias_i + j * bias_j]; acc = acc < 0 ? 0 : acc; acc = acc > 6 ? 6 : acc; }
          if (mode == 3) acc = acc < 0 ? 0 : acc;
          R[i * N + j] = acc;
        }
      ireec_uk_sgemm_fused(M, N, K, A, ta ? 1 : K, ta ? M : 1, B, ta ? 1 : N, ta ? K : 1, C, N,
                           blk ? 8 : 256, blk ? 32 : 256, blk ? 64 : 256, W, flags, bias, bias_i, bias_j,
                           0.0f, 6.0f);
      cases++;
      for (i = 0; i < 64 * 200; i++)
        if (i < M * N ? C[i] != R[i] : C[i] != -99.0f) {
          if (fails < 5) printf("M=%d N=%d K=%d mode=%d blk=%d ta=%d at (%d, %d): %g, want %g\n",
                                M, N, K, mode, blk, ta, i / N, i % N, C[i], i < M * N ? R[i] : -99.0f);
          fails++;
          break;
        }
    }
  }
  printf("%ld cases, %ld failed\n", cases, fails);
  return fails != 0;
}
"""


@pytest.mark.parametrize("defines", [[], ["-DIREEC_NO_TARGET_CLONES"]], ids=["cpu", "baseline"])
def test_every_row_count_matches_the_sequential_sum(tmp_path, defines):
    run_c_harness(tmp_path, HARNESS, defines)

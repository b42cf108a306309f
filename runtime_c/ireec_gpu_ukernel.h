/* ireec_gpu_ukernel.h -- GPU micro-kernels (IREE's ukernel idea) of the cuda target:
 * device functions the generated kernels call with their pointers, sizes and strides, every
 * thread of the block together (ireec_gpu_matmul_<type>, called by the kernels the pass
 * iree-codegen-gpu-lower-to-ukernels writes).
 *
 * Copied next to every module the cuda target generates and included by ireec_runtime.h
 * under nvcc (__CUDACC__) or the CPU emulation of the tests (IREEC_CUDA_EMULATION); the
 * other targets' outputs neither ship nor include it. CUDA C++ only: it uses the f16/bf16
 * conversions of ireec_runtime.h.
 */
#ifndef IREEC_GPU_UKERNEL_H_
#define IREEC_GPU_UKERNEL_H_

#include "ireec_runtime.h"

#if defined(__CUDACC__) || defined(IREEC_CUDA_EMULATION)
/* Shared-memory tiles of ireec_gpu_matmul_f32: K-slabs of 8, M/N tiles of 128, rows
 * padded to 132 floats so the transposing stores hit distinct banks (and float4 reads
 * stay 16-byte aligned). */
#define IREEC_GPU_MM_BK 8
#define IREEC_GPU_MM_BT 128
#define IREEC_GPU_MM_PAD 132

/* Element traits of the matmul micro-kernel: the storage type of A, B and C and its
 * conversions to and from the f32 the products are accumulated in. */
struct ireec_gpu_f32_traits {
  typedef float storage_t;
  static __device__ __forceinline__ float load(float x) { return x; }
  static __device__ __forceinline__ float store(float x) { return x; }
};
struct ireec_gpu_f16_traits {
  typedef uint16_t storage_t;
  static __device__ __forceinline__ float load(uint16_t x) { return ireec_f16_to_f32(x); }
  static __device__ __forceinline__ uint16_t store(float x) { return ireec_f32_to_f16(x); }
};
struct ireec_gpu_bf16_traits {
  typedef uint16_t storage_t;
  static __device__ __forceinline__ float load(uint16_t x) { return ireec_bf16_to_f32(x); }
  static __device__ __forceinline__ uint16_t store(float x) { return ireec_f32_to_bf16(x); }
};

/* Stage one K-slab [k0, k0 + 8) of A (128 x 8 at rows m0...) and B (8 x 128 at columns
 * n0...) in registers, 4 elements per thread, zero outside the matrices. The thread ->
 * element map follows the unit-stride dimension so a warp reads contiguous memory. */
template <typename Traits>
static __device__ __forceinline__ void ireec_gpu_matmul_load(
    const typename Traits::storage_t *A, const typename Traits::storage_t *B, int64_t M, int64_t N,
    int64_t K, int64_t a_sm, int64_t a_sk, int64_t b_sk, int64_t b_sn, int64_t m0, int64_t n0,
    int64_t k0, float ra[4], float rb[4]) {
  const int t = (int)threadIdx.x;
  const bool a_m_fast = a_sm == 1 && a_sk != 1, b_k_fast = b_sk == 1 && b_sn != 1;
#pragma unroll
  for (int r = 0; r < 4; ++r) {
    const int am = a_m_fast ? t % 128 : t / 8 + 32 * r, ak = a_m_fast ? t / 128 + 2 * r : t % 8;
    const int bn = b_k_fast ? t / 8 + 32 * r : t % 128, bk = b_k_fast ? t % 8 : t / 128 + 2 * r;
    const int64_t m = m0 + am, ka = k0 + ak, n = n0 + bn, kb = k0 + bk;
    ra[r] = (m < M && ka < K) ? Traits::load(A[m * a_sm + ka * a_sk]) : 0.0f;
    rb[r] = (n < N && kb < K) ? Traits::load(B[kb * b_sk + n * b_sn]) : 0.0f;
  }
}

/* Store the staged slab into shared buffer `As`/`Bs` (k-major: As[k][m], Bs[k][n]). */
static __device__ __forceinline__ void ireec_gpu_matmul_store(
    float (*As)[IREEC_GPU_MM_PAD], float (*Bs)[IREEC_GPU_MM_PAD], int64_t a_sm, int64_t a_sk,
    int64_t b_sk, int64_t b_sn, const float ra[4], const float rb[4]) {
  const int t = (int)threadIdx.x;
  const bool a_m_fast = a_sm == 1 && a_sk != 1, b_k_fast = b_sk == 1 && b_sn != 1;
#pragma unroll
  for (int r = 0; r < 4; ++r) {
    const int am = a_m_fast ? t % 128 : t / 8 + 32 * r, ak = a_m_fast ? t / 128 + 2 * r : t % 8;
    const int bn = b_k_fast ? t / 8 + 32 * r : t % 128, bk = b_k_fast ? t % 8 : t / 128 + 2 * r;
    As[ak][am] = ra[r];
    Bs[bk][bn] = rb[r];
  }
}

/* C[m0:m0+128, n0:n0+128] = A B (+ C when `accumulate`), for row-major-or-strided
 * matrices A (M x K, element strides a_sm, a_sk), B (K x N: b_sk, b_sn), C (M x N: c_sm,
 * c_sn) of Traits::storage_t; rows and columns past M, N are skipped (partial tiles).
 * Called by all 256 threads of a block (blockDim.x == 256), the same arguments in each.
 *
 * The classic SIMT SGEMM (e.g. CUTLASS's SIMT "128x128_8x2" tile; NVIDIA's CUDA samples):
 * K-slabs of 8 of A and B are staged in shared memory as f32, double-buffered (the next
 * slab is loaded into registers while the current one is multiplied, then stored to the
 * other buffer: one __syncthreads per slab); the 16x16 threads each own an 8x8 register
 * block (rows ty*4..+3 and 64+ty*4..+3, columns alike with tx), read from shared memory as
 * float4. Each output accumulates in f32 over k in increasing order with fused
 * multiply-adds (__fmaf_rn, as cuBLAS does) and is rounded to the storage type once, so
 * results may differ from the c target's (which rounds every step as written) in the last
 * bits (f32) or by the storage type's rounding of the partial sums (f16, bf16). */
template <typename Traits>
static __device__ __forceinline__ void ireec_gpu_matmul(
    const typename Traits::storage_t *A, const typename Traits::storage_t *B,
    typename Traits::storage_t *C, int64_t M, int64_t N, int64_t K, int64_t a_sm, int64_t a_sk,
    int64_t b_sk, int64_t b_sn, int64_t c_sm, int64_t c_sn, int64_t m0, int64_t n0, int accumulate) {
  __shared__ __align__(16) float As[2][IREEC_GPU_MM_BK][IREEC_GPU_MM_PAD];
  __shared__ __align__(16) float Bs[2][IREEC_GPU_MM_BK][IREEC_GPU_MM_PAD];
  const int tx = (int)threadIdx.x % 16, ty = (int)threadIdx.x / 16;
  float acc[8][8];  /* registers: every index below is a compile-time constant */
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int64_t m = m0 + (i < 4 ? ty * 4 + i : 64 + ty * 4 + i - 4);
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      const int64_t n = n0 + (j < 4 ? tx * 4 + j : 64 + tx * 4 + j - 4);
      acc[i][j] = (accumulate && m < M && n < N) ? Traits::load(C[m * c_sm + n * c_sn]) : 0.0f;
    }
  }
  float ra[4], rb[4];
  const int64_t slabs = (K + IREEC_GPU_MM_BK - 1) / IREEC_GPU_MM_BK;
  ireec_gpu_matmul_load<Traits>(A, B, M, N, K, a_sm, a_sk, b_sk, b_sn, m0, n0, 0, ra, rb);
  ireec_gpu_matmul_store(As[0], Bs[0], a_sm, a_sk, b_sk, b_sn, ra, rb);
  __syncthreads();
  for (int64_t s = 0; s < slabs; ++s) {
    const int buf = (int)(s & 1);
    const bool more = s + 1 < slabs;
    if (more)
      ireec_gpu_matmul_load<Traits>(A, B, M, N, K, a_sm, a_sk, b_sk, b_sn, m0, n0,
                                    (s + 1) * IREEC_GPU_MM_BK, ra, rb);
#pragma unroll
    for (int kk = 0; kk < IREEC_GPU_MM_BK; ++kk) {
      const float4 a0 = *(const float4 *)&As[buf][kk][ty * 4];
      const float4 a1 = *(const float4 *)&As[buf][kk][64 + ty * 4];
      const float4 b0 = *(const float4 *)&Bs[buf][kk][tx * 4];
      const float4 b1 = *(const float4 *)&Bs[buf][kk][64 + tx * 4];
      const float a[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
      const float b[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
      for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] = __fmaf_rn(a[i], b[j], acc[i][j]);
    }
    if (more) ireec_gpu_matmul_store(As[buf ^ 1], Bs[buf ^ 1], a_sm, a_sk, b_sk, b_sn, ra, rb);
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int64_t m = m0 + (i < 4 ? ty * 4 + i : 64 + ty * 4 + i - 4);
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      const int64_t n = n0 + (j < 4 ? tx * 4 + j : 64 + tx * 4 + j - 4);
      if (m < M && n < N) C[m * c_sm + n * c_sn] = Traits::store(acc[i][j]);
    }
  }
}

/* The micro-kernels the generated kernels call, per element type (see ireec_gpu_matmul). */
#define IREEC_GPU_MATMUL_ENTRY(NAME, TRAITS)                                                     \
  static __device__ __forceinline__ void NAME(                                                    \
      const TRAITS::storage_t *A, const TRAITS::storage_t *B, TRAITS::storage_t *C, int64_t M,    \
      int64_t N, int64_t K, int64_t a_sm, int64_t a_sk, int64_t b_sk, int64_t b_sn, int64_t c_sm, \
      int64_t c_sn, int64_t m0, int64_t n0, int accumulate) {                                     \
    ireec_gpu_matmul<TRAITS>(A, B, C, M, N, K, a_sm, a_sk, b_sk, b_sn, c_sm, c_sn, m0, n0,        \
                             accumulate);                                                         \
  }
IREEC_GPU_MATMUL_ENTRY(ireec_gpu_matmul_f32, ireec_gpu_f32_traits)
IREEC_GPU_MATMUL_ENTRY(ireec_gpu_matmul_f16, ireec_gpu_f16_traits)
IREEC_GPU_MATMUL_ENTRY(ireec_gpu_matmul_bf16, ireec_gpu_bf16_traits)
#undef IREEC_GPU_MATMUL_ENTRY
#endif /* __CUDACC__ || IREEC_CUDA_EMULATION */

#endif /* IREEC_GPU_UKERNEL_H_ */

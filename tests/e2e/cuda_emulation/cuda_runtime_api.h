/* A CPU stand-in for the parts of the CUDA runtime that ireec's cuda target uses, for the
 * tests that run the generated CUDA sources without a GPU (tests/e2e/test_cuda.py): device
 * memory is host memory, copies are memcpy, a stream is a no-op handle, and a kernel launch
 * (rewritten by the test from `k<<<grid, block, shmem, stream>>>(args)` into
 * `ireec_emulate_launch(k, grid, block, args)`) runs the blocks one after the other, each on
 * blockDim OS threads that run concurrently; __syncthreads is a barrier among them. As blocks
 * run one after another, `__shared__` storage is a function-local `static` (one copy every
 * thread of the running block sees). float4 and the intrinsics the device micro-kernels of
 * ireec_runtime.h use (__fmaf_rn: fused, as on the GPU) are plain C++; warp shuffles go
 * through a per-warp exchange between two per-warp barriers. */
#ifndef IREEC_CUDA_EMULATION_H_
#define IREEC_CUDA_EMULATION_H_

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <thread>
#include <vector>

#define __global__
#define __device__
#define __host__
#define __align__(n) __attribute__((aligned(n)))
#define __shared__ static
#define __forceinline__ inline
/* ireec_runtime.h compiles its device micro-kernels for the emulation too. */
#define IREEC_CUDA_EMULATION 1

#include <math.h>

struct __attribute__((aligned(16))) float4 {
  float x, y, z, w;
};
static inline float __fmaf_rn(float a, float b, float c) { return fmaf(a, b, c); }

typedef struct ireec_emulated_stream *cudaStream_t;
typedef enum cudaError {
  cudaSuccess = 0, cudaErrorInvalidValue = 1, cudaErrorMemoryAllocation = 2,
  cudaErrorInvalidDevicePointer = 17, cudaErrorInvalidResourceHandle = 400,
  cudaErrorLaunchOutOfResources = 701, cudaErrorNoDevice = 100, cudaErrorInsufficientDriver = 35,
  cudaErrorDevicesUnavailable = 46, cudaErrorNoKernelImageForDevice = 209,
  cudaErrorUnsupportedPtxVersion = 222, cudaErrorNotSupported = 801, cudaErrorLaunchTimeout = 702
} cudaError_t;
enum cudaMemcpyKind { cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost, cudaMemcpyDeviceToDevice };
#define cudaStreamNonBlocking 1u

struct dim3 {
  unsigned x, y, z;
  dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};
static thread_local dim3 threadIdx(0, 0, 0), blockIdx(0, 0, 0);
static dim3 blockDim(1, 1, 1), gridDim(1, 1, 1);
static pthread_barrier_t ireec_emulated_barrier;

static inline void __syncthreads(void) { pthread_barrier_wait(&ireec_emulated_barrier); }

/* Warp shuffles: the lanes of a warp (32 consecutive threads) meet at their warp's barrier,
 * each publishes its value, reads its source lane's, and meets again before the slots are
 * reused. A source outside the warp (or past the block) gives the caller its own value, as
 * on the GPU. Only whole warps may call them, as with a full mask on the GPU. */
#define IREEC_EMULATED_MAX_THREADS 1024
static pthread_barrier_t ireec_emulated_warp_barriers[IREEC_EMULATED_MAX_THREADS / 32];
static unsigned char ireec_emulated_lanes[IREEC_EMULATED_MAX_THREADS][8];

template <typename T>
static inline T ireec_emulated_shuffle(T v, unsigned src_lane) {
  static_assert(sizeof(T) <= 8, "shuffled values are at most 8 bytes");
  const unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const unsigned n = blockDim.x * blockDim.y * blockDim.z;
  const unsigned warp = t / 32, src = warp * 32 + src_lane;
  memcpy(ireec_emulated_lanes[t], &v, sizeof v);
  pthread_barrier_wait(&ireec_emulated_warp_barriers[warp]);
  T r = v;
  if (src_lane < 32 && src < n) memcpy(&r, ireec_emulated_lanes[src], sizeof r);
  pthread_barrier_wait(&ireec_emulated_warp_barriers[warp]);
  return r;
}
template <typename T>
static inline T __shfl_down_sync(unsigned, T v, unsigned delta) {
  return ireec_emulated_shuffle(v, threadIdx.x % 32 + delta);
}
template <typename T>
static inline T __shfl_xor_sync(unsigned, T v, int lane_mask) {
  return ireec_emulated_shuffle(v, (threadIdx.x % 32) ^ (unsigned)lane_mask);
}

static inline cudaError_t cudaGetLastError(void) { return cudaSuccess; }
static inline cudaError_t cudaPeekAtLastError(void) { return cudaSuccess; }
static inline cudaError_t cudaMalloc(void **p, size_t n) {
  *p = aligned_alloc(256, (n + 255) / 256 * 256);
  return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}
static inline cudaError_t cudaFree(void *p) { free(p); return cudaSuccess; }
static inline cudaError_t cudaMallocAsync(void **p, size_t n, cudaStream_t) { return cudaMalloc(p, n); }
static inline cudaError_t cudaFreeAsync(void *p, cudaStream_t) { return cudaFree(p); }
static inline cudaError_t cudaMemcpyAsync(void *d, const void *s, size_t n, cudaMemcpyKind, cudaStream_t) {
  memmove(d, s, n);
  return cudaSuccess;
}
static inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned) {
  *s = (cudaStream_t)0;
  return cudaSuccess;
}
static inline cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }
static inline cudaError_t cudaStreamDestroy(cudaStream_t) { return cudaSuccess; }
template <typename T>
static inline cudaError_t cudaGetSymbolAddress(void **p, T &symbol) {
  *p = (void *)&symbol;
  return cudaSuccess;
}

template <typename... P, typename... A>
static inline void ireec_emulate_launch(void (*kernel)(P...), dim3 grid, dim3 block, A... args) {
  gridDim = grid;
  blockDim = block;
  const unsigned n = block.x * block.y * block.z;
  pthread_barrier_init(&ireec_emulated_barrier, NULL, n);
  if (n > IREEC_EMULATED_MAX_THREADS) abort();
  for (unsigned w = 0; w * 32 < n; ++w)
    pthread_barrier_init(&ireec_emulated_warp_barriers[w], NULL, n - w * 32 < 32 ? n - w * 32 : 32);
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < n; ++t) {
    threads.emplace_back([=]() {
      threadIdx = dim3(t % block.x, (t / block.x) % block.y, t / (block.x * block.y));
      for (unsigned z = 0; z < grid.z; ++z)
        for (unsigned y = 0; y < grid.y; ++y)
          for (unsigned x = 0; x < grid.x; ++x) {
            blockIdx = dim3(x, y, z);
            kernel(args...);
            __syncthreads();  /* the next block starts when every thread is done */
          }
    });
  }
  for (std::thread &th : threads) th.join();
  pthread_barrier_destroy(&ireec_emulated_barrier);
  for (unsigned w = 0; w * 32 < n; ++w) pthread_barrier_destroy(&ireec_emulated_warp_barriers[w]);
}

#endif  /* IREEC_CUDA_EMULATION_H_ */

/* A CPU stand-in for the CUDA runtime library (libcudart) that ireec's Python side opens with
 * cffi (ireec/runtime/cudart.py: device buffers and CUDA events for `ireec benchmark-module`),
 * for the tests without a GPU (tests/e2e/test_cuda.py, IREEC_CUDART=<this library>): device
 * memory is host memory, as in cuda_runtime_api.h, and work is done when the call returns,
 * so an event records the time of cudaEventRecord (CLOCK_MONOTONIC). */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int cudaError_t;
typedef void *cudaStream_t;
typedef struct ireec_emulated_event { double seconds; int recorded; } *cudaEvent_t;

enum { cudaSuccess = 0, cudaErrorInvalidValue = 1, cudaErrorMemoryAllocation = 2, cudaErrorNotReady = 600 };

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

cudaError_t cudaMalloc(void **ptr, size_t size) {
  *ptr = aligned_alloc(256, (size + 255) / 256 * 256);
  return *ptr ? cudaSuccess : cudaErrorMemoryAllocation;
}
cudaError_t cudaFree(void *ptr) { free(ptr); return cudaSuccess; }
cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, int kind) {
  (void)kind;
  memmove(dst, src, count);
  return cudaSuccess;
}
cudaError_t cudaEventCreate(cudaEvent_t *event) {
  *event = (cudaEvent_t)calloc(1, sizeof(**event));
  return *event ? cudaSuccess : cudaErrorMemoryAllocation;
}
cudaError_t cudaEventDestroy(cudaEvent_t event) { free(event); return cudaSuccess; }
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  (void)stream;
  event->seconds = now();
  event->recorded = 1;
  return cudaSuccess;
}
cudaError_t cudaEventSynchronize(cudaEvent_t event) { return event->recorded ? cudaSuccess : cudaErrorInvalidValue; }
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end) {
  if (!start->recorded || !end->recorded) return cudaErrorNotReady;
  *ms = (float)((end->seconds - start->seconds) * 1e3);
  return cudaSuccess;
}
const char *cudaGetErrorString(cudaError_t error) {
  switch (error) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorNotReady: return "device not ready";
    default: return "unknown error";
  }
}

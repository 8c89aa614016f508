// The plain CUDA files' kernels on the CPU (tests/test_plain_emulated.py): this header stands
// in for <cuda_runtime.h>. A launch runs each block's threads one after another, twice: first
// each thread up to its barrier (__syncthreads() stops it there), then each thread whole, the
// barrier passed. What a thread does before the barrier it does the same way both times, so
// the second run rewrites what the first wrote, and every thread's reads after the barrier
// see the whole block's writes. A kernel with two barriers is refused. Only the program's first
// launch runs: the later ones (warm-up and timing) would repeat it.
#pragma once

// The standard headers the plain files include, first: the macros below are not for them.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

struct dim3 {
  unsigned x, y, z;
  constexpr dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};
struct alignas(16) float4 {
  float x, y, z, w;
};

inline dim3 threadIdx, blockIdx, blockDim, gridDim;

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
// A block's shared memory: one static array, which the block's threads, run one after another,
// share. `__shared__ alignas(16) float t[N]` would read `static alignas(16) ...`, which C++
// does not allow: alignas becomes the compiler's attribute, which may stand there.
#define __shared__ static
#define alignas(n) __attribute__((aligned(n)))

struct EmulatedBarrier {};
inline int emulated_stop_at = 0;  // 1: the first barrier stops the thread; 0: it passes
inline int emulated_barriers = 0;  // the barriers the thread has passed
inline void __syncthreads() {
  if (emulated_stop_at == 1) throw EmulatedBarrier{};
  if (++emulated_barriers > 1) {
    std::fprintf(stderr, "emulated: a kernel with more than one barrier is not emulated\n");
    std::exit(5);
  }
}
[[noreturn]] inline void __trap() { std::abort(); }

inline int emulated_launches = 0;
template <class Body>
void emulated_launch(dim3 grid, dim3 block, Body body) {
  if (emulated_launches++ > 0) return;
  gridDim = grid;
  blockDim = block;
  for (unsigned bz = 0; bz < grid.z; ++bz)
    for (unsigned by = 0; by < grid.y; ++by)
      for (unsigned bx = 0; bx < grid.x; ++bx) {
        blockIdx = dim3(bx, by, bz);
        for (int stop : {1, 0}) {
          emulated_stop_at = stop;
          for (unsigned tz = 0; tz < block.z; ++tz)
            for (unsigned ty = 0; ty < block.y; ++ty)
              for (unsigned tx = 0; tx < block.x; ++tx) {
                threadIdx = dim3(tx, ty, tz);
                emulated_barriers = 0;
                try {
                  body();
                } catch (const EmulatedBarrier&) {
                }
              }
        }
      }
}

enum cudaError_t { cudaSuccess = 0 };
enum cudaMemcpyKind { cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost };
using cudaEvent_t = int;
struct cudaDeviceProp {
  int major = 9, minor = 0;
  char name[32] = "the CPU, emulated";
};
inline const char* cudaGetErrorString(cudaError_t) { return "no error"; }
template <typename T>
cudaError_t cudaMalloc(T** p, std::size_t bytes) {
  *p = static_cast<T*>(std::malloc(bytes));
  return *p ? cudaSuccess : cudaError_t(2);
}
inline cudaError_t cudaFree(void* p) {
  std::free(p);
  return cudaSuccess;
}
inline cudaError_t cudaMemcpy(void* to, const void* from, std::size_t bytes, cudaMemcpyKind) {
  std::memcpy(to, from, bytes);
  return cudaSuccess;
}
inline cudaError_t cudaMemset(void* p, int value, std::size_t bytes) {
  std::memset(p, value, bytes);
  return cudaSuccess;
}
inline cudaError_t cudaGetLastError() { return cudaSuccess; }
inline cudaError_t cudaGetDeviceCount(int* n) {
  *n = 1;
  return cudaSuccess;
}
inline cudaError_t cudaGetDevice(int* d) {
  *d = 0;
  return cudaSuccess;
}
inline cudaError_t cudaGetDeviceProperties(cudaDeviceProp* p, int) {
  *p = cudaDeviceProp{};
  return cudaSuccess;
}
inline cudaError_t cudaEventCreate(cudaEvent_t* e) {
  *e = 0;
  return cudaSuccess;
}
inline cudaError_t cudaEventRecord(cudaEvent_t, int = 0) { return cudaSuccess; }
inline cudaError_t cudaEventSynchronize(cudaEvent_t) { return cudaSuccess; }
inline cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t, cudaEvent_t) {
  *ms = 1.0f;
  return cudaSuccess;
}

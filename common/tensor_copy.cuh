/// @file tensor_copy.cuh
/// @brief Hopper's tensor memory accelerator, the device's side: the shared-memory barrier a
/// copy completes on (mbarrier), the 2D tile copy from global memory into shared memory
/// (cp.async.bulk.tensor), and the 128-byte swizzle the copy applies, as a function the host
/// can call too (the emulation and the analyser place each element where the hardware does).
///
/// The instructions exist from compute capability 9.0; for an older architecture the
/// functions compile to a trap, and the variants that use them say so (Variant::needs_sm) and
/// are not launched there.
#pragma once

#include <cuda.h>  // CUtensorMap

#include <cstdint>

#include "error.hpp"
#include "kernel.hpp"
#include "tensor_map.hpp"

namespace tt {

/// Where element (@p r, @p c) of a box whose rows are @p box_cols elements of @p elem_bytes
/// bytes (box_cols x elem_bytes = 128 bytes) lies in shared memory under the 128-byte swizzle,
/// in elements from the box's start: 16-byte chunk j of row r goes to chunk j XOR (r mod 8)
/// of the same row. The box must start on a 1024-byte boundary (kTmaSwizzleAlign).
TT_HD constexpr int swizzle128(int r, int c, int box_cols, int elem_bytes) {
  const int per_chunk = kTmaChunkBytes / elem_bytes;  // elements a 16-byte chunk: 4 or 2
  return r * box_cols + (((c / per_chunk) ^ (r & 7)) * per_chunk) + c % per_chunk;
}

namespace tma {

#ifdef __CUDACC__
/// Throws unless @p KERNEL runs the copy engine on this GPU: where the build holds no code for
/// compute capability 9.0 the driver compiles an older architecture's PTX for it, which only
/// traps. Asked once for each kernel.
template <auto KERNEL>
void require_engine_code() {
  static const bool ok = [] {
    cudaFuncAttributes a{};
    TT_CUDA_CHECK(cudaFuncGetAttributes(&a, KERNEL));
    return a.ptxVersion >= 90 || (a.ptxVersion == 0 && a.binaryVersion >= 90);
  }();
  if (!ok)
    throw CudaError(cudaErrorNoKernelImageForDevice,
                    "this build has no code for compute capability 9.0, where the copy "
                    "engine's instructions are: configure it with CMAKE_CUDA_ARCHITECTURES "
                    "including 90");
}

/// The shared-memory address (32 bits) of @p p.
__device__ inline unsigned shared_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

/// Sets up @p bar for one arrival a phase. One thread, before the block's barrier.
__device__ inline void barrier_init(std::uint64_t* bar) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(shared_address(bar)));
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
#else
  (void)bar;
  __trap();
#endif
}

/// Arrives on @p bar, saying that this phase completes when @p bytes more have landed.
__device__ inline void barrier_expect(std::uint64_t* bar, unsigned bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(shared_address(bar)),
               "r"(bytes)
               : "memory");
#else
  (void)bar, (void)bytes;
  __trap();
#endif
}

/// Waits until phase @p parity of @p bar has completed (every expected byte landed).
__device__ inline void barrier_wait(std::uint64_t* bar, unsigned parity) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile(
      "{\n"
      "  .reg .pred done;\n"
      "wait:\n"
      "  mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "  @!done bra wait;\n"
      "}" ::"r"(shared_address(bar)),
      "r"(parity)
      : "memory");
#else
  (void)bar, (void)parity;
  __trap();
#endif
}

/// Copies the box of @p map whose first element is at column @p col, row @p row of the
/// matrix into shared memory at @p dst (aligned to kTmaSwizzleAlign), completing on @p bar.
/// Elements outside the matrix arrive as zeros; the box's bytes count in full either way.
__device__ inline void load_box(void* dst, const CUtensorMap* map, int col, int row,
                                std::uint64_t* bar) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3}], [%4];" ::"r"(shared_address(dst)),
      "l"(map), "r"(col), "r"(row), "r"(shared_address(bar))
      : "memory");
#else
  (void)dst, (void)map, (void)col, (void)row, (void)bar;
  __trap();
#endif
}
/// Makes this thread's writes to shared memory visible to the copy engine (the async proxy):
/// every thread that wrote what a store_box() will read, before the barrier that precedes it.
__device__ inline void fence_for_engine() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#else
  __trap();
#endif
}

/// Copies the box at @p src in shared memory (aligned to kTmaSwizzleAlign) to the box of
/// @p map whose first element is at column @p col, row @p row; elements outside the matrix
/// are not written. The copy joins this thread's current bulk group (store_commit()).
__device__ inline void store_box(const CUtensorMap* map, int col, int row, const void* src) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile(
      "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];" ::"l"(map),
      "r"(col), "r"(row), "r"(shared_address(src))
      : "memory");
#else
  (void)map, (void)col, (void)row, (void)src;
  __trap();
#endif
}

/// Closes this thread's bulk group of store_box() copies, and waits until the engine has read
/// their shared memory (the block may then end: the writes to global memory go on).
__device__ inline void store_commit_and_wait_read() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
  asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
#else
  __trap();
#endif
}
#endif  // __CUDACC__

}  // namespace tma
}  // namespace tt
